import { createHash } from 'node:crypto';
import { currencyExponent } from '../../domain/money.ts';
import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * CentralPay's vocabulary (REST API v2) and its mapping onto Chipin's. Pure: no I/O. Sources, in
 * docs/psp/centralpay.md: the transaction statuses (doc-api.centralpay.net/en/transactions-status,
 * docs.centralpay.com "Object status / Card transaction status"), the bank authorisation return
 * codes and their classes (doc-api.centralpay.net/les-codes-de-retour-d-autorisation-bancaire),
 * the 7 days to capture a SUCCESS transaction (same status page).
 */

/** The card transaction statuses CentralPay documents (`transactionStatus`). */
export const CENTRALPAY_STATUSES = ['SUCCESS', 'CAPTURED', 'CLEARED', 'FAILURE', 'CANCELED', 'THREEDS_AUTH_FAILURE', 'NOT_ACCEPTED', 'FRAUD'] as const;
export type CentralpayStatus = (typeof CENTRALPAY_STATUSES)[number];

function isCentralpayStatus(value: unknown): value is CentralpayStatus {
  return typeof value === 'string' && (CENTRALPAY_STATUSES as readonly string[]).includes(value);
}

/** "You have 7 calendar days to capture a Transaction Success" (transactions-status page). */
const CENTRALPAY_HOLD_DAYS = 7;
const HOLD_MS = CENTRALPAY_HOLD_DAYS * 86_400_000;

function unreachable(value: never): never {
  throw new Error(`unmapped CentralPay value ${String(value)}`);
}

/**
 * A CentralPay status in our words. SUCCESS is an authorisation not yet captured: past the 7 days
 * CentralPay gives to capture it, it is a lapsed hold (`expired`), which CentralPay shows under no
 * status of its own. CAPTURED (sent to clearing) and CLEARED (debited) are both money taken.
 */
export function toStatus(status: CentralpayStatus, opts: { refundedCents: number; lapsed: boolean }): TransactionStatus {
  switch (status) {
    case 'SUCCESS':
      return opts.lapsed ? 'expired' : 'authorized';
    case 'CAPTURED':
    case 'CLEARED':
      return opts.refundedCents > 0 ? 'refunded' : 'captured';
    case 'CANCELED':
      return 'voided';
    case 'FAILURE':
    case 'THREEDS_AUTH_FAILURE':
    case 'NOT_ACCEPTED':
    case 'FRAUD':
      return 'declined';
    default:
      return unreachable(status);
  }
}

/**
 * The bank's return code of a refused authorisation (`bankCode`, "code < 100", plus the PSD2 soft
 * decline `A1`) as a decline reason, by the classes of CentralPay's page on bank return codes:
 * A1 "repli VADS" (no strong authentication) → authentication_failed; 51, 61 "crédit dépassé" →
 * insufficient_funds; 54 (expired card in the CB list) → expired_card; 14 (invalid card number) →
 * invalid_card; the generic (3, 5, 57), fraud/stolen (4, 7, 15, 31, 33, 34, 41, 43, 55, 56, 59,
 * 63, 76) and invalid-transaction (12) classes → card_declined; technical codes (91, 96, 98) →
 * processing_error.
 */
export function bankCodeReason(code: string | undefined): DeclineReason {
  switch (
    code
      ?.trim()
      .toUpperCase()
      .replace(/^0+(?=\d)/, '')
  ) {
    case 'A1':
      return 'authentication_failed';
    case '51':
    case '61':
      return 'insufficient_funds';
    case '54':
      return 'expired_card';
    case '14':
      return 'invalid_card';
    case '91':
    case '96':
    case '98':
      return 'processing_error';
    default:
      return 'card_declined';
  }
}

/** The decline of a refused transaction: 3-D Secure failures by their status, the rest by bank code. */
function declineOf(status: CentralpayStatus, bankCode: string | undefined): { reason: DeclineReason; message: string } {
  if (status === 'THREEDS_AUTH_FAILURE') return { reason: 'authentication_failed', message: 'The 3-D Secure authentication failed.' };
  if (status === 'FRAUD' || status === 'NOT_ACCEPTED') return { reason: 'card_declined', message: 'CentralPay refused the payment (acceptance rules).' };
  const reason = bankCodeReason(bankCode);
  return { reason, message: `The card issuer refused the payment (bank code ${bankCode ?? 'unknown'}).` };
}

/**
 * Amounts: CentralPay's `amount` is an integer in the currency's minor unit ("1000" is 10.00 EUR,
 * as its examples send `totalAmount` = euros × 100), the same unit as Chipin's. The conversion is
 * therefore the identity, kept as two functions so that nothing but a safe positive integer ever
 * leaves or enters.
 */
export function toCentralpayAmount(amountCents: number): string {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) throw new RangeError(`amount must be a non-negative integer, got ${amountCents}`);
  return String(amountCents);
}

