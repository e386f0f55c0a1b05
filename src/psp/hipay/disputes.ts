import type { NotifiedDispute } from '../connector.ts';
import type { HipayTransaction } from './mapping.ts';

/**
 * HiPay's chargebacks (docs/money-operations.md#disputes; docs/psp/hipay.md lists the sources).
 * HiPay documents one dispute status among those its server-to-server notification sends: `129`
 * *Charged Back*, "the credit card company has then revoked the payment already captured" (the
 * appendix "Transaction statuses"; HiPay's Node SDK `CHARGED_BACK`). The notification names the
 * transaction only, with no chargeback id, amount, reason or deadline; the transaction read back
 * (`GET /rest/v1/transaction/{reference}`, Gateway `Transaction`) tells `chargebackedAmount`,
 * apart from `refundedAmount`.
 *
 * So a `129` notice is a chargeback already **lost** (the money is taken), keyed by the
 * transaction (`<reference>-chargeback`: one dispute per transaction, a second `129` on it is the
 * same dispute), its amount `chargebackedAmount` (the payment's captured amount less its refunds
 * when HiPay tells none). HiPay documents no status for a retrieval request, a fraud warning, a defence or a
 * chargeback reversed in the merchant's favour: those stay in HiPay's back office, and a
 * reversed chargeback stays lost in Chipin.
 */
export const CHARGED_BACK = 129;

function chargebackDisputeId(transactionReference: string): string {
  return `${transactionReference}-chargeback`;
}

/** The dispute a `129` notice reports, from the transaction as HiPay reads it now. */
export function toNotifiedDispute(t: HipayTransaction): NotifiedDispute {
  const dispute: NotifiedDispute = {
    pspDisputeId: chargebackDisputeId(t.transactionReference),
    transactionId: t.transactionReference,
    kind: 'chargeback',
    status: 'lost',
    reason: null,
  };
  if (t.chargebackedCents > 0) {
    dispute.amountCents = t.chargebackedCents;
    dispute.currency = t.currency;
  }
  return dispute;
}
