import { EVENT } from '../domain/events.ts';
import type { NotificationBody } from './notification.ts';
import { notificationSignature } from './notification-signature.ts';
import { transactionOf } from './transaction.ts';

/**
 * The refusal notification sent to a purchase's `errorNotificationUrl` for every refused payment
 * attempt (docs/webhooks.md#refusal-notifications): the back-mode notification's keys and
 * signature, so that one verifier serves both. Pure.
 */

/** A refused payment attempt, as read from its event. */
export interface Refusal {
  /** The machine reason code (`card_declined`, `authentication_failed`, `risk_refused`, …): the body's signed `error`. */
  reason: string;
  /** Chipin's payment row of the attempt, when the event names one. */
  paymentId: string | undefined;
  /** The PSP's transaction id when the event carries it (a pledge's refused transaction). */
  pspTransactionId: string | undefined;
  payer: 'leader' | 'pledger';
  /** The leader's attempt number on the purchase (`payment.failed`). */
  attempt: number | undefined;
  /** A risk refusal's decision and rule codes (`CARD_PREPAID`, …). */
  risk: { decisionId: string; reasons: string[] } | undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A reason code out of an event's `reason` or a transaction's `error` (a code, or `{code|reason|message}`). */
function reasonCode(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (isRecord(value)) {
    for (const k of ['code', 'reason', 'message'] as const) {
      const v = value[k];
      if (typeof v === 'string' && v.trim()) return v.trim();
    }
  }
  return undefined;
}

function riskOf(value: unknown): Refusal['risk'] {
  if (!isRecord(value)) return undefined;
  const reasons = Array.isArray(value.reasons) ? value.reasons.filter((r): r is string => typeof r === 'string') : [];
  const decisionId = typeof value.decision_id === 'string' ? value.decision_id : '';
  if (!decisionId && reasons.length === 0) return undefined;
  return { decisionId, reasons };
}

/**
 * The refusal an event records, or undefined when it records none:
 * - `payment.failed`: the leader's attempt refused (card declined, 3-D Secure failed, risk refused);
 * - `payment.transaction` of a pledge with status `failed`: a pledger's card refused by the PSP
 *   (pledges write no `payment.failed`);
 * - `pledge.refused`: a pledger's card refused by the risk rules, before any payment row.
 */
export function refusalOf(event: { type: string; data: Record<string, unknown> | null }): Refusal | undefined {
  const data = event.data ?? {};
  const paymentId = typeof data.payment_id === 'string' ? data.payment_id : undefined;
  if (event.type === EVENT.paymentFailed) {
    return {
      reason: reasonCode(data.reason) ?? 'processing_error',
      paymentId,
      pspTransactionId: undefined,
      payer: 'leader',
      attempt: typeof data.attempt === 'number' ? data.attempt : undefined,
      risk: riskOf(data.risk),
    };
  }
  if (event.type === EVENT.pledgeRefused) {
    return { reason: reasonCode(data.reason) ?? 'risk_refused', paymentId: undefined, pspTransactionId: undefined, payer: 'pledger', attempt: undefined, risk: riskOf(data.risk) };
  }
  if (event.type === EVENT.transaction && data.purpose === 'pledge') {
    const t = transactionOf(data);
    if (!t || t.status !== 'failed') return undefined;
    return { reason: reasonCode(t.error) ?? 'processing_error', paymentId, pspTransactionId: t.id, payer: 'pledger', attempt: undefined, risk: undefined };
  }
  return undefined;
}

export interface RefusalNotificationInput {
  refusal: Refusal;
  /** When the refusal was recorded (the event's time). */
  createdAt: Date;
  /** The payment's PSP transaction id as stored, when the event does not carry it. */
  storedPspTransactionId: string | null | undefined;
  reference: string | null;
  metadata: Record<string, unknown>;
  sandbox: boolean;
}

/**
 * The signed body, key for key in the back-mode notification's order. `id` names the refused
 * payment as the back-mode notification names transactions (the PSP's transaction id), or, for
 * a refusal before any PSP transaction existed (a risk refusal, a card that could not be
 * attached), Chipin's id of the payment attempt. The signature covers `created_at`, `error`,
 * `id`, `reference`, `sandbox` and `status`: the reason code is signed; `additional_data`
 * (payer, attempt, risk reasons) is not, as in every back-mode notification.
 */
export function buildRefusalNotification(input: RefusalNotificationInput, secret: string): NotificationBody {
  const { refusal: r } = input;
  const additional: Record<string, unknown> = { payer: r.payer };
  if (r.attempt !== undefined) additional.attempt = r.attempt;
  if (r.risk) {
    additional.reasons = r.risk.reasons;
    if (r.risk.decisionId) additional.decision_id = r.risk.decisionId;
  }
  const unsigned = {
    created_at: input.createdAt.toISOString(),
    // A pledger refused by the risk rules has no payment row: the decision names the attempt.
    id: r.pspTransactionId ?? input.storedPspTransactionId ?? r.paymentId ?? r.risk?.decisionId ?? '',
    additional_data: additional,
    metadata: input.metadata ?? {},
    status: 'failed',
    sandbox: input.sandbox ? ('true' as const) : ('false' as const),
    error: r.reason,
    reference: input.reference ?? '',
  };
  return { ...unsigned, signature: notificationSignature(unsigned, secret) };
}
