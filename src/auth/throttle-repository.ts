import type { Sql } from '../db/database.ts';

/** The auth_throttle table: one row per budget and subject digest (the statements of auth/attempt-budgets.ts). */
export interface ThrottleRow {
  scope: string;
  subject: string;
  failures: number;
  pending: number;
  resets_at: Date | string;
}

/** The stored rows of these (scope, subject) pairs, in one read. */
export async function throttleRows(sql: Sql, scopes: readonly string[], subjects: readonly string[]): Promise<ThrottleRow[]> {
  const { rows } = await sql.query<ThrottleRow>(
    'SELECT scope, subject, failures, pending, resets_at FROM auth_throttle WHERE (scope, subject) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
    [scopes, subjects],
  );
  return rows;
}

/**
 * Adds one attempt to each row, in one statement (`INSERT … ON CONFLICT DO UPDATE … RETURNING`),
 * and answers the rows as they are after it: a failure (`failures: 1`) or a check in flight
 * (`pending: 1`). A window that ended starts again from this attempt (a new `resetsAt`): its
 * failures and any check left in flight by a process that died are forgotten with it.
 */
export async function addAttempt(
  sql: Sql,
  rows: readonly { scope: string; subject: string; resetsAt: Date }[],
  now: Date,
  add: { failures: 0 | 1; pending: 0 | 1 },
): Promise<ThrottleRow[]> {
  const params: unknown[] = [now, add.failures, add.pending];
  const values = rows.map((r) => {
    params.push(r.scope, r.subject, r.resetsAt);
    const n = params.length;
    return `($${n - 2}, $${n - 1}, $2::int, $3::int, $${n}::timestamptz)`;
  });
  const { rows: after } = await sql.query<ThrottleRow>(
    `INSERT INTO auth_throttle AS t (scope, subject, failures, pending, resets_at) VALUES ${values.join(', ')}
     ON CONFLICT (scope, subject) DO UPDATE SET
       failures = CASE WHEN t.resets_at <= $1 THEN $2::int ELSE t.failures + $2::int END,
       pending = CASE WHEN t.resets_at <= $1 THEN $3::int ELSE t.pending + $3::int END,
       resets_at = CASE WHEN t.resets_at <= $1 THEN EXCLUDED.resets_at ELSE t.resets_at END
     RETURNING scope, subject, failures, pending, resets_at`,
    params,
  );
  return after;
}

/**
 * Ends checks in flight: each row's `pending` goes down, and `failures` up when they failed.
 * Rows are locked in one order first (scope, then subject, `COLLATE "C"`), so two statements
 * locking several rows never deadlock.
 */
export async function settleAttempts(sql: Sql, scopes: readonly string[], subjects: readonly string[], failed: boolean): Promise<void> {
  await sql.query(
    `WITH locked AS (
       SELECT t.scope, t.subject FROM auth_throttle t
       JOIN unnest($1::text[], $2::text[]) AS r(scope, subject) ON t.scope = r.scope AND t.subject = r.subject
       ORDER BY t.scope COLLATE "C", t.subject COLLATE "C" FOR UPDATE OF t)
     UPDATE auth_throttle t SET pending = GREATEST(t.pending - 1, 0), failures = t.failures + $3
     FROM locked WHERE t.scope = locked.scope AND t.subject = locked.subject`,
    [scopes, subjects, failed ? 1 : 0],
  );
}

/** Deletes the rows of windows that ended more than an hour ago (they throttle nobody); answers how many. */
export async function purgeSpentBudgets(sql: Sql): Promise<number> {
  const { rowCount } = await sql.query("DELETE FROM auth_throttle WHERE resets_at < now() - interval '1 hour'");
  return rowCount;
}
