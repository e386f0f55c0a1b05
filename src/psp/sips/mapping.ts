import { createHmac, timingSafeEqual } from 'node:crypto';
import { currencyExponent } from '../../domain/money.ts';
import type { DeclineReason, TransactionStatus } from '../connector.ts';

/**
 * Worldline Sips 2.0 Office (JSON) vocabulary and its mapping onto Chipin's. Pure: no I/O.
 *
 * Sources (docs/psp/sips.md lists them with their versions): the Sips data dictionary pages of
 * the Office services (docs.sips.worldline-solutions.com/en/data-dictionary/office/…, release
 * 24.x: cardCheckEnrollment, cardValidateAuthenticationAndOrder, creditHolder), the Sips Office
 * JSON user guide (documentation.sips.worldline.com … WLSIPS.310-UG-Sips-Office-JSON), and
 * Worldline's own PHP SDK (`Worldline\Sips`: JsonSealCalculator, SealStringEncoder and their
 * tests; the Office request classes for paths and interface versions).
 */

/** The Office JSON services Chipin calls, under the base URL (`https://office-server….com`). */
export const SIPS_PATHS = {
  addCard: '/rs-services/v2/wallet/addCard',
  walletCheckEnrollment: '/rs-services/v2/checkout/walletCheckEnrollment',
  walletOrder: '/rs-services/v2/checkout/walletOrder',
  validateAndOrder: '/rs-services/v2/checkout/cardValidateAuthenticationAndOrder',
  validate: '/rs-services/v2/cashManagement/validate',
  cancel: '/rs-services/v2/cashManagement/cancel',
  refund: '/rs-services/v2/cashManagement/refund',
  duplicate: '/rs-services/v2/cashManagement/duplicate',
  getTransactionData: '/rs-services/v2/diagnostic/getTransactionData',
} as const;
export type SipsPath = (typeof SIPS_PATHS)[keyof typeof SIPS_PATHS];

/**
 * The `interfaceVersion` sent to each family of services: the data dictionary's recommended
 * versions for checkout (IR_WS_2.55) and cash management (CR_WS_2.58); the wallet's and the
 * diagnostic's as Worldline's SDK and the Mercanet modules send them.
 */
export const INTERFACE_VERSIONS = {
  checkout: 'IR_WS_2.55',
  cashManagement: 'CR_WS_2.58',
  wallet: 'WR_WS_2.27',
  diagnostic: 'DR_WS_2.20',
} as const;

/** The seal's algorithm, named as Office requests name it (`sealAlgorithm`); HMAC-SHA-256 is its default. */
export const SEAL_ALGORITHM = 'HMAC-SHA-256';

/** Fields a seal never covers: the seal itself, and the key version and algorithm that say how it was made. */
const UNSEALED: ReadonlySet<string> = new Set(['seal', 'keyVersion', 'sealAlgorithm']);

export type SipsValue = string | number | boolean | null | undefined | readonly SipsValue[] | { readonly [k: string]: SipsValue };

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function concatValue(value: SipsValue): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return (value as readonly SipsValue[]).map(concatValue).join('');
  if (typeof value === 'object') {
    const o = value as { readonly [k: string]: SipsValue };
    return Object.keys(o)
      .sort(byCodeUnit)
      .map((k) => concatValue(o[k]))
      .join('');
  }
  return String(value);
}

/**
 * The text an Office JSON seal is computed on: the values of every field, fields in the
 * alphabetical order of their names, without their names; a container's (nested object's) fields
 * the same way, in its place; a list's items in their order. `seal`, `keyVersion` and
 * `sealAlgorithm` are left out (Sips Office JSON guide, "Computing the seal"; Worldline SDK's
 * SealStringEncoder, whose tests are ours too).
 */
export function sealString(message: { readonly [k: string]: SipsValue }): string {
  return Object.keys(message)
    .filter((k) => !UNSEALED.has(k))
    .sort(byCodeUnit)
    .map((k) => concatValue(message[k]))
    .join('');
}

