import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * Hyperswitch's vocabulary (payments API v1) and its mapping onto Chipin's. Pure: no I/O. Answers
 * are read defensively: a missing or mistyped field makes the reader answer `undefined`, which the
 * connector turns into `bad_response`. Source (docs/psp/hyperswitch.md): Hyperswitch's published
 * OpenAPI document, juspay/hyperswitch `api-reference/v1/openapi_spec_v1.json` (schemas
 * `PaymentsResponse`, `IntentStatus`, `RefundResponse`, `RefundStatus`, `OutgoingWebhook`,
 * `EventType`, `GenericErrorResponseOpenApi`).
 */

/** `IntentStatus`: a payment's status. */
export const INTENT_STATUSES = [
  'succeeded',
  'failed',
  'cancelled',
  'cancelled_post_capture',
  'processing',
  'requires_customer_action',
  'requires_merchant_action',
  'requires_payment_method',
  'requires_confirmation',
  'requires_capture',
  'partially_captured',
  'partially_captured_and_capturable',
  'partially_authorized_and_requires_capture',
  'conflicted',
  'expired',
] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

/** `RefundStatus`. */
const REFUND_STATUSES = ['succeeded', 'failed', 'pending', 'review'] as const;
type RefundStatus = (typeof REFUND_STATUSES)[number];

function unreachable(value: never): never {
  throw new Error(`unmapped Hyperswitch value ${String(value)}`);
}

/** A payment's status in our words (before refunds are counted). */
export function toStatus(status: IntentStatus): TransactionStatus {
  switch (status) {
    case 'requires_customer_action': // 3-D Secure: `next_action.redirect_to_url`
    // Not settled yet (the processor has not answered, a manual review, a confirmation pending,
    // or Hyperswitch and the processor disagree): no money moved that we know of; read it again.
    case 'processing':
    case 'requires_merchant_action':
    case 'requires_confirmation':
    case 'conflicted':
      return 'requires_action';
    case 'requires_capture':
    case 'partially_authorized_and_requires_capture':
      return 'authorized';
    case 'succeeded':
    case 'partially_captured':
    case 'partially_captured_and_capturable':
      return 'captured';
    case 'cancelled':
    case 'cancelled_post_capture':
      return 'voided';
    // A confirmed payment left without a payment method is one whose attempt failed.
    case 'requires_payment_method':
    case 'failed':
      return 'declined';
    case 'expired':
      return 'expired';
    default:
      return unreachable(status);
  }
}

/**
 * Why a payment failed. Hyperswitch passes on the processor's own `error_code` and
 * `error_message` (each processor has its own codes) beside its `unified_code`/`unified_message`:
 * their words are read, the processor behind being the merchant's choice.
 */
export function toDeclineReason(...texts: (string | undefined)[]): DeclineReason {
  const t = texts.filter(Boolean).join(' ').toLowerCase();
  if (/insufficient|not sufficient|exceeds.*limit/.test(t)) return 'insufficient_funds';
  if (/expired card|card.*expired|expir/.test(t)) return 'expired_card';
  if (/cvc|cvv|security code/.test(t)) return 'incorrect_cvc';
  if (/invalid card|card number|invalid_number|incorrect_number|no such issuer/.test(t)) return 'invalid_card';
  if (/authenticat|3ds|3-d secure|three_ds/.test(t)) return 'authentication_failed';
  if (/timeout|timed out|unavailable|processing_error|system error|try again/.test(t)) return 'processing_error';
  return 'card_declined';
}

export interface RefundView {
  refundId: string;
  paymentId: string;
  amount: number;
  status: RefundStatus;
  errorMessage?: string;
}

/** The parts of a `PaymentsResponse` we read. */
export interface PaymentView {
  paymentId: string;
  status: IntentStatus;
  amount: number;
  amountCapturable: number;
  /** `amount_received`: what was captured. */
  amountReceived: number;
  /** `currency`, ISO 4217 (a payment read and a listed payment carry it). */
  currency?: string;
  customerId?: string;
  paymentMethodId?: string;
  networkTransactionId?: string;
  /** `next_action.redirect_to_url` of a `requires_customer_action` payment: the 3-D Secure page, opened with a GET. */
  redirectUrl?: string;
  errorCode?: string;
  errorMessage?: string;
  unifiedMessage?: string;
  card?: { network?: string; last4?: string; expMonth?: number; expYear?: number };
  /** `refunds`, when the answer lists them (a payment read does). */
  refunds?: RefundView[];
  /** The `dispute_status` of each of `disputes` (`DisputeResponsePaymentsRetrieve`), when a payment read lists them. */
  disputeStatuses?: string[];
}

const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** Hyperswitch ids: a prefix, then letters, digits and underscores (payment ids are 30 characters: `PaymentsCreateRequest.payment_id`). */
export const PAYMENT_ID = /^[A-Za-z0-9_-]{30}$/;

export function readRefund(value: unknown): RefundView | undefined {
  const r = obj(value);
  const refundId = str(r?.refund_id);
  const paymentId = str(r?.payment_id);
  const amount = int(r?.amount);
  const status = r?.status;
  if (!r || !refundId || !paymentId || amount === undefined) return undefined;
  if (typeof status !== 'string' || !(REFUND_STATUSES as readonly string[]).includes(status)) return undefined;
  const view: RefundView = { refundId, paymentId, amount, status: status as RefundStatus };
  const message = str(r.error_message);
  if (message) view.errorMessage = message;
  return view;
}

