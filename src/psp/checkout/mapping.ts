import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * Checkout.com's vocabulary (Payments API, "NAS" accounts) and its mapping onto Chipin's. Pure:
 * no I/O. Answers are read defensively: a missing or mistyped field makes the reader answer
 * `undefined`, which the connector turns into `bad_response`. Sources (docs/psp/checkout.md): the
 * API reference (api-reference.checkout.com, its OpenAPI source in checkout/checkout-api-reference:
 * `Payment.yaml`, `paths/payments.yaml`) and the response-code list
 * (checkout.com/docs/resources/codes/response-codes).
 */

/** `status` of a payment (api-reference.checkout.com, "Get payment details"). */
export const PAYMENT_STATUSES = [
  'Pending',
  'Authorized',
  'Card Verified',
  'Voided',
  'Partially Captured',
  'Captured',
  'Partially Refunded',
  'Refunded',
  'Declined',
  'Cancelled',
  'Expired',
] as const;
export type CheckoutPaymentStatus = (typeof PAYMENT_STATUSES)[number];

function unreachable(value: never): never {
  throw new Error(`unmapped Checkout.com value ${String(value)}`);
}

/** A payment's status in our words. */
export function toStatus(status: CheckoutPaymentStatus): TransactionStatus {
  switch (status) {
    case 'Pending':
      // 202 Pending: the shopper has a 3-D Secure redirect to follow (or the outcome is not in yet).
      return 'requires_action';
    case 'Authorized':
    case 'Card Verified':
      return 'authorized';
    case 'Partially Captured':
    case 'Captured':
      return 'captured';
    case 'Partially Refunded':
    case 'Refunded':
      return 'refunded';
    case 'Voided':
    // "Cancelled": a payment stopped before it was processed; nothing is held.
    case 'Cancelled':
      return 'voided';
    case 'Declined':
      return 'declined';
    case 'Expired':
      return 'expired';
    default:
      return unreachable(status);
  }
}

/**
 * A five-digit `response_code` → our reason. 10xxx approve; 20xxx are soft declines, 30xxx hard
 * declines, 40xxx risk responses (checkout.com/docs/resources/codes/response-codes).
 */
export function toDeclineReason(code: string | undefined): DeclineReason {
  switch (code) {
    case '20051': // Insufficient Funds
    case '20061': // Exceeds Withdrawal Value/Amount Limits
    case '20065': // Exceeds Withdrawal Frequency Limit
      return 'insufficient_funds';
    case '20054': // Expired Card
    case '30033': // Expired Card - Pick Up
      return 'expired_card';
    case '20087': // Bad Track Data (invalid CVV and/or expiry date)
    case '20082': // CVV2 failure
      return 'incorrect_cvc';
    case '20014': // Invalid Card Number
    case '20015': // No such issuer
      return 'invalid_card';
    case '20150': // Card not 3D Secure enabled
    case '20151': // Cardholder failed 3DS authentication
    case '20152': // Initial 3DS transaction not completed within 15 minutes
    case '20154': // 3DS authentication required
      return 'authentication_failed';
    case '20068': // Response received too late / timeout
    case '20091': // Issuer unavailable or switch is inoperative
    case '20096': // System malfunction
    case '20153': // 3DS system malfunction
      return 'processing_error';
    default:
      return 'card_declined';
  }
}

/** Checkout.com's `balances` of a payment (Get payment details), in minor units. */
interface Balances {
  totalAuthorized: number;
  totalCaptured: number;
  totalRefunded: number;
  totalVoided: number;
}

/** The parts of a payment (request answer or details) we read. */
export interface PaymentView {
  id: string;
  status: CheckoutPaymentStatus;
  amount: number;
  approved: boolean;
  responseCode?: string;
  responseSummary?: string;
  /** `_links.redirect.href` of a 202 Pending answer: the 3-D Secure page, opened with a GET. */
  redirectUrl?: string;
  /** The scheme's transaction id (`scheme_id`), referenced by later merchant-initiated payments. */
  schemeId?: string;
  /** The stored card (`source.id`, `src_…`), with what a payment method shows. */
  source?: SourceView;
  balances?: Balances;
}

interface SourceView {
  id: string;
  scheme?: string;
  last4?: string;
  expiryMonth?: number;
  expiryYear?: number;
}

const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

export const PAYMENT_ID = /^pay_[a-z0-9]{26}$/;
export const SOURCE_ID = /^src_[a-z0-9]{26}$/;

