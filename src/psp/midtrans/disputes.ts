import type { NotifiedDispute } from '../connector.ts';
import type { MidtransTransaction } from './mapping.ts';

/**
 * Midtrans' chargebacks (docs/money-operations.md#disputes; docs/psp/midtrans.md lists the
 * sources). Its "Transaction Status Cycle" documents two: a settled transaction becomes
 * `chargeback` ("marked to be charged back") or `partial_chargeback` ("marked to be partially
 * charged back"), with no later status. The HTTP notification carries that `transaction_status`
 * on the transaction (`transaction_id`, `order_id`, `gross_amount`, signed by `signature_key`),
 * with no chargeback id, amount, reason or deadline.
 *
 * So a `chargeback` is a chargeback already **lost** (the money is taken), of what is left (none
 * told: the payment's captured amount less its refunds, src/use-cases/disputes/dispute.ts), keyed by the transaction
 * (`<transaction_id>-chargeback`: one dispute per transaction). A `partial_chargeback` tells no
 * amount, so it is recorded **open**: counting it lost would take the captured amount, more
 * than the bank took; staff read the amount in Midtrans' dashboard, and a later `chargeback` of
 * the same transaction ends the dispute lost. Midtrans documents no retrieval request, fraud
 * warning or chargeback won by the merchant.
 */
function chargebackDisputeId(transactionId: string): string {
  return `${transactionId}-chargeback`;
}

/** The dispute a notification reports, or undefined when its status is no chargeback. */
export function readChargeback(t: MidtransTransaction): NotifiedDispute | undefined {
  if (t.status !== 'chargeback' && t.status !== 'partial_chargeback') return undefined;
  return {
    pspDisputeId: chargebackDisputeId(t.transactionId),
    transactionId: t.transactionId,
    kind: 'chargeback',
    status: t.status === 'chargeback' ? 'lost' : 'opened',
    reason: null,
  };
}
