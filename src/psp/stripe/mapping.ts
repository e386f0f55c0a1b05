import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * Stripe's vocabulary and its mapping onto Chipin's (the "transformers" of a Hyperswitch
 * connector). Pure: no I/O. Answers are read defensively (a missing or mistyped field is
 * `undefined` from the readers), so a malformed answer becomes `bad_response` in the connector,
 * never a crash deep inside a payment flow. Sources: the PaymentIntent, Charge and error objects
 * of Stripe's API reference (docs.stripe.com/api/payment_intents/object, /api/charges/object,
 * /api/errors, /declines/codes), as typed in stripe-node 23.1.0 (`resources/PaymentIntents.d.ts`).
 */

/** `payment_intent.status`, as documented. */
export type StripeIntentStatus = 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'processing' | 'requires_capture' | 'canceled' | 'succeeded';

const INTENT_STATUSES: readonly StripeIntentStatus[] = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'processing',
  'requires_capture',
  'canceled',
  'succeeded',
];

/**
 * The refusal codes we map: Stripe's error `code`s that refuse a payment or an operation, and the
 * card issuers' `decline_code`s Stripe passes on (docs.stripe.com/declines/codes). Anything else
 * is read as `unknown` (see {@link readRefusalCode}).
 */
export type StripeRefusalCode =
  // error codes
  | 'card_declined'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'invalid_cvc'
  | 'incorrect_number'
  | 'invalid_number'
  | 'invalid_expiry_month'
  | 'invalid_expiry_year'
  | 'processing_error'
  | 'authentication_required'
  | 'payment_intent_authentication_failure'
  | 'amount_too_large'
  | 'charge_already_refunded'
  | 'charge_already_captured'
  | 'charge_not_refundable'
  | 'charge_expired_for_capture'
  | 'capture_charge_authorization_expired'
  | 'payment_intent_unexpected_state'
  // issuer decline codes
  | 'generic_decline'
  | 'do_not_honor'
  | 'insufficient_funds'
  | 'lost_card'
  | 'stolen_card'
  | 'pickup_card'
  | 'fraudulent'
  | 'restricted_card'
  | 'card_velocity_exceeded'
  | 'withdrawal_count_limit_exceeded'
  | 'transaction_not_allowed'
  | 'card_not_supported'
  | 'currency_not_supported'
  | 'try_again_later'
  | 'issuer_not_available'
  | 'reenter_transaction'
  | 'call_issuer'
  | 'do_not_try_again'
  | 'invalid_account'
  | 'invalid_amount'
  | 'not_permitted'
  | 'security_violation'
  | 'service_not_allowed'
  | 'stop_payment_order'
  | 'revocation_of_authorization'
  | 'revocation_of_all_authorizations'
  | 'testmode_decline'
  | 'live_mode_test_card'
  | 'test_mode_live_card'
  | 'unknown';

export const REFUSAL_CODES: readonly Exclude<StripeRefusalCode, 'unknown'>[] = [
  'card_declined',
  'expired_card',
  'incorrect_cvc',
  'invalid_cvc',
  'incorrect_number',
  'invalid_number',
  'invalid_expiry_month',
  'invalid_expiry_year',
  'processing_error',
  'authentication_required',
  'payment_intent_authentication_failure',
  'amount_too_large',
  'charge_already_refunded',
  'charge_already_captured',
  'charge_not_refundable',
  'charge_expired_for_capture',
  'capture_charge_authorization_expired',
  'payment_intent_unexpected_state',
  'generic_decline',
  'do_not_honor',
  'insufficient_funds',
  'lost_card',
  'stolen_card',
  'pickup_card',
  'fraudulent',
  'restricted_card',
  'card_velocity_exceeded',
  'withdrawal_count_limit_exceeded',
  'transaction_not_allowed',
  'card_not_supported',
  'currency_not_supported',
  'try_again_later',
  'issuer_not_available',
  'reenter_transaction',
  'call_issuer',
  'do_not_try_again',
  'invalid_account',
  'invalid_amount',
  'not_permitted',
  'security_violation',
  'service_not_allowed',
  'stop_payment_order',
  'revocation_of_authorization',
  'revocation_of_all_authorizations',
  'testmode_decline',
  'live_mode_test_card',
  'test_mode_live_card',
];

function unreachable(value: never): never {
  throw new Error(`unmapped Stripe value ${String(value)}`);
}

function readRefusalCode(value: unknown): StripeRefusalCode {
  return typeof value === 'string' && (REFUSAL_CODES as readonly string[]).includes(value) ? (value as StripeRefusalCode) : 'unknown';
}

