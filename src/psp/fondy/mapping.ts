import { createHash, timingSafeEqual } from 'node:crypto';
import { currencyExponent } from '../../domain/money.ts';
import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * Pure mapping of Fondy's (now Flitt's) API, protocol 1.0.1 (docs/psp/fondy.md): the SHA1
 * signature, the order statuses, the response codes. No I/O.
 */

/** Days a `preauth=Y` hold stays capturable: not documented by Fondy, the card networks' common 7 days (docs/psp/fondy.md). */
export const FONDY_HOLD_DAYS = 7;

/** The protocol version every request names (Fondy's default; `1.0` is deprecated). */
export const PROTOCOL_VERSION = '1.0.1';

/** Fields that never enter a signature: the signature itself and the test-mode hint of how Fondy built its own. */
const UNSIGNED = new Set(['signature', 'response_signature_string']);

/**
 * The text Fondy signs: the payment key, then the value of every non-empty field sorted by name,
 * joined by `|` (docs.flitt.com/api/building-signature). A field absent, null or empty adds nothing.
 */
export function signatureText(paymentKey: string, fields: Readonly<Record<string, unknown>>): string {
  const values = Object.keys(fields)
    .filter((k) => !UNSIGNED.has(k))
    .sort()
    .map((k) => fields[k])
    .filter((v) => v !== undefined && v !== null && v !== '')
    .map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v as string | number | boolean)));
  return [paymentKey, ...values].join('|');
}

/** The lower-case hex SHA1 of {@link signatureText}. */
export function sign(paymentKey: string, fields: Readonly<Record<string, unknown>>): string {
  return createHash('sha1').update(signatureText(paymentKey, fields), 'utf8').digest('hex');
}

/** Whether `fields.signature` is Fondy's signature of the other fields, compared in constant time. */
export function signatureValid(paymentKey: string, fields: Readonly<Record<string, unknown>>): boolean {
  const given = fields.signature;
  if (typeof given !== 'string' || !/^[0-9a-fA-F]{40}$/.test(given)) return false;
  const expected = Buffer.from(sign(paymentKey, fields), 'hex');
  return timingSafeEqual(expected, Buffer.from(given.toLowerCase(), 'hex'));
}

/** Fondy's `order_status` values (docs.flitt.com/api/order-parameters, the delayed-payment page; `reversed` docs.fondy.eu). */
export type OrderStatus = 'created' | 'processing' | 'declined' | 'approved' | 'expired' | 'reversed';

function isOrderStatus(s: unknown): s is OrderStatus {
  return s === 'created' || s === 'processing' || s === 'declined' || s === 'approved' || s === 'expired' || s === 'reversed';
}

/** `additional_info.capture_status` of a `preauth=Y` order: null before any capture. */
type CaptureStatus = 'hold' | 'captured';

/** The response codes this connector reads (docs.flitt.com/api/response-codes); any other number is {@link declineReasonOfCode}'s fallback. */
export type FondyCode =
  | 1000 | 1002 | 1003 | 1004 | 1005 | 1006 | 1007 | 1009 | 1010 | 1011 | 1012 | 1013 | 1014 | 1015 | 1016 | 1017 | 1018 | 1019
  | 1021 | 1023 | 1024 | 1025 | 1026 | 1027 | 1034 | 1035 | 1037 | 1040 | 1041 | 1042 | 1043 | 1044 | 1045 | 1046 | 1047 | 1048
  | 1049 | 1051 | 1052 | 1053 | 1054 | 1057 | 1059 | 1060 | 1061 | 1062 | 1063 | 1064 | 1065 | 1066 | 1067 | 1068 | 1069 | 1072
  | 1073 | 1075 | 1078 | 1079 | 1082 | 1084 | 1086 | 1087 | 1089 | 1097 | 1100 | 1102 | 1104 | 1105 | 1109 | 1111 | 1115 | 1116
  | 1117 | 1122 | 1123 | 1125; // prettier-ignore

