import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { Database } from '../../db/database.ts';
import { formatIsoDate, isDay } from '../../domain/dates.ts';
import type { Clock } from '../../domain/clock.ts';
import { isUuid, newUuid } from '../../domain/ids.ts';
import { LEADER_PURPOSES } from '../../domain/leader-plan.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import { postJournal } from '../../payments/balance-repository.ts';
import { insertReceivedTransfer, purchaseAccountOf, receivedTransferOf, transferStanding } from '../../payments/bank-transfer-repository.ts';
import { loadPayState, setLeaderTerms } from '../../payments/pay-state-repository.ts';
import { unresolvedLeaderAttempt } from '../../payments/unresolved-payment-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';

interface ReceivedPurchase {
  accountId: string;
  purchaseId: string;
  state: PurchaseState;
  amountCents: number;
  currency: string;
  valueDate: string;
}

export type ReceiveTransferOutcome =
  /** Recorded now, the purchase validated (`already`: the same transfer was recorded before: nothing changed). */
  | { kind: 'recorded'; purchase: ReceivedPurchase; already: boolean }
  | { kind: 'not_found' }
  /** The purchase was not created in transfer mode: the money is not the operator's to collect. */
  | { kind: 'not_transfer_mode' }
  /** Not what the purchase asks for (or another amount was recorded before): nothing recorded. */
  | { kind: 'wrong_amount'; dueCents: number; currency: string; message: string }
  /** The purchase cannot be paid (already paid by card, cancelled, expired, failed), or is not a SHARED one: nothing recorded. */
  | { kind: 'not_payable'; state: PurchaseState; message: string }
  /** `valueDate` is not a day, or is in the future or before the purchase was created. */
  | { kind: 'invalid_date'; message: string }
  /** A card payment of the purchase is under way: retry once it is settled. */
  | { kind: 'in_progress'; message: string };

/**
 * The operator records a bank transfer received for a transfer-mode purchase
 * (docs/money-operations.md#payment-by-transfer, `chipin transfer received`): in one transaction under
 * the purchase's lock, the transfer is stored (once per purchase) and the purchase validated as a
 * leader's payment processed validates it (`leaderProcessed`, whose event sends the transfer-mode
 * payment notification and whose booking makes what the merchant is owed), then SUCCESSFUL, the whole
 * amount being paid; the money is booked `transfer_received:<purchase>` (Dr psp_cash, Cr
 * shopper_receivable). An amount other than the purchase's is refused, never recorded: the operator
 * sends it back or asks for the rest. Recording the same transfer again changes nothing.
 *
 * The operator's command, not a merchant's: the purchase is found by its id alone, then everything
 * is read and written under its own account.
 */
