import { currencyExponent } from '../../domain/money.ts';
import type { DeclineReason, TransactionStatus } from '../connector.ts';

/**
 * PayBox (Verifone e-commerce; Crédit Agricole's e-Transactions) Paybox Direct / Direct Plus
 * vocabulary and its mapping onto Chipin's. Pure: no I/O.
 *
 * Sources (docs/psp/paybox.md): the "Paybox Direct / Paybox Direct Plus Integration Manual"
 * (version 6.3, 16/06/2014: request and response variables, TYPE codes, CODEREPONSE values), the
 * integrator pages "Solutions Paybox Direct et Paybox Direct Plus" (www1.paybox.com /
 * pppaybox.boutique-paybox.com), and the published clients read for the wire format
 * (osimatic's PayBox class, nexylan/paybox-direct).
 */

/** VERSION: 00103 is Paybox Direct, 00104 Direct Plus (subscribers); Chipin needs Direct Plus. */
export const DIRECT_PLUS_VERSION = '00104';

/** The TYPE codes of the operations the connector sends ("opérations de caisse"). */
export const TYPES = {
  /** Capture of an authorisation ("débit"), Direct. */
  capture: '00002',
  /** Refund of a captured transaction ("remboursement"). */
  refund: '00014',
  /** Does a transaction exist under this REFERENCE and amount ("vérification de l'existence"). */
  check: '00011',
  /** The status of a transaction by NUMTRANS ("consultation"). */
  inquiry: '00017',
  /** Subscriber: authorisation only. */
  subscriberAuthorize: '00051',
  /** Subscriber: capture of an authorisation. */
  subscriberCapture: '00052',
  /** Subscriber: authorisation and capture. */
  subscriberCharge: '00053',
  /** Subscriber: cancellation of a transaction. */
  subscriberCancel: '00055',
  /** Registers a subscriber: the card stored, a token (PORTEUR) answered. */
  subscriberRegister: '00056',
  /** Deletes a subscriber. */
  subscriberDelete: '00058',
} as const;

/** ACTIVITE: how the transaction was initiated. 024: an internet payment (the shopper is there); 027: a recurring payment (merchant-initiated). */
export const ACTIVITY_INTERNET = '024';
export const ACTIVITY_RECURRING = '027';

/**
 * The CODEREPONSE values of the manual: 00000 success, 000xx the platform's own answers, 001xx
 * the acquirer's ISO 8583 answer prefixed with 001 (00105 "do not honour", 00151 "insufficient
 * funds"...).
 */
export const RESPONSE_CODES = [
  '00000',
  '00001', // connection to the authorisation centre failed
  '00002', // consistency error
  '00003', // Paybox error
  '00004', // invalid card number or visual cryptogram
  '00005', // invalid question number
  '00006', // access refused or site / rank / key incorrect
  '00007', // invalid date
  '00008', // invalid expiry date
  '00009', // invalid operation type
  '00010', // unknown currency
  '00011', // incorrect amount
  '00012', // invalid order reference
  '00013', // version no longer supported
  '00014', // incoherent frame received
  '00015', // error accessing previously referenced data
  '00016', // subscriber already exists
  '00017', // subscriber does not exist
  '00018', // transaction not found
  '00020', // visual cryptogram missing
  '00021', // card not authorised
  '00022', // ceiling reached
  '00023', // cardholder already seen today
  '00024', // country code filtered for this merchant
  '00026', // incorrect activity code
  '00040', // cardholder enrolled (3-D Secure) but not authenticated
  '00097', // connection time-out
  '00098', // internal connection error
  '00099', // question and answer incoherent: try again later
  '00100', // acquirer: approved
  '00101', // contact the card issuer
  '00102', // contact the card issuer (special conditions)
  '00103', // invalid merchant
  '00104', // pick up card
  '00105', // do not honour
  '00107', // pick up card, special conditions
  '00108', // approve after identification
  '00112', // invalid transaction
  '00113', // invalid amount
  '00114', // invalid card number
  '00115', // unknown issuer
  '00117', // customer cancellation
  '00119', // repeat the transaction later
  '00120', // wrong answer (server domain error)
  '00130', // format error
  '00131', // unknown acquirer
  '00133', // card expired
  '00134', // suspected fraud
  '00138', // too many PIN tries
  '00141', // lost card
  '00143', // stolen card
  '00151', // insufficient funds or credit limit exceeded
  '00154', // card expired
  '00155', // wrong PIN
  '00156', // card not in file
  '00157', // transaction not permitted to this cardholder
  '00158', // transaction not permitted to this terminal
  '00159', // suspected fraud
  '00160', // the acceptor must contact the acquirer
  '00161', // exceeds the withdrawal amount limit
  '00163', // security rules violated
  '00168', // answer not received or too late
  '00175', // too many PIN tries
  '00176', // cardholder already opposed
  '00189', // authentication failed
  '00190', // system temporarily stopped
  '00191', // card issuer unreachable
  '00194', // duplicate request
  '00196', // system malfunction
  '00197', // global surveillance time-out
  '00198', // server unreachable
  '00199', // initiator domain incident
] as const;
export type ResponseCode = (typeof RESPONSE_CODES)[number];

