import type { Sql } from '../db/database.ts';
import { newUuid } from '../domain/ids.ts';
import type { Actor, AuditAction } from './audit-log.ts';

export interface AuditEntry {
  id: string;
  userId: string | null;
  actor: string;
  action: string;
  subject: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Writes one audit entry. Pass the action's own transaction, so the entry exists if and only if
 * the action does; `details` must never hold a secret (a password, a key, a token): it is shown
 * to every admin of the account.
 */
export async function recordAudit(tx: Sql, entry: { accountId: string; actor: Actor; action: AuditAction; subject?: string; details?: Record<string, unknown> }): Promise<void> {
  // Dated by the service's clock, as the purchase's events it is shown among: the wall clock plus
  // the sandbox clock's offset, which is 0 outside the sandbox (docs/back-office.md#audit-log). A
  // scalar subquery: the entry is written whatever that table holds, as its action is.
  await tx.query(
    `INSERT INTO audit_log (id, account_id, user_id, actor, action, subject, details, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + COALESCE((SELECT make_interval(secs => c.offset_ms / 1000.0) FROM sandbox_clock c WHERE c.id), interval '0'))`,
    [newUuid(), entry.accountId, entry.actor.userId ?? null, entry.actor.label, entry.action, entry.subject ?? null, JSON.stringify(entry.details ?? {})],
  );
}

/** The account's newest entries, optionally those about one subject (a purchase id), newest first. */
export async function listAudit(sql: Sql, accountId: string, opts: { subject?: string; limit: number }): Promise<AuditEntry[]> {
  const { rows } = await sql.query<{ id: string; user_id: string | null; actor: string; action: string; subject: string | null; details: unknown; created_at: Date }>(
    `SELECT id, user_id, actor, action, subject, details, created_at FROM audit_log
      WHERE account_id = $1 AND ($2::text IS NULL OR subject = $2)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [accountId, opts.subject ?? null, opts.limit],
  );
  return rows.map((r) => ({
    id: r.id,
    userId: r.user_id,
    actor: r.actor,
    action: r.action,
    subject: r.subject,
    details: (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown>,
    createdAt: r.created_at,
  }));
}
