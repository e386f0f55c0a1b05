import { createHash } from 'node:crypto';
import { currencyExponent, parseDecimalAmount } from '../../domain/money.ts';
import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';
import type { ChallengeForm } from '../challenge-relay.ts';
import { decodeXmlEntities } from '../kit/xml-entities.ts';

/**
 * Ogone (Ingenico ePayments) DirectLink vocabulary and its mapping onto Chipin's (the
 * "transformers" of a Hyperswitch connector). Pure: no I/O.
 *
 * Sources: the DirectLink integration guide (payment-services.ingenico.com … /directlink:
 * "Order response", "Direct Query", "Possible response statuses"), Ingenico's "Transaction
 * statuses and errors" page, and the public DirectLink clients read for the wire format
 * (activemerchant's ogone.rb and its unit-test fixtures).
 */

export type HashAlgorithm = 'sha1' | 'sha256' | 'sha512';
export const HASH_ALGORITHMS: readonly HashAlgorithm[] = ['sha1', 'sha256', 'sha512'];

/**
 * SHA-IN / SHA-OUT signature: every parameter with a non-empty value, names upper-cased and
 * sorted alphabetically, each written `NAME=value` followed by the passphrase, all concatenated
 * and hashed; upper-case hex. `SHASIGN` itself is never part of it.
 */
