import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import { isUuid } from '../../domain/ids.ts';
import { findRefundTransfer, markRefundTransferSent, refundTransfersToSend, type RefundTransfer } from '../../payments/bank-transfer-repository.ts';

/**
 * The operator's work list of refunds by transfer (docs/money-operations.md#refunds-by-transfer):
 * what `credit_by_transfer` booked on purchases the shopper paid by bank transfer, to send back by
 * transfer from the operator's bank, and the record that it was sent (`chipin transfer refunds`,
 * `chipin transfer refund-sent`). The refund itself, its ledger journal and the merchant's balance
 * were settled when it was made; this only tracks the bank's side.
 */

/** Every refund by transfer still to send, oldest first, every merchant's. */
export function transfersToSend(deps: { db: Database }): Promise<RefundTransfer[]> {
  return refundTransfersToSend(deps.db);
}

export type RefundSentOutcome = { kind: 'sent'; transfer: RefundTransfer } | { kind: 'already_sent'; transfer: RefundTransfer } | { kind: 'not_found' };

/** Records a refund by transfer sent (`at`: when, default now); sent before, it stays as recorded then. */
export async function recordRefundTransferSent(deps: { db: Database; clock: Clock }, input: { refundId: string; actor: Actor; at?: Date }): Promise<RefundSentOutcome> {
  if (!isUuid(input.refundId)) return { kind: 'not_found' };
  return deps.db.transaction(async (tx): Promise<RefundSentOutcome> => {
    const transfer = await findRefundTransfer(tx, input.refundId);
    if (!transfer) return { kind: 'not_found' };
    const at = input.at ?? deps.clock.now();
    if (!(await markRefundTransferSent(tx, input.refundId, at))) return { kind: 'already_sent', transfer };
    await recordAudit(tx, {
      accountId: transfer.accountId,
      actor: input.actor,
      action: 'refund_transfer_sent',
      subject: transfer.purchaseId,
      details: { refund_id: input.refundId, amount_cents: transfer.amountCents },
    });
    return { kind: 'sent', transfer: { ...transfer, sentAt: at } };
  });
}
