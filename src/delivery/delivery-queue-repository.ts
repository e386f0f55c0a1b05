import { randomUUID } from 'node:crypto';
import type { Database, Sql } from '../db/database.ts';
import { toDeliveryUid, type AttemptOutcome, type DeliveryKind, type DeliveryStatus } from './delivery.ts';
import { disableWebhookEndpoint } from './webhook-endpoint-repository.ts';

/** A delivery taken by a worker, under a lease, to attempt now. */
export interface ClaimedDelivery {
  id: string;
  accountId: string;
  /** Null for an event about no purchase (a payout's webhook). */
  purchaseId: string | null;
  eventId: number;
  kind: DeliveryKind;
  triggerName: string | null;
  url: string;
  payload: string;
  /** Attempts made before this one. */
  attempts: number;
  /** Failed attempts in a row before this one. */
  failures: number;
  leaseId: string;
  /** When the lease runs out (wall clock): another process may take the delivery then. */
  leaseEndsAt: Date;
  nextAttemptAt: Date;
}

interface ClaimedRow {
  id: string;
  account_id: string;
  purchase_id: string | null;
  event_id: number;
  kind: DeliveryKind;
  trigger_name: string | null;
  url: string;
  payload: string;
  attempts: number;
  failures: number;
  next_attempt_at: Date;
}

/**
 * Claims up to `limit` due deliveries for one worker: pending, due at the service clock's `now`,
 * not leased (or the lease ran out: its process died), and first in line for their destination —
 * the ordering rule (docs/webhooks.md): no earlier delivery of the same purchase to the same
 * destination is still pending, and no earlier event of the purchase is still undispatched.
 * Fair between destinations (a merchant's webhook endpoint, its notification URLs): each due
 * destination's oldest in turn, at most `perDestination` in flight for one destination counting
 * `busy` (what the claiming process is sending now, by destination).
 * One statement: the row locks last only while the leases are written. Its commit does not wait
 * for the disk (`synchronous_commit` off for its transaction, so call it in one of its own):
 * were PostgreSQL to crash before the leases reach the disk, the deliveries would be unleased
 * again and sent a second time, with the same `webhook-id`, which at-least-once delivery allows;
 * the claim is the one statement a busy worker waits for, one after another (docs/performance.md).
 */
export async function claimDue(
  db: Sql,
  opts: { now: Date; wallNow: Date; limit: number; leaseMs: number; perDestination?: number; busy?: ReadonlyMap<string, number> },
): Promise<ClaimedDelivery[]> {
  const leaseId = randomUUID();
  const leaseEndsAt = new Date(opts.wallNow.getTime() + opts.leaseMs);
  const busy = [...(opts.busy ?? new Map<string, number>())].map(([key, n]) => ({ ...parseDestination(key), n }));
  // chipin_claim_deliveries (016_delivery_fairness.sql): one statement as a function whose
  // planner settings keep its index plans however stale the table's statistics are.
  const { rows } = await db.query<ClaimedRow>(
    `SELECT id, account_id, purchase_id, event_id, kind, trigger_name, url, payload, attempts, failures, next_attempt_at
     FROM set_config('synchronous_commit', 'off', true) AS durability,
       chipin_claim_deliveries($1, $2, $3, $4, $5, $6, $7::uuid[], $8::text[], $9::int[])`,
    [opts.now, opts.wallNow, opts.limit, leaseEndsAt, leaseId, opts.perDestination ?? opts.limit, busy.map((b) => b.accountId), busy.map((b) => b.kind), busy.map((b) => b.n)],
  );
  return rows
    .map((r) => ({
      id: r.id,
      accountId: r.account_id,
      purchaseId: r.purchase_id,
      eventId: Number(r.event_id),
      kind: r.kind,
      triggerName: r.trigger_name,
      url: r.url,
      payload: r.payload,
      attempts: r.attempts,
      failures: r.failures,
      leaseId,
      leaseEndsAt,
      nextAttemptAt: new Date(r.next_attempt_at),
    }))
    .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.eventId - b.eventId);
}

/** The key of a delivery's destination: its merchant account and channel. */
export function destinationOf(d: Pick<ClaimedDelivery, 'accountId' | 'kind'>): string {
  return `${d.accountId} ${d.kind}`;
}

function parseDestination(key: string): { accountId: string; kind: string } {
  const [accountId = '', kind = ''] = key.split(' ');
  return { accountId, kind };
}

