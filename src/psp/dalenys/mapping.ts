import { createHash } from 'node:crypto';
import { currencyExponent } from '../../domain/money.ts';
import type { DeclineReason, TransactionStatus } from '../connector.ts';
import type { ChallengeForm } from '../challenge-relay.ts';

/**
 * Dalenys (formerly Be2bill) server-to-server API vocabulary and its mapping onto Chipin's. Pure:
 * no I/O.
 *
 * Sources (docs/psp/dalenys.md): Dalenys' own published SDKs — the PHP merchant API
 * (github.com/dalenys-deprecated/php-merchant-api: `Hash/Parameters.php`, `DirectLinkClient.php`,
 * `ClientBuilder.php`) and the Go client (github.com/noirotm/go-be2bill, "Copyright 2015
 * Dalenys": `hash.go` and its test vectors, `client.go`'s EXECCODE list, `directlink.go`), which
 * point to developer.dalenys.com / developer.be2bill.com for the reference.
 */

/** A request's parameters: values, or one level of nested values (`AMOUNTS[2025-01-01]`). */
export type DalenysParams = Readonly<Record<string, string | Readonly<Record<string, string>>>>;

function byKey<T>([a]: readonly [string, T], [b]: readonly [string, T]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * HASH: SHA-256 of the password, then for each parameter sorted by name `NAME=value` followed by
 * the password (a nested parameter as `NAME[index]=value`, its indexes sorted); lower-case hex.
 * `HASH` itself is left out. As `Dalenys_Api_Hash_Parameters::compute` does.
 */
export function dalenysHash(params: DalenysParams, password: string): string {
  let text = password;
  for (const [key, value] of Object.entries(params).sort(byKey)) {
    if (typeof value === 'string') {
      if (key === 'HASH') continue;
      text += `${key}=${value}${password}`;
    } else {
      for (const [index, v] of Object.entries(value).sort(byKey)) text += `${key}[${index}]=${v}${password}`;
    }
  }
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The form body of a call: `method=<operation>&params[NAME]=value…`, as the SDKs send it. */
export function formBody(method: string, params: DalenysParams): string {
  const form = new URLSearchParams({ method });
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'string') form.append(`params[${key}]`, value);
    else for (const [index, v] of Object.entries(value)) form.append(`params[${key}][${index}]`, v);
  }
  return form.toString();
}

/** Reads such a body back (the fake, and notifications sent the same way): `method` and the params, nested ones too. */
export function readFormBody(body: string): { method: string | undefined; params: Record<string, string | Record<string, string>> } {
  const params: Record<string, string | Record<string, string>> = {};
  const form = new URLSearchParams(body);
  for (const [name, value] of form) {
    const m = /^params\[([^\]]+)\](?:\[([^\]]*)\])?$/.exec(name);
    if (!m) continue;
    if (m[2] === undefined) params[m[1]!] = value;
    else {
      const nested = params[m[1]!];
      const bag = typeof nested === 'object' ? nested : {};
      bag[m[2]] = value;
      params[m[1]!] = bag;
    }
  }
  return { method: form.get('method') ?? undefined, params };
}

/**
 * AMOUNT: "in the currency smallest subdivision" (DirectLinkClient: `$amount = 100 > 1€`) — the
 * integer Chipin already holds, whatever the currency's decimals.
 */
export function toDalenysAmount(amountCents: number, currency: string): string {
  currencyExponent(currency); // an unknown currency throws
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError(`amountCents must be a positive integer, got ${amountCents}`);
  return String(amountCents);
}

export function fromDalenysAmount(text: unknown): number | undefined {
  const s = typeof text === 'number' ? String(text) : text;
  if (typeof s !== 'string' || !/^\d{1,15}$/.test(s)) return undefined;
  return Number(s);
}

/** CARDVALIDITYDATE is `MM-YY`. */
export function cardValidityDate(expMonth: number, expYear: number): string {
  return `${String(expMonth).padStart(2, '0')}-${String(expYear % 100).padStart(2, '0')}`;
}

