import { createHash } from 'node:crypto';
import { currencyExponent, decimalAmount } from '../../domain/money.ts';
import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * HiPay Enterprise's vocabulary and its mapping onto Chipin's (the "transformers" of a
 * Hyperswitch connector). Pure: no I/O. Sources: HiPay's Gateway API reference
 * (github.com/hipay/openapi-hipay, enterprise/gateway.yaml and tokenization.yaml), the appendix
 * "Transaction statuses" and "Decline reasons and error codes" of the HiPay Enterprise platform
 * overview (github.com/hipay/hipay-docs, platform-hipay-enterprise/appendices/1-appendix.md), and
 * the status enumeration of HiPay's Node SDK (src/Enum/Transaction/TransactionStatus.js).
 */

/** Transaction statuses HiPay documents (numeric `status` of transactions and notifications). */
export const HIPAY_STATUSES = [
  101, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 129, 131, 132, 140, 141, 142, 143, 150, 151, 160,
  161, 163, 165, 166, 173, 174, 175, 200,
] as const;
export type HipayStatus = (typeof HIPAY_STATUSES)[number];

export function isHipayStatus(value: number): value is HipayStatus {
  return (HIPAY_STATUSES as readonly number[]).includes(value);
}

function unreachable(value: never): never {
  throw new Error(`unmapped HiPay value ${String(value)}`);
}

/**
 * A HiPay status in our words. HiPay's many in-flight statuses (created, enrolment checks,
 * "authorization requested", "pending payment") have no Chipin equivalent: they read as
 * `requires_action` (the payment waits for something outside Chipin; `retrieve` later tells how it
 * ended). "Requested" maintenance statuses (117 capture requested, 124 refund requested) count as
 * done: HiPay has accepted the operation and moved the amounts.
 */
export function toStatus(status: HipayStatus, refundedCents: number): TransactionStatus {
  switch (status) {
    case 101: // Created
    case 103: // Cardholder enrolled: the shopper is sent to the issuer
    case 104: // Cardholder not enrolled
    case 105: // Unable to authenticate
    case 106: // Cardholder authenticated
    case 107: // Authentication attempted
    case 108: // Could not authenticate
    case 140: // Authentication requested
    case 141: // Authenticated
    case 142: // Authorization requested
    case 150: // Acquirer found
    case 160: // Cardholder enrolment unknown
    case 161: // Risk accepted
    case 174: // Awaiting terminal
    case 200: // Pending payment
      return 'requires_action';
    case 109: // Authentication failed
    case 110: // Blocked (fraud)
    case 111: // Denied (merchant's fraud review)
    case 113: // Refused
    case 151: // Acquirer not found
    case 163: // Authorization refused
      return 'declined';
    case 112: // Authorized and pending (fraud review): the money is held
    case 116: // Authorized
    case 173: // Capture refused: the authorisation stays
      return 'authorized';
    case 114: // Expired
      return 'expired';
    case 115: // Cancelled
    case 143: // Authorization cancelled
    case 175: // Authorization cancellation requested
      return 'voided';
    case 117: // Capture requested
    case 118: // Captured
    case 119: // Partially captured
    case 120: // Collected
    case 121: // Partially collected
    case 122: // Settled
    case 123: // Partially settled
    case 131: // Debited
    case 132: // Partially debited
    case 165: // Refund refused: the capture stands
    // Charged back: the card holder's bank took the money back. A chargeback is not a refund: the
    // transaction stays captured (refunded only by the merchant's own refunds), and what the bank
    // took is the lost dispute's (`chargebackedAmount`, disputes.ts), never counted twice.
    case 129:
      return refundedCents > 0 ? 'refunded' : 'captured';
    case 124: // Refund requested
    case 125: // Refunded
    case 126: // Partially refunded
    case 166: // Issuer credited
      return 'refunded';
    default:
      return unreachable(status);
  }
}

/** HiPay's decline reasons and error codes that mean a refusal (appendix, "Decline reasons and error codes"). */
export const HIPAY_REASON_CODES = [
  // Acquirer's reason codes
  4000001, 4000002, 4000003, 4000004, 4000005, 4000006, 4000007, 4000008, 4000009, 4000010, 4000011, 4000012, 4010101, 4010102, 4010103, 4010201, 4010202, 4010203, 4010204,
  4010205, 4010206, 4010207, 4010301, 4010302, 4010303, 4010304, 4010305, 4010306, 4010307, 4010309, 4010310,
  // Fraud
  3000201, 3030001,
  // Maintenance operations
  3020001, 3020002, 3020102, 3020103, 3020105, 3020106, 3020107, 3020108, 3020109, 3020110, 3020111, 3020112, 3020202, 3020203, 3020205, 3020206, 3020207, 3020208, 3020209,
  3020210, 3020211, 3020212, 3020401, 3020402, 3020403,
] as const;
export type HipayReasonCode = (typeof HIPAY_REASON_CODES)[number];

export function isHipayReasonCode(value: number): value is HipayReasonCode {
  return (HIPAY_REASON_CODES as readonly number[]).includes(value);
}