/** One attempt, as recorded, and what it does to its delivery. */
export interface AttemptRecord {
  url: string;
  startedAt: Date;
  durationMs: number;
  statusCode?: number;
  excerpt?: string;
  error?: string;
  outcome: AttemptOutcome;
  /** retry_scheduled: when the next attempt is due. */
  nextAttemptAt?: Date;
  /** Service-clock time the outcome is recorded at. */
  now: Date;
  /** An e-mail sent for a `mailto:` notification: also kept in outbound_messages. */
  mail?: { recipient: string; subject: string; body: string; accepted: boolean; error: string | null; providerId: string | null };
}

/**
 * Records an attempt and applies its outcome, in one transaction. State changes are fenced by
 * the lease: a worker whose lease ran out (another took the delivery over) only adds its attempt
 * row — except a success, which stands whoever made it. Answers whether the outcome was applied.
 */
export async function recordAttempt(db: Database, d: ClaimedDelivery, a: AttemptRecord): Promise<boolean> {
  if (isPlainSuccess(a)) return (await recordSuccesses(db, [{ d, a }]))[0]!;
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ attempts: number; lease_id: string | null; status: DeliveryStatus }>(
      'UPDATE deliveries SET attempts = attempts + 1, url = $2 WHERE id = $1 RETURNING attempts, lease_id, status',
      [d.id, a.url],
    );
    const row = rows[0];
    if (!row) return false;
    await tx.query(
      `INSERT INTO delivery_attempts (account_id, delivery_id, attempt, url, started_at, duration_ms, status_code,
         response_excerpt, error, outcome, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [d.accountId, d.id, row.attempts, a.url, a.startedAt, a.durationMs, a.statusCode ?? null, a.excerpt ?? null, a.error ?? null, a.outcome, a.nextAttemptAt ?? null],
    );
    if (a.mail) {
      await tx.query(
        `INSERT INTO outbound_messages (id, account_id, purchase_id, channel, recipient, subject, body, accepted, error, provider_id, created_at)
         VALUES ($1, $2, $3, 'email', $4, $5, $6, $7, $8, $9, $10)`,
        [randomUUID(), d.accountId, d.purchaseId, a.mail.recipient.slice(0, 320), a.mail.subject, a.mail.body, a.mail.accepted, a.mail.error, a.mail.providerId, a.now],
      );
    }
    const owned = row.status === 'pending' && row.lease_id === d.leaseId;
    if (a.outcome === 'succeeded') {
      if (row.status !== 'pending') return false;
      await finish(tx, d.id, 'succeeded', a);
      return true;
    }
    if (!owned) return false;
    switch (a.outcome) {
      case 'retry_scheduled':
        await tx.query(
          `UPDATE deliveries SET failures = failures + 1, next_attempt_at = $2, locked_until = NULL, lease_id = NULL,
             last_status_code = $3, last_error = $4, updated_at = $5 WHERE id = $1`,
          [d.id, a.nextAttemptAt, a.statusCode ?? null, lastError(a), a.now],
        );
        return true;
      case 'interrupted':
        // Not the target's fault: due again at once (another process, or this one after a restart).
        await tx.query('UPDATE deliveries SET locked_until = NULL, lease_id = NULL, updated_at = $2 WHERE id = $1', [d.id, a.now]);
        return true;
      case 'gave_up':
        await finish(tx, d.id, 'failed', a, 1);
        return true;
      case 'endpoint_gone':
        await finish(tx, d.id, 'failed', a, 1);
        await stopDestination(tx, d, a.now);
        return true;
    }
  });
}

/**
 * An outcome {@link recordSuccesses} can write: a success that is not an e-mail (whose message
 * is also kept in outbound_messages, by the general path).
 */
export function isPlainSuccess(a: AttemptRecord): boolean {
  return a.outcome === 'succeeded' && !a.mail;
}

/** One success to record: the delivery and its attempt. */
export interface SuccessRecord {
  d: ClaimedDelivery;
  a: AttemptRecord;
}

/**
 * The common case of {@link recordAttempt}, for many deliveries in one statement (one commit)
 * instead of a transaction of five round trips each (docs/performance.md): each attempt counted
 * and recorded, and each delivery succeeded if it was still pending — a success stands whoever
 * made it, as in the general path. Rows are locked in id order, so two batches never deadlock.
 * Answers, in order, whether each outcome was applied. The ids must be distinct.
 */
export async function recordSuccesses(db: Sql, batch: readonly SuccessRecord[]): Promise<boolean[]> {
  if (batch.length === 0) return [];
  const { rows } = await db.query<{ id: string; was: DeliveryStatus }>(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::timestamptz[], $6::timestamptz[], $7::int[],
         $8::text[], $9::text[]) AS i(id, account_id, url, status_code, now, started_at, duration_ms, excerpt, error)
     ),
     old AS (SELECT d.id, d.status FROM deliveries d JOIN input i ON i.id = d.id ORDER BY d.id FOR UPDATE OF d),
     done AS (
       UPDATE deliveries d SET attempts = d.attempts + 1, url = i.url,
         status = CASE WHEN old.status = 'pending' THEN 'succeeded' ELSE d.status END,
         next_attempt_at = CASE WHEN old.status = 'pending' THEN NULL ELSE d.next_attempt_at END,
         locked_until = CASE WHEN old.status = 'pending' THEN NULL ELSE d.locked_until END,
         lease_id = CASE WHEN old.status = 'pending' THEN NULL ELSE d.lease_id END,
         last_status_code = CASE WHEN old.status = 'pending' THEN i.status_code ELSE d.last_status_code END,
         last_error = CASE WHEN old.status = 'pending' THEN NULL ELSE d.last_error END,
         updated_at = CASE WHEN old.status = 'pending' THEN i.now ELSE d.updated_at END,
         completed_at = CASE WHEN old.status = 'pending' THEN i.now ELSE d.completed_at END
       FROM old JOIN input i ON i.id = old.id
       WHERE d.id = old.id
       RETURNING d.id, d.attempts, old.status AS was
     ),
     attempt AS (
       INSERT INTO delivery_attempts (account_id, delivery_id, attempt, url, started_at, duration_ms, status_code,
         response_excerpt, error, outcome, next_attempt_at)
       SELECT i.account_id, i.id, done.attempts, i.url, i.started_at, i.duration_ms, i.status_code, i.excerpt, i.error, 'succeeded', NULL
       FROM done JOIN input i ON i.id = done.id
     )
     SELECT id, was FROM done`,
    [
      batch.map((r) => r.d.id),
      batch.map((r) => r.d.accountId),
      batch.map((r) => r.a.url),
      batch.map((r) => r.a.statusCode ?? null),
      batch.map((r) => r.a.now),
      batch.map((r) => r.a.startedAt),
      batch.map((r) => r.a.durationMs),
      batch.map((r) => r.a.excerpt ?? null),
      batch.map((r) => r.a.error ?? null),
    ],
    // Planned for the batch's actual size: a plan cached while deliveries was small would scan it.
    { prepare: false },
  );
  const was = new Map(rows.map((r) => [r.id, r.was]));
  return batch.map((r) => was.get(r.d.id) === 'pending');
}

