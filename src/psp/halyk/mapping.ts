import { createHash } from 'node:crypto';
import { decimalAmount, parseDecimalAmount } from '../../domain/money.ts';
import type { DeclineReason, TransactionStatus } from '../connector.ts';

/**
 * Halyk bank's ePay vocabulary and its mapping onto Chipin's. Pure: no I/O. Sources, in
 * docs/psp/halyk.md: the transaction status answer (epayment.kz/en-US/docs/check-status-payment),
 * the payment answers and the payment error codes of ePay's own SDK (github.com/halyk/EpaySDK:
 * `PaymentResponseBody`, `Details3D`, `ErrorResponseBody`, the `error_payment_<code>` texts), the
 * invoice number rule (6 to 15 digits, the last 6 unique too: epayment.kz/en-US/docs/cryptogram-payment).
 */

/** The currencies ePay's pages show payments in: KZT, and USD (the card verification example). */
export const HALYK_CURRENCIES = ['KZT', 'USD'] as const;

/**
 * The `statusName` values of a transaction as ePay's status answer and the integrations built on
 * it name them: NEW (created), 3D (waiting for the cardholder's 3-D Secure), AUTH (held, the
 * two-step scheme), CHARGE (taken), CANCEL (hold released), CANCEL_OLD (a hold ePay cancelled
 * itself, read as lapsed), REFUND (refunded, fully or partly), REJECT and FAILED (refused).
 */
export const EPAY_STATUSES = ['NEW', '3D', 'AUTH', 'CHARGE', 'CANCEL', 'CANCEL_OLD', 'REFUND', 'REJECT', 'FAILED'] as const;
export type EpayStatus = (typeof EPAY_STATUSES)[number];

function isEpayStatus(value: unknown): value is EpayStatus {
  return typeof value === 'string' && (EPAY_STATUSES as readonly string[]).includes(value);
}

/** How long a hold stays capturable: ePay's pages do not say; 7 days assumed (docs/psp/halyk.md). */
export const HALYK_HOLD_DAYS = 7;
const HOLD_MS = HALYK_HOLD_DAYS * 86_400_000;

function unreachable(value: never): never {
  throw new Error(`unmapped ePay value ${String(value)}`);
}

/** An ePay status in our words (a hold past its days reads `expired`, as CANCEL_OLD does). */
export function toStatus(status: EpayStatus, opts: { refundedCents: number; lapsed: boolean }): TransactionStatus {
  switch (status) {
    case 'NEW':
    case '3D':
      return 'requires_action';
    case 'AUTH':
      return opts.lapsed ? 'expired' : 'authorized';
    case 'CHARGE':
      return opts.refundedCents > 0 ? 'refunded' : 'captured';
    case 'REFUND':
      return 'refunded';
    case 'CANCEL':
      return 'voided';
    case 'CANCEL_OLD':
      return 'expired';
    case 'REJECT':
    case 'FAILED':
      return 'declined';
    default:
      return unreachable(status);
  }
}

/** The payment error codes ePay's SDK names (`error_payment_<code>`, its en/ru/kk texts). */
export const EPAY_ERROR_CODES = [
  455, 456, 457, 458, 459, 460, 461, 462, 463, 464, 465, 466, 467, 468, 469, 470, 471, 472, 473, 475, 476, 477, 478, 479, 480, 481, 482, 483, 484, 485, 486, 487, 488, 489, 490,
  491, 492, 493, 494, 495, 496, 497, 498, 505, 703, 1612, 1636, 1654, 1759, 2092,
] as const;
export type EpayErrorCode = (typeof EPAY_ERROR_CODES)[number];

function isEpayErrorCode(value: unknown): value is EpayErrorCode {
  return typeof value === 'number' && (EPAY_ERROR_CODES as readonly number[]).includes(value);
}

/**
 * A payment error code as a decline reason, by the SDK's text for each: 484 "not sufficient funds";
 * 457, 478, 485 expired card (or its date wrong); 471, 472 "no such card"; 455, 473, 496 3-D
 * Secure failed or absent; ePay's or the issuer's unavailability and errors of the request itself
 * (456, 458–461, 464, 469, 470, 475, 477, 493, 494, 497, 498, 703, 1759) a processing error; every
 * refusal of the card or the cardholder (call your bank, restricted, lost, stolen, limits, not
 * permitted, country checks, owner or OTP not established) card_declined.
 */
