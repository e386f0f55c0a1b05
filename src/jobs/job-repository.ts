import type { Sql } from '../db/database.ts';

/**
 * The jobs table (src/jobs/scheduler.ts says how it is used): a job is claimed by a lease
 * (`lease_id`, `locked_until` in wall-clock time) and every write of its outcome is guarded by
 * that lease, so a process that lost it records nothing (each outcome function answers false then).
 */

export interface ClaimedJobRow {
  id: number;
  account_id: string | null;
  kind: string;
  dedupe_key: string;
  run_at: Date | string;
  payload: Record<string, unknown> | string;
  attempts: number;
}

/** Adds a job unless one with its key exists; answers whether it was added. */
export async function insertJob(sql: Sql, job: { accountId: string | null; kind: string; key: string; runAt: Date; payload: Record<string, unknown> }): Promise<boolean> {
  const { rowCount } = await sql.query(
    `INSERT INTO jobs (account_id, kind, dedupe_key, run_at, payload) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (dedupe_key) DO NOTHING`,
    [job.accountId, job.kind, job.key, job.runAt, JSON.stringify(job.payload)],
  );
  return rowCount > 0;
}

/** When each of these jobs (by key, of the account) not yet done will run: the schedule as recorded, reschedules included. */
export async function pendingRunAt(sql: Sql, accountId: string, keys: readonly string[]): Promise<Map<string, Date>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql.query<{ dedupe_key: string; run_at: Date | string }>(
    'SELECT dedupe_key, run_at FROM jobs WHERE account_id = $1 AND dedupe_key = ANY($2::text[]) AND done_at IS NULL AND failed_at IS NULL',
    [accountId, keys],
  );
  return new Map(rows.map((r) => [r.dedupe_key, new Date(r.run_at)]));
}

/** Marks the job with this key done as cancelled, unless it is done or leased at `wall`; answers whether it was. */
export async function cancelUnclaimedJob(sql: Sql, key: string, now: Date, wall: Date): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE jobs SET done_at = $2, last_error = 'cancelled', locked_until = NULL
     WHERE dedupe_key = $1 AND done_at IS NULL AND (locked_until IS NULL OR locked_until <= $3)`,
    [key, now, wall],
  );
  return rowCount > 0;
}

/** Jobs of these kinds due at `now` and leased at `wall` (being run somewhere). */
export async function countDueLeased(sql: Sql, now: Date, kinds: readonly string[], wall: Date): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM jobs
     WHERE done_at IS NULL AND run_at <= $1 AND kind = ANY($2::text[]) AND locked_until > $3`,
    [now, kinds, wall],
  );
  return rows[0]?.n ?? 0;
}

/**
 * The run_at of the oldest job of these kinds due at `now` and not leased at `wall` (waiting to be
 * claimed), or null when none waits: the jobs_due_idx index read in its order, stopping at the
 * first row that matches (docs/jobs-and-clock.md#operating).
 */
export async function oldestUnclaimedDueJob(sql: Sql, now: Date, kinds: readonly string[], wall: Date): Promise<Date | null> {
  const { rows } = await sql.query<{ run_at: Date | string }>(
    `SELECT run_at FROM jobs
     WHERE done_at IS NULL AND run_at <= $1 AND kind = ANY($2::text[])
       AND (locked_until IS NULL OR locked_until <= $3)
     ORDER BY run_at, id
     LIMIT 1`,
    [now, kinds, wall],
  );
  const r = rows[0];
  return r ? new Date(r.run_at) : null;
}

/**
 * Claims up to `limit` due jobs of these kinds, oldest due first, under a new lease, in one
 * statement (`FOR UPDATE SKIP LOCKED`: two processes never claim the same job, nor wait for
 * each other); each claim counts one attempt.
 */
export async function claimDueJobs(sql: Sql, c: { now: Date; kinds: readonly string[]; wall: Date; limit: number; lockedUntil: Date; leaseId: string }): Promise<ClaimedJobRow[]> {
  const { rows } = await sql.query<ClaimedJobRow>(
    `WITH due AS (
       SELECT id FROM jobs
       WHERE done_at IS NULL AND run_at <= $1 AND kind = ANY($2::text[])
         AND (locked_until IS NULL OR locked_until <= $3)
       ORDER BY run_at, id
       LIMIT $4
       FOR UPDATE SKIP LOCKED
     )
     UPDATE jobs j SET locked_until = $5, lease_id = $6, attempts = j.attempts + 1
     FROM due WHERE j.id = due.id
     RETURNING j.id, j.account_id, j.kind, j.dedupe_key, j.run_at, j.payload, j.attempts`,
    [c.now, c.kinds, c.wall, c.limit, c.lockedUntil, c.leaseId],
  );
  return rows;
}

/** Extends the lease's jobs still running and still held at `wall`. */
export async function renewLease(sql: Sql, leaseId: string, lockedUntil: Date, wall: Date): Promise<void> {
  await sql.query('UPDATE jobs SET locked_until = $2 WHERE lease_id = $1 AND done_at IS NULL AND locked_until > $3', [leaseId, lockedUntil, wall]);
}

/** The handler asked to run again at `runAt`: the attempt count starts over. */
export async function rescheduleJob(sql: Sql, id: number, leaseId: string, runAt: Date): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE jobs SET run_at = $3, attempts = 0, last_error = NULL, locked_until = NULL, lease_id = NULL
     WHERE id = $1 AND lease_id = $2 AND done_at IS NULL`,
    [id, leaseId, runAt],
  );
  return rowCount > 0;
}

export async function finishJob(sql: Sql, id: number, leaseId: string, now: Date): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE jobs SET done_at = $3, last_error = NULL, locked_until = NULL
     WHERE id = $1 AND lease_id = $2 AND done_at IS NULL`,
    [id, leaseId, now],
  );
  return rowCount > 0;
}

/** Failed too many times: done, failed, with its last error. */
export async function abandonJob(sql: Sql, id: number, leaseId: string, now: Date, error: string): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE jobs SET done_at = $3, failed_at = $3, last_error = $4, locked_until = NULL
     WHERE id = $1 AND lease_id = $2 AND done_at IS NULL`,
    [id, leaseId, now, error],
  );
  return rowCount > 0;
}

/** Failed: runs again at `runAt` (backoff), its error kept. */
export async function retryJobLater(sql: Sql, id: number, leaseId: string, runAt: Date, error: string): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE jobs SET run_at = $3, last_error = $4, locked_until = NULL, lease_id = NULL
     WHERE id = $1 AND lease_id = $2 AND done_at IS NULL`,
    [id, leaseId, runAt, error],
  );
  return rowCount > 0;
}