function readCard(pmd: unknown): PaymentView['card'] | undefined {
  const c = obj(obj(pmd)?.card);
  if (!c) return undefined;
  const card: NonNullable<PaymentView['card']> = {};
  const network = str(c.card_network);
  if (network) card.network = network;
  const last4 = str(c.last4);
  if (last4 && /^\d{4}$/.test(last4)) card.last4 = last4;
  const m = Number(str(c.card_exp_month));
  if (Number.isInteger(m) && m >= 1 && m <= 12) card.expMonth = m;
  const y = Number(str(c.card_exp_year));
  if (Number.isInteger(y) && y > 0) card.expYear = y < 100 ? 2000 + y : y;
  return card;
}

/** A `PaymentsResponse` (create, confirm, capture, cancel, retrieve); undefined when unreadable. */
export function readPayment(value: unknown): PaymentView | undefined {
  const p = obj(value);
  if (!p) return undefined;
  const paymentId = str(p.payment_id);
  const status = p.status;
  const amount = int(p.amount);
  const amountCapturable = int(p.amount_capturable) ?? 0;
  const amountReceived = p.amount_received === null || p.amount_received === undefined ? 0 : int(p.amount_received);
  if (!paymentId || amount === undefined || amountReceived === undefined) return undefined;
  if (typeof status !== 'string' || !(INTENT_STATUSES as readonly string[]).includes(status)) return undefined;
  const view: PaymentView = { paymentId, status: status as IntentStatus, amount, amountCapturable, amountReceived };
  const currency = str(p.currency);
  if (currency && /^[A-Z]{3}$/.test(currency)) view.currency = currency;
  const customerId = str(p.customer_id);
  if (customerId) view.customerId = customerId;
  const pm = str(p.payment_method_id);
  if (pm) view.paymentMethodId = pm;
  const nti = str(p.network_transaction_id);
  if (nti) view.networkTransactionId = nti;
  const next = obj(p.next_action);
  const href = next?.type === 'redirect_to_url' ? str(next.redirect_to_url) : undefined;
  if (href && /^https?:\/\//.test(href)) view.redirectUrl = href;
  const code = str(p.error_code);
  if (code) view.errorCode = code;
  const message = str(p.error_message);
  if (message) view.errorMessage = message;
  const unified = str(p.unified_message);
  if (unified) view.unifiedMessage = unified;
  const card = readCard(p.payment_method_data);
  if (card) view.card = card;
  if (Array.isArray(p.refunds)) {
    const refunds = p.refunds.map(readRefund);
    if (refunds.some((r) => r === undefined)) return undefined;
    view.refunds = refunds as RefundView[];
  }
  if (Array.isArray(p.disputes)) {
    const statuses = p.disputes.map((d) => str(obj(d)?.dispute_status));
    if (statuses.some((s) => s === undefined)) return undefined;
    view.disputeStatuses = statuses as string[];
  }
  return view;
}

/** What the refunds of a payment took back: succeeded and pending ones (Hyperswitch counts both against what is left to refund). */
function refundedOf(p: PaymentView): number {
  return (p.refunds ?? []).filter((r) => r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
}

/** A payment in our words: captured is `amount_received`, refunded the sum of its refunds. */
export function toTransactionResult(p: PaymentView): TransactionResult {
  const status = toStatus(p.status);
  const refunded = refundedOf(p);
  const captured = status === 'captured' || refunded > 0 ? Math.max(p.amountReceived, refunded) : 0;
  const r: TransactionResult = {
    transactionId: p.paymentId,
    status: refunded > 0 && status === 'captured' ? 'refunded' : status,
    amountCents: p.amount,
    capturedCents: Math.min(captured, p.amount),
    refundedCents: refunded,
  };
  if (status === 'declined')
    r.decline = { reason: toDeclineReason(p.errorCode, p.errorMessage, p.unifiedMessage), message: p.errorMessage ?? p.unifiedMessage ?? 'The payment was refused.' };
  if (p.status === 'requires_customer_action' && p.redirectUrl) r.challengeUrl = p.redirectUrl;
  if (p.networkTransactionId) r.networkTransactionId = p.networkTransactionId;
  return r;
}

/**
 * Hyperswitch's error answer. The document's `GenericErrorResponseOpenApi` is flat
 * (`error_type`, `message`, `code`); the service wraps the same fields in `error` (with `type`).
 * Both are read.
 */
export function readError(value: unknown): { code?: string; message?: string } {
  const flat = obj(value);
  const e = obj(flat?.error) ?? flat;
  const out: { code?: string; message?: string } = {};
  const code = str(e?.code);
  if (code) out.code = code;
  const message = str(e?.message);
  if (message) out.message = message;
  return out;
}

/** Outgoing webhook `event_type`s about a payment or a refund, in our words (`EventType`). */
export const EVENT_STATUSES: Readonly<Record<string, TransactionStatus>> = {
  payment_succeeded: 'captured',
  payment_captured: 'captured',
  payment_failed: 'declined',
  payment_processing: 'requires_action',
  action_required: 'requires_action',
  payment_authorized: 'authorized',
  payment_partially_authorized: 'authorized',
  payment_cancelled: 'voided',
  payment_cancelled_post_capture: 'voided',
  payment_expired: 'expired',
  refund_succeeded: 'refunded',
  refund_failed: 'captured',
};