/** The EXECCODE values (go-be2bill client.go, after developer.be2bill.com/annexes/execcodes). */
export const EXECCODES = [
  '0000', // operation succeeded
  '0001', // 3-D Secure authentication required (3DSECUREHTML)
  '0002', // redirection to an alternative payment page required (REDIRECTHTML)
  '1001', // missing parameter
  '1002', // invalid parameter
  '1003', // invalid HASH
  '1004', // unsupported protocol
  '2001', // ALIAS not found
  '2002', // reference transaction not found
  '2003', // reference transaction unsuccessful
  '2004', // transaction not refundable
  '2005', // authorization not capturable
  '2006', // incomplete transaction
  '2007', // invalid capture amount
  '2008', // invalid refund amount
  '2009', // authorization timeout (too old to capture)
  '2010', // schedule not found
  '2011', // interrupted schedule
  '2012', // schedule finished
  '3001', // account deactivated
  '3002', // server IP not authorized
  '3003', // transaction not authorized
  '4001', // transaction refused by the bank
  '4002', // insufficient funds
  '4003', // card refused by the bank
  '4004', // transaction abandoned
  '4005', // suspected fraud
  '4006', // card lost
  '4007', // card stolen
  '4008', // 3-D Secure authentication failed
  '4009', // 3-D Secure authentication timed out
  '4010', // invalid transaction
  '4011', // duplicate transaction
  '4012', // invalid card data
  '4013', // transaction not authorized for this cardholder
  '4014', // card not enrolled in 3-D Secure
  '4015', // transaction timed out
  '4016', // transaction refused by the terminal
  '5001', // exchange protocol error
  '5002', // bank network error
  '5003', // the platform is undergoing maintenance (Payum/Be2Bill Api.php; not in go-be2bill's list)
  '5004', // handler timeout
  '5005', // 3-D Secure display error
  '6001', // refused by the merchant
  '6002', // refused (unknown reason)
  '6003', // transaction challenged (fraud screening)
  '6004', // refused by the merchant's rules
] as const;
export type ExecCode = (typeof EXECCODES)[number];

export function isExecCode(code: unknown): code is ExecCode {
  return (EXECCODES as readonly unknown[]).includes(code);
}

function unreachable(value: never): never {
  throw new Error(`unmapped dalenys value ${String(value)}`);
}

/**
 * What an EXECCODE says of a transaction: accepted, waiting for the shopper (3-D Secure or a
 * redirection), refused (with our reason), or a fault of the call itself — our request or our
 * credentials, which changed nothing at Dalenys.
 */
export type ExecOutcome =
  | { kind: 'accepted' }
  | { kind: 'pending' }
  | { kind: 'refused'; reason: DeclineReason }
  | { kind: 'fault'; fault: 'bad_credentials' | 'bad_request' | 'unknown_transaction' | 'unknown_alias' | 'unreachable' };

export function execOutcome(code: ExecCode): ExecOutcome {
  switch (code) {
    case '0000':
      return { kind: 'accepted' };
    case '0001':
    case '0002':
      return { kind: 'pending' };
    case '1003': // our HASH does not match: the password is not the account's
    case '3001':
    case '3002':
      return { kind: 'fault', fault: 'bad_credentials' };
    case '1001':
    case '1002':
    case '1004':
      return { kind: 'fault', fault: 'bad_request' };
    case '2001':
      return { kind: 'fault', fault: 'unknown_alias' };
    case '2002':
      return { kind: 'fault', fault: 'unknown_transaction' };
    case '5003':
      // Nothing was done: the call is sent again later (by its ORDERID, never twice).
      return { kind: 'fault', fault: 'unreachable' };
    case '5001':
    case '5002':
    case '5004':
      // The bank's network, not the card: the outcome is a refusal at Dalenys, but not the shopper's.
      return { kind: 'refused', reason: 'processing_error' };
    case '2003': // the reference transaction holds nothing to capture or refund
    case '2004':
    case '2005':
    case '2006':
    case '2007':
    case '2008':
      return { kind: 'refused', reason: 'amount_too_large' };
    case '2010':
    case '2011':
    case '2012':
    case '3003':
    case '4001':
    case '4003':
    case '4005':
    case '4006':
    case '4007':
    case '4010':
    case '4011':
    case '4013':
    case '4016':
    case '6001':
    case '6002':
    case '6003':
    case '6004':
      return { kind: 'refused', reason: 'card_declined' };
    case '2009':
      return { kind: 'refused', reason: 'authorization_expired' };
    case '4002':
      return { kind: 'refused', reason: 'insufficient_funds' };
    case '4012':
      return { kind: 'refused', reason: 'invalid_card' };
    case '4004':
    case '4008':
    case '4009':
    case '4014':
    case '5005':
      return { kind: 'refused', reason: 'authentication_failed' };
    case '4015':
      return { kind: 'refused', reason: 'processing_error' };
    default:
      return unreachable(code);
  }
}