function lastError(a: AttemptRecord): string | null {
  if (a.error) return a.error;
  if (a.statusCode !== undefined && (a.statusCode < 200 || a.statusCode >= 300)) return `HTTP ${a.statusCode}`;
  return null;
}

async function finish(tx: Sql, id: string, status: DeliveryStatus, a: AttemptRecord, addFailures = 0): Promise<void> {
  await tx.query(
    `UPDATE deliveries SET status = $2, failures = failures + $6, next_attempt_at = NULL, locked_until = NULL, lease_id = NULL,
       last_status_code = $3, last_error = $4, updated_at = $5, completed_at = $5 WHERE id = $1`,
    [id, status, a.statusCode ?? null, status === 'succeeded' ? null : lastError(a), a.now, addFailures],
  );
}

/**
 * 410 Gone: the destination asked never to be called again. A webhook endpoint is disabled
 * (until its URL is set again) and its pending deliveries cancelled; for a notification URL, the
 * pending notifications of the account to that same URL, back-mode and refusal ones alike, are cancelled.
 */
async function stopDestination(tx: Sql, d: ClaimedDelivery, now: Date): Promise<void> {
  const reason = `${d.kind === 'webhook' ? 'endpoint' : 'notification URL'} answered 410 Gone (delivery ${toDeliveryUid(d.id)})`;
  if (d.kind === 'webhook') {
    await disableWebhookEndpoint(tx, d.accountId, reason, now);
    await cancelPending(tx, d.accountId, `kind = 'webhook'`, [], reason, now);
  } else {
    await cancelPending(tx, d.accountId, `kind IN ('notification', 'refusal', 'purchase_end') AND url = $4`, [d.url], reason, now);
  }
}