const KNOWN_CODES = new Set<number>([
  1000, 1002, 1003, 1004, 1005, 1006, 1007, 1009, 1010, 1011, 1012, 1013, 1014, 1015, 1016, 1017, 1018, 1019, 1021, 1023, 1024, 1025, 1026, 1027, 1034, 1035, 1037, 1040, 1041,
  1042, 1043, 1044, 1045, 1046, 1047, 1048, 1049, 1051, 1052, 1053, 1054, 1057, 1059, 1060, 1061, 1062, 1063, 1064, 1065, 1066, 1067, 1068, 1069, 1072, 1073, 1075, 1078, 1079,
  1082, 1084, 1086, 1087, 1089, 1097, 1100, 1102, 1104, 1105, 1109, 1111, 1115, 1116, 1117, 1122, 1123, 1125,
]);

function isFondyCode(n: number): n is FondyCode {
  return KNOWN_CODES.has(n);
}

/** What a response code means to Chipin: a refusal of the card or payment (with its reason), or a fault of the request or the account. */
export type CodeMeaning =
  | { kind: 'refused'; reason: DeclineReason }
  | { kind: 'bad_credentials' }
  | { kind: 'unknown_order' }
  | { kind: 'duplicate_order' }
  | { kind: 'operation_refused' }
  | { kind: 'not_supported' }
  | { kind: 'bad_request' };

/** Every code of {@link FondyCode} is decided here: a new one fails to compile until it is. */
export function codeMeaning(code: FondyCode): CodeMeaning {
  switch (code) {
    case 1003: // Invalid CVV2 code
      return { kind: 'refused', reason: 'incorrect_cvc' };
    case 1015: // Invalid card number
      return { kind: 'refused', reason: 'invalid_card' };
    case 1025: // Invalid card expiry date
      return { kind: 'refused', reason: 'expired_card' };
    case 1037: // Decline, not sufficient funds
    case 1040: // Transaction amount exceeds card internet limit
    case 1048: // Card exceeds withdrawal amount limit
      return { kind: 'refused', reason: 'insufficient_funds' };
    case 1024: // 3DSecure authentication failed
    case 1053: // 3DSecure card verification failed, directory server or issuer not available
    case 1073: // 3DSecure is mandatory for Maestro cards
    case 1075: // 3DSecure is mandatory
    case 1105: // Antifraud decline: only full 3D-Secure allowed
      return { kind: 'refused', reason: 'authentication_failed' };
    case 1000: // General decline
    case 1004: // Do not honor
    case 1035: // Token not found
    case 1041: // Card is in black list
    case 1042: // Stolen card
    case 1043: // Restricted card
    case 1044: // Lost card
    case 1045: // Card is blocked by acquirer bank
    case 1047: // Card exceeds withdrawal frequency limit
    case 1051: // Declined by antifraud
    case 1057: // Sender card declined by issuer
    case 1061: // PIN tries exceeded
    case 1063: // Not permitted to client
    case 1064: // Call your bank
    case 1065: // Invalid transaction
    case 1067: // Incorrect PIN
    case 1072: // Recurring chain declined
    case 1078: // Token deactivated by bank
    case 1079: // Card is blocked by issuing bank
    case 1082: // Token has expired
    case 1097: // Decline, refer to card issuer
    case 1102: // Antifraud decline: prepaid cards are blocked
    case 1104: // Country not allowed by bank-acquirer
    case 1111: // Card not supported
    case 1115: // Pick up card (no fraud)
    case 1116: // Pick up card, special condition
    case 1117: // Security violation
    case 1125: // Maestro cards are not allowed
      return { kind: 'refused', reason: 'card_declined' };
    case 1002: // Application error
    case 1005: // Invalid format (often an amount too small)
    case 1023: // Invalid amount
    case 1049: // Unknown payment system error
    case 1052: // Order has expired
    case 1054: // Session expired
    case 1066: // System malfunction (acquirer)
    case 1068: // Format error
    case 1087: // Terminal closed by acquiring bank
    case 1089: // Acquiring bank request timeout
    case 1122: // Connection closed unexpectedly
    case 1123: // Acquiring bank request timeout, transaction reversed
      return { kind: 'refused', reason: 'processing_error' };
    case 1014: // Invalid signature
    case 1016: // Merchant not found
    case 1006: // Merchant is not configured correctly
      return { kind: 'bad_credentials' };
    case 1018: // Order not found
      return { kind: 'unknown_order' };
    case 1013: // Duplicate order_id for merchant
      return { kind: 'duplicate_order' };
    case 1069: // Reverse not allowed: turnover is not enough
    case 1084: // Only full refund allowed
    case 1086: // Transaction already finished
    case 1109: // Order already captured with different amount
    case 1019: // Order already completed
      return { kind: 'operation_refused' };
    case 1012: // Currency not available for this merchant
    case 1017: // No available payment systems
    case 1026: // Only redirect method allowed
    case 1027: // Preauth not allowed
    case 1059: // Transaction with rectoken not allowed for merchant
    case 1060: // Recurring transaction not allowed for merchant
    case 1062: // Not permitted to merchant
    case 1100: // Operation not allowed
      return { kind: 'not_supported' };
    case 1007: // Parameter incorrect
    case 1009: // Parameter empty
    case 1010: // Request is empty
    case 1011: // Parameter missing
    case 1021: // Unsupported Content-Type
    case 1034: // Separator symbol in a parameter
    case 1046: // Non UTF-8 symbol
      return { kind: 'bad_request' };
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

/** The meaning of any code Fondy sends (a number or a numeric string): an unknown one reads as a card refusal. */
export function meaningOf(raw: unknown): CodeMeaning | undefined {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n)) return undefined;
  return isFondyCode(n) ? codeMeaning(n) : { kind: 'refused', reason: 'card_declined' };
}