export function toDeclineReason(code: HipayReasonCode): DeclineReason {
  switch (code) {
    case 4000003: // Insufficient funds
    case 4010103:
    case 4010305: // Card limit exceeded
      return 'insufficient_funds';
    case 4010204: // Card expired
    case 4010205: // Expiry date incorrect
      return 'expired_card';
    case 4010206: // CVC required
    case 4010207: // CVC error
      return 'incorrect_cvc';
    case 4010202: // Invalid card number
    case 4010203: // Unsupported card
    case 4010309: // Card not in authorizer's database
      return 'invalid_card';
    case 4000011: // Authentication failed
    case 4010310: // 3DS required but not used (also: a MIT without its initial transaction)
      return 'authentication_failed';
    case 3020001: // Authorization expired
      return 'authorization_expired';
    case 3020002: // Amount limit exceeded
    case 3020102: // Cannot capture this type of transaction
    case 3020103: // Cannot partially capture
    case 3020106: // Authorization completed
    case 3020107: // No more captures
    case 3020109: // Capture beyond the original amount
    case 3020110: // Partial capture beyond the remaining amount
    case 3020111: // Transaction closed
    case 3020202: // Cannot refund this type of transaction
    case 3020203: // Cannot partially refund
    case 3020206: // Already refunded
    case 3020207: // No more refunds
    case 3020209: // Refund beyond the original amount
    case 3020210: // Partial refund beyond the remaining amount
    case 3020211: // Transaction closed
    case 3020212: // Too late to refund
    case 3020401: // Cannot void this type of transaction
    case 3020402: // Cannot void a re-authorization
    case 3020403: // Already voided
      return 'amount_too_large';
    case 4000004: // Technical problem
    case 4000005: // Communication failure
    case 4000006: // Acquirer unavailable
    case 4000010: // Call the acquirer
    case 4000012: // No UID configured
    case 4010102: // Issuer not available
    case 3020105: // Currency mismatch
    case 3020108: // Invalid amount
    case 3020208:
    case 3020205:
      return 'processing_error';
    case 4000001: // Declined
    case 4000002:
    case 4000007: // Duplicate transaction
    case 4000008: // Cancelled by the customer
    case 4000009: // Invalid transaction
    case 4010101: // Refusal, no explicit reason
    case 4010201: // Not permitted
    case 4010301: // AVS failed
    case 4010302: // Retain card
    case 4010303: // Lost or stolen
    case 4010304: // Restricted
    case 4010306: // Blacklisted
    case 4010307: // IP country
    case 3000201: // Fraud suspicion (issuer)
    case 3030001: // Fraud suspicion (HiPay)
    case 3020112: // Denied by fraud protection
      return 'card_declined';
    default:
      return unreachable(code);
  }
}

/** The reason of a declined transaction: its reason code if HiPay gave a known one, else by status. */
function declineOf(status: HipayStatus, reason: { code?: number; message?: string } | undefined): { reason: DeclineReason; message: string } {
  const message = reason?.message || 'The payment was refused.';
  if (reason?.code !== undefined && isHipayReasonCode(reason.code)) return { reason: toDeclineReason(reason.code), message };
  if (status === 109) return { reason: 'authentication_failed', message: reason?.message || 'Authentication failed.' };
  return { reason: 'card_declined', message };
}

/** Amounts: HiPay speaks decimals ("12.50"), Chipin minor units. */
export function toHipayAmount(amountCents: number, currency: string): string {
  return decimalAmount(amountCents, currency);
}

/** A HiPay decimal amount in minor units, or undefined when it is not one ("12.5", "12.50", "12.500" all read 1250). */
export function fromHipayAmount(value: unknown, currency: string): number | undefined {
  const text = typeof value === 'number' ? value.toString() : value;
  if (typeof text !== 'string') return undefined;
  const m = /^(\d{1,13})(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const exponent = currencyExponent(currency);
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > exponent) return undefined;
  return Number(m[1]) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
}

/** The part of a HiPay transaction (Gateway API `Transaction`, or a notification) that we read. */
export interface HipayTransaction {
  transactionReference: string;
  state: string;
  status: HipayStatus;
  currency: string;
  authorizedCents: number;
  capturedCents: number;
  refundedCents: number;
  /** `chargebackedAmount` (Gateway `Transaction`): what chargebacks took, apart from the refunds; 0 when absent. */
  chargebackedCents: number;
  orderId?: string;
  forwardUrl?: string;
  reason?: { code?: number; message?: string };
  /** Our idempotency fingerprint, echoed back in `custom_data`. */
  fingerprint?: string;
  dateAuthorized?: string;
}

/** How long HiPay holds an authorisation: "typically within 7 days after authorization" (appendix, status 114). */
const HIPAY_HOLD_DAYS = 7;

