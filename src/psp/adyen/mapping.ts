import { PspIntegrationError, type DeclineReason, type TransactionResult, type TransactionStatus } from '../connector.ts';
import type { ChallengeForm } from '../challenge-relay.ts';

/**
 * Pure mapping between Adyen Checkout API v72 payloads and Chipin's connector types. Sources:
 * Adyen's OpenAPI spec (github.com/Adyen/adyen-openapi, json/CheckoutService-v72.json: PaymentResponse,
 * ServiceError, StoredPaymentMethodResource, PaymentCaptureResponse…), the refusal reasons page
 * (docs.adyen.com/development-resources/refusal-reasons) and the error codes page
 * (docs.adyen.com/development-resources/error-codes).
 */

/** `PaymentResponse.resultCode` / `PaymentDetailsResponse.resultCode` (v72 enum, the same as v71's). */
export const RESULT_CODES = [
  'AuthenticationFinished',
  'AuthenticationNotRequired',
  'Authorised',
  'Cancelled',
  'ChallengeShopper',
  'Error',
  'IdentifyShopper',
  'PartiallyAuthorised',
  'Pending',
  'PresentToShopper',
  'Received',
  'RedirectShopper',
  'Refused',
  'Success',
] as const;
export type AdyenResultCode = (typeof RESULT_CODES)[number];

export function isResultCode(v: unknown): v is AdyenResultCode {
  return typeof v === 'string' && (RESULT_CODES as readonly string[]).includes(v);
}

/**
 * What a payment's result code means for us. `pending` (Received, Pending, PresentToShopper) is an
 * answer we cannot act on for a card: the connector treats it as a fault to reconcile later.
 * `unexpected` are codes of flows we never start (3DS-only authentication, gift cards' partial
 * authorisation, native 3DS2 fingerprinting: we ask for the redirect flow).
 */
export type ResultMeaning = 'authorised' | 'action' | 'refused' | 'cancelled' | 'pending' | 'unexpected';

export function resultMeaning(code: AdyenResultCode): ResultMeaning {
  switch (code) {
    case 'Authorised':
      return 'authorised';
    case 'RedirectShopper':
    case 'ChallengeShopper':
    case 'IdentifyShopper':
      return 'action';
    case 'Refused':
    case 'Error':
      return 'refused';
    case 'Cancelled':
      return 'cancelled';
    case 'Received':
    case 'Pending':
    case 'PresentToShopper':
      return 'pending';
    case 'AuthenticationFinished':
    case 'AuthenticationNotRequired':
    case 'PartiallyAuthorised':
    case 'Success':
      return 'unexpected';
    default:
      return unreachable(code);
  }
}

/** `refusalReasonCode` values (docs.adyen.com/development-resources/refusal-reasons). */
export const REFUSAL_REASONS: Readonly<Record<string, { text: string; reason: DeclineReason }>> = {
  '0': { text: 'Unknown', reason: 'processing_error' },
  '2': { text: 'Refused', reason: 'card_declined' },
  '3': { text: 'Referral', reason: 'card_declined' },
  '4': { text: 'Acquirer Error', reason: 'processing_error' },
  '5': { text: 'Blocked Card', reason: 'card_declined' },
  '6': { text: 'Expired Card', reason: 'expired_card' },
  '7': { text: 'Invalid Amount', reason: 'card_declined' },
  '8': { text: 'Invalid Card Number', reason: 'invalid_card' },
  '9': { text: 'Issuer Unavailable', reason: 'processing_error' },
  '10': { text: 'Not supported', reason: 'card_declined' },
  '11': { text: '3D Not Authenticated', reason: 'authentication_failed' },
  '12': { text: 'Not enough balance', reason: 'insufficient_funds' },
  '14': { text: 'Acquirer Fraud', reason: 'card_declined' },
  '15': { text: 'Cancelled', reason: 'card_declined' },
  '16': { text: 'Shopper Cancelled', reason: 'authentication_failed' },
  '17': { text: 'Invalid Pin', reason: 'card_declined' },
  '18': { text: 'Pin tries exceeded', reason: 'card_declined' },
  '19': { text: 'Pin validation not possible', reason: 'card_declined' },
  '20': { text: 'FRAUD', reason: 'card_declined' },
  '21': { text: 'Not Submitted', reason: 'processing_error' },
  '22': { text: 'FRAUD-CANCELLED', reason: 'card_declined' },
  '23': { text: 'Transaction Not Permitted', reason: 'card_declined' },
  '24': { text: 'CVC Declined', reason: 'incorrect_cvc' },
  '25': { text: 'Restricted Card', reason: 'card_declined' },
  '26': { text: 'Revocation Of Auth', reason: 'card_declined' },
  '27': { text: 'Declined Non Generic', reason: 'card_declined' },
  '28': { text: 'Withdrawal amount exceeded', reason: 'insufficient_funds' },
  '29': { text: 'Withdrawal count exceeded', reason: 'card_declined' },
  '31': { text: 'Issuer Suspected Fraud', reason: 'card_declined' },
  '32': { text: 'AVS Declined', reason: 'card_declined' },
  '33': { text: 'Card requires online pin', reason: 'card_declined' },
  '34': { text: 'No checking account available on Card', reason: 'card_declined' },
  '35': { text: 'No savings account available on Card', reason: 'card_declined' },
  '36': { text: 'Mobile pin required', reason: 'card_declined' },
  '37': { text: 'Contactless fallback', reason: 'card_declined' },
  '38': { text: 'Authentication required', reason: 'authentication_failed' },
  '39': { text: 'RReq not received from DS', reason: 'authentication_failed' },
  '40': { text: 'Current AID is in Penalty Box', reason: 'card_declined' },
  '41': { text: 'CVM Required Restart Payment', reason: 'card_declined' },
  '42': { text: '3DS Authentication Error', reason: 'authentication_failed' },
  '43': { text: 'Online PIN required', reason: 'card_declined' },
  '44': { text: 'Try another interface', reason: 'card_declined' },
  '45': { text: 'Chip downgrade mode', reason: 'card_declined' },
  '46': { text: 'Transaction blocked by Adyen to prevent excessive retry fees', reason: 'card_declined' },
};

