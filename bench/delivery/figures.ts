/**
 * bench:delivery's figures: latency distributions, PostgreSQL's CPU from /proc, and where the
 * time went according to the service's own records.
 */
import { readFileSync, readdirSync } from 'node:fs';
import type pg from 'pg';
import { cpuTimeMs } from '../children.ts';
import type { Committed } from './producers.ts';

/** CPU time (ms) of every process named `postgres` on this machine, by pid (Linux; empty elsewhere). */
export function postgresCpu(): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'postgres') continue;
        const ms = cpuTimeMs(Number(name));
        if (ms !== undefined) out.set(Number(name), ms);
      } catch {
        /* gone meanwhile */
      }
    }
  } catch {
    /* no /proc */
  }
  return out;
}

/** CPU the postgres processes used between two readings (processes that ended meanwhile are missed). */
export function postgresCpuBetween(before: Map<number, number>, after: Map<number, number>): number | undefined {
  if (after.size === 0) return undefined;
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1];
}

export const r1 = (n: number | undefined) => (n === undefined ? undefined : Math.round(n * 10) / 10);

export function distribution(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: r1(percentile(s, 50)),
    p90: r1(percentile(s, 90)),
    p99: r1(percentile(s, 99)),
    max: r1(s[s.length - 1]),
    min: r1(s[0]),
    mean: r1(s.length ? s.reduce((a, b) => a + b, 0) / s.length : undefined),
  };
}

/**
 * Where the time went, from what the service recorded (service clock = wall clock here: a fresh
 * sandbox whose clock was not moved; ms precision): commit → dispatched (the delivery row's
 * created_at) → first attempt started → arrival. Only for the sql producer, keyed by event id.
 */
export async function breakdown(db: pg.Client, accountId: string, commits: Map<string, Committed>, arrivalOf: Map<string, number>) {
  // Fresh statistics first: tables filled within the run look empty to the planner, whose nested
  // loop over tens of thousands of attempts then took minutes.
  await db.query('ANALYZE deliveries, delivery_attempts');
  const { rows } = await db.query<{ event_id: string; created_at: Date; started_at: Date | null; duration_ms: number | null; attempts: number }>(
    `SELECT d.event_id, d.created_at, a.started_at, a.duration_ms, d.attempts
     FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
     WHERE d.account_id = $1 AND d.kind = 'webhook'`,
    [accountId],
  );
  const toDispatch: number[] = [];
  const toStart: number[] = [];
  const toArrive: number[] = [];
  const attemptMs: number[] = [];
  const dispatchTimes = new Set<number>();
  const starts: number[] = [];
  let retried = 0;
  for (const r of rows) {
    const key = String(r.event_id);
    const c = commits.get(key);
    const arrived = arrivalOf.get(key);
    if (!c) continue;
    const created = new Date(r.created_at).getTime();
    dispatchTimes.add(created);
    toDispatch.push(created - c.at);
    if (r.started_at) {
      const started = new Date(r.started_at).getTime();
      starts.push(started);
      toStart.push(started - created);
      if (arrived !== undefined) toArrive.push(arrived - started);
    }
    if (r.duration_ms !== null) attemptMs.push(r.duration_ms);
    if (r.attempts > 1) retried++;
  }
  const dispatched = [...dispatchTimes].sort((a, b) => a - b);
  return {
    deliveries: rows.length,
    retried,
    /** Dispatch transactions that made deliveries (distinct created_at), and their span. */
    dispatchPasses: dispatched.length,
    commitToDispatchedMs: distribution(toDispatch),
    dispatchedToAttemptStartMs: distribution(toStart),
    attemptStartToArrivalMs: distribution(toArrive),
    attemptDurationMs: distribution(attemptMs),
    firstDispatchAt: dispatched[0],
    lastDispatchAt: dispatched[dispatched.length - 1],
    firstAttemptAt: starts.length ? Math.min(...starts) : undefined,
    lastAttemptAt: starts.length ? Math.max(...starts) : undefined,
  };
}
