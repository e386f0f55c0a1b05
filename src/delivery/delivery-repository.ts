import type { Database, Sql } from '../db/database.ts';
import { OUTBOX_CHANNEL } from '../domain/events.ts';
import { isUuid } from '../domain/ids.ts';
import type { AttemptOutcome, DeliveryCursor, DeliveryKind, DeliveryStatus } from './delivery.ts';

/** A delivery as the back office shows it. Every query here is scoped by account. */
export interface DeliveryView {
  id: string;
  accountId: string;
  /** Null for an event about no purchase (a payout's webhook). */
  purchaseId: string | null;
  eventId: number;
  eventType: string;
  kind: DeliveryKind;
  triggerName: string | null;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  /** Attempts that failed (a retry scheduled or given up): what `deliveryStanding` reads. */
  failures: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

export interface AttemptView {
  attempt: number;
  url: string;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
  outcome: AttemptOutcome;
  nextAttemptAt: Date | null;
}

interface DeliveryRow {
  id: string;
  account_id: string;
  purchase_id: string | null;
  event_id: number;
  event_type: string;
  kind: DeliveryKind;
  trigger_name: string | null;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  failures: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

const SELECT = `SELECT d.id, d.account_id, d.purchase_id, d.event_id, e.type AS event_type, d.kind, d.trigger_name, d.url,
  d.status, d.attempts, d.failures, d.next_attempt_at, d.last_status_code, d.last_error, d.created_at, d.updated_at, d.completed_at
  FROM deliveries d JOIN purchase_events e ON e.id = d.event_id AND e.account_id = d.account_id`;

function toView(r: DeliveryRow): DeliveryView {
  return {
    id: r.id,
    accountId: r.account_id,
    purchaseId: r.purchase_id,
    eventId: Number(r.event_id),
    eventType: r.event_type,
    kind: r.kind,
    triggerName: r.trigger_name,
    url: r.url,
    status: r.status,
    attempts: r.attempts,
    failures: r.failures,
    nextAttemptAt: r.next_attempt_at,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
  };
}

export interface DeliveryFilter {
  purchaseId?: string;
  status?: DeliveryStatus;
  /** Keyset cursor: strictly after this (created_at, event_id, id) in newest-first order. */
  before?: DeliveryCursor;
  limit: number;
}

/** The account's deliveries, newest first, by keyset pagination. */
export async function listDeliveries(sql: Sql, accountId: string, f: DeliveryFilter): Promise<DeliveryView[]> {
  const params: unknown[] = [accountId];
  const where = ['d.account_id = $1'];
  const add = (clause: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (f.purchaseId) add((n) => `d.purchase_id = ${n}`, f.purchaseId);
  if (f.status) add((n) => `d.status = ${n}`, f.status);
  if (f.before) {
    params.push(f.before.createdAt, f.before.eventId, f.before.id);
    const n = params.length;
    where.push(`(d.created_at, d.event_id, d.id) < ($${n - 2}, $${n - 1}, $${n})`);
  }
  params.push(f.limit);
  // Unprepared: a cached generic plan reads every row older than the cursor (docs/performance.md#keyset-lists-run-unprepared).
  const { rows } = await sql.query<DeliveryRow>(`${SELECT} WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.event_id DESC, d.id DESC LIMIT $${params.length}`, params, {
    prepare: false,
  });
  return rows.map(toView);
}

export async function findDelivery(sql: Sql, accountId: string, id: string): Promise<DeliveryView | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await sql.query<DeliveryRow>(`${SELECT} WHERE d.account_id = $1 AND d.id = $2`, [accountId, id]);
  return rows[0] && toView(rows[0]);
}

interface AttemptRow {
  attempt: number;
  url: string;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  response_excerpt: string | null;
  error: string | null;
  outcome: AttemptOutcome;
  next_attempt_at: Date | null;
}

const ATTEMPT_COLUMNS = 'a.attempt, a.url, a.started_at, a.duration_ms, a.status_code, a.response_excerpt, a.error, a.outcome, a.next_attempt_at';

function toAttempt(r: AttemptRow): AttemptView {
  return {
    attempt: r.attempt,
    url: r.url,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    statusCode: r.status_code,
    responseExcerpt: r.response_excerpt,
    error: r.error,
    outcome: r.outcome,
    nextAttemptAt: r.next_attempt_at,
  };
}

export async function listAttempts(sql: Sql, accountId: string, deliveryId: string): Promise<AttemptView[]> {
  const { rows } = await sql.query<AttemptRow>(`SELECT ${ATTEMPT_COLUMNS} FROM delivery_attempts a WHERE a.account_id = $1 AND a.delivery_id = $2 ORDER BY a.id`, [
    accountId,
    deliveryId,
  ]);
  return rows.map(toAttempt);
}

/** An attempt with the delivery it belongs to, for a purchase's timeline. */
export interface PurchaseAttemptView extends AttemptView {
  deliveryId: string;
  kind: DeliveryKind;
  triggerName: string | null;
}

/** Every delivery attempt made for one purchase, oldest first (at most `limit`). */
export async function listPurchaseAttempts(sql: Sql, accountId: string, purchaseId: string, limit: number): Promise<PurchaseAttemptView[]> {
  const { rows } = await sql.query<AttemptRow & { delivery_id: string; kind: DeliveryKind; trigger_name: string | null }>(
    `SELECT ${ATTEMPT_COLUMNS}, a.delivery_id, d.kind, d.trigger_name
     FROM deliveries d JOIN delivery_attempts a ON a.account_id = d.account_id AND a.delivery_id = d.id
     WHERE d.account_id = $1 AND d.purchase_id = $2 ORDER BY a.id LIMIT $3`,
    [accountId, purchaseId, limit],
  );
  return rows.map((r) => ({ ...toAttempt(r), deliveryId: r.delivery_id, kind: r.kind, triggerName: r.trigger_name }));
}

export type ReplayResult = { ok: true; delivery: DeliveryView } | { ok: false; reason: 'not_found' | 'endpoint_disabled' };

/**
 * Sends a delivery again, by hand: whatever its status, it becomes pending, due now, with a
 * fresh retry schedule. Same `webhook-id` and body (the receiver may de-duplicate on them). A
 * webhook cannot be replayed while its endpoint is disabled or removed.
 */
export async function replayDelivery(db: Database, accountId: string, id: string, now: Date): Promise<ReplayResult> {
  if (!isUuid(id)) return { ok: false, reason: 'not_found' };
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ kind: DeliveryKind; enabled: boolean | null }>(
      `SELECT d.kind, (w.account_id IS NOT NULL AND w.disabled_at IS NULL) AS enabled
       FROM deliveries d LEFT JOIN webhook_endpoints w ON w.account_id = d.account_id
       WHERE d.account_id = $1 AND d.id = $2 FOR UPDATE OF d`,
      [accountId, id],
    );
    const row = rows[0];
    if (!row) return { ok: false, reason: 'not_found' } as const;
    if (row.kind === 'webhook' && !row.enabled) return { ok: false, reason: 'endpoint_disabled' } as const;
    await tx.query(
      `UPDATE deliveries SET status = 'pending', failures = 0, next_attempt_at = $3, completed_at = NULL, updated_at = $3
       WHERE account_id = $1 AND id = $2`,
      [accountId, id, now],
    );
    tx.notify(OUTBOX_CHANNEL);
    const { rows: views } = await tx.query<DeliveryRow>(`${SELECT} WHERE d.account_id = $1 AND d.id = $2`, [accountId, id]);
    return { ok: true, delivery: toView(views[0]!) } as const;
  });
}
