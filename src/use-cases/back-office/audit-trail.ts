import type { Actor, AuditAction } from '../../audit/audit-log.ts';
import { listAudit, recordAudit, type AuditEntry } from '../../audit/audit-repository.ts';
import type { Sql } from '../../db/database.ts';

/**
 * The audit log of staff actions as the back office writes and reads it (docs/back-office.md#audit-log):
 * an entry for an action that a service (sessions, deliveries, API keys, PSP accounts) made in
 * its own transaction, written right after it, and the account's newest entries for the Team page.
 * Use cases that own their transaction write their entries in it instead.
 */

/** Records one staff action made outside any use case's transaction. */
export function recordStaffAction(db: Sql, entry: { accountId: string; actor: Actor; action: AuditAction; subject?: string; details?: Record<string, unknown> }): Promise<void> {
  return recordAudit(db, entry);
}

/** The account's newest entries, newest first. */
export function recentActivity(db: Sql, accountId: string, limit: number): Promise<AuditEntry[]> {
  return listAudit(db, accountId, { limit });
}