/** A refused payment's reason in our words; a code Adyen adds later reads as a plain decline. */
export function refusalDecline(code: string | undefined, text: string | undefined): { reason: DeclineReason; message: string } {
  const known = code === undefined ? undefined : REFUSAL_REASONS[code];
  return { reason: known?.reason ?? 'card_declined', message: text || known?.text || 'The payment was refused.' };
}

/**
 * Validation errors (HTTP 422 `ServiceError.errorCode`) that are the card's fault, hence refusals
 * (docs.adyen.com/development-resources/error-codes). Any other 422 is our fault: a fault.
 */
export const CARD_VALIDATION_ERRORS: Readonly<Record<string, DeclineReason>> = {
  '101': 'invalid_card', // Invalid card number
  '102': 'invalid_card', // Unable to determine variant
  '103': 'incorrect_cvc', // CVC is not the right length
  '129': 'expired_card', // Expiry Date Invalid
};

/** Adyen's `ServiceError` body (400/401/403/422/500). */
export interface AdyenServiceError {
  status?: number;
  errorCode?: string;
  message?: string;
  errorType?: string;
  pspReference?: string;
}

/**
 * A payment as the connector tracks it: Adyen has no "get payment" call in Checkout v72, so this
 * is what its answers and webhooks said, carried in the payment's `pspState` (./state.ts).
 */
export interface AdyenPaymentState {
  pspReference: string;
  amountCents: number;
  currency: string;
  capture: 'automatic' | 'manual';
  status: 'pending_action' | 'authorised' | 'captured' | 'cancelled' | 'refused' | 'lapsed';
  capturedCents: number;
  refundedCents: number;
  decline?: { reason: DeclineReason; message: string };
  challengeUrl?: string;
  challengeForm?: ChallengeForm;
  expiresAt?: Date;
  networkTxReference?: string;
  /** Modifications already counted, by their own pspReference: a replayed answer or webhook counts once. */
  modifications: Record<string, AdyenModification>;
  /**
   * The webhook items already folded in (the last {@link ADYEN_EVENTS_KEPT}), by what Adyen signs
   * of them (eventCode, pspReference, success) and their eventDate: an item seen again, or older
   * than one already folded for the same pspReference, changes nothing (docs/psp/adyen.md#notifications).
   */
  events?: AdyenEventSeen[];
}

/** A webhook item as a payment's state remembers it. */
export interface AdyenEventSeen {
  eventCode: string;
  pspReference: string;
  success: 'true' | 'false';
  /** ISO 8601 as Adyen sent it; absent when the item had none. Not covered by Adyen's HMAC. */
  eventDate?: string;
}