/** HMAC-SHA-256 of {@link sealString} (UTF-8) with the secret key, lower-case hex. */
export function computeSeal(message: { readonly [k: string]: SipsValue }, secretKey: string): string {
  return createHmac('sha256', Buffer.from(secretKey, 'utf8')).update(sealString(message), 'utf8').digest('hex');
}

/** Whether a message carries the seal the secret key gives it (constant-time comparison). */
export function hasValidSeal(message: { readonly [k: string]: SipsValue }, secretKey: string): boolean {
  const given = message.seal;
  if (typeof given !== 'string' || !/^[0-9a-fA-F]{64}$/.test(given)) return false;
  const expected = Buffer.from(computeSeal(message, secretKey), 'hex');
  return timingSafeEqual(expected, Buffer.from(given.toLowerCase(), 'hex'));
}

/**
 * ISO 4217 numeric codes of the currencies Sips lists for `currencyCode` (data dictionary,
 * "currencyCode: list of values").
 */
const SIPS_CURRENCY_CODES: Readonly<Record<string, string>> = {
  ARS: '032',
  AUD: '036',
  BHD: '048',
  KHR: '116',
  CAD: '124',
  LKR: '144',
  CNY: '156',
  CZK: '203',
  DKK: '208',
  HKD: '344',
  HUF: '348',
  ISK: '352',
  INR: '356',
  ILS: '376',
  JPY: '392',
  KRW: '410',
  KWD: '414',
  MYR: '458',
  MUR: '480',
  MXN: '484',
  NPR: '524',
  NZD: '554',
  NOK: '578',
  QAR: '634',
  RUB: '643',
  SAR: '682',
  SGD: '702',
  ZAR: '710',
  SEK: '752',
  CHF: '756',
  THB: '764',
  AED: '784',
  TND: '788',
  GBP: '826',
  USD: '840',
  TWD: '901',
  RSD: '941',
  RON: '946',
  TRY: '949',
  XOF: '952',
  XPF: '953',
  BGN: '975',
  EUR: '978',
  UAH: '980',
  PLN: '985',
  BRL: '986',
};

const CURRENCY_BY_CODE: ReadonlyMap<string, string> = new Map(Object.entries(SIPS_CURRENCY_CODES).map(([alpha, numeric]) => [numeric, alpha]));

/** The Sips `currencyCode` of a Chipin currency; RangeError for one Sips does not take. */
export function toSipsCurrency(currency: string): string {
  const code = SIPS_CURRENCY_CODES[currency];
  if (!code) throw new RangeError(`Sips does not take the currency "${currency}"`);
  return code;
}

/** The Chipin currency of a Sips `currencyCode`, or undefined. */
export function fromSipsCurrency(code: unknown): string | undefined {
  return typeof code === 'string' ? CURRENCY_BY_CODE.get(code) : undefined;
}

/**
 * A Chipin amount as Sips takes it: "the smallest currency unit" (EUR 10.50 is 1050), an integer,
 * so the ISO minor units Chipin counts in, unchanged. Refuses what is not a positive safe integer
 * and a currency Sips does not list (RangeError: a caller bug, never sent).
 */
export function toSipsAmount(amountCents: number, currency: string): number {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError(`amountCents must be a positive integer, got ${amountCents}`);
  toSipsCurrency(currency);
  currencyExponent(currency);
  return amountCents;
}

/** A Sips amount (a JSON number or a string of digits) in minor units, or undefined when it is not one. */
export function fromSipsAmount(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\d{1,16}$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  return undefined;
}

/**
 * Sips `responseCode` values (data dictionary, "responseCode"), the outcome of a request as Sips
 * itself answers it (the acquirer's own answer is `acquirerResponseCode`).
 */
export const SIPS_RESPONSE_CODES = [
  '00',
  '01',
  '02',
  '03',
  '05',
  '11',
  '12',
  '14',
  '17',
  '24',
  '25',
  '30',
  '34',
  '40',
  '51',
  '54',
  '55',
  '57',
  '60',
  '62',
  '63',
  '75',
  '90',
  '94',
  '97',
  '99',
] as const;
export type SipsResponseCode = (typeof SIPS_RESPONSE_CODES)[number];

