import { timingSafeEqual } from 'node:crypto';
import type { NotificationAck, NotificationResult } from '../connector.ts';
import { dalenysHash, readTransaction, toStatus } from './mapping.ts';

/**
 * Dalenys' transaction notification: a request to the "notification URL" set in its back office
 * carrying the transaction's parameters (IDENTIFIER, OPERATIONTYPE, TRANSACTIONID, EXECCODE,
 * MESSAGE, AMOUNT, ORDERID, ALIAS…) and HASH, computed over all of them as a request's HASH is
 * (`checkHash` in Dalenys' PHP SDK). Dalenys resends until the answer is the text `OK`.
 *
 * Dalenys signs no timestamp, so a notification cannot be refused as `stale`; a replay can only
 * repeat what Chipin then confirms with `retrieve`.
 */
export const DALENYS_ACK: NotificationAck = { status: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' };

/** The notification's parameters, as sent (names are upper-case in Dalenys' parameter reference). */
function notificationParams(rawBody: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(rawBody)) out[k] = v;
  return out;
}

export function verifyNotification(rawBody: string, password: string): NotificationResult {
  const params = notificationParams(rawBody);
  const given = params.HASH;
  if (!given || !/^[0-9a-fA-F]{64}$/.test(given)) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(dalenysHash(params, password), 'utf8');
  const provided = Buffer.from(given.toLowerCase(), 'utf8');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) return { ok: false, reason: 'bad_signature' };
  const t = readTransaction(params);
  if (!t) return { ok: false, reason: 'malformed' };
  // A notification tells the new outcome of one transaction (a capture or refund is a transaction
  // of its own): Chipin reads the payment again with `retrieve` for the amounts.
  return { ok: true, transactionId: t.transactionId, status: toStatus(t), ack: DALENYS_ACK };
}