export function shaSign(params: Readonly<Record<string, string>>, passphrase: string, algorithm: HashAlgorithm): string {
  const entries = Object.entries(params)
    .map(([k, v]) => [k.toUpperCase(), v] as const)
    .filter(([k, v]) => k !== 'SHASIGN' && v !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const text = entries.map(([k, v]) => `${k}=${v}${passphrase}`).join('');
  return createHash(algorithm).update(text, 'utf8').digest('hex').toUpperCase();
}

/** Transaction statuses as Ogone numbers them (the "STATUS" attribute). */
export const OGONE_STATUSES = [
  0, 1, 2, 4, 40, 41, 46, 5, 50, 51, 52, 55, 59, 6, 61, 62, 63, 64, 7, 71, 72, 73, 74, 75, 8, 81, 82, 83, 84, 85, 9, 91, 92, 93, 94, 95, 96, 99,
] as const;
export type OgoneStatus = (typeof OGONE_STATUSES)[number];

export function isOgoneStatus(n: number): n is OgoneStatus {
  return (OGONE_STATUSES as readonly number[]).includes(n);
}

function unreachable(value: never): never {
  throw new Error(`unmapped ogone value ${String(value)}`);
}

/**
 * Our status for an Ogone global status. Ogone has no "lapsed" status (the acquirer simply
 * refuses a late capture), so `lapsed` comes from the connector's clock.
 *
 * Chipin has no "pending" status: Ogone's intermediate and uncertain statuses (stored, waiting,
 * offline authorisation, authorisation not known, being processed) read as `requires_action`,
 * meaning "not final: retrieve again later".
 */
export function toStatus(status: OgoneStatus, refundedCents: number, lapsed = false): TransactionStatus {
  switch (status) {
    case 0: // invalid or incomplete
    case 1: // cancelled by the customer
    case 2: // authorisation refused
    case 93: // payment refused
      return 'declined';
    case 4: // order stored
    case 40: // stored, waiting external result
    case 41: // waiting for client payment
    case 46: // waiting authentication (3-D Secure)
    case 50: // authorised, waiting external result
    case 51: // authorisation waiting (offline)
    case 52: // authorisation not known
    case 55: // standby
    case 59: // authorisation to be requested manually
    case 99: // being processed
      return 'requires_action';
    case 5: // authorised
    case 63: // authorisation deletion refused: the hold stays
      return lapsed ? 'expired' : 'authorized';
    case 6: // authorised and cancelled
    case 61: // authorisation deletion waiting
    case 62: // authorisation deletion uncertain
    case 64: // authorised and cancelled
    case 7: // payment deleted
    case 71: // payment deletion pending
    case 72: // payment deletion uncertain
    case 74: // payment deleted
    case 75: // deletion processed by merchant
      return 'voided';
    case 73: // payment deletion refused: still captured
    case 9: // payment requested
    case 91: // payment processing
    case 92: // payment uncertain
    case 95: // payment processed by merchant
    case 94: // refund declined by the acquirer
    case 96: // refund reversed
    case 83: // refund refused
      return refundedCents > 0 ? 'refunded' : 'captured';
    case 8: // refund
    case 81: // refund pending
    case 82: // refund uncertain
    case 84: // refund
    case 85: // refund processed by merchant
      return 'refunded';
    default:
      return unreachable(status);
  }
}

/** What a maintenance history entry (a PAYIDSUB) did to the money. */
export function operationKind(status: OgoneStatus): 'capture' | 'refund' | 'other' {
  if (status === 9 || status === 91 || status === 92 || status === 95) return 'capture';
  if (status === 8 || status === 81 || status === 82 || status === 84 || status === 85) return 'refund';
  return 'other';
}

/**
 * NCERROR codes of refusals. The 300xx1001 acquirer codes carry the ISO 8583 response code in
 * digits 3–4 (05 do not honour, 51 insufficient funds, 54 expired card, 14 invalid card number);
 * 4000113x are 3-D Secure outcomes; 5000xxxx are the platform's own checks.
 */
export const OGONE_REFUSAL_CODES = [
  '30001001', // payment refused by the acquirer
  '30051001', // authorisation declined (do not honour)
  '30041001', // retain card
  '30431001', // stolen card
  '30571001', // transaction not permitted to the cardholder
  '30511001', // insufficient funds
  '30611001', // amount exceeds the card's ceiling
  '30541001', // expired card
  '30331001', // expired card
  '30141001', // invalid card number
  '40001134', // 3-D Secure authentication failed
  '40001135', // 3-D Secure authentication temporarily unavailable
  '50001054', // card number incorrect or incompatible
  '50001005', // expiry date error
  '50001090', // CVC too short
  '50001127', // this order is not authorised (maintenance on a transaction that holds nothing)
  '50001174', // amount larger than what is left to capture or refund
  '50001048', // authorisation expired (too old to capture)
  '30001010', // technical problem at the acquirer
  '30911001', // acquirer unavailable
] as const;
export type OgoneRefusalCode = (typeof OGONE_REFUSAL_CODES)[number];

function isRefusalCode(code: string): code is OgoneRefusalCode {
  return (OGONE_REFUSAL_CODES as readonly string[]).includes(code);
}

export function toDeclineReason(code: OgoneRefusalCode): DeclineReason {
  switch (code) {
    case '30001001':
    case '30051001':
    case '30041001':
    case '30431001':
    case '30571001':
      return 'card_declined';
    case '30511001':
    case '30611001':
      return 'insufficient_funds';
    case '30541001':
    case '30331001':
    case '50001005':
      return 'expired_card';
    case '30141001':
    case '50001054':
      return 'invalid_card';
    case '50001090':
      return 'incorrect_cvc';
    case '40001134':
    case '40001135':
      return 'authentication_failed';
    case '50001127':
    case '50001174':
      return 'amount_too_large';
    case '50001048':
      return 'authorization_expired';
    case '30001010':
    case '30911001':
      return 'processing_error';
    default:
      return unreachable(code);
  }
}

/** A refusal in our words; a code outside the known list is a `processing_error`, its text kept. */
export function declineFor(ncError: string, ncErrorPlus: string | undefined): { reason: DeclineReason; message: string } {
  const reason = isRefusalCode(ncError) ? toDeclineReason(ncError) : 'processing_error';
  const plus = (ncErrorPlus ?? '').trim();
  return { reason, message: plus && plus !== '!' ? `${plus} (NCERROR ${ncError})` : `Refused by Ogone (NCERROR ${ncError}).` };
}

/** Answers that mean the API user, password, SHA-IN or IP filter refused us: "unknown order/1/s/" and kin. */
export function isCredentialRefusal(ncErrorPlus: string | undefined): boolean {
  return /^\s*unknown order\/[01]\/[siurp]\b/i.test(ncErrorPlus ?? '');
}

export const DUPLICATE_ORDER = '50001113'; // "This order has already been processed"
export const UNKNOWN_ORDER = '50001130'; // query or maintenance on an order the account does not have
export const UNKNOWN_ALIAS = '50001066'; // the ALIAS is not stored for this PSPID

/** An `<ncresponse …>` answer: its attributes by name, and the 3-D Secure HTML when there is one. */
export interface NcResponse {
  attrs: Record<string, string>;
  htmlAnswer?: string;
}

/** Reads DirectLink's XML answer; undefined when it is not one (the caller's `bad_response`). */
export function parseNcResponse(body: string): NcResponse | undefined {
  const m = /<ncresponse\b([^>]*?)(\/?)>/i.exec(body);
  if (!m) return undefined;
  const attrs: Record<string, string> = {};
  const attrRe = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  let a: RegExpExecArray | null;
  while ((a = attrRe.exec(m[1] ?? '')) !== null) attrs[a[1]!] = decodeXmlEntities(a[2] ?? a[3] ?? '');
  if (!('STATUS' in attrs) && !('NCERROR' in attrs)) return undefined;
  const html = /<HTML_ANSWER>([\s\S]*?)<\/HTML_ANSWER>/i.exec(body);
  const result: NcResponse = { attrs };
  if (html) result.htmlAnswer = Buffer.from(html[1]!.replace(/\s+/g, ''), 'base64').toString('utf8');
  return result;
}

/**
 * Ogone answers a 3-D Secure step with an HTML form (HTML_ANSWER) that posts to the card
 * issuer's ACS; its action and hidden fields are what Chipin's relay page posts again in the
 * shopper's browser (the HTML itself, scripts included, is never served).
 */
export function challengeFormFromHtml(html: string): ChallengeForm | undefined {
  const form = /<form\b[^>]*\baction\s*=\s*"([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  let url: URL;
  try {
    url = new URL(decodeXmlEntities(form[1]!));
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const fields: Record<string, string> = {};
  const inputRe = /<input\b[^>]*>/gi;
  let i: RegExpExecArray | null;
  while ((i = inputRe.exec(form[2] ?? '')) !== null) {
    const name = /\bname\s*=\s*"([^"]*)"/i.exec(i[0]);
    const value = /\bvalue\s*=\s*"([^"]*)"/i.exec(i[0]);
    if (name && /type\s*=\s*"hidden"/i.test(i[0])) fields[decodeXmlEntities(name[1]!)] = decodeXmlEntities(value?.[1] ?? '');
  }
  return { action: url.toString(), fields };
}

