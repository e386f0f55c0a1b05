import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { currencyExponent, decimalAmount, isKnownCurrency, parseDecimalAmount } from '../../domain/money.ts';
import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';
import type { ChallengeForm } from '../challenge-relay.ts';
import { decodeXmlEntities } from '../kit/xml-entities.ts';

/**
 * Monetico Paiement (Euro-Information: Crédit Mutuel, CIC) vocabulary and its mapping onto
 * Chipin's. Pure: no I/O. Sources and the decisions taken without one: docs/psp/monetico.md.
 */

/** The interface version every call sends (`version`): 3.0, whose seal covers every field sorted by name. */
export const MONETICO_VERSION = '3.0';

/**
 * The "usable key": the security key is given as 40 hexadecimal characters and used as the 20
 * bytes they spell. Euro-Information's kits (MoneticoPaiement_Ept `_getUsableKey`, copied by the
 * published SDKs) first rewrite the last two characters of keys made before the all-hex format:
 * a letter between G and `` ` `` is shifted back by 23, and a final `M` stands for `0`.
 */
export function usableKey(hexKey: string): Buffer {
  let key = hexKey.slice(0, 38);
  const last = `${hexKey.slice(38, 40)}00`;
  const c = last.charCodeAt(0);
  if (c > 70 && c < 97) key += String.fromCharCode(c - 23) + last[1]!;
  else if (last[1] === 'M') key += `${last[0]!}0`;
  else key += last.slice(0, 2);
  return Buffer.from(key, 'hex');
}

/** The text a v3.0 MAC seals: every field but `MAC`, sorted by name (byte order), `name=value` joined by `*`. */
export function macText(fields: Readonly<Record<string, string>>): string {
  return Object.keys(fields)
    .filter((k) => k !== 'MAC')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((k) => `${k}=${fields[k]}`)
    .join('*');
}

/** The MAC of a request, an answer or a return-interface call: HMAC-SHA1 with the usable key, upper-case hex. */
export function computeMac(fields: Readonly<Record<string, string>>, hexKey: string): string {
  return createHmac('sha1', usableKey(hexKey)).update(macText(fields), 'utf8').digest('hex').toUpperCase();
}

/** Whether `fields.MAC` seals the other fields (constant-time; the hex's case does not matter). */
export function macMatches(fields: Readonly<Record<string, string>>, hexKey: string): boolean {
  const given = fields.MAC;
  if (!given || !/^[0-9A-Fa-f]{40}$/.test(given)) return false;
  const expected = Buffer.from(computeMac(fields, hexKey), 'utf8');
  const provided = Buffer.from(given.toUpperCase(), 'utf8');
  return provided.length === expected.length && timingSafeEqual(provided, expected);
}

/**
 * Monetico's amounts: the decimal amount followed by the ISO currency code, "10.00EUR"
 * (`[0-9]+(\.[0-9]{1,2})?[A-Z]{3}`). Exact: from integer minor units through their digits.
 */
export function toMoneticoAmount(amountCents: number, currency: string): string {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) throw new RangeError('amount must be a non-negative integer of minor units');
  const exponent = currencyExponent(currency);
  if (exponent > 2) throw new RangeError(`Monetico's amounts cannot express ${currency}'s ${exponent} decimals`);
  return `${decimalAmount(amountCents, currency)}${currency}`;
}

