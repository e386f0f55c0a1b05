/**
 * bench:scale's settings (BENCH_SCALE_* of bench/scale.ts's header), the figures its rows are
 * judged against and where its results go.
 */
import { join } from 'node:path';
import { ROOT, intEnv } from '../children.ts';

function levelsEnv(): number[] {
  const raw = process.env.BENCH_SCALE_LEVELS?.trim() || '10000,1000000,10000000';
  const levels = raw.split(',').map((s) => Number(s.trim()));
  for (const [i, n] of levels.entries()) {
    if (!Number.isInteger(n) || n < 100 || n > 100_000_000 || n % 2 !== 0) throw new Error(`BENCH_SCALE_LEVELS: "${raw}": each level an even integer from 100 to 100,000,000`);
    if (i > 0 && n <= levels[i - 1]!) throw new Error(`BENCH_SCALE_LEVELS: "${raw}": levels must increase`);
  }
  return levels;
}

export const settings = {
  levels: levelsEnv(),
  requests: intEnv('BENCH_SCALE_REQUESTS', 200, 10, 100_000),
  rounds: intEnv('BENCH_SCALE_ROUNDS', 2, 1, 10),
  warmup: intEnv('BENCH_SCALE_WARMUP', 200, 0, 10_000),
  rowSeconds: intEnv('BENCH_SCALE_ROW_SECONDS', 60, 5, 3_600),
  statementSeconds: intEnv('BENCH_SCALE_STATEMENT_TIMEOUT', 120, 1, 86_400),
  exportSeconds: intEnv('BENCH_SCALE_EXPORT_SECONDS', 300, 10, 86_400),
  sqlCalls: intEnv('BENCH_SCALE_SQL_CALLS', 50, 5, 10_000),
  starts: intEnv('BENCH_SCALE_STARTS', 3, 1, 20),
  pending: intEnv('BENCH_SCALE_PENDING', 100_000, 1, 10_000_000),
  dueJobs: intEnv('BENCH_SCALE_DUE_JOBS', 1_000, 1, 1_000_000),
  accounts: intEnv('BENCH_SCALE_ACCOUNTS', 1_000, 2, 100_000),
  bigSharePct: intEnv('BENCH_SCALE_BIG_SHARE', 30, 1, 100),
  spanDays: intEnv('BENCH_SCALE_SPAN_DAYS', 365, 31, 3_650),
  batch: intEnv('BENCH_SCALE_BATCH', 200_000, 2, 10_000_000),
  dropIndexesFrom: intEnv('BENCH_SCALE_DROP_INDEXES_FROM', 50_000, 0, 100_000_000),
  check: process.env.BENCH_SCALE_CHECK === '1',
  adminUrl: process.env.BENCH_ADMIN_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres',
  databaseUrl: process.env.BENCH_DATABASE_URL?.trim() || undefined,
  keep: process.env.BENCH_SCALE_KEEP === '1',
  reuse: process.env.BENCH_SCALE_REUSE === '1',
};
if (settings.batch % 2 !== 0) throw new Error('BENCH_SCALE_BATCH must be even (a client buys twice, in the same batch)');

/** The first unmeasured calls of a SQL row: PL/pgSQL and the driver prepare, plans are cached after five. */
export const SQL_WARMUP = 10;
/** The delivery worker's first claim (src/delivery/worker.ts: concurrency 32, 16 per destination). */
export const CLAIM = { limit: 32, perDestination: 16, leaseMs: 65_000 };
/** The job scheduler's batch (src/jobs/scheduler.ts) and the kinds `chipin serve` registers (src/use-cases/jobs.ts, src/use-cases/disputes/dispute.ts). */
export const SWEEP = { limit: 10, leaseMs: 60_000 };
export const JOB_KINDS = [
  'pot.deadline',
  'pot.reminder',
  'installment.collect',
  'payments.reconcile',
  'reconciliation.daily',
  'purchase.expire',
  'refund.resume',
  'payment.reauthorize',
  'notice.precharge',
  'sandbox_psp.dispute_notice',
  'sandbox_psp.dispute_lapse',
];
/** Tables the seed writes (bench/scale-seed.sql): their secondary indexes are the ones dropped and recreated. */
export const SEEDED_TABLES = [
  'clients',
  'purchases',
  'pledges',
  'payments',
  'installments',
  'refunds',
  'refund_allocations',
  'ledger_entries',
  'purchase_events',
  'deliveries',
  'delivery_attempts',
  'jobs',
  'risk_decisions',
];
export const BIG_EMAIL = 'big@scale-bench.example';
export const TARGET_RATIO = 1.5;
export const HOME_TARGET_MS = 200;
export const EXPORT_TARGET_ROWS_PER_S = 50_000;
/** "Flat memory": the server's RSS during the export at most this much above its RSS before it, at every level. */
export const EXPORT_RSS_SLACK_MB = 50;
export const READY_TIMEOUT_MS = 180_000;
export const RESULTS_DIR = join(ROOT, 'bench/results');
export const RESULTS_FILE = join(RESULTS_DIR, 'scale.json');
export const STATE_FILE = join(RESULTS_DIR, 'scale-state.json');