/** Our words for a refusal: the reason of its EXECCODE (processing_error outside the list), Dalenys' MESSAGE kept. */
export function declineFor(execCode: string, message: unknown): { reason: DeclineReason; message: string } {
  const outcome = isExecCode(execCode) ? execOutcome(execCode) : undefined;
  const reason = outcome?.kind === 'refused' ? outcome.reason : 'processing_error';
  const text = typeof message === 'string' && message.trim() ? message.trim() : 'Refused by Dalenys';
  return { reason, message: `${text} (EXECCODE ${execCode})` };
}

/** One transaction as Dalenys answers it (an operation's answer, a getTransactions DATA entry, a notification). */
export interface DalenysTransaction {
  transactionId: string;
  operationType: string;
  execCode: string;
  message: string;
  amountCents: number | undefined;
  alias?: string;
  cardType?: string;
  date?: Date;
}

/** The `DATE` of a transaction, `YYYY-MM-DD HH:MM:SS` (Europe/Paris at Dalenys; read as UTC, which only moves a 7-day hold by an hour or two). */
function parseDalenysDate(text: unknown): Date | undefined {
  const m = typeof text === 'string' ? /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(text) : null;
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function formatDalenysDate(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** Reads one answer or DATA entry; undefined when it has no TRANSACTIONID or EXECCODE. */
export function readTransaction(o: unknown): DalenysTransaction | undefined {
  if (!o || typeof o !== 'object') return undefined;
  const r = o as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
  const transactionId = str(r.TRANSACTIONID);
  const execCode = str(r.EXECCODE);
  if (!transactionId || !execCode) return undefined;
  const t: DalenysTransaction = {
    transactionId,
    operationType: str(r.OPERATIONTYPE) ?? '',
    execCode,
    message: str(r.MESSAGE) ?? '',
    amountCents: fromDalenysAmount(r.AMOUNT),
  };
  const alias = str(r.ALIAS);
  if (alias) t.alias = alias;
  const cardType = str(r.CARDTYPE);
  if (cardType) t.cardType = cardType;
  const date = parseDalenysDate(r.DATE);
  if (date) t.date = date;
  return t;
}

/**
 * How long Chipin treats a Dalenys authorisation as capturable: the capture "allows to collect
 * the cardholder's funds up to 7 days after the authorization has been made" (go-be2bill,
 * `Capture`); later Dalenys answers 2009.
 */
const HOLD_DAYS = 7;
export function holdExpiry(authorisedAt: Date): Date {
  return new Date(authorisedAt.getTime() + HOLD_DAYS * 86_400_000);
}

/** Our status for the payment or authorisation transaction alone (captures and refunds are folded in by the connector). */
export function toStatus(t: DalenysTransaction): TransactionStatus {
  const outcome = isExecCode(t.execCode) ? execOutcome(t.execCode) : ({ kind: 'refused', reason: 'processing_error' } as const);
  switch (outcome.kind) {
    case 'accepted':
      return t.operationType === 'authorization' ? 'authorized' : 'captured';
    case 'pending':
      return 'requires_action';
    case 'refused':
    case 'fault':
      return 'declined';
    default:
      return unreachable(outcome);
  }
}

function decodeHtml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (_m, e: string) => {
    const k = e.toLowerCase();
    if (k === 'lt') return '<';
    if (k === 'gt') return '>';
    if (k === 'quot') return '"';
    if (k === 'apos') return "'";
    if (k === 'amp') return '&';
    return k[1] === 'x' ? String.fromCodePoint(parseInt(k.slice(2), 16)) : String.fromCodePoint(Number(k.slice(1)));
  });
}

/**
 * 3DSECUREHTML (EXECCODE 0001; REDIRECTHTML for a 0002 redirection) is base64 HTML whose form
 * posts to the issuer's page (ACS): its
 * action and fields are what Chipin's relay page posts again in the shopper's browser; the HTML
 * itself, scripts included, is never served.
 */
export function challengeFormFromRedirectHtml(base64: string): ChallengeForm | undefined {
  const html = Buffer.from(base64.replace(/\s+/g, ''), 'base64').toString('utf8');
  const form = /<form\b[^>]*\baction\s*=\s*["']([^"']+)["'][^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  let url: URL;
  try {
    url = new URL(decodeHtml(form[1]!));
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').match(/<input\b[^>]*>/gi) ?? []) {
    const name = /\bname\s*=\s*["']([^"']*)["']/i.exec(input);
    const value = /\bvalue\s*=\s*["']([^"']*)["']/i.exec(input);
    if (name && /type\s*=\s*["']hidden["']/i.test(input)) fields[decodeHtml(name[1]!)] = decodeHtml(value?.[1] ?? '');
  }
  return { action: url.toString(), fields };
}