export async function receiveTransfer(
  deps: { db: Database; clock: Clock },
  input: { purchaseId: string; amountCents: number; valueDate?: string; actor: Actor },
): Promise<ReceiveTransferOutcome> {
  const { db, clock } = deps;
  const { purchaseId, amountCents } = input;
  if (!isUuid(purchaseId)) return { kind: 'not_found' };
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    return { kind: 'wrong_amount', dueCents: 0, currency: '', message: 'the amount must be a positive integer in minor units (cents)' };
  }
  const accountId = await purchaseAccountOf(db, purchaseId);
  if (accountId === undefined) return { kind: 'not_found' };

  return db.transaction(async (tx): Promise<ReceiveTransferOutcome> => {
    const locked = await loadPayState(tx, accountId, purchaseId, true);
    if (!locked) return { kind: 'not_found' };
    const standing = (await transferStanding(tx, accountId, purchaseId))!;
    if (standing.paymentMode !== 'transfer') return { kind: 'not_transfer_mode' };
    const due = locked.amountCents;
    const purchase = (valueDate: string, state: PurchaseState): ReceivedPurchase => ({ accountId, purchaseId, state, amountCents: due, currency: locked.currency, valueDate });

    const earlier = await receivedTransferOf(tx, accountId, purchaseId);
    if (earlier) {
      if (earlier.amountCents === amountCents) return { kind: 'recorded', purchase: purchase(earlier.valueDate, locked.state), already: true };
      const message = `a transfer of ${earlier.amountCents} was already recorded for this purchase on ${earlier.valueDate}: this one is not; send it back to its sender`;
      return { kind: 'wrong_amount', dueCents: due, currency: locked.currency, message };
    }
    if (locked.state !== 'CREATED') {
      const why = locked.state === 'CANCELLED' || locked.state === 'ABORTED' ? 'cancelled or expired unpaid' : locked.state === 'FAILED' ? 'failed' : 'already paid by card';
      return { kind: 'not_payable', state: locked.state, message: `the purchase is ${locked.state} (${why}): nothing recorded; send the transfer back to its sender` };
    }
    // A transfer pays the whole amount at once: only a SHARED purchase, paid by its leader alone, takes one.
    if (standing.offerType !== 'SHARED') {
      return { kind: 'not_payable', state: locked.state, message: `the purchase is of a ${standing.offerType} offer: only a SHARED purchase is paid by transfer` };
    }
    if (amountCents !== due) {
      const message = `the purchase asks for ${due} (${locked.currency} minor units), the transfer brought ${amountCents}: nothing recorded; send it back, or ask the shopper for the rest in one new transfer`;
      return { kind: 'wrong_amount', dueCents: due, currency: locked.currency, message };
    }
    // A card payment of the leader under way could capture too: the shopper would pay twice.
    if (await unresolvedLeaderAttempt(tx, accountId, purchaseId, LEADER_PURPOSES)) {
      return { kind: 'in_progress', message: 'a card payment of this purchase is under way: retry once it is settled (a few minutes)' };
    }
    const now = clock.now();
    const today = formatIsoDate(now);
    const valueDate = input.valueDate ?? today;
    if (!isDay(valueDate)) return { kind: 'invalid_date', message: `the date must be a day YYYY-MM-DD, got "${valueDate}"` };
    if (valueDate > today) return { kind: 'invalid_date', message: `the date ${valueDate} is in the future` };
    if (valueDate < formatIsoDate(locked.createdAt))
      return { kind: 'invalid_date', message: `the date ${valueDate} is before the purchase was created (${formatIsoDate(locked.createdAt)})` };

    const transferId = newUuid();
    await insertReceivedTransfer(tx, { id: transferId, accountId, purchaseId, amountCents, currency: locked.currency, valueDate }, now);
    const data = { by_transfer: true, bank_transfer_id: transferId };
    const processed = await applyMove(tx, clock, accountId, purchaseId, 'leaderProcessed', { comment: 'Paid by bank transfer.', data });
    if (!processed.ok) throw new Error(`a CREATED purchase locked could not be validated: ${JSON.stringify(processed)}`);
    await setLeaderTerms(tx, accountId, purchaseId, { leaderShareCents: due, potDeadlineAt: null, guaranteePaymentId: null }, now);
    const succeeded = await applyMove(tx, clock, accountId, purchaseId, 'succeed', { comment: 'Paid in full by bank transfer.', data });
    await postJournal(tx, {
      accountId,
      currency: locked.currency,
      journal: `transfer_received:${purchaseId}`,
      kind: 'transfer_received',
      purchaseId,
      occurredAt: now,
      legs: [
        { book: 'psp_cash', amountCents },
        { book: 'shopper_receivable', amountCents: -amountCents },
      ],
    });
    await recordAudit(tx, { accountId, actor: input.actor, action: 'transfer_received', subject: purchaseId, details: { amount_cents: amountCents, value_date: valueDate } });
    return { kind: 'recorded', purchase: purchase(valueDate, succeeded.ok ? succeeded.to : 'LEADER_PROCESSED'), already: false };
  });
}
