import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import { EVENT } from '../../domain/events.ts';
import { isUuid, newUuid } from '../../domain/ids.ts';
import { givenBackCents, insertRefundTransfer, receivedTransferOf, transferStanding } from '../../payments/bank-transfer-repository.ts';
import { postJournal } from '../../payments/balance-repository.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import { writeEvent } from '../../payments/payment-repository.ts';
import { findRefund, findRefundIdByRequestKey, insertRefund, refundedSoFar, type Refund } from '../../payments/refund-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';
import type { PaymentDeps } from '../deps.ts';
import { claimPurchase, isInProgress, releaseClaim, waitForClaim, type InProgress } from '../../money/claim.ts';
import { REFUNDABLE, refundPurchase } from './refund-purchase.ts';

/** The request's name for the amount, as the original interface's route has it. */
const FIELD = 'amount_cents';

export type CreditByTransferOutcome =
  /** `byTransfer`: given back by the operator's bank transfer (the purchase was paid so), else on the cards it was paid with. */
  | { kind: 'created'; refund: Refund; byTransfer: boolean }
  /** Malformed, unknown and other accounts' purchases alike. */
  | { kind: 'not_found' }
  /** The purchase was not created in transfer mode: the merchant refunds it as any other. */
  | { kind: 'not_transfer_mode' }
  /** The amount is not a positive integer, or more than what is left to give back; the message names `amount_cents`. */
  | { kind: 'invalid'; message: string }
  /** The amount needs a payment a chargeback is open on (docs/money-operations.md#refunds-and-disputes). */
  | { kind: 'charge_disputed'; message: string }
  | InProgress;

/**
 * A refund of a transfer-mode purchase (docs/money-operations.md#refunds-by-transfer), the original
 * interface's `credit_by_transfer`: the operator gives the shopper `amountCents` back, and that is
 * deducted from what the operator owes the merchant.
 *
 * - Paid by card (on the operator's PSP account): the merchant's refund as everywhere
 *   (`refundPurchase`: its allocation over the payments, its money claim, its request key); the
 *   ledger's booking of the PSP refund deducts it from what the merchant is owed.
 * - Paid by bank transfer (there is no card to refund on): in one transaction under the purchase's
 *   lock and claim, the amount is checked against what the transfer brought less what was given
 *   back, the refund is stored with one `transfer` allocation, booked as a `credit_by_transfer`
 *   journal (Dr merchant_payable, Cr psp_cash) and put on the operator's list of transfers to
 *   send (`chipin transfer refunds`). Fully given back, the purchase is REFUNDED.
 *
 * `requestKey` (an Idempotency-Key request's identity, src/http/idempotency.ts): a refund already
 * made by the same request is answered, never made again.
 */
export async function creditByTransfer(
  deps: PaymentDeps,
  input: { accountId: string; purchaseId: string; amountCents: number; actor: Actor; requestKey?: string | undefined },
): Promise<CreditByTransferOutcome> {
  const { accountId, purchaseId, amountCents } = input;
  if (!isUuid(purchaseId)) return { kind: 'not_found' };
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) return { kind: 'invalid', message: `field ${FIELD} must be a positive integer (minor units of the currency)` };
  const standing = await transferStanding(deps.db, accountId, purchaseId);
  if (!standing) return { kind: 'not_found' };
  if (standing.paymentMode !== 'transfer') return { kind: 'not_transfer_mode' };
  if (standing.paidByTransfer) return refundByTransfer(deps, input);

  const outcome = await refundPurchase(deps, { accountId, purchaseId, amountCents, actor: input.actor, requestKey: input.requestKey, amountField: FIELD });
  switch (outcome.kind) {
    case 'created':
      return { kind: 'created', refund: outcome.refund, byTransfer: false };
    case 'invalid':
      return { kind: 'invalid', message: outcome.message };
    default:
      return outcome;
  }
}

/** The refund of a purchase paid by bank transfer, made and booked in one transaction. */
async function refundByTransfer(
  deps: PaymentDeps,
  input: { accountId: string; purchaseId: string; amountCents: number; actor: Actor; requestKey?: string | undefined },
): Promise<CreditByTransferOutcome> {
  const { db, clock } = deps;
  const { accountId, purchaseId, amountCents } = input;
  const made = await waitForClaim(deps, () =>
    db.transaction(async (tx): Promise<CreditByTransferOutcome | { refundId: string }> => {
      const locked = await loadPayState(tx, accountId, purchaseId, true);
      if (!locked) return { kind: 'not_found' };
      const earlier = input.requestKey === undefined ? undefined : await findRefundIdByRequestKey(tx, accountId, purchaseId, input.requestKey);
      if (earlier !== undefined) return { refundId: earlier };
      // Taken and given back in this transaction: nothing else moves the purchase's money meanwhile
      // (the row lock), and an operation of another process under way is waited for.
      const claim = await claimPurchase(tx, accountId, purchaseId, 'refund', { unresolvedBlocks: true });
      if (isInProgress(claim)) return claim;
      await releaseClaim(tx, claim);
      const received = await receivedTransferOf(tx, accountId, purchaseId);
      const left = received && REFUNDABLE.includes(locked.state) ? received.amountCents - (await givenBackCents(tx, accountId, purchaseId)) : 0;
      if (left <= 0) return { kind: 'invalid', message: `field ${FIELD}: nothing is left to refund on this purchase (already refunded)` };
      if (amountCents > left) return { kind: 'invalid', message: `field ${FIELD} must be at most ${left}, what is left to refund` };

      const refundId = newUuid();
      const now = clock.now();
      await insertRefund(
        tx,
        { id: refundId, accountId, purchaseId, amountCents, reason: undefined, state: 'succeeded', requestKey: input.requestKey },
        [{ kind: 'transfer', payer: 'leader', amountCents, state: 'succeeded', idempotencyKey: null }],
        now,
      );
      await insertRefundTransfer(tx, { id: newUuid(), accountId, purchaseId, refundId, amountCents, currency: locked.currency }, now);
      await postJournal(tx, {
        accountId,
        currency: locked.currency,
        journal: `credit_by_transfer:${refundId}`,
        kind: 'credit_by_transfer',
        purchaseId,
        occurredAt: now,
        legs: [
          { book: 'merchant_payable', amountCents },
          { book: 'psp_cash', amountCents: -amountCents },
        ],
      });
      await recordAudit(tx, {
        accountId,
        actor: input.actor,
        action: 'refund',
        subject: purchaseId,
        details: { refund_id: refundId, amount_cents: amountCents, by_transfer: true },
      });
      await writeEvent(
        tx,
        accountId,
        purchaseId,
        EVENT.refundMade,
        locked.state,
        { refund_id: refundId, state: 'succeeded', amount_cents: amountCents, refunded_cents: await refundedSoFar(tx, accountId, purchaseId) },
        now,
      );
      if (amountCents === left) await applyMove(tx, clock, accountId, purchaseId, 'refund');
      return { refundId };
    }),
  );
  if (!('refundId' in made)) return made;
  return { kind: 'created', refund: (await findRefund(db, accountId, made.refundId))!, byTransfer: true };
}