/** The decline reason of a declined order's `response_code` (card_declined when it names none Chipin knows). */
export function declineReasonOfCode(raw: unknown): DeclineReason {
  const m = meaningOf(raw);
  return m?.kind === 'refused' ? m.reason : 'card_declined';
}

export function declineMessage(reason: DeclineReason): string {
  switch (reason) {
    case 'card_declined':
      return 'The card was declined.';
    case 'insufficient_funds':
      return 'The card has insufficient funds.';
    case 'expired_card':
      return 'The card has expired.';
    case 'incorrect_cvc':
      return 'The security code is incorrect.';
    case 'invalid_card':
      return 'The card number is invalid.';
    case 'authentication_failed':
      return 'The 3-D Secure authentication failed.';
    case 'authorization_expired':
      return 'The authorisation lapsed.';
    case 'amount_too_large':
      return 'The amount exceeds what is left.';
    case 'processing_error':
      return 'Fondy could not process the payment.';
    default: {
      const unreachable: never = reason;
      return unreachable;
    }
  }
}

/** An order as Fondy's status (and every final) answer shows it: the fields Chipin reads. */
export interface FondyOrder {
  orderId: string;
  orderStatus: OrderStatus;
  amount: number;
  actualAmount: number | undefined;
  reversalAmount: number;
  currency: string;
  responseCode: unknown;
  rectoken: string | undefined;
  maskedCard: string | undefined;
  cardType: string | undefined;
  captureStatus: CaptureStatus | null;
  /** `additional_info.capture_amount`, in the currency's major unit as Fondy prints it, turned into minor units. */
  captureAmount: number | undefined;
}

function intOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return undefined;
}

/** An order answer's fields, or undefined when it is not one. */
export function readOrder(raw: unknown): FondyOrder | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const o = raw as Record<string, unknown>;
  if (typeof o.order_id !== 'string' || !isOrderStatus(o.order_status)) return undefined;
  const amount = intOf(o.amount);
  const currency = typeof o.currency === 'string' ? o.currency : '';
  if (amount === undefined || !/^[A-Z]{3}$/.test(currency)) return undefined;
  let captureStatus: CaptureStatus | null = null;
  let captureAmount: number | undefined;
  if (typeof o.additional_info === 'string' && o.additional_info !== '') {
    try {
      const info = JSON.parse(o.additional_info) as Record<string, unknown>;
      if (info.capture_status === 'hold' || info.capture_status === 'captured') captureStatus = info.capture_status;
      if (typeof info.capture_amount === 'number' && Number.isFinite(info.capture_amount) && info.capture_amount >= 0) {
        captureAmount = Math.round(info.capture_amount * 10 ** currencyExponent(currency));
      }
    } catch {
      return undefined;
    }
  }
  return {
    orderId: o.order_id,
    orderStatus: o.order_status,
    amount,
    actualAmount: intOf(o.actual_amount),
    reversalAmount: intOf(o.reversal_amount) ?? 0,
    currency,
    responseCode: o.response_code,
    rectoken: typeof o.rectoken === 'string' && o.rectoken !== '' ? o.rectoken : undefined,
    maskedCard: typeof o.masked_card === 'string' && o.masked_card !== '' ? o.masked_card : undefined,
    cardType: typeof o.card_type === 'string' && o.card_type !== '' ? o.card_type : undefined,
    captureStatus,
    captureAmount,
  };
}

