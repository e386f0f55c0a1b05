import type { Sql } from '../db/database.ts';
import { newUuid } from '../domain/ids.ts';

/** The outbound message log (outbound_messages): what was sent, or attempted, to whom; the sandbox inbox reads it. */

/** One sent (or attempted) message, as the sandbox inbox shows it. */
export interface InboxMessage {
  id: string;
  channel: 'email' | 'sms';
  recipient: string;
  subject: string | null;
  body: string;
  accepted: boolean;
  error: string | null;
  /** Bare purchase uuid, or null. */
  purchaseId: string | null;
  createdAt: Date;
}

interface Row {
  id: string;
  channel: 'email' | 'sms';
  recipient: string;
  subject: string | null;
  body: string;
  accepted: boolean;
  error: string | null;
  purchase_id: string | null;
  created_at: Date | string;
}

/** The account's messages, newest first; only that account's, whatever the filter. */
export async function listMessages(db: Sql, accountId: string, opts: { purchaseId?: string; limit: number }): Promise<InboxMessage[]> {
  const limit = Math.max(1, Math.min(500, Math.floor(opts.limit)));
  const params: unknown[] = [accountId];
  let where = 'account_id = $1';
  if (opts.purchaseId !== undefined) {
    params.push(opts.purchaseId);
    where += ` AND purchase_id = $${params.length}`;
  }
  params.push(limit);
  const { rows } = await db.query<Row>(
    `SELECT id, channel, recipient, subject, body, accepted, error, purchase_id, created_at
       FROM outbound_messages
      WHERE ${where}
      ORDER BY created_at DESC, id DESC
      LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => ({
    id: r.id,
    channel: r.channel,
    recipient: r.recipient,
    subject: r.subject,
    body: r.body,
    accepted: r.accepted,
    error: r.error,
    purchaseId: r.purchase_id,
    createdAt: new Date(r.created_at),
  }));
}

/** A message as recorded: its channel, its recipient (cut to 320 characters) and what was sent. */
export interface MessageRecord {
  accountId: string;
  purchaseId: string | null;
  channel: 'email' | 'sms';
  recipient: string;
  subject: string | null;
  body: string;
}

/**
 * Writes a keyed message's row before it is sent, outcome unknown (`'sending'`); false when a row
 * with this key and channel already exists (the message was sent, or is being sent, elsewhere).
 */
export async function claimMessage(sql: Sql, id: string, m: MessageRecord, key: string, now: Date): Promise<boolean> {
  const { rowCount } = await sql.query(
    `INSERT INTO outbound_messages (id, account_id, purchase_id, channel, recipient, subject, body, accepted, error, provider_id, created_at, message_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, false, 'sending', NULL, $8, $9)
     ON CONFLICT (account_id, message_key, channel) WHERE message_key IS NOT NULL DO NOTHING`,
    [id, m.accountId, m.purchaseId, m.channel, m.recipient.slice(0, 320), m.subject, m.body, now, key],
  );
  return rowCount > 0;
}

/** The outcome of a claimed message, once sent. */
export async function settleMessage(sql: Sql, accountId: string, id: string, o: { accepted: boolean; error: string | null; providerId: string | null }): Promise<void> {
  await sql.query('UPDATE outbound_messages SET accepted = $3, error = $4, provider_id = $5 WHERE account_id = $1 AND id = $2', [accountId, id, o.accepted, o.error, o.providerId]);
}

/** Records a message with its outcome (an unkeyed one, or a keyed one that was never claimed). */
export async function recordMessage(
  sql: Sql,
  m: MessageRecord & { accepted: boolean; error: string | null; providerId: string | null },
  key: string | null,
  now: Date,
): Promise<void> {
  await sql.query(
    `INSERT INTO outbound_messages (id, account_id, purchase_id, channel, recipient, subject, body, accepted, error, provider_id, created_at, message_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (account_id, message_key, channel) WHERE message_key IS NOT NULL DO NOTHING`,
    [newUuid(), m.accountId, m.purchaseId, m.channel, m.recipient.slice(0, 320), m.subject, m.body, m.accepted, m.error, m.providerId, now, key],
  );
}