/** Stripe refusal code → Chipin's closed set. */
export function toDeclineReason(code: StripeRefusalCode): DeclineReason {
  switch (code) {
    case 'insufficient_funds':
    case 'withdrawal_count_limit_exceeded':
    case 'card_velocity_exceeded':
      return 'insufficient_funds';
    case 'expired_card':
    case 'invalid_expiry_month':
    case 'invalid_expiry_year':
      return 'expired_card';
    case 'incorrect_cvc':
    case 'invalid_cvc':
      return 'incorrect_cvc';
    case 'incorrect_number':
    case 'invalid_number':
    case 'invalid_account':
    case 'live_mode_test_card':
    case 'test_mode_live_card':
      return 'invalid_card';
    // Off session, `authentication_required` means the issuer wants the shopper to authenticate:
    // the MIT cannot proceed without bringing the shopper back on session.
    case 'authentication_required':
    case 'payment_intent_authentication_failure':
      return 'authentication_failed';
    case 'charge_expired_for_capture':
    case 'capture_charge_authorization_expired':
      return 'authorization_expired';
    case 'amount_too_large':
    case 'charge_already_refunded':
    case 'charge_already_captured':
    case 'charge_not_refundable':
    case 'payment_intent_unexpected_state':
      return 'amount_too_large';
    case 'processing_error':
    case 'try_again_later':
    case 'issuer_not_available':
    case 'reenter_transaction':
      return 'processing_error';
    case 'card_declined':
    case 'generic_decline':
    case 'do_not_honor':
    case 'lost_card':
    case 'stolen_card':
    case 'pickup_card':
    case 'fraudulent':
    case 'restricted_card':
    case 'transaction_not_allowed':
    case 'card_not_supported':
    case 'currency_not_supported':
    case 'call_issuer':
    case 'do_not_try_again':
    case 'invalid_amount':
    case 'not_permitted':
    case 'security_violation':
    case 'service_not_allowed':
    case 'stop_payment_order':
    case 'revocation_of_authorization':
    case 'revocation_of_all_authorizations':
    case 'testmode_decline':
    case 'unknown':
      return 'card_declined';
    default:
      return unreachable(code);
  }
}

/** Stripe's error object (`error` of an error answer, `last_payment_error` of an intent). */
export interface StripeErrorView {
  type?: string;
  code?: string;
  decline_code?: string;
  message?: string;
}

/**
 * The decline of a Stripe error: the issuer's `decline_code` is the more precise (Stripe sends
 * `code: card_declined` with `decline_code: insufficient_funds`), else the error `code`. The
 * message is Stripe's, which is written for the shopper and names no credential.
 */
export function declineOf(error: StripeErrorView): { reason: DeclineReason; message: string } {
  const byDecline = readRefusalCode(error.decline_code);
  const code = byDecline !== 'unknown' ? byDecline : readRefusalCode(error.code);
  return { reason: toDeclineReason(code), message: typeof error.message === 'string' && error.message ? error.message : 'The payment was refused.' };
}

/** The parts of a Charge we read (`latest_charge`, expanded). */
export interface ChargeView {
  id: string;
  amountCaptured: number;
  amountRefunded: number;
  captureBefore?: number;
  networkTransactionId?: string;
}

/** The parts of a PaymentIntent we read. */
export interface IntentView {
  id: string;
  status: StripeIntentStatus;
  amount: number;
  amountReceived: number;
  cancellationReason: string | null;
  lastPaymentError: StripeErrorView | null;
  redirectUrl?: string;
  charge?: ChargeView;
}

const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

export function readCharge(value: unknown): ChargeView | undefined {
  const c = obj(value);
  if (!c || c.object !== 'charge') return undefined;
  const id = str(c.id);
  const amountCaptured = int(c.amount_captured);
  const amountRefunded = int(c.amount_refunded);
  if (!id || amountCaptured === undefined || amountRefunded === undefined) return undefined;
  const card = obj(obj(c.payment_method_details)?.card);
  const view: ChargeView = { id, amountCaptured, amountRefunded };
  const before = int(card?.capture_before);
  if (before !== undefined) view.captureBefore = before;
  const ntid = str(card?.network_transaction_id);
  if (ntid) view.networkTransactionId = ntid;
  return view;
}

