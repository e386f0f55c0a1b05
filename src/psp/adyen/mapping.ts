import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';
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