function isResponseCode(code: string): code is ResponseCode {
  return (RESPONSE_CODES as readonly string[]).includes(code);
}

/** What a CODEREPONSE means for Chipin: done, a refusal (a value), or a fault (an exception). */
export type Outcome =
  | { kind: 'ok' }
  | { kind: 'refused'; reason: DeclineReason }
  | { kind: 'challenge' }
  | { kind: 'fault'; code: 'unreachable' | 'bad_credentials' | 'bad_response' | 'unknown_transaction' | 'unknown_payment_method' }
  | { kind: 'subscriber_exists' };

function unmapped(value: never): never {
  throw new Error(`unmapped paybox value ${String(value)}`);
}

/** Every CODEREPONSE, classified: an exhaustive switch, so a code added to the list must be mapped. */
export function outcomeOf(code: ResponseCode): Outcome {
  switch (code) {
    case '00000':
    case '00100':
      return { kind: 'ok' };
    case '00040':
      return { kind: 'challenge' };
    case '00016':
      return { kind: 'subscriber_exists' };
    case '00017':
      return { kind: 'fault', code: 'unknown_payment_method' };
    case '00018':
    case '00015':
      return { kind: 'fault', code: 'unknown_transaction' };
    case '00006':
      return { kind: 'fault', code: 'bad_credentials' };
    // The outcome of the call is unknown, or Paybox could not process it now: the operation log replays it.
    case '00001':
    case '00003':
    case '00097':
    case '00098':
    case '00099':
      return { kind: 'fault', code: 'unreachable' };
    // Our request was malformed: a bug on our side, never the shopper's refusal.
    case '00002':
    case '00005':
    case '00007':
    case '00009':
    case '00010':
    case '00011':
    case '00012':
    case '00013':
    case '00014':
    case '00026':
      return { kind: 'fault', code: 'bad_response' };
    case '00004':
    case '00114':
    case '00115':
    case '00156':
      return { kind: 'refused', reason: 'invalid_card' };
    case '00008':
    case '00133':
    case '00154':
      return { kind: 'refused', reason: 'expired_card' };
    case '00020':
      return { kind: 'refused', reason: 'incorrect_cvc' };
    case '00022':
    case '00151':
    case '00161':
      return { kind: 'refused', reason: 'insufficient_funds' };
    case '00189':
      return { kind: 'refused', reason: 'authentication_failed' };
    case '00021':
    case '00023':
    case '00024':
    case '00101':
    case '00102':
    case '00103':
    case '00104':
    case '00105':
    case '00107':
    case '00108':
    case '00112':
    case '00113':
    case '00117':
    case '00130':
    case '00131':
    case '00134':
    case '00138':
    case '00141':
    case '00143':
    case '00155':
    case '00157':
    case '00158':
    case '00159':
    case '00160':
    case '00163':
    case '00175':
    case '00176':
      return { kind: 'refused', reason: 'card_declined' };
    case '00119':
    case '00120':
    case '00168':
    case '00190':
    case '00191':
    case '00194':
    case '00196':
    case '00197':
    case '00198':
    case '00199':
      return { kind: 'refused', reason: 'processing_error' };
    default:
      return unmapped(code);
  }
}

/** A CODEREPONSE outside the manual's list: an acquirer code (001xx) is a refusal, anything else an answer we cannot read. */
export function outcomeOfAny(code: string): Outcome {
  if (isResponseCode(code)) return outcomeOf(code);
  if (/^001\d\d$/.test(code)) return { kind: 'refused', reason: 'card_declined' };
  return { kind: 'fault', code: 'bad_response' };
}

/**
 * The transaction statuses the inquiry (TYPE 00017) answers in STATUS, in French. Paybox answers
 * in ISO-8859-1, so the accented letter may arrive mangled: the label is compared on its
 * unaccented start.
 */