/** Ogone's AMOUNT: the amount multiplied by 100, whatever the currency's decimals. */
export function toOgoneAmount(amountCents: number, currency: string): string {
  const exponent = currencyExponent(currency);
  if (exponent > 2) throw new RangeError(`Ogone's AMOUNT cannot express ${currency}'s ${exponent} decimals`);
  return String(amountCents * 10 ** (2 - exponent));
}

/** The answers' `amount`: a plain decimal in the currency's unit ("12.5"). */
export function fromOgoneAmount(text: string | undefined, currency: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  return parseDecimalAmount(text, currency);
}

/** TRXDATE is MM/DD/YY. */
export function parseTrxDate(text: string | undefined): Date | undefined {
  const m = /^(\d{2})\/(\d{2})\/(\d{2})$/.exec(text ?? '');
  if (!m) return undefined;
  const d = new Date(Date.UTC(2000 + Number(m[3]), Number(m[1]) - 1, Number(m[2])));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function formatTrxDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${p(d.getUTCFullYear() % 100)}`;
}

/**
 * How long Chipin treats an Ogone authorisation as holding: acquirers commonly keep a hold 7
 * days. Ogone reports only the authorisation day (TRXDATE), so the hold lapses at midnight UTC
 * 7 days after that day.
 */
const HOLD_DAYS = 7;
export function holdExpiry(trxDate: Date): Date {
  return new Date(trxDate.getTime() + HOLD_DAYS * 86_400_000);
}

/** The global answer of a DirectLink query plus the history entries (PAYIDSUBs), folded into our view. */
export interface OgoneView {
  payId: string;
  status: OgoneStatus;
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
  ncError: string;
  ncErrorPlus?: string;
  expiresAt?: Date;
}

export function toTransactionResult(view: OgoneView, now: Date, challenge?: ChallengeForm): TransactionResult {
  const lapsed = view.expiresAt !== undefined && now.getTime() >= view.expiresAt.getTime();
  const status = toStatus(view.status, view.refundedCents, lapsed);
  const result: TransactionResult = {
    transactionId: view.payId,
    status,
    amountCents: view.amountCents,
    capturedCents: view.capturedCents,
    refundedCents: view.refundedCents,
  };
  if (status === 'declined') result.decline = declineFor(view.ncError || '30001001', view.ncErrorPlus);
  if (status === 'requires_action' && challenge) result.challengeForm = challenge;
  if ((status === 'authorized' || status === 'expired') && view.expiresAt) result.expiresAt = view.expiresAt;
  return result;
}