/** A CentralPay amount (a JSON number or a string of digits) in minor units, or undefined when it is not an integer. */
export function fromCentralpayAmount(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The part of a CentralPay `transaction` object that we read. */
export interface CentralpayTransaction {
  transactionId: string;
  merchantTransactionId?: string;
  status: CentralpayStatus;
  currency: string;
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
  /** Whether the transaction was created with `capture=true`. */
  capture: boolean;
  bankCode?: string;
  creationDate: Date;
  customerId?: string;
  cardId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isCentralpayId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** Reads a `transaction` object (JSON); undefined when anything needed is missing or malformed. */
export function readTransaction(raw: unknown): CentralpayTransaction | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const t = raw as Record<string, unknown>;
  if (!isCentralpayId(t.transactionId) || !isCentralpayStatus(t.transactionStatus)) return undefined;
  if (typeof t.currency !== 'string' || !/^[A-Z]{3}$/.test(t.currency)) return undefined;
  try {
    currencyExponent(t.currency);
  } catch {
    return undefined; // a currency we do not know
  }
  const amount = fromCentralpayAmount(t.amount);
  const captured = t.capturedAmount === undefined || t.capturedAmount === null ? 0 : fromCentralpayAmount(t.capturedAmount);
  const refunded = t.refundedAmount === undefined || t.refundedAmount === null ? 0 : fromCentralpayAmount(t.refundedAmount);
  const created = typeof t.creationDate === 'string' ? Date.parse(t.creationDate) : NaN;
  if (amount === undefined || captured === undefined || refunded === undefined || !Number.isFinite(created)) return undefined;
  const result: CentralpayTransaction = {
    transactionId: t.transactionId,
    status: t.transactionStatus,
    currency: t.currency,
    amountCents: amount,
    capturedCents: captured,
    refundedCents: refunded,
    capture: t.capture === true || t.capture === 'true',
    creationDate: new Date(created),
  };
  if (typeof t.merchantTransactionId === 'string') result.merchantTransactionId = t.merchantTransactionId;
  if (typeof t.bankCode === 'string' || typeof t.bankCode === 'number') result.bankCode = String(t.bankCode);
  if (typeof t.customerId === 'string') result.customerId = t.customerId;
  const card = (typeof t.card === 'object' && t.card !== null ? t.card : {}) as Record<string, unknown>;
  const cardId = t.cardId ?? card.cardId;
  if (typeof cardId === 'string') result.cardId = cardId;
  return result;
}

/** Whether an uncaptured authorisation is past the 7 days CentralPay gives to capture it. */
export function isLapsed(t: CentralpayTransaction, now: Date): boolean {
  return t.status === 'SUCCESS' && now.getTime() >= t.creationDate.getTime() + HOLD_MS;
}

/**
 * Our view of a CentralPay transaction, under Chipin's id for it (our `merchantTransactionId`,
 * which stays the same from the 3-D Secure step on, before CentralPay's transaction exists).
 */
export function toTransactionResult(chipinId: string, t: CentralpayTransaction, now: Date): TransactionResult {
  const lapsed = isLapsed(t, now);
  const status = toStatus(t.status, { refundedCents: t.refundedCents, lapsed });
  const captured = t.status === 'CAPTURED' || t.status === 'CLEARED' ? t.capturedCents || t.amountCents : 0;
  const result: TransactionResult = {
    transactionId: chipinId,
    status,
    amountCents: t.amountCents,
    capturedCents: Math.min(captured, t.amountCents),
    refundedCents: Math.min(t.refundedCents, captured),
  };
  if (status === 'declined') result.decline = declineOf(t.status, t.bankCode);
  if (status === 'authorized') result.expiresAt = new Date(t.creationDate.getTime() + HOLD_MS);
  return result;
}

/**
 * Our reference of a transaction at CentralPay (`merchantTransactionId`), derived from the
 * idempotency key: a retry finds what the first attempt did, and Chipin names the transaction by
 * it from the 3-D Secure step on. Hashed: keys may be long or hold characters CentralPay refuses.
 */
export function merchantTransactionIdFor(kind: 'cit' | 'mit', idempotencyKey: string): string {
  const digest = createHash('sha256').update(`${kind}\n${idempotencyKey}`, 'utf8').digest('hex').slice(0, 32);
  return `chipin-${kind}-${digest}`;
}

export const MERCHANT_TRANSACTION_ID = /^chipin-(cit|mit)-[0-9a-f]{32}$/;

/** Our payment method id: the customer and its card, `<customerId>:<cardId>` (CentralPay names a stored card by both). */
export function paymentMethodIdOf(customerId: string, cardId: string): string {
  return `${customerId}:${cardId}`;
}

export function readPaymentMethodId(id: string): { customerId: string; cardId: string } | undefined {
  const [customerId, cardId, ...rest] = id.split(':');
  if (rest.length > 0 || !isCentralpayId(customerId) || !isCentralpayId(cardId)) return undefined;
  return { customerId, cardId };
}

/** The stored card of a `customer` answer (its first `cards[]` entry): what attach gives back; undefined when malformed. */
export function readStoredCard(raw: unknown): { customerId: string; cardId: string; brand: string; last4: string; expMonth?: number; expYear?: number } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const body = raw as { customerId?: unknown; cards?: unknown };
  const card = (Array.isArray(body.cards) ? body.cards[0] : undefined) as Record<string, unknown> | undefined;
  if (!isCentralpayId(body.customerId) || !card || !isCentralpayId(card.cardId) || typeof card.last4 !== 'string' || !/^\d{4}$/.test(card.last4)) return undefined;
  const out: { customerId: string; cardId: string; brand: string; last4: string; expMonth?: number; expYear?: number } = {
    customerId: body.customerId,
    cardId: card.cardId,
    brand: typeof card.commercialBrand === 'string' ? card.commercialBrand.toLowerCase() : 'unknown',
    last4: card.last4,
  };
  if (Number.isInteger(card.expirationMonth)) out.expMonth = card.expirationMonth as number;
  if (Number.isInteger(card.expirationYear)) out.expYear = card.expirationYear as number;
  return out;
}