/**
 * How long we count a manual authorisation as held. Adyen does not report it: it depends on the
 * card scheme (docs.adyen.com/online-payments/capture#authorisation-validity); 7 days is the
 * shortest common online validity (Visa), so we never promise a hold that is gone.
 */
export const ADYEN_HOLD_DAYS = 7;
const DAY_MS = 86_400_000;

/** One item of a standard webhook (`NotificationRequestItem`, ./notifications.ts), as read. */
export interface NotificationItem {
  pspReference: string;
  originalReference?: string;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  eventCode: string;
  eventDate?: string;
  success: 'true' | 'false';
  reason?: string;
  paymentMethod?: string;
  additionalData?: Record<string, string>;
}

/** How many folded items a payment's state keeps: a payment sees a handful (authorisation, capture, refunds, their failures). */
export const ADYEN_EVENTS_KEPT = 50;

export interface AdyenModification {
  kind: 'capture' | 'refund' | 'cancel';
  amount: number;
}

export function toStatus(state: AdyenPaymentState['status'], refundedCents: number): TransactionStatus {
  switch (state) {
    case 'pending_action':
      return 'requires_action';
    case 'authorised':
      return 'authorized';
    case 'captured':
      return refundedCents > 0 ? 'refunded' : 'captured';
    case 'cancelled':
      return 'voided';
    case 'refused':
      return 'declined';
    case 'lapsed':
      return 'expired';
    default:
      return unreachable(state);
  }
}

export function toTransactionResult(p: AdyenPaymentState): TransactionResult {
  const r: TransactionResult = {
    transactionId: p.pspReference,
    status: toStatus(p.status, p.refundedCents),
    amountCents: p.amountCents,
    capturedCents: p.capturedCents,
    refundedCents: p.refundedCents,
  };
  if (p.status === 'refused' && p.decline) r.decline = { ...p.decline };
  if (p.status === 'pending_action' && p.challengeUrl) r.challengeUrl = p.challengeUrl;
  if (p.status === 'pending_action' && p.challengeForm) r.challengeForm = p.challengeForm;
  if (p.expiresAt && (p.status === 'authorised' || p.status === 'lapsed')) r.expiresAt = new Date(p.expiresAt);
  if (p.networkTxReference) r.networkTransactionId = p.networkTxReference;
  return r;
}

/** Adyen's two-digit-or-four-digit expiry strings. */
export function expiryFields(expMonth: number, expYear: number): { expiryMonth: string; expiryYear: string } {
  const year = expYear >= 0 && expYear < 100 ? 2000 + expYear : expYear;
  return { expiryMonth: String(expMonth).padStart(2, '0'), expiryYear: String(year) };
}

/** Adyen's `brand`/`variant` names to the ones Chipin shows (as the sandbox reports them). */
export function brandName(adyenBrand: string | undefined): string {
  switch (adyenBrand) {
    case 'visa':
      return 'visa';
    case 'mc':
      return 'mastercard';
    case 'amex':
      return 'amex';
    case 'discover':
      return 'discover';
    default:
      return adyenBrand ? adyenBrand : 'unknown';
  }
}

export function unreachable(x: never): never {
  throw new Error(`unexpected value ${String(x)}`);
}

/** An answer of the Checkout API as the connector's call hands it back: a 2xx model or a 4xx body. */
export interface CheckoutAnswer {
  status: number;
  body: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}
function fault(code: PspIntegrationError['code'], message: string): PspIntegrationError {
  return new PspIntegrationError('adyen', code, message);
}

/** A 4xx answer we did not expect: our request was wrong, or Adyen refused it for a reason we cannot map. */
export function unexpectedAnswer(op: string, a: CheckoutAnswer): PspIntegrationError {
  const e = isObject(a.body) ? (a.body as AdyenServiceError) : {};
  return fault('bad_response', `${op}: Adyen answered HTTP ${a.status}${e.errorCode ? ` errorCode ${e.errorCode}` : ''}${e.message ? `: ${e.message}` : ''}`);
}