/** "10.00EUR", "42EUR", "10.5EUR" → minor units and currency; undefined when it is not an amount. */
export function fromMoneticoAmount(text: string | undefined): { amountCents: number; currency: string } | undefined {
  const m = /^(\d{1,13}(?:\.\d{1,2})?)([A-Z]{3})$/.exec((text ?? '').trim());
  if (!m || !isKnownCurrency(m[2]!)) return undefined;
  const amountCents = parseDecimalAmount(m[1]!, m[2]!);
  return amountCents === undefined ? undefined : { amountCents, currency: m[2]! };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `date` of a request: DD/MM/YYYY:HH:MM:SS (UTC, see docs/psp/monetico.md). */
export function formatMoneticoDate(d: Date): string {
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `date_commande`: DD/MM/YYYY. */
export function formatOrderDate(d: Date): string {
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()}`;
}

/** DD/MM/YYYY or DD/MM/YYYY:HH:MM:SS (also with `_a_` between day and time, as the return interface writes it). */
export function parseMoneticoDate(text: string | undefined): Date | undefined {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})(?:(?::|_a_)(\d{2}):(\d{2}):(\d{2}))?$/.exec(text ?? '');
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)));
  return Number.isNaN(d.getTime()) || d.getUTCDate() !== Number(m[1]) ? undefined : d;
}

/**
 * An order's `reference` (12 alphanumeric characters at most for capture and recredit) derived
 * from the operation and our idempotency key: the same call sends the same reference, which
 * Monetico refuses to pay twice.
 */
export function orderReference(op: string, key: string): string {
  const n = BigInt(`0x${createHash('sha256').update(`${op}\u0000${key}`).digest('hex').slice(0, 15)}`);
  return `C${n.toString(36).toUpperCase().padStart(11, '0').slice(-11)}`;
}

/** The answers of capture_paiement.cgi and recredit_paiement.cgi: `name=value` lines. */
export function parseLines(body: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of body.replace(/\r/g, '').split('\n')) {
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return undefined;
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return 'cdr' in out ? out : undefined;
}

/** A flat XML answer (`<result><cdr>1</cdr>…</result>`): its elements by name; undefined when it is not one. */
export function parseFlatXml(body: string): Record<string, string> | undefined {
  if (!/^\s*(?:<\?xml[^>]*\?>\s*)?<(result|etatpaiement)\b/i.test(body)) return undefined;
  const out: Record<string, string> = {};
  const re = /<([A-Za-z][\w-]*)>([^<]*)<\/\1>/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(body)) !== null) out[m[1]!] = decodeXmlEntities(m[2]!);
  return out;
}

/**
 * `cdr` of a direct (server-to-server) payment: 1 accepted, 0 refused, 2 3-D Secure to do, and
 * the negative codes of a request the server did not take.
 */
export const PAYMENT_CDRS = ['2', '1', '0', '-1', '-2', '-3', '-4', '-5', '-6', '-7', '-8', '-9', '-10', '-11', '-12', '-13', '-14', '-15', '-16', '-20', '-21'] as const;
export type PaymentCdr = (typeof PAYMENT_CDRS)[number];
export function isPaymentCdr(cdr: string | undefined): cdr is PaymentCdr {
  return (PAYMENT_CDRS as readonly (string | undefined)[]).includes(cdr);
}

export type PaymentOutcome =
  { kind: 'accepted' } | { kind: 'challenge' } | { kind: 'refused'; reason: DeclineReason } | { kind: 'duplicate' } | { kind: 'credentials' } | { kind: 'fault' };

/** What a direct payment's `cdr` means for the connector. */
export function paymentOutcome(cdr: PaymentCdr): PaymentOutcome {
  switch (cdr) {
    case '1':
      return { kind: 'accepted' };
    case '2':
      return { kind: 'challenge' };
    case '0':
      return { kind: 'refused', reason: 'card_declined' }; // the answer's motifrefus refines it
    case '-4': // expired card
      return { kind: 'refused', reason: 'expired_card' };
    case '-5': // card number error
      return { kind: 'refused', reason: 'invalid_card' };
    case '-9': // CVX error
      return { kind: 'refused', reason: 'incorrect_cvc' };
    case '-16': // 3-D Secure error
      return { kind: 'refused', reason: 'authentication_failed' };
    case '-21': // blocked by the merchant's filters
    case '-14': // order burnt (too many attempts)
      return { kind: 'refused', reason: 'card_declined' };
    case '-10': // payment already registered
    case '-11': // payment already accepted
    case '-12': // payment already cancelled
      return { kind: 'duplicate' };
    case '-2': // merchant not identified (TPE, societe)
    case '-3': // MAC error (the key)
      return { kind: 'credentials' };
    case '-1': // technical error
    case '-6': // order expired
    case '-7': // amount error
    case '-8': // date error
    case '-13': // being processed
    case '-15': // parameter error
    case '-20': // wrong version
      return { kind: 'fault' };
    default:
      return unreachable(cdr);
  }
}

/**
 * `motifrefus` of a refused payment, as the return interface documents it, and the acquirer's
 * ISO 8583 answer (`motifrefusautorisation`) that tells insufficient funds from other refusals.
 */
export const REFUSAL_MOTIVES = ['Appel Phonie', 'Refus', 'Interdit', 'filtrage', 'scoring', '3DSecure'] as const;
export type RefusalMotive = (typeof REFUSAL_MOTIVES)[number];
function isRefusalMotive(v: string | undefined): v is RefusalMotive {
  return (REFUSAL_MOTIVES as readonly (string | undefined)[]).includes(v);
}

export function toDeclineReason(motive: RefusalMotive, authorisationCode: string | undefined): DeclineReason {
  switch (motive) {
    case '3DSecure':
      return 'authentication_failed';
    case 'Refus':
    case 'Appel Phonie':
      switch (authorisationCode) {
        case '51':
        case '61':
          return 'insufficient_funds';
        case '54':
        case '33':
          return 'expired_card';
        case '14':
          return 'invalid_card';
        case 'N7':
        case '82':
          return 'incorrect_cvc';
        default:
          return 'card_declined';
      }
    case 'Interdit':
    case 'filtrage':
    case 'scoring':
      return 'card_declined';
    default:
      return unreachable(motive);
  }
}

/** A refusal in our words; an unknown motive is a `processing_error`, its text kept. */
function declineFor(motive: string | undefined, authorisationCode: string | undefined): { reason: DeclineReason; message: string } {
  if (!isRefusalMotive(motive)) return { reason: 'processing_error', message: `Refused by Monetico${motive ? ` (${motive})` : ''}.` };
  const code = authorisationCode ? `, ${authorisationCode}` : '';
  return { reason: toDeclineReason(motive, authorisationCode), message: `Refused by Monetico (${motive}${code}).` };
}

/** `etat` of a payment read from etatpaiement.cgi. */
export const PAYMENT_STATES = ['PA', 'AN', 'RE', 'GR', 'AP', 'EC'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];
export function isPaymentState(v: string | undefined): v is PaymentState {
  return (PAYMENT_STATES as readonly (string | undefined)[]).includes(v);
}

/**
 * Our status for a payment's state and amounts. Monetico has no "lapsed" state (a late capture
 * answers "commande expiree"), so `lapsed` comes from the connector's clock.
 */
export function toStatus(state: PaymentState, capturedCents: number, refundedCents: number, lapsed: boolean): TransactionStatus {
  switch (state) {
    case 'PA': // accepted: held until captured, or captured
      if (refundedCents > 0) return 'refunded';
      if (capturedCents > 0) return 'captured';
      return lapsed ? 'expired' : 'authorized';
    case 'AN': // cancelled (the hold released)
      return capturedCents > 0 ? (refundedCents > 0 ? 'refunded' : 'captured') : 'voided';
    case 'RE': // refused
    case 'GR': // burnt: too many attempts
    case 'AP': // abandoned
      return 'declined';
    case 'EC': // being processed: 3-D Secure not done yet
      return 'requires_action';
    default:
      return unreachable(state);
  }
}

/**
 * How long Chipin treats a Monetico authorisation as holding: 7 days from the authorisation
 * (acquirers commonly keep a hold that long; Monetico answers "commande expiree" after it).
 */
const HOLD_DAYS = 7;
function holdExpiry(authorisedAt: Date): Date {
  return new Date(authorisedAt.getTime() + HOLD_DAYS * 86_400_000);
}

/** A payment as etatpaiement.cgi describes it, in minor units. */
export interface MoneticoView {
  reference: string;
  state: PaymentState;
  amountCents: number;
  currency: string;
  capturedCents: number;
  refundedCents: number;
  authorisedAt?: Date;
  motive?: string;
  authorisationCode?: string;
}

export function toTransactionResult(view: MoneticoView, now: Date, challenge?: ChallengeForm): TransactionResult {
  const expiresAt = view.authorisedAt ? holdExpiry(view.authorisedAt) : undefined;
  const lapsed = expiresAt !== undefined && now.getTime() >= expiresAt.getTime();
  const status = toStatus(view.state, view.capturedCents, view.refundedCents, lapsed);
  const result: TransactionResult = {
    transactionId: view.reference,
    status,
    amountCents: view.amountCents,
    capturedCents: view.capturedCents,
    refundedCents: view.refundedCents,
  };
  if (status === 'declined') result.decline = declineFor(view.motive, view.authorisationCode);
  if (status === 'requires_action' && challenge) result.challengeForm = challenge;
  if ((status === 'authorized' || status === 'expired') && expiresAt) result.expiresAt = expiresAt;
  return result;
}

function unreachable(value: never): never {
  throw new Error(`unmapped monetico value ${String(value)}`);
}
