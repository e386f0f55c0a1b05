import type { Sql } from '../db/database.ts';
import { LEADER_PURPOSES } from '../domain/leader-plan.ts';
import { uncovered } from '../domain/pot.ts';
import { planLines } from './installment-repository.ts';
import { chargedAndHeld, chargedPayments, type CardPayment } from './payment-figures-repository.ts';
import { loadPayState } from './pay-state-repository.ts';
import { listPledges } from './pledge-repository.ts';

/** Every payment taken from the leader's card: the checkout's, later installments, the pot's rest on the saved card. */
export const LEADER_CARD_PURPOSES = [...LEADER_PURPOSES, 'installment', 'rest'] as const;

/**
 * What the leader's result page says, read from the payments rows as the receipts are: what was
 * charged, what is held and until when, what comes next.
 */
export interface LeaderResultFigures {
  /** Everything ever charged to the card for the purchase, refunds not deducted. */
  chargedCents: number;
  /** What refunds gave back to the card; charged − refunded is what the leader paid in the end. */
  refundedCents: number;
  /** Each payment that charged the card, oldest first, with what was refunded of it. */
  payments: CardPayment[];
  /** Authorised and not captured (a pot's guarantee, a deferred payment). */
  heldCents: number;
  /**
   * An open pot with friends: its deadline, and the uncovered rest — what the deadline will take
   * from the hold if friends do not pay it (each share paid lowers it).
   */
  pot?: { deadline: Date; restCents: number };
  /** Installments still to collect, in order ('yyyy-mm-dd', fees included): the 3x/4x dates, or the deferred capture. */
  upcoming: { dueDate: string; amountCents: number }[];
}

export async function leaderResultFigures(sql: Sql, accountId: string, purchaseId: string): Promise<LeaderResultFigures | undefined> {
  const state = await loadPayState(sql, accountId, purchaseId);
  if (!state) return undefined;
  // Held from the rows still authorised; charged from every row that charged the card, a partly
  // refunded one (status `refunded`) included: it was charged, and its refund is shown beside it.
  const { heldCents } = await chargedAndHeld(sql, accountId, purchaseId, LEADER_CARD_PURPOSES);
  const payments = await chargedPayments(sql, accountId, purchaseId, LEADER_CARD_PURPOSES);
  const money = {
    heldCents,
    chargedCents: payments.reduce((s, p) => s + p.chargedCents, 0),
    refundedCents: payments.reduce((s, p) => s + p.refundedCents, 0),
    payments,
  };
  const open = state.state === 'LEADER_PROCESSED';
  const upcoming = open ? (await planLines(sql, accountId, purchaseId)).filter((l) => l.state === 'scheduled').map(({ dueDate, amountCents }) => ({ dueDate, amountCents })) : [];
  let pot: LeaderResultFigures['pot'];
  if (open && state.potDeadlineAt) {
    const pledges = (await listPledges(sql, accountId, purchaseId)).filter((p) => p.state !== 'draft');
    if (pledges.length > 0) {
      const paid = pledges.filter((p) => p.state === 'paid').map((p) => p.amountCents);
      pot = { deadline: state.potDeadlineAt, restCents: uncovered(state.amountCents, state.leaderShareCents ?? 0, paid) };
    }
  }
  return { ...money, upcoming, ...(pot ? { pot } : {}) };
}