export type PayboxStatusLabel = 'authorised' | 'captured' | 'refunded' | 'cancelled' | 'refused' | 'credit' | 'other';

export function statusLabelOf(text: string): PayboxStatusLabel {
  const t = text
    .normalize('NFD')
    .replace(/[^A-Za-z ]/g, '')
    .toLowerCase();
  if (t.startsWith('autoris')) return 'authorised';
  if (t.startsWith('captur')) return 'captured';
  if (t.startsWith('rembours')) return 'refunded';
  if (t.startsWith('annul')) return 'cancelled';
  if (t.startsWith('refus') || t.startsWith('rejet')) return 'refused';
  if (t.startsWith('cr')) return 'credit';
  return 'other';
}

/** Our status for an inquiry's label; `lapsed`: a hold past its 7 days (the connector's clock). */
export function toStatus(label: PayboxStatusLabel, lapsed: boolean): TransactionStatus | undefined {
  switch (label) {
    case 'authorised':
      return lapsed ? 'expired' : 'authorized';
    case 'captured':
      return 'captured';
    case 'refunded':
    case 'credit':
      return 'refunded';
    case 'cancelled':
      return 'voided';
    case 'refused':
      return 'declined';
    case 'other':
      return undefined;
    default:
      return unmapped(label);
  }
}

/**
 * ISO 4217 numeric codes for DEVISE. Paybox's MONTANT is in the currency's smallest unit, so the
 * connector takes the currencies with 2 decimals it names (the manual lists the ISO codes; the
 * published clients use 978, 840 and 952).
 */
const CURRENCY_CODES: Readonly<Record<string, string>> = { EUR: '978', USD: '840', GBP: '826', CHF: '756', CAD: '124' };

export function currencyCode(currency: string): string {
  const code = CURRENCY_CODES[currency];
  if (!code || currencyExponent(currency) !== 2) throw new RangeError(`the Paybox connector does not take ${currency}`);
  return code;
}

/** MONTANT: the amount in minor units, on 10 digits, zero-padded ("0000001000" for 10.00 EUR). */
export function toMontant(amountCents: number): string {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0 || amountCents > 9_999_999_999) throw new RangeError(`MONTANT cannot express ${amountCents}`);
  return String(amountCents).padStart(10, '0');
}

/** MONTANT back to minor units; undefined unless 1 to 10 digits. */
export function fromMontant(text: string | undefined): number | undefined {
  if (!/^\d{1,10}$/.test(text ?? '')) return undefined;
  return Number(text);
}

/** DATEQ: the request's date and time, ddmmyyyyhhmmss (UTC here). */
export function dateq(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCDate())}${p(d.getUTCMonth() + 1)}${p(d.getUTCFullYear(), 4)}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/** DATEVAL: the card's expiry, MMYY. */
export function dateval(expMonth: number, expYear: number): string {
  return `${String(expMonth).padStart(2, '0')}${String(expYear % 100).padStart(2, '0')}`;
}

/** Reads a form-encoded PPPS answer; undefined unless it carries a CODEREPONSE. */
export function parseAnswer(body: string): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(body.trim())) fields[k.toUpperCase()] = v.trim();
  return 'CODEREPONSE' in fields ? fields : undefined;
}

/**
 * The stored card Chipin knows as a payment method id: the subscriber reference (REFABONNE), the
 * token Paybox answered in PORTEUR at registration, and the expiry (DATEVAL), all three needed by
 * every subscriber operation. Encoded so that no separator can be confused with the token's
 * characters.
 */
export interface Subscriber {
  refAbonne: string;
  token: string;
  dateval: string;
}

const PM_PREFIX = 'pbx1.';

export function encodePaymentMethod(s: Subscriber): string {
  return PM_PREFIX + Buffer.from(JSON.stringify([s.refAbonne, s.token, s.dateval]), 'utf8').toString('base64url');
}

export function decodePaymentMethod(id: string): Subscriber | undefined {
  if (!id.startsWith(PM_PREFIX)) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(id.slice(PM_PREFIX.length), 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'string' && x.length > 0 && x.length <= 250)) return undefined;
    if (!/^\d{4}$/.test(v[2] as string)) return undefined;
    return { refAbonne: v[0] as string, token: v[1] as string, dateval: v[2] as string };
  } catch {
    return undefined;
  }
}

/** How long Chipin treats a Paybox authorisation as holding (the acquirers' common 7 days; Paybox answers no expiry). */
export const HOLD_DAYS = 7;
