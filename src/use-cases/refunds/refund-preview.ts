import type { Sql } from '../../db/database.ts';
import { isUuid } from '../../domain/ids.ts';
import { everythingCents, planRefund } from '../../domain/refund-allocation.ts';
import { refundSources, uncollectedInstallments } from '../../payments/refund-repository.ts';

/** What one payer gets from a refund: money paid back to their card, and what they no longer owe. */
export interface RefundShare {
  payer: 'leader' | 'pledger';
  /** The pledge whose card is paid back (a pledger's share). */
  pledgeId?: string;
  /** Paid back to the card. */
  refundCents: number;
  /** Installments not collected yet, lowered or cancelled (the leader's only). */
  uncollectedCents: number;
}

/**
 * The split, or the refusal the refund itself would answer, with what is left to refund (0:
 * nothing): `charge_disputed` when the amount needs a payment an open chargeback holds
 * (`disputedCents` of them, docs/money-operations.md#refunds-and-disputes).
 */
export type RefundPreview =
  | { kind: 'ok'; amountCents: number; shares: RefundShare[] }
  | { kind: 'invalid'; refundableCents: number }
  | { kind: 'charge_disputed'; refundableCents: number; disputedCents: number };

/**
 * How a refund of `amountCents` (everything left when absent) would be split across the payers,
 * by the same rule and the same reads as the refund itself (`planRefund` over `refundSources` and
 * `uncollectedInstallments`, src/use-cases/refunds/refund-purchase.ts): what the back office's
 * confirmation step shows before anything moves. Read without a lock: the refund, when confirmed,
 * plans again under its lock, so a refund made in between changes the split, never the rule.
 */
export async function previewRefund(db: Sql, accountId: string, purchaseId: string, amountCents?: number): Promise<RefundPreview> {
  if (!isUuid(purchaseId)) return { kind: 'invalid', refundableCents: 0 };
  const [sources, uncollected] = await Promise.all([refundSources(db, accountId, purchaseId), uncollectedInstallments(db, accountId, purchaseId)]);
  // Everything left, the payments an open chargeback holds included: refused then, as the refund would be.
  const everything = everythingCents(sources, uncollected);
  if (everything === 0) return { kind: 'invalid', refundableCents: 0 };
  const amount = amountCents ?? everything;
  const plan = planRefund(amount, sources, uncollected);
  if (!plan.ok) {
    return plan.reason === 'charge_disputed'
      ? { kind: 'charge_disputed', refundableCents: plan.refundableCents, disputedCents: plan.disputedCents }
      : { kind: 'invalid', refundableCents: plan.refundableCents };
  }
  const shares: RefundShare[] = [];
  for (const a of plan.allocations) {
    const pledgeId = a.kind === 'refund' ? a.pledgeId : undefined;
    let share = shares.find((s) => s.payer === a.payer && s.pledgeId === pledgeId);
    if (!share) shares.push((share = { payer: a.payer, ...(pledgeId ? { pledgeId } : {}), refundCents: 0, uncollectedCents: 0 }));
    if (a.kind === 'refund') share.refundCents += a.amountCents;
    else share.uncollectedCents += a.amountCents;
  }
  return { kind: 'ok', amountCents: amount, shares };
}
