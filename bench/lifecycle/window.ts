/**
 * One measured window of bench:lifecycle: a warm-up, then BENCH_LIFECYCLE_CONCURRENCY shoppers
 * running lifecycles one after another for BENCH_LIFECYCLE_DURATION seconds (a lifecycle started
 * before the end runs to its end and counts), with the counters read around it: the server's and
 * PostgreSQL's CPU (bench/pinning.ts reads /proc, as bench/run/measure.ts does), the WAL position
 * and pg_stat_wal, the tables' written rows; then the window's WAL decoded (bench/wal-decode.ts).
 */
import type pg from 'pg';
import { cpuTimeMs } from '../children.ts';
import type { PostgresServer } from '../pinning.ts';
import { decodeWal, relationNames, type Decoded } from '../wal-decode.ts';
import { isInterrupted } from './cleanup.ts';
import { counters, tableDeltas, untilStatsSettle, type Counters, type TableRows } from './database.ts';
import { settings } from './settings.ts';

export interface Window {
  lifecycles: number;
  seconds: number;
  /** Lifecycle latencies, ms. */
  latencies: number[];
  serverCpuMs: number;
  /** The side's database's backends and the server's shared writers (PostgresServer.cpuMsOf). */
  postgresCpuMs: number;
  /** The whole PostgreSQL server, every database's backends included (as `npm run bench` counts it). */
  postgresServerCpuMs: number;
  before: Counters;
  after: Counters;
  tables: Map<string, TableRows>;
  wal: Decoded;
}

/** Runs `fn(n)` with `concurrency` workers until `seconds` have passed; n counts on from `first`. Fails at the first error. */
export async function drive(seconds: number, first: number, fn: (n: number) => Promise<void>): Promise<{ done: number; next: number; latencies: number[] }> {
  const end = performance.now() + seconds * 1000;
  let next = first;
  let done = 0;
  let failed = false;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: settings.concurrency }, async () => {
      while (!failed && !isInterrupted() && performance.now() < end) {
        const t0 = performance.now();
        try {
          await fn(next++);
        } catch (err) {
          failed = true;
          throw err;
        }
        latencies.push(performance.now() - t0);
        done++;
      }
    }),
  );
  if (isInterrupted()) throw new Error('interrupted');
  return { done, next, latencies };
}

export interface Side {
  label: string;
  pid: number;
  /** The side's database name. */
  database: string;
  /** A connection to the side's database. */
  stats: pg.Client;
  walDir: string;
  /** Waits until the side's own after-work is done (Chipin: its events dispatched). */
  drain: () => Promise<void>;
}

/** The warm-up, then the measured window, of one side (Chipin or the bare baseline). */
export async function measureWindow(
  side: Side,
  postgres: PostgresServer,
  fn: (n: number) => Promise<void>,
  first = 0,
): Promise<{ window: Window; measuredFrom: number; next: number }> {
  let next = first;
  if (settings.warmup > 0) next = (await drive(settings.warmup, next, fn)).next;
  await side.drain();
  await untilStatsSettle(side.stats);
  const before = await counters(side.stats);
  const cpu0 = cpuTimeMs(side.pid);
  const pg0 = postgres.cpuMsOf([side.database]);
  const pgAll0 = postgres.cpuMs();
  const t0 = performance.now();
  const run = await drive(settings.duration, next, fn);
  const seconds = (performance.now() - t0) / 1000;
  await side.drain();
  const cpu1 = cpuTimeMs(side.pid);
  const pg1 = postgres.cpuMsOf([side.database]);
  const pgAll1 = postgres.cpuMs();
  await untilStatsSettle(side.stats);
  const after = await counters(side.stats);
  const { dbOid, names } = await relationNames((sql, params) => side.stats.query(sql, params));
  const wal = decodeWal(side.walDir, before.lsn, after.lsn, dbOid, names);
  return {
    window: {
      lifecycles: run.done,
      seconds,
      latencies: run.latencies,
      serverCpuMs: cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : NaN,
      postgresCpuMs: pg1 - pg0,
      postgresServerCpuMs: pgAll1 - pgAll0,
      before,
      after,
      tables: tableDeltas(before, after),
      wal,
    },
    measuredFrom: next,
    next: run.next,
  };
}