export function errorReason(code: EpayErrorCode): DeclineReason {
  switch (code) {
    case 484:
      return 'insufficient_funds';
    case 457:
    case 478:
    case 485:
      return 'expired_card';
    case 471:
    case 472:
      return 'invalid_card';
    case 455:
    case 473:
    case 496:
      return 'authentication_failed';
    case 456:
    case 458:
    case 459:
    case 460:
    case 461:
    case 464:
    case 469:
    case 470:
    case 475:
    case 477:
    case 493:
    case 494:
    case 497:
    case 498:
    case 703:
    case 1759:
      return 'processing_error';
    case 462:
    case 463:
    case 465:
    case 466:
    case 467:
    case 468:
    case 476:
    case 479:
    case 480:
    case 481:
    case 482:
    case 483:
    case 486:
    case 487:
    case 488:
    case 489:
    case 490:
    case 491:
    case 492:
    case 495:
    case 505:
    case 1612:
    case 1636:
    case 1654:
    case 2092:
      return 'card_declined';
    default:
      return unreachable(code);
  }
}

/** The decline of an ePay refusal: a code the SDK names by its reason; any other code refuses the card without saying why. */
export function declineOf(code: unknown): { reason: DeclineReason; message: string } {
  const c = typeof code === 'string' && /^\d{1,6}$/.test(code) ? Number(code) : code;
  if (isEpayErrorCode(c)) return { reason: errorReason(c), message: `ePay refused the payment (code ${c}).` };
  return { reason: 'card_declined', message: `ePay refused the payment (code ${typeof c === 'number' ? c : 'unknown'}).` };
}

/**
 * Amounts: ePay's `amount` is in the currency's major unit with decimals (the status answer's
 * `"amount": 12.22`; the token request's `amount: 100` is 100 tenge). Chipin's integer minor
 * units are written as an exact decimal string ("12.22"), never through float arithmetic; a JSON
 * number built from that string prints back as the same digits.
 */
export function toEpayAmount(amountCents: number, currency: string): string {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) throw new RangeError(`amount must be a non-negative integer, got ${amountCents}`);
  return decimalAmount(amountCents, currency);
}

/** An ePay amount (a JSON number or a decimal string) in minor units; undefined when it has more decimals than the currency or is not an amount. */
export function fromEpayAmount(value: unknown, currency: string): number | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,13}(\.\d{1,6})?$/.test(text)) return undefined;
  return parseDecimalAmount(text, currency);
}

/**
 * The invoice number of one of our calls: 15 digits derived from the idempotency key (a retry
 * finds what the first attempt did; Chipin names the transaction by it). ePay wants 6 to 15
 * digits, unique per order, and unique in its last 6 digits too: hashed digits spread over the
 * 10⁶ endings, so two of a terminal's invoices share an ending with the odds docs/psp/halyk.md
 * gives (what ePay answers then is unconfirmed).
 */
export function invoiceIdFor(kind: 'attach' | 'cit' | 'mit', idempotencyKey: string): string {
  const digest = createHash('sha256').update(`halyk\n${kind}\n${idempotencyKey}`, 'utf8').digest('hex');
  return (BigInt(`0x${digest.slice(0, 30)}`) % 10n ** 15n).toString().padStart(15, '0');
}

export const INVOICE_ID = /^\d{6,15}$/;