/** Reads a `/payments` or `/payments/details` answer into a payment state; `now`: when it came (a hold's start). */
export function readPaymentAnswer(
  op: string,
  a: CheckoutAnswer,
  input: { amountCents: number; currency: string; capture: 'automatic' | 'manual'; offSession: boolean },
  adyenKey: string,
  now: Date,
): AdyenPaymentState {
  const { offSession, ...base } = input;
  if (a.status === 422) {
    const e = (isObject(a.body) ? a.body : {}) as AdyenServiceError;
    if (e.errorCode === '800') throw fault('unknown_payment_method', `${op}: Adyen does not know the stored payment method`);
    const reason = e.errorCode ? CARD_VALIDATION_ERRORS[e.errorCode] : undefined;
    if (!reason) throw unexpectedAnswer(op, a);
    return {
      ...base,
      pspReference: e.pspReference ?? `refused-${adyenKey.slice(0, 16)}`,
      status: 'refused',
      capturedCents: 0,
      refundedCents: 0,
      modifications: {},
      decline: { reason, message: e.message || 'The card details were refused.' },
    };
  }
  if (a.status !== 200) throw unexpectedAnswer(op, a);
  const b = a.body as Record<string, unknown>;
  const pspReference = str(b.pspReference);
  if (!pspReference || !isResultCode(b.resultCode)) throw fault('bad_response', `${op}: Adyen's answer lacks a pspReference or a known resultCode`);
  const amount = isObject(b.amount) ? b.amount : undefined;
  if (amount && typeof amount.value === 'number' && amount.value !== base.amountCents) {
    throw fault('idempotency_conflict', `${op}: Adyen replayed a payment of another amount for this idempotency key`);
  }
  const additional = isObject(b.additionalData) ? (b.additionalData as Record<string, unknown>) : {};
  const state: AdyenPaymentState = { ...base, pspReference, status: 'refused', capturedCents: 0, refundedCents: 0, modifications: {} };
  const nt = str(additional.networkTxReference);
  if (nt) state.networkTxReference = nt;
  const meaning = resultMeaning(b.resultCode);
  switch (meaning) {
    case 'authorised':
      if (base.capture === 'automatic') {
        state.status = 'captured';
        state.capturedCents = base.amountCents;
      } else {
        state.status = 'authorised';
        state.expiresAt = new Date(now.getTime() + ADYEN_HOLD_DAYS * DAY_MS);
      }
      return state;
    case 'action': {
      const action = isObject(b.action) ? b.action : {};
      if (offSession) {
        state.decline = { reason: 'authentication_failed', message: 'Adyen asked for the shopper to authenticate a merchant-initiated charge.' };
        return state;
      }
      const url = str(action.url);
      const post = action.method === 'POST' && isObject(action.data) && Object.values(action.data).every((v) => typeof v === 'string');
      if (action.type !== 'redirect' || (action.method !== 'GET' && !post) || !url || !/^https?:\/\//.test(url)) {
        throw fault('not_supported', `${op}: Adyen asked for a ${String(action.type)} action; only redirects (GET, or POST with data) are supported`);
      }
      state.status = 'pending_action';
      // A POST redirect carries `data` to post to `url` (CheckoutRedirectAction): our relay page posts it.
      if (post) state.challengeForm = { action: url, fields: action.data as Record<string, string> };
      else state.challengeUrl = url;
      return state;
    }
    case 'refused':
      state.decline = refusalDecline(str(b.refusalReasonCode), str(b.refusalReason));
      return state;
    case 'cancelled':
      state.decline = { reason: 'card_declined', message: 'Adyen cancelled the payment.' };
      return state;
    case 'pending':
    case 'unexpected':
      throw fault('bad_response', `${op}: Adyen answered resultCode ${b.resultCode}, which a card payment should not`);
    default:
      return unreachable(meaning);
  }
}

/** Reads a modification answer (201, `status: received`) and gives its own pspReference. */
export function readModificationAnswer(op: string, a: CheckoutAnswer, payment: string, amount: number | undefined): string {
  if (a.status === 422) {
    const e = (isObject(a.body) ? a.body : {}) as AdyenServiceError;
    if (e.errorCode === '167') throw fault('unknown_transaction', `${op}: Adyen does not know payment ${payment}`);
    throw unexpectedAnswer(op, a);
  }
  if (a.status !== 201 && a.status !== 200) throw unexpectedAnswer(op, a);
  const b = a.body as Record<string, unknown>;
  const mod = str(b.pspReference);
  if (b.status !== 'received' || !mod || b.paymentPspReference !== payment) throw fault('bad_response', `${op}: Adyen's answer is not a received modification of ${payment}`);
  const amt = isObject(b.amount) ? b.amount.value : undefined;
  if (amount !== undefined && amt !== undefined && amt !== amount) {
    throw fault('idempotency_conflict', `${op}: Adyen replayed a modification of another amount for this idempotency key`);
  }
  return mod;
}