/** What the connector knows beside Fondy's answer: whether the order was a hold, when it was placed, a challenge still pending. */
export interface OrderContext {
  preauth: boolean;
  placedAt: Date | undefined;
  now: Date;
  challengePending: boolean;
  /** The captured amount Chipin's own capture call set, when Fondy's answer does not print it. */
  capturedCents?: number;
}

/** Whether a hold placed at `placedAt` lapsed by `now` ({@link FONDY_HOLD_DAYS}). */
function holdLapsed(placedAt: Date | undefined, now: Date): boolean {
  return placedAt !== undefined && now.getTime() >= placedAt.getTime() + FONDY_HOLD_DAYS * 86_400_000;
}

/** Fondy's order, in the contract's words. */
export function toTransactionResult(transactionId: string, o: FondyOrder, c: OrderContext): TransactionResult {
  const amountCents = o.amount;
  const base = { transactionId, amountCents, capturedCents: 0, refundedCents: 0 };
  const declined = (reason: DeclineReason): TransactionResult => ({ ...base, status: 'declined', decline: { reason, message: declineMessage(reason) } });
  let status: TransactionStatus;
  switch (o.orderStatus) {
    case 'created':
    case 'processing':
      // Sent with delayed=N, an order stays here only while its 3-D Secure step is open.
      return { ...base, status: 'requires_action' };
    case 'declined':
      return declined(declineReasonOfCode(o.responseCode));
    case 'expired':
      // The order's lifetime ended before it was paid: the shopper never finished the challenge.
      return declined(c.challengePending ? 'authentication_failed' : 'processing_error');
    case 'reversed': {
      const held = o.actualAmount ?? amountCents;
      if (c.preauth && o.captureStatus === null) return { ...base, status: 'voided' };
      const captured = c.preauth ? (o.captureAmount ?? c.capturedCents ?? held) : held;
      return { ...base, status: 'refunded', capturedCents: captured, refundedCents: Math.min(captured, o.reversalAmount || captured) };
    }
    case 'approved': {
      const held = o.actualAmount ?? amountCents;
      if (c.preauth && o.captureStatus === null) {
        if (o.reversalAmount > 0) return { ...base, status: 'voided' };
        status = holdLapsed(c.placedAt, c.now) ? 'expired' : 'authorized';
        return { ...base, status };
      }
      const captured = c.preauth ? (o.captureAmount ?? c.capturedCents ?? held) : held;
      const refunded = Math.min(captured, o.reversalAmount);
      return { ...base, status: refunded > 0 ? 'refunded' : 'captured', capturedCents: captured, refundedCents: refunded };
    }
    default: {
      const unreachable: never = o.orderStatus;
      return unreachable;
    }
  }
}

/** The card's brand as Chipin names it, from Fondy's `card_type` (VISA, MasterCard, …) or the number. */
export function brandOf(cardType: string | undefined, digits: string): string {
  const t = cardType?.toLowerCase();
  if (t === 'visa' || t === 'mastercard' || t === 'maestro') return t;
  if (digits.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  return t ?? 'unknown';
}

/** The card's expiry as Fondy takes it: `MMYY`. */
export function expiryDate(month: number, year: number): string {
  return `${String(month).padStart(2, '0')}${String(year % 100).padStart(2, '0')}`;
}

/** A rectoken as Fondy returns it (letters and digits; documented as up to 40, seen longer). */
export const RECTOKEN = /^[A-Za-z0-9_-]{8,128}$/;
