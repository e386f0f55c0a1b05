/**
 * Timing a row: sequential HTTP requests to one server (to the last byte), or calls of the
 * service's own SQL functions, each in a transaction rolled back; summarized as p50 / p99.
 */
import { machineBusyMs } from '../children.ts';
import type { Database, Sql } from '../../src/db/database.ts';
import { busyPercent, percentile, round2 } from './format.ts';
import { checkInterrupted } from './lifecycle.ts';
import { SQL_WARMUP, settings } from './settings.ts';

export interface Latency {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
  errors: number;
  firstError?: string;
  /** The whole machine's busy share during the row, % of all cores (other jobs included). */
  machineBusyPercent?: number;
}

function summarize(samples: number[], errors: number, firstError: string | undefined, busy: number | undefined): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: samples.length,
    p50: round2(percentile(sorted, 0.5)),
    p99: round2(percentile(sorted, 0.99)),
    mean: round2(samples.reduce((s, x) => s + x, 0) / Math.max(1, samples.length)),
    max: round2(sorted[sorted.length - 1] ?? NaN),
    errors,
    ...(firstError ? { firstError } : {}),
    ...(busy === undefined ? {} : { machineBusyPercent: busy }),
  };
}

export interface Req {
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  expect: number;
}

async function send(base: string, r: Req): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(base + r.path, {
      method: r.method ?? 'GET',
      headers: r.headers,
      body: r.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(settings.statementSeconds * 1000 + 30_000),
    });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    return { status: 0, text: `no answer: ${(err as Error).message}` };
  }
}

/** A wrong answer that is the benchmark's fault (a 4xx: bad credentials, path or body), not the service's slowness: stop. */
function setupError(r: Req, res: { status: number; text: string }): Error | undefined {
  return res.status >= 400 && res.status < 500 && res.status !== r.expect
    ? new Error(`${r.method ?? 'GET'} ${r.path} answered ${res.status}, expected ${r.expect}: ${res.text.slice(0, 300)}`)
    : undefined;
}

/**
 * Warm-up (at most a third of the row's time budget), then sequential requests made by `make(i)`,
 * timed from the call to the last byte of the answer, until BENCH_SCALE_REQUESTS or the row's
 * budget (then at least 5 requests). A 5xx or no answer (the statement timeout) counts as an error.
 */
export async function timeRequests(base: string, make: (i: number) => Req): Promise<Latency> {
  const w0 = performance.now();
  for (let i = 0; i < settings.warmup; i++) {
    checkInterrupted();
    if (i >= 1 && performance.now() - w0 > (settings.rowSeconds * 1000) / 3) break;
    const r = make(-1 - i);
    const res = await send(base, r);
    const bad = setupError(r, res);
    if (bad) throw bad;
  }
  const samples: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const b0 = machineBusyMs();
  const t0 = performance.now();
  for (let i = 0; i < settings.requests; i++) {
    checkInterrupted();
    if (i >= 5 && performance.now() - t0 > settings.rowSeconds * 1000) break;
    const r = make(i);
    const s = performance.now();
    const res = await send(base, r);
    samples.push(performance.now() - s);
    const bad = setupError(r, res);
    if (bad) throw bad;
    if (res.status !== r.expect) {
      errors++;
      firstError ??= `${r.path}: ${res.status} ${res.text.slice(0, 200)}`;
    }
  }
  return summarize(samples, errors, firstError, busyPercent(b0, machineBusyMs(), performance.now() - t0));
}

class RolledBack extends Error {
  constructor(
    readonly ms: number,
    readonly n: number,
  ) {
    super('rolled back on purpose');
  }
}

/** Calls `fn` in a transaction rolled back after it (so every call sees the same rows), timed around `fn` only. */
export async function timeSql(db: Database, fn: (tx: Sql) => Promise<number>): Promise<Latency & { rowsPerCall: number }> {
  const samples: number[] = [];
  let rowsPerCall = 0;
  const b0 = machineBusyMs();
  const t0 = performance.now();
  for (let i = 0; i < SQL_WARMUP + settings.sqlCalls; i++) {
    checkInterrupted();
    try {
      await db.transaction(async (tx) => {
        const s = performance.now();
        const n = await fn(tx);
        throw new RolledBack(performance.now() - s, n);
      });
    } catch (err) {
      if (!(err instanceof RolledBack)) throw err;
      if (i >= SQL_WARMUP) {
        samples.push(err.ms);
        rowsPerCall = err.n;
      }
    }
  }
  return { ...summarize(samples, 0, undefined, busyPercent(b0, machineBusyMs(), performance.now() - t0)), rowsPerCall };
}