/** Reads a Gateway API `Transaction` object (JSON, camelCase); undefined when anything needed is missing or malformed. */
export function readTransaction(raw: unknown): HipayTransaction | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const t = raw as Record<string, unknown>;
  const order = (typeof t.order === 'object' && t.order !== null ? t.order : {}) as Record<string, unknown>;
  const reference = t.transactionReference;
  const status = Number(t.status);
  const currency = typeof t.currency === 'string' ? t.currency : typeof order.currency === 'string' ? order.currency : undefined;
  if (typeof reference !== 'string' || !/^\d{1,32}$/.test(reference)) return undefined;
  if (!Number.isInteger(status) || !isHipayStatus(status) || !currency || !/^[A-Z]{3}$/.test(currency)) return undefined;
  let authorized: number | undefined;
  try {
    authorized = fromHipayAmount(t.authorizedAmount ?? order.amount, currency);
  } catch {
    return undefined; // unknown currency
  }
  const captured = fromHipayAmount(t.capturedAmount ?? '0', currency);
  const refunded = fromHipayAmount(t.refundedAmount ?? '0', currency);
  const chargebacked = fromHipayAmount(t.chargebackedAmount ?? '0', currency);
  if (authorized === undefined || captured === undefined || refunded === undefined || chargebacked === undefined) return undefined;
  const reason = readReason(t.reason);
  const result: HipayTransaction = {
    transactionReference: reference,
    state: typeof t.state === 'string' ? t.state : '',
    status,
    currency,
    authorizedCents: authorized,
    capturedCents: captured,
    refundedCents: refunded,
    chargebackedCents: chargebacked,
  };
  if (typeof order.id === 'string') result.orderId = order.id;
  if (typeof t.forwardUrl === 'string' && t.forwardUrl !== '') result.forwardUrl = t.forwardUrl;
  if (reason) result.reason = reason;
  const custom = readCustomData(t.customData ?? t.custom_data);
  if (custom) result.fingerprint = custom;
  if (typeof t.dateAuthorized === 'string' && t.dateAuthorized !== '') result.dateAuthorized = t.dateAuthorized;
  return result;
}

function readReason(raw: unknown): { code?: number; message?: string } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  const out: { code?: number; message?: string } = {};
  const code = Number(r.code);
  if (r.code !== undefined && r.code !== '' && Number.isInteger(code)) out.code = code;
  if (typeof r.message === 'string' && r.message !== '') out.message = r.message;
  return out.code === undefined && out.message === undefined ? undefined : out;
}

function readCustomData(raw: unknown): string | undefined {
  let data: unknown = raw;
  if (typeof raw === 'string') {
    try {
      data = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  const fp = (data as Record<string, unknown> | null)?.chipin_fp;
  return typeof fp === 'string' ? fp : undefined;
}

/** Our view of a HiPay transaction. */
export function toTransactionResult(t: HipayTransaction): TransactionResult {
  // What was charged back is never refunded as well (the reference keeps the two amounts apart; should a
  // refunded amount ever include a chargeback, what passes the captured amount less the chargebacks is not a refund).
  const capturedCents = Math.min(t.capturedCents, t.authorizedCents);
  const refundedCents = Math.max(0, Math.min(t.refundedCents, capturedCents - t.chargebackedCents));
  const status = toStatus(t.status, refundedCents);
  const result: TransactionResult = {
    transactionId: t.transactionReference,
    status,
    amountCents: t.authorizedCents,
    capturedCents,
    refundedCents,
  };
  if (status === 'declined') result.decline = declineOf(t.status, t.reason);
  if (status === 'requires_action' && t.forwardUrl) result.challengeUrl = t.forwardUrl;
  if (status === 'authorized' && t.dateAuthorized) {
    const at = Date.parse(t.dateAuthorized.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
    if (Number.isFinite(at)) result.expiresAt = new Date(at + HIPAY_HOLD_DAYS * 86_400_000);
  }
  return result;
}

/**
 * HiPay has no idempotency header. Our key becomes the order id (`orderid`, unique per order at
 * HiPay) or the maintenance `operation_id`, so that a retry can find what the first attempt did.
 * Hashed: keys may be long or hold characters HiPay refuses; 32 hex digits keep it unique enough.
 */
export function referenceFor(kind: 'auth' | 'mit' | 'op', idempotencyKey: string): string {
  const digest = createHash('sha256').update(`${kind}\n${idempotencyKey}`, 'utf8').digest('hex').slice(0, 32);
  return `chipin-${kind}-${digest}`;
}

/** A fingerprint of a call's parameters, to tell a retry from a reused key. */
export function fingerprintOf(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** HiPay card brands (token `brand`) → Gateway `payment_product`. */
export function paymentProductFor(brand: string): string {
  switch (brand.trim().toUpperCase()) {
    case 'VISA':
      return 'visa';
    case 'MASTERCARD':
      return 'mastercard';
    case 'AMERICAN EXPRESS':
      return 'american-express';
    case 'MAESTRO':
      return 'maestro';
    case 'CB':
    case 'CARTE BANCAIRE':
      return 'cb';
    case 'DISCOVER':
      return 'discover';
    case 'DINERS':
      return 'diners';
    case 'JCB':
      return 'jcb';
    default:
      return 'visa';
  }
}
