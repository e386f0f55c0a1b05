import { timingSafeEqual } from 'node:crypto';
import type { NotificationAck, NotificationResult } from '../connector.ts';
import { isOgoneStatus, shaSign, toStatus, type HashAlgorithm } from './mapping.ts';

/**
 * Ogone's post-sale feedback ("direct HTTP server-to-server request", configured in the back
 * office under Configuration › Technical information › Transaction feedback): a form-encoded
 * POST with the transaction's parameters and SHASIGN, the SHA-OUT signature computed like SHA-IN
 * (upper-cased names sorted, `NAME=value` + SHA-OUT passphrase, empty values left out) but over
 * the documented SHA-OUT parameter list only: a parameter outside it is not signed, so it is
 * ignored here too.
 *
 * Ogone signs no timestamp (TRXDATE is a day), so a notification cannot be refused as `stale`;
 * a replay can only repeat a status Chipin then confirms with `retrieve`.
 */
const SHA_OUT_PARAMETERS: ReadonlySet<string> = new Set([
  'AAVADDRESS',
  'AAVCHECK',
  'AAVMAIL',
  'AAVNAME',
  'AAVPHONE',
  'AAVZIP',
  'ACCEPTANCE',
  'ALIAS',
  'AMOUNT',
  'BIC',
  'BIN',
  'BRAND',
  'CARDNO',
  'CCCTY',
  'CN',
  'COLLECTOR_BIC',
  'COLLECTOR_IBAN',
  'COMPLUS',
  'CREATION_STATUS',
  'CREDITDEBIT',
  'CURRENCY',
  'CVCCHECK',
  'DCC_COMMPERCENTAGE',
  'DCC_CONVAMOUNT',
  'DCC_CONVCCY',
  'DCC_EXCHRATE',
  'DCC_EXCHRATESOURCE',
  'DCC_EXCHRATETS',
  'DCC_INDICATOR',
  'DCC_MARGINPERCENTAGE',
  'DCC_VALIDHOURS',
  'DEVICEID',
  'DIGESTCARDNO',
  'ECI',
  'ED',
  'EMAIL',
  'ENCCARDNO',
  'FXAMOUNT',
  'FXCURRENCY',
  'IP',
  'IPCTY',
  'MANDATEID',
  'MOBILEMODE',
  'NBREMAILUSAGE',
  'NBRIPUSAGE',
  'NBRIPUSAGE_ALLTX',
  'NBRUSAGE',
  'NCERROR',
  'ORDERID',
  'PAYID',
  'PAYIDSUB',
  'PAYMENT_REFERENCE',
  'PM',
  'SCO_CATEGORY',
  'SCORING',
  'SEQUENCETYPE',
  'SIGNDATE',
  'STATUS',
  'SUBBRAND',
  'SUBSCRIPTION_ID',
  'TICKET',
  'TRXDATE',
  'VC',
]);

/** Ogone only needs a 2xx to stop resending; its body is not read. */
export const OGONE_ACK: NotificationAck = { status: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' };

/** The signed subset of a feedback's parameters, names upper-cased. */
function signedFeedbackParams(params: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (SHA_OUT_PARAMETERS.has(k.toUpperCase())) out[k.toUpperCase()] = v;
  return out;
}

export function signFeedback(params: Readonly<Record<string, string>>, shaOut: string, algorithm: HashAlgorithm): string {
  return shaSign(signedFeedbackParams(params), shaOut, algorithm);
}

/** Checks a post-sale feedback body (form-encoded) against the SHA-OUT passphrase and reads it. */
export function verifyFeedback(rawBody: string, shaOut: string, algorithm: HashAlgorithm): NotificationResult {
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(rawBody);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const params: Record<string, string> = {};
  let given: string | undefined;
  for (const [k, v] of form) {
    const name = k.toUpperCase();
    if (name === 'SHASIGN') given = v;
    else params[name] = v;
  }
  if (!given || !/^[0-9A-Fa-f]{40,128}$/.test(given)) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(signFeedback(params, shaOut, algorithm), 'utf8');
  const provided = Buffer.from(given.toUpperCase(), 'utf8');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) return { ok: false, reason: 'bad_signature' };
  const status = Number(params.STATUS);
  if (!params.PAYID || !/^\d+$/.test(params.PAYID) || !/^\d+$/.test(params.STATUS ?? '') || !isOgoneStatus(status)) {
    return { ok: false, reason: 'malformed' };
  }
  // A feedback tells the new status, not the amounts refunded so far: Chipin retrieves those.
  return { ok: true, transactionId: params.PAYID, status: toStatus(status, 0), ack: OGONE_ACK };
}
