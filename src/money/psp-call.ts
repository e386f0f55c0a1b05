import { pspRef, resultRef, type PaymentRow } from '../payments/payment-repository.ts';
import type { AuthorizeInput, ChallengeReturn, OffSessionInput, TransactionResult } from '../psp/connector.ts';
import type { MoneyDeps } from './deps.ts';

/**
 * One PSP operation on a payment that already has its PSP transaction. Every key derives from the
 * payment's own or from the row that reserved the operation (a refund allocation), so whoever
 * runs it again (a retry, a job, another process) asks the PSP for the same operation.
 */
export type PspStep =
  | {
      op: 'refund';
      key: string;
      amountCents: number;
      /**
       * Taken up again after a crash or a fault: the PSP is asked first what it holds, since not
       * every PSP keeps our idempotency key (Ogone and Lyra have none). When it shows at least
       * this amount more refunded than the row records, the earlier call went through and is
       * not sent again. The caller sets it only when nothing else could account for the difference.
       */
      askFirst?: boolean;
    }
  | { op: 'void'; key: string }
  | { op: 'capture'; key: string; amountCents: number }
  /** The PSP's view (`returned`: what the shopper's browser brought back from 3-D Secure). */
  | { op: 'retrieve'; returned?: ChallengeReturn }
  /** The payment's own authorisation, on session: the payment row's key and amount. */
  | { op: 'authorize'; input: Omit<AuthorizeInput, 'idempotencyKey' | 'amountCents'> }
  /**
   * The payment's own charge, off session on a saved card (a merchant-initiated transaction
   * referencing the one that stored it): the payment row's key and amount.
   */
  | {
      op: 'chargeOffSession';
      paymentMethodId: string;
      currency: string;
      storedCredential: OffSessionInput['storedCredential'];
      /** `manual`: a merchant-initiated hold, captured later (a re-authorisation). */
      capture?: 'manual';
    };

/**
 * Calls the payment's connector for `step`, outside any transaction (docs/architecture.md#the-money-engine).
 * The transaction is the row's, or as `latest` (the PSP's last answer about it, not recorded yet)
 * left it. A PSP fault (unreachable, timeout, 5xx: `PspIntegrationError`) is thrown as it is: the
 * caller decides what stays pending for its follow-up.
 */
export async function callPsp(deps: Pick<MoneyDeps, 'psps' | 'logger'>, payment: PaymentRow, step: PspStep, latest?: TransactionResult): Promise<TransactionResult> {
  const psp = await deps.psps.forPayment(payment);
  if (step.op === 'chargeOffSession') {
    const { paymentMethodId, currency, storedCredential, capture } = step;
    const input = { idempotencyKey: payment.idempotency_key, paymentMethodId, amountCents: Number(payment.amount_cents), currency, storedCredential };
    return psp.chargeOffSession(capture ? { ...input, capture } : input);
  }
  if (step.op === 'authorize') return psp.authorize({ idempotencyKey: payment.idempotency_key, amountCents: Number(payment.amount_cents), ...step.input });
  const transaction = latest ? resultRef(payment, latest) : pspRef(payment);
  switch (step.op) {
    case 'retrieve':
      return step.returned ? psp.retrieve(transaction, { returned: step.returned }) : psp.retrieve(transaction);
    case 'void':
      return psp.void({ idempotencyKey: step.key, transaction });
    case 'capture':
      return psp.capture({ idempotencyKey: step.key, transaction, amountCents: step.amountCents });
    case 'refund': {
      if (step.askFirst) {
        const seen = await psp.retrieve(transaction);
        if (seen.refundedCents - Number(payment.refunded_cents) >= step.amountCents) {
          deps.logger.info({ account_id: payment.account_id, payment_id: payment.id }, 'resumed refund already applied at the PSP: recorded, not sent again');
          return seen;
        }
      }
      return psp.refund({ idempotencyKey: step.key, transaction, amountCents: step.amountCents });
    }
  }
}