/** The refund reference we send (`externalID`), derived from the refund's idempotency key. */
export function externalIdFor(idempotencyKey: string): string {
  return createHash('sha256').update(`halyk\nrefund\n${idempotencyKey}`, 'utf8').digest('hex').slice(0, 32);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** ePay's transaction ids and saved-card ids (`CardID`) are UUIDs, as its examples print them. */
export function isEpayId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** The 3-D Secure step of a payment answer (`secure3D`: the ACS address and the fields to post there). */
interface Secure3D {
  action: string;
  paReq: string;
  md: string;
  termUrl?: string;
}

/** The part of a payment answer (`/payment/cryptopay`, `/payments/cards/auth`) we read. */
export interface EpayPayment {
  id: string;
  invoiceId?: string;
  cardId?: string;
  secure3D?: Secure3D;
}

export function readPayment(raw: unknown): EpayPayment | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const p = raw as Record<string, unknown>;
  if (!isEpayId(p.id)) return undefined;
  const out: EpayPayment = { id: p.id };
  if (typeof p.invoiceID === 'string') out.invoiceId = p.invoiceID;
  if (isEpayId(p.cardID)) out.cardId = p.cardID;
  const s = p.secure3D;
  if (typeof s === 'object' && s !== null) {
    const d = s as Record<string, unknown>;
    if (typeof d.action !== 'string' || !/^https?:\/\//.test(d.action) || typeof d.paReq !== 'string' || typeof d.md !== 'string') return undefined;
    out.secure3D = { action: d.action, paReq: d.paReq, md: d.md };
    if (typeof d.termURL === 'string' && /^https?:\/\//.test(d.termURL)) out.secure3D.termUrl = d.termURL;
  }
  return out;
}

/** ePay's error answer: `{"code": 100, "message": ""}` (HTTP 400). */
export function readError(raw: unknown): { code: number | string } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const code = (raw as Record<string, unknown>).code;
  return typeof code === 'number' || (typeof code === 'string' && code !== '') ? { code } : undefined;
}

/** The part of a status answer's `transaction` we read. */
export interface EpayTransaction {
  id: string;
  invoiceId: string;
  statusName: EpayStatus;
  currency: string;
  /** `amount`: what the transaction holds now (the status example: 22.22 less a 10 refund is 12.22). */
  amountCents: number;
  /** `orgAmount`: what it was created for, when given. */
  originalCents?: number;
  createdAt: Date;
  cardId?: string;
  reasonCode?: number | string;
}

/**
 * Reads a status answer (`{resultCode, resultMessage, transaction}`): `found: false` for a
 * resultCode other than "100" (no transaction under that invoice), undefined when malformed.
 */
export function readStatus(raw: unknown): { found: true; transaction: EpayTransaction } | { found: false } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const body = raw as Record<string, unknown>;
  if (body.resultCode === undefined) return undefined;
  if (String(body.resultCode) !== '100') return { found: false };
  const t = body.transaction as Record<string, unknown> | null | undefined;
  if (typeof t !== 'object' || t === null) return undefined;
  if (!isEpayId(t.id) || typeof t.invoiceID !== 'string' || !isEpayStatus(t.statusName)) return undefined;
  const currency = typeof t.currency === 'string' && (HALYK_CURRENCIES as readonly string[]).includes(t.currency) ? t.currency : undefined;
  if (!currency) return undefined;
  const amount = fromEpayAmount(t.amount, currency);
  const created = typeof t.createdDate === 'string' ? Date.parse(t.createdDate) : NaN;
  if (amount === undefined || !Number.isFinite(created)) return undefined;
  const out: EpayTransaction = { id: t.id, invoiceId: t.invoiceID, statusName: t.statusName, currency, amountCents: amount, createdAt: new Date(created) };
  const original = t.orgAmount === undefined || t.orgAmount === null ? undefined : fromEpayAmount(t.orgAmount, currency);
  if (original !== undefined && original > 0) out.originalCents = original;
  if (isEpayId(t.cardID)) out.cardId = t.cardID;
  if (typeof t.reasonCode === 'number' || typeof t.reasonCode === 'string') out.reasonCode = t.reasonCode;
  return { found: true, transaction: out };
}

/** Whether a hold is past the days it stays capturable. */
export function isLapsed(t: Pick<EpayTransaction, 'statusName' | 'createdAt'>, now: Date): boolean {
  return t.statusName === 'AUTH' && now.getTime() >= t.createdAt.getTime() + HOLD_MS;
}

export function holdExpiry(createdAt: Date): Date {
  return new Date(createdAt.getTime() + HOLD_MS);
}

/** The card's brand from its leading digits (ePay tells none at card verification). */
export function brandOf(digits: string): string {
  if (digits.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  return 'unknown';
}

/**
 * The card data ePay's cryptogram encrypts, as its SDK writes it: JSON with the number (`hpan`),
 * the expiry as MMYY (`expDate`), the CVC and the terminal id.
 */
export function cryptogramPayload(digits: string, month: number, year: number, cvc: string, terminalId: string): string {
  const expDate = `${String(month).padStart(2, '0')}${String(year % 100).padStart(2, '0')}`;
  return JSON.stringify({ hpan: digits, expDate, cvc, terminalId });
}
