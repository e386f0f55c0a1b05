import type { Sql } from '../db/database.ts';

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