export function isSipsResponseCode(value: unknown): value is SipsResponseCode {
  return typeof value === 'string' && (SIPS_RESPONSE_CODES as readonly string[]).includes(value);
}

/**
 * What a `responseCode` means for the connector: `ok`, a refusal (a value, with its reason), or a
 * fault (an exception, with the contract's code). `24` (operation impossible) and `51` (amount too
 * high) answer operations on a transaction: the amount or the state does not allow it.
 */
export type ResponseMeaning =
  | { kind: 'ok' }
  | { kind: 'refused'; reason: DeclineReason }
  | { kind: 'pending' }
  | { kind: 'duplicate' }
  | { kind: 'unknown_transaction' }
  | { kind: 'fault'; code: 'bad_credentials' | 'bad_response' | 'unreachable' };

function unmapped(value: never): never {
  throw new Error(`unmapped sips value ${String(value)}`);
}

export function responseMeaning(code: SipsResponseCode, acquirerResponseCode?: string): ResponseMeaning {
  switch (code) {
    case '00': // accepted
    case '01': // partial success (panToToken / tokenToPan only)
      return { kind: 'ok' };
    case '02': // authorisation by telephone with the issuer (card threshold exceeded)
    case '05': // authorisation refused
    case '11': // card blocked (deferred check)
    case '57': // refund refused: the original transaction was the subject of an unpaid
    case '63': // security rules not observed, transaction stopped
    case '75': // too many attempts at entering the payment mean data
      return { kind: 'refused', reason: acquirerReason(acquirerResponseCode) ?? 'card_declined' };
    case '14': // invalid PAN or payment mean data (card number, visual cryptogram, AVS)
      return { kind: 'refused', reason: 'invalid_card' };
    case '54': // payment mean expiry date past
      return { kind: 'refused', reason: 'expired_card' };
    case '55': // the merchant does not take prepaid cards
      return { kind: 'refused', reason: 'card_declined' };
    case '17': // the customer cancelled (abandoned authentication)
    case '97': // session expired: no action from the shopper for 15 minutes
      return { kind: 'refused', reason: 'authentication_failed' };
    case '24': // operation impossible: the transaction's state does not allow it
    case '51': // amount too high: beyond what the transaction allows
      return { kind: 'refused', reason: 'amount_too_large' };
    case '12': // invalid transaction: a request parameter is wrong
    case '30': // format error
    case '40': // function not supported by the merchant's contract
      return { kind: 'fault', code: 'bad_response' };
    case '03': // invalid merchant contract
    case '34': // fraud suspicion: the seal is wrong
      return { kind: 'fault', code: 'bad_credentials' };
    case '25': // transaction unknown to Sips
      return { kind: 'unknown_transaction' };
    case '60': // transaction pending
    case '62': // waiting for the transaction's confirmation
      return { kind: 'pending' };
    case '94': // duplicated transaction: the transactionReference was used before
      return { kind: 'duplicate' };
    case '90': // service temporarily unavailable
    case '99': // temporary problem at the payment server
      return { kind: 'fault', code: 'unreachable' };
    default:
      return unmapped(code);
  }
}

/**
 * The refusal reason an acquirer's `acquirerResponseCode` (the ISO 8583 codes Sips relays, data
 * dictionary "acquirerResponseCode") gives; undefined for codes that mean a plain refusal.
 */
export function acquirerReason(code: string | undefined): DeclineReason | undefined {
  switch (code) {
    case '51': // insufficient funds
    case '61': // exceeds the withdrawal limit
      return 'insufficient_funds';
    case '33': // expired card
    case '54': // expired card
      return 'expired_card';
    case '14': // invalid card number
    case '15': // unknown issuer
    case '56': // card not in file
      return 'invalid_card';
    case '55': // wrong PIN / security code
      return 'incorrect_cvc';
    case 'A1': // soft decline: strong customer authentication required (PSD2)
      return 'authentication_failed';
    case '05': // do not honour
    case '04': // keep the card
    case '41': // lost card
    case '43': // stolen card
    case '57': // transaction not permitted to the cardholder
    case '59': // fraud suspicion
      return 'card_declined';
    default:
      return undefined;
  }
}

