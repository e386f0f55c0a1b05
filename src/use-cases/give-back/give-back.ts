import { settleAlone } from '../../money/movement.ts';
import { callPsp } from '../../money/psp-call.ts';
import { PspIntegrationError, type TransactionResult } from '../../psp/connector.ts';
import { findPayment, type PaymentRow } from '../../payments/payment-repository.ts';
import type { PaymentDeps } from '../deps.ts';
import { followUp, holdsMoney } from './release-hold.ts';
import { sendGivenBackNotice } from '../notices/shopper-notices.ts';

/**
 * Money a payment took although its purpose is gone (a pledge closed by the deadline, a purchase
 * aborted or expired while its leader was paying): a pending challenge or a hold is voided, a
 * capture refunded, and the answer recorded (once). `payment` is the row as it stands: after
 * `result` was recorded on it (the leader's), or still unresolved (a pledge's, whose answer is
 * only recorded with its give-back, and with `notify: false` not announced:
 * docs/hosted-payment.md, "The pot and late payments"). The keys derive from the payment's own,
 * so whoever runs this first (the shopper's return, a job, a retry) gives back once.
 */
export async function giveBack(deps: PaymentDeps, payment: PaymentRow, result: TransactionResult, options: { notify?: boolean } = {}): Promise<void> {
  let back: TransactionResult;
  try {
    if (result.status === 'requires_action' || result.status === 'authorized') {
      back = await callPsp(deps, payment, { op: 'void', key: `${payment.idempotency_key}:void` }, result);
      // Refused: the challenge was completed in between and the money captured; refunded below.
      if (back.status !== 'voided') back = await callPsp(deps, payment, { op: 'retrieve' }, back);
    } else back = result;
    if (back.status === 'captured' && back.capturedCents - back.refundedCents > 0) {
      back = await callPsp(deps, payment, { op: 'refund', key: `${payment.idempotency_key}:refund`, amountCents: back.capturedCents - back.refundedCents }, back);
    }
  } catch (err) {
    // The PSP unreachable: a payment whose answer was recorded is followed up by the durable job
    // (an unresolved one, a pledge's, is taken up by the reconciliation job, which gives it back).
    if (err instanceof PspIntegrationError && holdsMoney(payment)) await followUp(deps, payment, `${err.code}: ${err.message}`);
    throw err;
  }
  if (back === result && payment.status === result.status) return;
  await settleAlone(deps, payment, (_tx, _locked, book) => book(payment, back, options));
  // Refused by the PSP: never only a log line; the durable follow-up tries again until it is given
  // back, and the merchant is told (docs/money-operations.md#one-money-operation-at-a-time).
  const after = await findPayment(deps.db, payment.account_id, payment.id);
  if (after && holdsMoney(after)) await followUp(deps, after, back.decline ? `${back.decline.reason}: ${back.decline.message}` : `the PSP shows the payment ${back.status}`);
  // Money that reached the card and went back: its cardholder is told, once (the notice's key),
  // whoever gave it back. A hold voided took nothing.
  const refunded = back.refundedCents - payment.refunded_cents;
  if (back.status === 'refunded' && refunded > 0) await sendGivenBackNotice(deps, payment, refunded);
}