/** Reads a PaymentIntent; undefined when it is not one we can trust. */
export function readIntent(value: unknown): IntentView | undefined {
  const pi = obj(value);
  if (!pi || pi.object !== 'payment_intent') return undefined;
  const id = str(pi.id);
  const status = pi.status;
  const amount = int(pi.amount);
  const amountReceived = int(pi.amount_received) ?? 0;
  if (!id || amount === undefined || typeof status !== 'string' || !(INTENT_STATUSES as readonly string[]).includes(status)) return undefined;
  const err = obj(pi.last_payment_error);
  const view: IntentView = {
    id,
    status: status as StripeIntentStatus,
    amount,
    amountReceived,
    cancellationReason: str(pi.cancellation_reason) ?? null,
    lastPaymentError: err ? { type: str(err.type), code: str(err.code), decline_code: str(err.decline_code), message: str(err.message) } : null,
  };
  const redirect = str(obj(obj(pi.next_action)?.redirect_to_url)?.url);
  if (redirect) view.redirectUrl = redirect;
  if (pi.latest_charge !== null && pi.latest_charge !== undefined && typeof pi.latest_charge !== 'string') {
    const charge = readCharge(pi.latest_charge);
    if (!charge) return undefined;
    view.charge = charge;
  }
  return view;
}

/** PaymentIntent status → ours. Exhaustive: a new Stripe status fails to compile until mapped. */
export function toStatus(pi: Pick<IntentView, 'status' | 'cancellationReason'>, refundedCents: number): TransactionStatus {
  switch (pi.status) {
    case 'requires_payment_method': // a confirmation failed (declined, failed 3-D Secure)
    case 'requires_confirmation': // we always confirm on creation: never left here by us
      return 'declined';
    case 'requires_action':
    // Cards rarely pass through `processing`; it is not final either: the caller retrieves later.
    case 'processing':
      return 'requires_action';
    case 'requires_capture':
      return 'authorized';
    case 'canceled':
      // Stripe cancels an uncaptured intent itself when the hold lapses (cancellation_reason `automatic`).
      return pi.cancellationReason === 'automatic' ? 'expired' : 'voided';
    case 'succeeded':
      return refundedCents > 0 ? 'refunded' : 'captured';
    default:
      return unreachable(pi.status);
  }
}

/** Our view of a PaymentIntent (its `latest_charge` expanded for refunds and the hold's end). */
export function toTransactionResult(pi: IntentView): TransactionResult {
  const refundedCents = pi.charge?.amountRefunded ?? 0;
  const status = toStatus(pi, refundedCents);
  const result: TransactionResult = {
    transactionId: pi.id,
    status,
    amountCents: pi.amount,
    capturedCents: status === 'captured' || status === 'refunded' ? (pi.charge?.amountCaptured ?? pi.amountReceived) : 0,
    refundedCents: status === 'refunded' ? refundedCents : 0,
  };
  if (status === 'declined') {
    result.decline = pi.lastPaymentError ? declineOf(pi.lastPaymentError) : { reason: 'processing_error', message: 'The payment was not confirmed.' };
  }
  if (status === 'requires_action' && pi.redirectUrl) result.challengeUrl = pi.redirectUrl;
  if ((status === 'authorized' || status === 'expired') && pi.charge?.captureBefore !== undefined) result.expiresAt = new Date(pi.charge.captureBefore * 1000);
  if (pi.charge?.networkTransactionId && status !== 'declined') result.networkTransactionId = pi.charge.networkTransactionId;
  return result;
}

/** A refused operation (capture, void, refund) leaves the intent as it was; the result says why. */
export function refused(pi: IntentView, decline: { reason: DeclineReason; message: string }): TransactionResult {
  const r = toTransactionResult(pi);
  return { ...r, decline: r.status === 'expired' ? { reason: 'authorization_expired', message: 'The authorisation hold has expired.' } : decline };
}

/** Card brand as Stripe names it (`card.brand`): visa, mastercard, amex, discover, diners, jcb, unionpay, eftpos_au, unknown. */
export function readPaymentMethod(
  value: unknown,
):
  { id: string; customer: string | null; brand: string; last4: string; expMonth: number; expYear: number; funding?: 'credit' | 'debit' | 'prepaid'; country?: string } | undefined {
  const pm = obj(value);
  if (!pm || pm.object !== 'payment_method') return undefined;
  const card = obj(pm.card);
  const id = str(pm.id);
  const brand = str(card?.brand);
  const last4 = str(card?.last4);
  const expMonth = int(card?.exp_month);
  const expYear = int(card?.exp_year);
  if (!id || !brand || !last4 || expMonth === undefined || expYear === undefined) return undefined;
  const customer = typeof pm.customer === 'string' ? pm.customer : (str(obj(pm.customer)?.id) ?? null);
  // `card.funding` (credit, debit, prepaid or unknown) and `card.country` (ISO alpha-2), per
  // Stripe's PaymentMethod object: what the risk rules read (docs/risk.md#card-facts).
  const funding = str(card?.funding);
  const country = str(card?.country);
  return {
    id,
    customer,
    brand,
    last4,
    expMonth,
    expYear,
    ...(funding === 'credit' || funding === 'debit' || funding === 'prepaid' ? { funding } : {}),
    ...(country && /^[A-Z]{2}$/.test(country) ? { country } : {}),
  };
}