async function cancelPending(tx: Sql, accountId: string, where: string, params: unknown[], reason: string, now: Date): Promise<number> {
  const { rowCount } = await tx.query(
    `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, locked_until = NULL, lease_id = NULL,
       last_error = $2, updated_at = $3, completed_at = $3
     WHERE account_id = $1 AND status = 'pending' AND ${where}`,
    [accountId, reason, now, ...params],
  );
  return rowCount;
}

/** A claimed webhook whose endpoint was disabled or removed meanwhile: cancelled unsent. */
export async function cancelClaimed(db: Database, d: ClaimedDelivery, reason: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, locked_until = NULL, lease_id = NULL,
       last_error = $3, updated_at = $4, completed_at = $4
     WHERE id = $1 AND lease_id = $2 AND status = 'pending'`,
    [d.id, d.leaseId, reason, now],
  );
}

/** Claimed but not attempted (the worker stops): the leases end now, so any process takes them at once. */
export async function releaseClaimed(db: Database, ds: readonly ClaimedDelivery[], now: Date): Promise<void> {
  if (ds.length === 0) return;
  await db.query(
    `UPDATE deliveries d SET locked_until = NULL, lease_id = NULL, updated_at = $3
     FROM unnest($1::uuid[], $2::uuid[]) AS r(id, lease_id)
     WHERE d.id = r.id AND d.lease_id = r.lease_id AND d.status = 'pending'`,
    [ds.map((d) => d.id), ds.map((d) => d.leaseId), now],
    // Not prepared: a plan cached while deliveries was small would scan all of it.
    { prepare: false },
  );
}

/**
 * Pending deliveries, and how long the oldest due one has waited (metrics). Every pending
 * delivery has a next_attempt_at: saying so lets this and `nextWakeUp` read the pending rows on
 * deliveries_due_by_destination_idx (016), not the whole table with its delivered history.
 */
export async function queueStats(sql: Sql, now: Date): Promise<{ depth: number; oldestDueAgeSeconds: number }> {
  const { rows } = await sql.query<{ depth: number; oldest: Date | null }>(
    `SELECT count(*)::int AS depth, min(next_attempt_at) FILTER (WHERE next_attempt_at <= $1) AS oldest
     FROM deliveries WHERE status = 'pending' AND next_attempt_at IS NOT NULL`,
    [now],
  );
  const r = rows[0];
  const oldest = r?.oldest ? new Date(r.oldest).getTime() : undefined;
  return { depth: r?.depth ?? 0, oldestDueAgeSeconds: oldest === undefined ? 0 : Math.max(0, (now.getTime() - oldest) / 1000) };
}

/**
 * When the worker should look again: the next retry scheduled after `now` (service clock), and
 * the end of the earliest lease on a due delivery (wall clock: a process died mid-send). Due
 * deliveries otherwise need no timer: what holds them (a busy slot, an earlier delivery in
 * flight, an undispatched event) wakes the worker when it ends.
 */
export async function nextWakeUp(sql: Sql, now: Date, wallNow: Date): Promise<{ retryAt?: Date; leaseEndsAt?: Date }> {
  const { rows } = await sql.query<{ retry_at: Date | null; lease_ends_at: Date | null }>(
    `SELECT min(next_attempt_at) FILTER (WHERE next_attempt_at > $1) AS retry_at,
       min(locked_until) FILTER (WHERE next_attempt_at <= $1 AND locked_until > $2) AS lease_ends_at
     FROM deliveries WHERE status = 'pending' AND next_attempt_at IS NOT NULL`,
    [now, wallNow],
  );
  const r = rows[0];
  return {
    ...(r?.retry_at ? { retryAt: new Date(r.retry_at) } : {}),
    ...(r?.lease_ends_at ? { leaseEndsAt: new Date(r.lease_ends_at) } : {}),
  };
}

/** Due deliveries leased at `wallNow`: being sent right now by some process. */
export async function dueInFlight(sql: Sql, now: Date, wallNow: Date): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1 AND locked_until > $2`, [
    now,
    wallNow,
  ]);
  return rows[0]?.n ?? 0;
}