function readBalances(v: unknown): Balances | undefined {
  const b = obj(v);
  if (!b) return undefined;
  const totalAuthorized = int(b.total_authorized);
  const totalCaptured = int(b.total_captured);
  const totalRefunded = int(b.total_refunded);
  const totalVoided = int(b.total_voided);
  if (totalAuthorized === undefined || totalCaptured === undefined || totalRefunded === undefined || totalVoided === undefined) return undefined;
  return { totalAuthorized, totalCaptured, totalRefunded, totalVoided };
}

function readSource(v: unknown): SourceView | undefined {
  const s = obj(v);
  const id = str(s?.id);
  if (!s || !id || !SOURCE_ID.test(id)) return undefined;
  const view: SourceView = { id };
  const scheme = str(s.scheme);
  if (scheme) view.scheme = scheme;
  const last4 = str(s.last4);
  if (last4 && /^\d{4}$/.test(last4)) view.last4 = last4;
  const m = int(s.expiry_month);
  if (m !== undefined && m >= 1 && m <= 12) view.expiryMonth = m;
  const y = int(s.expiry_year);
  if (y !== undefined) view.expiryYear = y;
  return view;
}

/** A payment answer (201/202 of "Request a payment", or "Get payment details"); undefined when unreadable. */
export function readPayment(value: unknown): PaymentView | undefined {
  const p = obj(value);
  if (!p) return undefined;
  const id = str(p.id);
  const status = p.status;
  const amount = int(p.amount);
  if (!id || !PAYMENT_ID.test(id) || amount === undefined) return undefined;
  if (typeof status !== 'string' || !(PAYMENT_STATUSES as readonly string[]).includes(status)) return undefined;
  const view: PaymentView = { id, status: status as CheckoutPaymentStatus, amount, approved: p.approved === true };
  const code = str(p.response_code);
  if (code) view.responseCode = code;
  const summary = str(p.response_summary);
  if (summary) view.responseSummary = summary;
  const href = str(obj(obj(p._links)?.redirect)?.href);
  if (href && /^https?:\/\//.test(href)) view.redirectUrl = href;
  const schemeId = str(p.scheme_id);
  if (schemeId) view.schemeId = schemeId;
  if (p.source !== undefined) {
    const source = readSource(p.source);
    if (source) view.source = source;
  }
  if (p.balances !== undefined) {
    const balances = readBalances(p.balances);
    if (!balances) return undefined;
    view.balances = balances;
  }
  return view;
}

/**
 * A payment in our words. The amounts come from `balances` where the answer has them (Get
 * payment details); a request's answer has none, and its status tells them (a 201 Captured holds
 * the whole amount captured).
 */
export function toTransactionResult(p: PaymentView): TransactionResult {
  const status = toStatus(p.status);
  const captured = p.balances ? p.balances.totalCaptured : status === 'captured' || status === 'refunded' ? p.amount : 0;
  const refunded = p.balances ? p.balances.totalRefunded : 0;
  const r: TransactionResult = {
    transactionId: p.id,
    status: status === 'refunded' && refunded === 0 && !p.balances ? 'captured' : status,
    amountCents: p.amount,
    capturedCents: captured,
    refundedCents: refunded,
  };
  if (status === 'declined') r.decline = { reason: toDeclineReason(p.responseCode), message: p.responseSummary ?? 'The payment was refused.' };
  if (status === 'requires_action' && p.redirectUrl) r.challengeUrl = p.redirectUrl;
  if (p.schemeId) r.networkTransactionId = p.schemeId;
  return r;
}

/** Checkout.com's error answer (`422`: `error_type`, `error_codes`). */
export function readErrorCodes(value: unknown): { type?: string; codes: string[] } {
  const e = obj(value);
  const codes = Array.isArray(e?.error_codes) ? e.error_codes.filter((c): c is string => typeof c === 'string') : [];
  const type = str(e?.error_type);
  return type ? { type, codes } : { codes };
}

/** Webhook event `type`s about a card payment, in our words (api-reference.checkout.com, Webhooks). */
export const EVENT_STATUSES: Readonly<Record<string, TransactionStatus>> = {
  payment_pending: 'requires_action',
  payment_approved: 'authorized',
  payment_captured: 'captured',
  payment_declined: 'declined',
  payment_authentication_failed: 'declined',
  payment_capture_declined: 'authorized',
  payment_voided: 'voided',
  payment_void_declined: 'authorized',
  payment_refunded: 'refunded',
  payment_refund_declined: 'captured',
  payment_expired: 'expired',
  payment_canceled: 'voided',
};
