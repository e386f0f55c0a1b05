import type { NotificationAck, NotificationResult, TransactionStatus } from '../connector.ts';
import { macMatches } from './mapping.ts';

/**
 * Monetico's return interface ("interface retour", CGI2): after each payment Monetico POSTs the
 * outcome, form-encoded, to the URL set for the TPE, sealed with the MAC over every field it sends
 * (v3.0: sorted `name=value` joined by `*`). The merchant answers `version=2` and `cdr=0` when the
 * MAC matches (`cdr=1` otherwise), which stops Monetico's retries.
 *
 * The call carries a `date` in the merchant's local time without a zone, so a notification is not
 * refused as `stale`: it only tells Chipin to read the order again (`retrieve`).
 */

/** The documented acknowledgement of a return-interface call whose MAC matched. */
export const MONETICO_ACK: NotificationAck = { status: 200, contentType: 'text/plain; charset=utf-8', body: 'version=2\ncdr=0\n' };

/** `code-retour`: the payment's outcome. */
const RETURN_CODES = ['payetest', 'paiement', 'Annulation'] as const;
type ReturnCode = (typeof RETURN_CODES)[number];

function returnStatus(code: ReturnCode): TransactionStatus {
  switch (code) {
    case 'payetest': // accepted, test TPE
    case 'paiement': // accepted
      return 'authorized';
    case 'Annulation': // refused or abandoned
      return 'declined';
    default: {
      const never: never = code;
      throw new Error(`unmapped monetico code-retour ${String(never)}`);
    }
  }
}

/** Checks a return-interface call (form-encoded body) against the security key and reads it. */
export function verifyReturn(rawBody: string, hexKey: string, tpe: string): NotificationResult {
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(rawBody);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const fields: Record<string, string> = {};
  for (const [k, v] of form) {
    if (k in fields) return { ok: false, reason: 'malformed' };
    fields[k] = v;
  }
  if (!fields.MAC || !/^[0-9A-Fa-f]{40}$/.test(fields.MAC)) return { ok: false, reason: 'malformed' };
  if (!macMatches(fields, hexKey)) return { ok: false, reason: 'bad_signature' };
  const code = fields['code-retour'];
  if (fields.TPE !== tpe || !/^[A-Za-z0-9]{1,50}$/.test(fields.reference ?? '') || !(RETURN_CODES as readonly (string | undefined)[]).includes(code)) {
    return { ok: false, reason: 'malformed' };
  }
  return { ok: true, transactionId: fields.reference!, status: returnStatus(code as ReturnCode), ack: MONETICO_ACK };
}
