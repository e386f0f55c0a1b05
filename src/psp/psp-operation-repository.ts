import type { Database, Sql } from '../db/database.ts';
import type { OperationRecord, OperationStore } from './kit/operations.ts';

/**
 * The PSP operation log in the database (`psp_operations`, migration 022): what
 * {@link OperationStore} promises, shared by every process on the database. Rows are scoped by PSP
 * account (or connector name for a connector without one): the scope is part of every query.
 */
export class PspOperationRepository implements OperationStore {
  constructor(readonly db: Database) {}

  async begin(scope: string, operation: string, key: string, fingerprint: string, now: Date): Promise<OperationRecord | undefined> {
    const inserted = await this.db.query(
      `INSERT INTO psp_operations (scope, operation, idempotency_key, fingerprint, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'started', $5, $5)
       ON CONFLICT (scope, operation, idempotency_key) DO NOTHING RETURNING 1`,
      [scope, operation, key, fingerprint, now],
    );
    if (inserted.rows.length > 0) return undefined;
    // A statement of its own: it sees a row another process committed while our insert waited on it.
    const { rows } = await this.db.query<{ fingerprint: string; status: 'started' | 'done'; result: unknown }>(
      'SELECT fingerprint, status, result FROM psp_operations WHERE scope = $1 AND operation = $2 AND idempotency_key = $3',
      [scope, operation, key],
    );
    const row = rows[0];
    if (!row) return this.begin(scope, operation, key, fingerprint, now); // forgotten meanwhile: start afresh
    return row.status === 'done' ? { fingerprint: row.fingerprint, status: 'done', result: row.result } : { fingerprint: row.fingerprint, status: 'started' };
  }

  async finish(scope: string, operation: string, key: string, result: unknown, now: Date): Promise<void> {
    await this.db.query(`UPDATE psp_operations SET status = 'done', result = $4, updated_at = $5 WHERE scope = $1 AND operation = $2 AND idempotency_key = $3`, [
      scope,
      operation,
      key,
      JSON.stringify(result),
      now,
    ]);
  }

  async forget(scope: string, operation: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM psp_operations WHERE scope = $1 AND operation = $2 AND idempotency_key = $3 AND status = 'started'`, [scope, operation, key]);
  }
}

/**
 * How long a finished operation is kept: far beyond any retry of the same key (a job resumes within
 * hours, a shopper's retry within the session), so a replay always finds its outcome.
 */
export const FINISHED_OPERATION_DAYS = 90;

/**
 * Deletes finished operations older than {@link FINISHED_OPERATION_DAYS}, at most `limit` rows a
 * run (a long backlog goes over several runs, never in one long statement). `started` rows, whose
 * outcome is unknown until reconciled with the PSP, are never deleted. By the database's wall clock.
 */
export async function purgeFinishedOperations(sql: Sql, limit = 10_000): Promise<number> {
  const { rowCount } = await sql.query(
    `DELETE FROM psp_operations WHERE (scope, operation, idempotency_key) IN (
       SELECT scope, operation, idempotency_key FROM psp_operations
       WHERE status = 'done' AND updated_at < now() - make_interval(days => $1) LIMIT $2)`,
    [FINISHED_OPERATION_DAYS, limit],
  );
  return rowCount;
}