/**
 * Transaction statuses as `getTransactionData` answers them (data dictionary,
 * "transactionStatus"), those a card payment of Chipin's reaches.
 */
export const SIPS_TRANSACTION_STATUSES = [
  'TO_VALIDATE',
  'TO_CAPTURE',
  'CAPTURED',
  'TO_CREDIT',
  'CREDITED',
  'CANCELLED',
  'REFUSED',
  'EXPIRED',
  'TO_AUTHORIZE',
  'TO_CHALLENGE',
] as const;
export type SipsTransactionStatus = (typeof SIPS_TRANSACTION_STATUSES)[number];

export function isSipsTransactionStatus(value: unknown): value is SipsTransactionStatus {
  return typeof value === 'string' && (SIPS_TRANSACTION_STATUSES as readonly string[]).includes(value);
}

/**
 * Our status for a Sips transaction status.
 * - `TO_VALIDATE` is a hold (captureMode VALIDATION) waiting for the merchant's `validate`.
 * - `TO_CAPTURE` and `CAPTURED`: the money is taken (Sips sends it for collection at the end of
 *   the capture day, with no further act of the merchant); `refunded` once any refund.
 * - `TO_AUTHORIZE` (authorisation at the end of a collection period) and `TO_CHALLENGE` (held for
 *   the merchant's fraud review) are not final: Chipin has no "pending" status, so they read as
 *   `requires_action` ("look again later"), as Ogone's intermediate statuses do.
 */
export function toStatus(status: SipsTransactionStatus, refundedCents: number): TransactionStatus {
  switch (status) {
    case 'TO_VALIDATE':
      return 'authorized';
    case 'TO_CAPTURE':
    case 'CAPTURED':
    case 'TO_CREDIT':
    case 'CREDITED':
      return refundedCents > 0 ? 'refunded' : 'captured';
    case 'CANCELLED':
      return 'voided';
    case 'REFUSED':
      return 'declined';
    case 'EXPIRED':
      return 'expired';
    case 'TO_AUTHORIZE':
    case 'TO_CHALLENGE':
      return 'requires_action';
    default:
      return unmapped(status);
  }
}

/** What each refusal reason tells the shopper or the merchant, in our words (the PSP's text is not shown). */
export function declineMessage(reason: DeclineReason): string {
  switch (reason) {
    case 'card_declined':
      return 'The card was declined.';
    case 'insufficient_funds':
      return 'The card has insufficient funds.';
    case 'expired_card':
      return 'The card has expired.';
    case 'incorrect_cvc':
      return 'The security code is not valid.';
    case 'invalid_card':
      return 'The card number is not valid.';
    case 'authentication_failed':
      return '3-D Secure authentication failed or was abandoned.';
    case 'authorization_expired':
      return 'The authorisation hold has expired.';
    case 'amount_too_large':
      return 'The amount is larger than what the transaction allows.';
    case 'processing_error':
      return 'The payment could not be processed.';
    default:
      return unmapped(reason);
  }
}

/**
 * A `transactionReference` (Sips: alphanumeric, at most 35 characters, unique per shop and never
 * reusable) derived from an operation and our idempotency key: the same call repeated sends the
 * same reference, which Sips refuses to take twice (`94`), so a creation is never doubled.
 */
export function transactionReference(op: string, key: string, hash: (text: string) => string): string {
  return `CH${hash(`${op}\u0000${key}`).slice(0, 33)}`;
}

/** `cardExpiryDate` as Sips writes it: YYYYMM. */
export function toExpiryDate(expMonth: number, expYear: number): string {
  const year = expYear >= 0 && expYear < 100 ? 2000 + expYear : expYear;
  if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12 || !Number.isInteger(year) || year < 2000 || year > 2999) {
    throw new RangeError('card expiry must be a month 1-12 and a year');
  }
  return `${year}${String(expMonth).padStart(2, '0')}`;
}
