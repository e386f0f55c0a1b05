/**
 * Scale benchmark: what requests cost as the data grows (the "seed 1 M, then 10 M purchases"
 * rows of docs/performance.md#data-growth), on PostgreSQL.
 *
 *   npm run bench:scale
 *
 * It creates a database (chipin_scale_<ms> on BENCH_ADMIN_URL's server), migrates it with the
 * service's own `migrate`, creates the big merchant with `chipin merchant create --json` (API key,
 * dashboard password, offers) and 999 more accounts in SQL (bench/scale-seed.sql, which also
 * describes the data). Then, for each level of BENCH_SCALE_LEVELS (purchases in the database), it
 * seeds up to that level in SQL (adding rows to the previous level's), runs VACUUM (ANALYZE), and
 * measures every row below; one table at the end compares each level with the first.
 *
 *   - start: process start to `/readyz` answering 200 (median of BENCH_SCALE_STARTS starts);
 *   - over HTTP, sequential requests (one at a time, keep-alive) to one `chipin serve` process
 *     (LOG_LEVEL=warn, stdout to /dev/null), after a warm-up: the v1 API's create (for a new
 *     merchant of this run, so that its purchases stay out of the big merchant's lists), get and list
 *     (first page; page 2 by the cursor of page 1; a state and date filter; a page 90 % deep by
 *     cursor) with a bearer token, and
 *     the back office's search by e-mail and by reference, purchase page and home page, signed in
 *     as the big merchant's dashboard user (session cookie, as a browser: tests' postSignIn);
 *   - the big merchant's CSV export (`/dashboard/purchases.csv`, every row): rows per second and
 *     the server's RSS before, at its peak (sampled every 50 ms) and after;
 *   - with no Chipin process running, the delivery claim (`claimDue` of
 *     src/delivery/delivery-queue-repository.ts, the worker's first claim: 32 deliveries, 16 per
 *     destination) with BENCH_SCALE_PENDING deliveries pending and due, and with none; the job
 *     scheduler's sweep (`claimDueJobs` of src/jobs/job-repository.ts, a batch of 10 of every kind the
 *     service registers) with BENCH_SCALE_DUE_JOBS jobs due, and with none. The service's own
 *     functions on its own driver (src/db/postgres.ts), each call in a transaction rolled back so
 *     that every call does the same work; timed around the call.
 *
 * Environment (all optional):
 *   BENCH_SCALE_LEVELS=10000,1000000,10000000  purchases at each level (even numbers, increasing)
 *   BENCH_SCALE_REQUESTS=200     measured requests per HTTP row (fewer if BENCH_SCALE_ROW_SECONDS runs out)
 *   BENCH_SCALE_WARMUP=200       unmeasured requests before each HTTP row (a fresh process's create
 *                                got faster for its first ~1,000 calls: 8.0 -> 5.1 ms, docs/performance.md)
 *   BENCH_SCALE_ROUNDS=2         the HTTP rows are measured this many times, one round after the
 *                                other; each row keeps its round with the lowest p50 (a filter for
 *                                other jobs on a shared machine; every round is in the JSON)
 *   BENCH_SCALE_ROW_SECONDS=60   time budget of one HTTP row (then at least 5 requests are measured;
 *                                its warm-up stops after a third of it)
 *   BENCH_SCALE_STATEMENT_TIMEOUT=120  seconds: PostgreSQL's statement_timeout for the server's
 *                                connections only (in its DATABASE_URL's options): a runaway plan
 *                                ends in a 500, counted as an error, instead of holding the run
 *   BENCH_SCALE_EXPORT_SECONDS=300  the export's time budget (cut short: NOT MET, rows so far reported)
 *   BENCH_SCALE_SQL_CALLS=50     measured calls per SQL row (after 10 unmeasured)
 *   BENCH_SCALE_STARTS=3         service starts timed per level
 *   BENCH_SCALE_PENDING=100000   deliveries pending for the claim row
 *   BENCH_SCALE_DUE_JOBS=1000    jobs due for the sweep row
 *   BENCH_SCALE_ACCOUNTS=1000, BENCH_SCALE_BIG_SHARE=30 (%), BENCH_SCALE_SPAN_DAYS=365: the data's shape
 *   BENCH_SCALE_BATCH=200000     purchases per seeding transaction
 *   BENCH_SCALE_DROP_INDEXES_FROM=50000  a level adding at least this many purchases is seeded
 *                                without the secondary indexes, recreated after from their
 *                                pg_get_indexdef (the migrations' exactly; checked); 0: never
 *   BENCH_SCALE_CHECK=1          after seeding, count rows whose foreign key has no target (must be 0)
 *   BENCH_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres  where databases are created
 *   BENCH_DATABASE_URL=...       use this database instead (created by an earlier run, or empty); never dropped
 *   BENCH_SCALE_KEEP=1           keep the database this run created (it is dropped otherwise)
 *   BENCH_SCALE_REUSE=1          use the database the last kept run left (bench/results/scale-state.json)
 *
 * A reused database keeps its purchases: a level below what it holds is not measured again, its
 * figures come from bench/results/scale.json when that file is of the same database. The master
 * key of each database this benchmark made is in bench/results/scale-state.json (git-ignored,
 * mode 600); MASTER_KEY overrides it. Every child process is stopped at the end, on error and on
 * SIGINT/SIGTERM (bench/children.ts, bench/orphan-guard.mjs). Nothing but the loopback is contacted.
 *
 * Results: the table on stdout and bench/results/scale.json.
 */
import pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { availableParallelism, cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOOPBACK, ROOT, freePort, killAllSync, machineBusyMs, runTs, spawnTs, stop, stopAll, type Child, intEnv } from './children.ts';
import { saveRows } from './rows.ts';
import { openPostgres } from '../src/db/postgres.ts';
import type { Database, Sql } from '../src/db/database.ts';
import { claimDue } from '../src/delivery/delivery-queue-repository.ts';
import { claimDueJobs } from '../src/jobs/job-repository.ts';
import { encodeCursor } from '../src/http/routes/cursor.ts';
import { parsePublicId, toPublicId } from '../src/domain/ids.ts';

// --- settings ------------------------------------------------------------------------------

function levelsEnv(): number[] {
  const raw = process.env.BENCH_SCALE_LEVELS?.trim() || '10000,1000000,10000000';
  const levels = raw.split(',').map((s) => Number(s.trim()));
  for (const [i, n] of levels.entries()) {
    if (!Number.isInteger(n) || n < 100 || n > 100_000_000 || n % 2 !== 0) throw new Error(`BENCH_SCALE_LEVELS: "${raw}": each level an even integer from 100 to 100,000,000`);
    if (i > 0 && n <= levels[i - 1]!) throw new Error(`BENCH_SCALE_LEVELS: "${raw}": levels must increase`);
  }
  return levels;
}

const settings = {
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
const SQL_WARMUP = 10;
/** The delivery worker's first claim (src/delivery/worker.ts: concurrency 32, 16 per destination). */
const CLAIM = { limit: 32, perDestination: 16, leaseMs: 65_000 };
/** The job scheduler's batch (src/jobs/scheduler.ts) and the kinds `chipin serve` registers (src/use-cases/jobs.ts, src/use-cases/dispute.ts). */
const SWEEP = { limit: 10, leaseMs: 60_000 };
const JOB_KINDS = [
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
const SEEDED_TABLES = [
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
const BIG_EMAIL = 'big@scale-bench.example';
const TARGET_RATIO = 1.5;
const HOME_TARGET_MS = 200;
const EXPORT_TARGET_ROWS_PER_S = 50_000;
/** "Flat memory": the server's RSS during the export at most this much above its RSS before it, at every level. */
const EXPORT_RSS_SLACK_MB = 50;
const READY_TIMEOUT_MS = 180_000;
const RESULTS_DIR = join(ROOT, 'bench/results');
const RESULTS_FILE = join(RESULTS_DIR, 'scale.json');
const STATE_FILE = join(RESULTS_DIR, 'scale-state.json');

// --- cleanup -------------------------------------------------------------------------------

let dataDir: string | undefined;
const pools = new Set<{ end(): Promise<void> }>();
/** The database this run created and will drop (unless BENCH_SCALE_KEEP=1). */
let created: { name: string } | undefined;
let interrupted = false;

async function cleanup(): Promise<void> {
  await stopAll();
  await Promise.all([...pools].map((p) => p.end().catch(() => {})));
  pools.clear();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
  if (created && !settings.keep) {
    const { name } = created;
    created = undefined;
    const admin = new pg.Client({ connectionString: settings.adminUrl });
    try {
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
      forgetDatabase(name);
      process.stdout.write(`dropped database ${name} (BENCH_SCALE_KEEP=1 keeps it)\n`);
    } catch (err) {
      process.stderr.write(`could not drop database ${name}: ${(err as Error).message}\n`);
    } finally {
      await admin.end().catch(() => {});
    }
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping ...\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllSync);

function checkInterrupted(): void {
  if (interrupted) throw new Error('interrupted');
}

// --- helpers -------------------------------------------------------------------------------

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;

function fmtLevel(n: number): string {
  if (n >= 1_000_000 && n % 100_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1_000 && n % 100 === 0) return `${n / 1_000}k`;
  return String(n);
}

function fmtMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

/** Nearest-rank percentile of sorted samples. */
function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The URL with PostgreSQL's statement_timeout (BENCH_SCALE_STATEMENT_TIMEOUT) for every connection made with it. */
function withStatementTimeout(url: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c statement_timeout=${settings.statementSeconds * 1000}`);
  return u.toString();
}

function pool(url: string, max = 2): pg.Pool {
  const p = new pg.Pool({ connectionString: url, max });
  p.on('error', () => {});
  pools.add(p);
  return p;
}

/** Resident set size of a process, in MB, from /proc (Linux). */
function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The machine's busy share (all cores) between two readings of {@link machineBusyMs}, in %. */
function busyPercent(b0: number | undefined, b1: number | undefined, wallMs: number): number | undefined {
  if (b0 === undefined || b1 === undefined || wallMs <= 0) return undefined;
  return round1(((b1 - b0) / wallMs / availableParallelism()) * 100);
}

// --- state file: the master key of each database this benchmark made -----------------------

interface State {
  last?: string;
  databases: Record<string, { masterKey: string; createdAt: string }>;
}

function readState(): State {
  try {
    return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as State;
  } catch {
    return { databases: {} };
  }
}

function writeState(state: State): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(STATE_FILE, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  chmodSync(STATE_FILE, 0o600);
}

function forgetDatabase(name: string): void {
  const state = readState();
  if (!state.databases[name] && state.last !== name) return;
  delete state.databases[name];
  if (state.last === name) delete state.last;
  writeState(state);
}

// --- the database --------------------------------------------------------------------------

interface Target {
  url: string;
  name: string;
  masterKey: string;
}

async function chooseDatabase(): Promise<Target> {
  const state = readState();
  const admin = new pg.Client({ connectionString: settings.adminUrl });
  await admin.connect();
  try {
    const exists = async (name: string) => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    if (settings.databaseUrl) {
      const name = decodeURIComponent(new URL(settings.databaseUrl).pathname.slice(1));
      const masterKey = process.env.MASTER_KEY?.trim() || state.databases[name]?.masterKey;
      if (!masterKey) {
        const key = randomBytes(32).toString('hex');
        state.databases[name] = { masterKey: key, createdAt: new Date().toISOString() };
        writeState(state);
        return { url: settings.databaseUrl, name, masterKey: key };
      }
      return { url: settings.databaseUrl, name, masterKey };
    }
    if (settings.reuse && state.last && (await exists(state.last))) {
      const name = state.last;
      const masterKey = process.env.MASTER_KEY?.trim() || state.databases[name]?.masterKey;
      if (!masterKey) throw new Error(`BENCH_SCALE_REUSE: no master key for ${name} in ${STATE_FILE}; set MASTER_KEY`);
      process.stdout.write(`reusing database ${name} (BENCH_SCALE_REUSE=1)\n`);
      return { url: withDatabase(settings.adminUrl, name), name, masterKey };
    }
    if (settings.reuse) process.stdout.write('BENCH_SCALE_REUSE=1: no kept database to reuse, creating one\n');
    const name = `chipin_scale_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${ident(name)}`);
    created = { name };
    const masterKey = randomBytes(32).toString('hex');
    state.databases[name] = { masterKey, createdAt: new Date().toISOString() };
    if (settings.keep) state.last = name;
    writeState(state);
    process.stdout.write(`created database ${name}${settings.keep ? ' (kept: BENCH_SCALE_KEEP=1)' : ' (dropped at the end)'}\n`);
    return { url: withDatabase(settings.adminUrl, name), name, masterKey };
  } finally {
    await admin.end();
  }
}

/** Chipin's environment for the CLI and the server: this database, its key, a scratch DATA_DIR. */
function chipinEnv(target: Target): Record<string, string | undefined> {
  dataDir ??= mkdtempSync(join(tmpdir(), 'chipin-scale-'));
  return {
    CHIPIN_ENV: 'sandbox',
    DATA_DIR: dataDir,
    DATABASE_URL: target.url,
    MASTER_KEY: target.masterKey,
    LOG_LEVEL: 'warn',
    HOST: LOOPBACK,
    PUBLIC_URL: undefined,
  };
}

interface Merchant {
  accountId: string;
  email: string;
  apiKey: string;
  apiSecret: string;
  password: string;
}

interface Meta {
  big_email: string;
  accounts: number;
  big_share_pct: number;
  span_days: number;
  seeded: string;
  seed_log: unknown[];
  dropped_indexes: { name: string; def: string }[] | null;
}

async function readMeta(db: pg.Pool): Promise<Meta | undefined> {
  return (await db.query<Meta>('SELECT * FROM bench_scale_meta')).rows[0];
}

/**
 * The merchant the create row creates for: a new, empty one per run. Its purchases would
 * otherwise pile up at the top of the big merchant's list, newer than everything seeded, run after
 * run on a kept database (4,800 after six measures of a level, which the state filter's page read
 * past: 0.47 of its 0.97 ms at 10 M), so that each level's list rows measured the benchmark's
 * history instead of the seeded data. A create's cost does not depend on its merchant's other
 * purchases: every index it writes is shared by all merchants.
 */
function makeCreator(target: Target): Promise<Merchant> {
  return createMerchant(target, 'Scale Create Shop', `create-${Date.now().toString(36)}@scale-bench.example`);
}

/** A new merchant, made by the service's own `chipin merchant create` (API key, dashboard password, offers). */
async function createMerchant(target: Target, name: string, email: string): Promise<Merchant> {
  const out = JSON.parse(await runTs('src/main.ts', ['merchant', 'create', '--name', name, '--email', email, '--json'], chipinEnv(target))) as {
    account_id: string;
    email: string;
    password: string;
    api_key: string;
    api_secret: string;
  };
  const accountId = parsePublicId('acc', out.account_id);
  if (!accountId) throw new Error('merchant create: no account id in its output');
  return { accountId, email: out.email, apiKey: out.api_key, apiSecret: out.api_secret, password: out.password };
}

/** Migrates (the service's `migrate`), loads the seed helpers, and makes or finds the big merchant with fresh credentials. */
async function prepare(target: Target, db: pg.Pool): Promise<Merchant> {
  const env = chipinEnv(target);
  await runTs('src/main.ts', ['migrate'], env, 600_000);
  await db.query(readFileSync(join(ROOT, 'bench/scale-seed.sql'), 'utf8'));
  let meta = await readMeta(db);
  let merchant: Merchant;
  if (!meta) {
    merchant = await createMerchant(target, 'Scale Big Shop', BIG_EMAIL);
    const t0 = performance.now();
    await db.query('CALL bench_scale_setup($1, $2, $3, $4, $5)', [merchant.accountId, merchant.email, settings.accounts, settings.bigSharePct, settings.spanDays]);
    process.stdout.write(`  ${settings.accounts - 1} more accounts created in SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    meta = (await readMeta(db))!;
  } else {
    const accountId = (await db.query<{ id: string }>('SELECT id FROM bench_scale_accounts WHERE idx = 0')).rows[0]!.id;
    const key = JSON.parse(await runTs('src/main.ts', ['key', 'create', '--account', toPublicId('acc', accountId), '--json'], env)) as { api_key: string; api_secret: string };
    const reset = JSON.parse(await runTs('src/main.ts', ['dashboard', 'reset-password', '--email', meta.big_email, '--json'], env)) as { password: string };
    merchant = { accountId, email: meta.big_email, apiKey: key.api_key, apiSecret: key.api_secret, password: reset.password };
    if (meta.accounts !== settings.accounts || meta.big_share_pct !== settings.bigSharePct || meta.span_days !== settings.spanDays) {
      process.stdout.write(
        `  note: this database was seeded with ${meta.accounts} accounts, ${meta.big_share_pct} % at the big one, over ${meta.span_days} days; those values apply\n`,
      );
    }
    process.stdout.write(`  the database holds ${Number(meta.seeded).toLocaleString('en')} seeded purchases\n`);
  }
  if (meta.dropped_indexes) {
    process.stdout.write(`  an earlier seed was interrupted without its ${meta.dropped_indexes.length} secondary indexes: recreating them\n`);
    const c = await db.connect();
    try {
      await recreateIndexes(c, meta.dropped_indexes);
    } finally {
      c.release();
    }
  }
  return merchant;
}

// --- seeding -------------------------------------------------------------------------------

interface SeedInfo {
  level: number;
  added: number;
  batches: number;
  /** Inserting the rows (with or without the secondary indexes). */
  insertSeconds: number;
  /** Recreating the secondary indexes (when they were dropped). */
  indexSeconds?: number;
  droppedIndexes?: number;
  vacuumAnalyzeSeconds: number;
  totalSeconds: number;
  /** Estimated rows per table after the seed (pg_class.reltuples, just analyzed). */
  rows: Record<string, number>;
  databaseSize: string;
}

const SECONDARY_INDEXES = `
  SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
    FROM pg_index i
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
   WHERE n.nspname = 'public' AND t.relname = ANY($1::text[])
     AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid)
   ORDER BY 1`;

async function dropSecondaryIndexes(c: pg.PoolClient): Promise<{ name: string; def: string }[]> {
  const defs = (await c.query<{ name: string; def: string }>(SECONDARY_INDEXES, [SEEDED_TABLES])).rows;
  await c.query('BEGIN');
  try {
    // Written first, in the same transaction: an interrupted seed leaves the way back.
    await c.query('UPDATE bench_scale_meta SET dropped_indexes = $1::jsonb', [JSON.stringify(defs)]);
    for (const d of defs) await c.query(`DROP INDEX ${d.name}`);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  }
  return defs;
}

async function recreateIndexes(c: pg.PoolClient, defs: { name: string; def: string }[]): Promise<void> {
  const present = new Set((await c.query<{ name: string }>(SECONDARY_INDEXES, [SEEDED_TABLES])).rows.map((r) => r.name));
  for (const d of defs) {
    checkInterrupted();
    if (!present.has(d.name)) await c.query(d.def);
  }
  const now = (await c.query<{ name: string; def: string }>(SECONDARY_INDEXES, [SEEDED_TABLES])).rows;
  const key = (rows: { name: string; def: string }[]) => rows.map((r) => `${r.name}\t${r.def}`).join('\n');
  if (key(now) !== key(defs)) throw new Error(`the recreated secondary indexes differ from the dropped ones:\n${key(now)}\n---\n${key(defs)}`);
  await c.query('UPDATE bench_scale_meta SET dropped_indexes = NULL');
}

async function seedTo(db: pg.Pool, level: number): Promise<SeedInfo | undefined> {
  const meta = (await readMeta(db))!;
  const from = Number(meta.seeded);
  if (from >= level) return undefined;
  const added = level - from;
  const drop = settings.dropIndexesFrom > 0 && added >= settings.dropIndexesFrom;
  const c = await db.connect();
  try {
    await c.query("SET maintenance_work_mem = '1GB'");
    const t0 = performance.now();
    const defs = drop ? await dropSecondaryIndexes(c) : undefined;
    let batches = 0;
    for (let lo = from; lo < level; lo += settings.batch) {
      checkInterrupted();
      const hi = Math.min(level, lo + settings.batch);
      await c.query('CALL bench_scale_seed_batch($1, $2)', [lo, hi]);
      batches++;
      process.stdout.write(`\r  seeding ${fmtLevel(level)}: ${hi.toLocaleString('en')} purchases, ${((performance.now() - t0) / 1000).toFixed(0)} s   `);
    }
    const t1 = performance.now();
    process.stdout.write('\n');
    if (defs) {
      process.stdout.write(`  recreating ${defs.length} secondary indexes ...\n`);
      await recreateIndexes(c, defs);
    }
    // The seed writes with triggers off (session_replication_role = replica): the home page's
    // running sums (migration 044) are recounted from the rows, as the migration does.
    const tSums = performance.now();
    await c.query('SELECT chipin_home_stats_rebuild()');
    process.stdout.write(`  home page sums recounted in ${((performance.now() - tSums) / 1000).toFixed(1)} s\n`);
    const t2 = performance.now();
    process.stdout.write('  VACUUM (ANALYZE) ...\n');
    await c.query('VACUUM (ANALYZE)');
    const t3 = performance.now();
    const rows = Object.fromEntries(
      (
        await c.query<{ relname: string; n: string }>(
          "SELECT relname, reltuples::bigint AS n FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace AND relname = ANY($1::text[]) ORDER BY relname",
          [SEEDED_TABLES],
        )
      ).rows.map((r) => [r.relname, Number(r.n)]),
    );
    const databaseSize = (await c.query<{ s: string }>('SELECT pg_size_pretty(pg_database_size(current_database())) AS s')).rows[0]!.s;
    const info: SeedInfo = {
      level,
      added,
      batches,
      insertSeconds: round1((t1 - t0) / 1000),
      ...(defs ? { indexSeconds: round1((tSums - t1) / 1000), droppedIndexes: defs.length } : {}),
      vacuumAnalyzeSeconds: round1((t3 - t2) / 1000),
      totalSeconds: round1((t3 - t0) / 1000),
      rows,
      databaseSize,
    };
    await c.query('UPDATE bench_scale_meta SET seed_log = seed_log || jsonb_build_array($1::jsonb)', [JSON.stringify({ ...info, at: new Date().toISOString() })]);
    return info;
  } finally {
    c.release();
  }
}

/** Rows whose foreign key points nowhere, per constraint (the seed skips the checks). */
async function countOrphans(db: pg.Pool): Promise<Record<string, number>> {
  const fks = (
    await db.query<{ name: string; child: string; parent: string; ccols: string[]; pcols: string[] }>(
      `SELECT c.conname AS name, c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS ccols,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS pcols
         FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
        WHERE c.contype = 'f' AND t.relname = ANY($1::text[])`,
      [SEEDED_TABLES],
    )
  ).rows;
  const out: Record<string, number> = {};
  for (const fk of fks) {
    const notNull = fk.ccols.map((col) => `x.${ident(col)} IS NOT NULL`).join(' AND ');
    const match = fk.ccols.map((col, i) => `y.${ident(fk.pcols[i]!)} = x.${ident(col)}`).join(' AND ');
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${fk.child} x WHERE ${notNull} AND NOT EXISTS (SELECT 1 FROM ${fk.parent} y WHERE ${match})`);
    out[fk.name] = Number(rows[0]!.n);
  }
  return out;
}

// --- the server ----------------------------------------------------------------------------

/** Polls `url` every 25 ms until it answers 200 (bounded; fails if the child exits). */
async function waitReady(child: Child, url: string): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  let exitCode: number | null | undefined;
  void child.exited.then((c) => (exitCode = c));
  while (performance.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`chipin exited (code ${exitCode}) before ${url} answered:\n${child.stderrTail()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(25);
  }
  throw new Error(`chipin: ${url} did not answer 200 within ${READY_TIMEOUT_MS / 1000} s:\n${child.stderrTail()}`);
}

/** Starts `chipin serve` and answers its URL and the time from spawn to `/readyz` answering 200. */
async function startServer(target: Target): Promise<{ child: Child; url: string; startMs: number }> {
  const port = await freePort();
  const url = `http://${LOOPBACK}:${port}`;
  const t0 = performance.now();
  const child = spawnTs('chipin', 'src/main.ts', ['serve'], { ...chipinEnv(target), DATABASE_URL: withStatementTimeout(target.url), PORT: String(port) });
  await waitReady(child, `${url}/readyz`);
  return { child, url, startMs: performance.now() - t0 };
}

// --- measuring -----------------------------------------------------------------------------

interface Latency {
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

interface Req {
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
async function timeRequests(base: string, make: (i: number) => Req): Promise<Latency> {
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
async function timeSql(db: Database, fn: (tx: Sql) => Promise<number>): Promise<Latency & { rowsPerCall: number }> {
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

async function accessToken(base: string, m: Merchant): Promise<string> {
  const basic = 'Basic ' + Buffer.from(`${encodeURIComponent(m.apiKey)}:${encodeURIComponent(m.apiSecret)}`).toString('base64');
  const res = await fetch(`${base}/api/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`POST /api/token answered ${res.status}`);
  return body.access_token;
}

/** The `name=value` pairs of a response's Set-Cookie headers, merged into `jar`. */
function keepCookies(res: Response, jar: Map<string, string>): void {
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
}

const cookieHeader = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/** Signs in to the back office as a browser does (tests: postSignIn): the form's CSRF cookie and field, then the POST. */
async function signIn(base: string, m: Merchant): Promise<string> {
  const jar = new Map<string, string>();
  const page = await fetch(`${base}/dashboard/sign-in`, { signal: AbortSignal.timeout(10_000) });
  keepCookies(page, jar);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf) throw new Error('the sign-in page has no csrf field');
  const res = await fetch(`${base}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
    body: new URLSearchParams({ csrf, email: m.email, password: m.password }).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  if (res.status !== 303) throw new Error(`back-office sign-in answered ${res.status}`);
  keepCookies(res, jar);
  return cookieHeader(jar);
}

interface ExportResult {
  rows: number;
  expectedRows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  rssBeforeMb?: number;
  rssPeakMb?: number;
  rssAfterMb?: number;
  status: number;
  /** Why the export stopped short (its budget, a statement timeout ...). */
  error?: string;
  machineBusyPercent?: number;
}

/**
 * The whole CSV export, read as it streams (lines counted, nothing kept), with the server's RSS
 * sampled every 50 ms; at most BENCH_SCALE_EXPORT_SECONDS.
 */
async function measureExport(base: string, cookie: string, pid: number | undefined, expectedRows: number): Promise<ExportResult> {
  const rssBeforeMb = rssMb(pid);
  let peak = rssBeforeMb ?? 0;
  const timer = setInterval(() => {
    const r = rssMb(pid);
    if (r !== undefined && r > peak) peak = r;
  }, 50);
  const b0 = machineBusyMs();
  const t0 = performance.now();
  let newlines = 0;
  let bytes = 0;
  let status = 0;
  let error: string | undefined;
  try {
    const res = await fetch(`${base}/dashboard/purchases.csv`, { headers: { cookie }, signal: AbortSignal.timeout(settings.exportSeconds * 1000) });
    status = res.status;
    const reader = res.body!.getReader();
    for (;;) {
      checkInterrupted();
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (let at = value.indexOf(10); at !== -1; at = value.indexOf(10, at + 1)) newlines++;
    }
  } catch (err) {
    if (interrupted) throw err;
    error = (err as Error).message;
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - t0;
  const rows = Math.max(0, newlines - 1);
  if (!error && status !== 200) error = `HTTP ${status}`;
  if (!error && rows !== expectedRows) error = `${rows} rows for ${expectedRows} purchases (cut short)`;
  return {
    rows,
    expectedRows,
    bytes,
    seconds: round2(ms / 1000),
    rowsPerSecond: Math.round(rows / (ms / 1000)),
    ...(rssBeforeMb === undefined ? {} : { rssBeforeMb: round1(rssBeforeMb), rssPeakMb: round1(peak), rssAfterMb: round1(rssMb(pid) ?? NaN) }),
    status,
    ...(error ? { error } : {}),
    machineBusyPercent: busyPercent(b0, machineBusyMs(), ms),
  };
}

// --- one level -----------------------------------------------------------------------------

/** What a level measured: each row's figures (latency rows in ms). */
interface LevelResult {
  level: number;
  /** Purchases in the database (seeded, plus those the create rows of earlier levels made). */
  purchases: number;
  bigMerchantPurchases: number;
  seed?: SeedInfo;
  startMs: number[];
  startMedianMs: number;
  rows: Record<string, Latency & { rowsPerCall?: number; rounds?: Latency[] }>;
  export: ExportResult;
  pendingAddSeconds?: number;
  orphans?: Record<string, number>;
  fromEarlierRun?: boolean;
}

/** The rows, in the order of the table. */
const ROWS: { key: string; label: string; kind: 'latency' | 'home' | 'sql' }[] = [
  { key: 'v1Create', label: 'v1 create  POST /api/merchants/v1/purchases', kind: 'latency' },
  { key: 'v1Get', label: 'v1 get  GET .../purchases/{id}', kind: 'latency' },
  { key: 'v1ListFirst', label: 'v1 list, first page', kind: 'latency' },
  { key: 'v1ListNext', label: 'v1 list, page 2 (cursor of page 1)', kind: 'latency' },
  { key: 'v1ListFiltered', label: 'v1 list, state=REFUNDED + last 30 days', kind: 'latency' },
  { key: 'v1ListDeep', label: 'v1 list, cursor page 90 % deep', kind: 'latency' },
  { key: 'boSearchEmail', label: 'back office: search by e-mail', kind: 'latency' },
  { key: 'boSearchRef', label: 'back office: search by reference', kind: 'latency' },
  { key: 'boDetail', label: 'back office: purchase page', kind: 'latency' },
  { key: 'boHome', label: 'back office: home page (30-day stats)', kind: 'home' },
  { key: 'claimPending', label: 'delivery claim, backlog pending (SQL)', kind: 'sql' },
  { key: 'claimIdle', label: 'delivery claim, none pending (SQL)', kind: 'sql' },
  { key: 'sweepDue', label: 'due-job sweep, jobs due (SQL)', kind: 'sql' },
  { key: 'sweepIdle', label: 'due-job sweep, none due (SQL)', kind: 'sql' },
];

async function measureLevel(target: Target, db: pg.Pool, merchant: Merchant, creator: Merchant, level: number, seed: SeedInfo | undefined): Promise<LevelResult> {
  const big = merchant.accountId;
  const q1 = async <R extends pg.QueryResultRow>(text: string, params: unknown[] = []) => (await db.query<R>(text, params)).rows;
  const one = async <R extends pg.QueryResultRow>(text: string, params: unknown[] = []) => (await q1<R>(text, params))[0]!;

  // Jobs of the seed still to run are due 12 hours or more after it; on a database reused later,
  // push any due within the hour out of the way, so that no job runs during the measures.
  const postponed = (await db.query("UPDATE jobs SET run_at = now() + interval '6 hours' WHERE done_at IS NULL AND run_at < now() + interval '1 hour'")).rowCount ?? 0;
  if (postponed > 0) process.stdout.write(`  ${postponed} pending jobs due within the hour postponed by 6 hours (none runs while measuring)\n`);

  const { n: purchases } = await one<{ n: string }>('SELECT count(*) AS n FROM purchases');
  const { n: bigCount } = await one<{ n: string }>('SELECT count(*) AS n FROM purchases WHERE account_id = $1', [big]);
  const sample = await q1<{ id: string; ref: string }>("SELECT id, ref FROM purchases WHERE account_id = $1 AND ref >= 'ORD-' AND ref < 'ORD.' ORDER BY random() LIMIT 500", [big]);
  const emails = (
    await q1<{ email: string }>("SELECT email FROM clients WHERE account_id = $1 AND ref IS NULL AND email LIKE 'c%@shoppers.example' ORDER BY random() LIMIT 500", [big])
  ).map((r) => r.email);
  if (sample.length === 0 || emails.length === 0) throw new Error('the big merchant has no seeded purchase');
  const deep = (
    await q1<{ created_at: Date; id: string }>('SELECT created_at, id FROM purchases WHERE account_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1', [
      big,
      Math.floor(Number(bigCount) * 0.9),
    ])
  )[0]!;
  const deepCursor = encodeCursor(deep.created_at, deep.id);
  // Page 2 of the list: the cursor after the first 20 of the big merchant's seeded purchases.
  const second = await one<{ created_at: Date; id: string }>('SELECT created_at, id FROM purchases WHERE account_id = $1 ORDER BY created_at DESC, id DESC OFFSET 19 LIMIT 1', [
    big,
  ]);
  const nextCursor = encodeCursor(second.created_at, second.id);
  const pick = <T>(list: T[], i: number) => list[((i % list.length) + list.length) % list.length]!;

  // Start time, then one server for every HTTP row.
  const startMs: number[] = [];
  let srv: Awaited<ReturnType<typeof startServer>> | undefined;
  for (let i = 0; i < settings.starts; i++) {
    checkInterrupted();
    if (srv) await stop(srv.child);
    srv = await startServer(target);
    startMs.push(Math.round(srv.startMs));
    process.stdout.write(`  start to /readyz: ${Math.round(srv.startMs)} ms\n`);
  }
  const base = srv!.url;
  const pid = srv!.child.proc.pid;
  const rows: LevelResult['rows'] = {};
  const row = async (key: string, run: () => Promise<Latency & { rowsPerCall?: number }>, round?: number) => {
    const label = ROWS.find((r) => r.key === key)!.label;
    process.stdout.write(`  ${round === undefined ? '' : `round ${round}: `}${label} ...`);
    const m = await run();
    process.stdout.write(
      ` p50 ${fmtMs(m.p50)} ms, p99 ${fmtMs(m.p99)} ms (${m.count}${m.rowsPerCall === undefined ? '' : `, ${m.rowsPerCall} rows/call`}${m.errors ? `, ${m.errors} ERRORS: ${m.firstError}` : ''})\n`,
    );
    return m;
  };

  const bearer = async (as = merchant) => ({ authorization: `Bearer ${await accessToken(base, as)}` });
  const run = `${Date.now().toString(36)}`;
  const now = new Date();
  const filtered = new URLSearchParams({ state: 'REFUNDED', created_from: new Date(now.getTime() - 30 * 86_400_000).toISOString(), created_to: now.toISOString() });
  const cookie = await signIn(base, merchant);
  const page = (path: string): Req => ({ path, headers: { cookie }, expect: 200 });
  // Each HTTP row: how to make its i-th request with a fresh access token (they live 600 s), as
  // the big merchant unless the row names another.
  const httpRows: { key: string; as?: Merchant; make: (auth: Record<string, string>) => (i: number) => Req }[] = [
    {
      key: 'v1Create',
      as: creator,
      make: (auth) => (i) => ({
        path: '/api/merchants/v1/purchases',
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Scale bench', amount: 12_000, ref: `SCALE-CREATE-${run}-${created++}`, client: { email: `scale-${run}-${i}@shoppers.example` } }),
        expect: 201,
      }),
    },
    { key: 'v1Get', make: (auth) => (i) => ({ path: `/api/merchants/v1/purchases/${toPublicId('pur', pick(sample, i).id)}`, headers: auth, expect: 200 }) },
    { key: 'v1ListFirst', make: (auth) => () => ({ path: '/api/merchants/v1/purchases', headers: auth, expect: 200 }) },
    { key: 'v1ListNext', make: (auth) => () => ({ path: `/api/merchants/v1/purchases?cursor=${nextCursor}`, headers: auth, expect: 200 }) },
    { key: 'v1ListFiltered', make: (auth) => () => ({ path: `/api/merchants/v1/purchases?${filtered.toString()}`, headers: auth, expect: 200 }) },
    { key: 'v1ListDeep', make: (auth) => () => ({ path: `/api/merchants/v1/purchases?cursor=${deepCursor}`, headers: auth, expect: 200 }) },
    { key: 'boSearchEmail', make: () => (i) => page(`/dashboard/purchases?q=${encodeURIComponent(pick(emails, i))}`) },
    { key: 'boSearchRef', make: () => (i) => page(`/dashboard/purchases?q=${encodeURIComponent(pick(sample, i).ref)}`) },
    { key: 'boDetail', make: () => (i) => page(`/dashboard/purchases/${toPublicId('pur', pick(sample, i).id)}`) },
    { key: 'boHome', make: () => () => page('/dashboard') },
  ];
  let created = 0;
  const rounds: Record<string, Latency[]> = {};
  for (let round = 1; round <= settings.rounds; round++) {
    for (const r of httpRows) {
      const auth = await bearer(r.as);
      const m = await row(r.key, () => timeRequests(base, r.make(auth)), settings.rounds > 1 ? round : undefined);
      (rounds[r.key] ??= []).push(m);
    }
  }
  // Per row, the round with the lowest p50: other jobs on the machine only ever slow a round down.
  for (const [key, list] of Object.entries(rounds)) rows[key] = { ...list.reduce((best, m) => (m.p50 < best.p50 ? m : best)), ...(list.length > 1 ? { rounds: list } : {}) };

  const { n: exportExpected } = await one<{ n: string }>('SELECT count(*) AS n FROM purchases WHERE account_id = $1', [big]);
  process.stdout.write(`  CSV export of the big merchant (${Number(exportExpected).toLocaleString('en')} rows) ...`);
  const exp = await measureExport(base, cookie, pid, Number(exportExpected));
  process.stdout.write(
    ` ${exp.rows.toLocaleString('en')} rows in ${exp.seconds} s = ${exp.rowsPerSecond.toLocaleString('en')} rows/s, RSS ${exp.rssBeforeMb} → peak ${exp.rssPeakMb} MB` +
      `${exp.error ? ` (STOPPED: ${exp.error})` : ''}\n`,
  );
  await stop(srv!.child);

  // SQL rows, no Chipin process running: the service's functions on its own driver.
  const sdb = openPostgres(withStatementTimeout(target.url), { max: 1 });
  const closer = { end: () => sdb.close() };
  pools.add(closer);
  const claim = (tx: Sql) => claimDue(tx, { now: new Date(), wallNow: new Date(), ...CLAIM }).then((r) => r.length);
  const sweep = (tx: Sql) => {
    const wall = new Date();
    return claimDueJobs(tx, { now: new Date(), kinds: JOB_KINDS, wall, limit: SWEEP.limit, lockedUntil: new Date(wall.getTime() + SWEEP.leaseMs), leaseId: randomUUID() }).then(
      (r) => r.length,
    );
  };
  let pendingAddSeconds: number | undefined;
  try {
    rows.claimIdle = await row('claimIdle', () => timeSql(sdb, claim));
    const t0 = performance.now();
    await db.query('CALL bench_scale_pending_add($1)', [settings.pending]);
    pendingAddSeconds = round1((performance.now() - t0) / 1000);
    try {
      rows.claimPending = await row('claimPending', () => timeSql(sdb, claim));
    } finally {
      await db.query('CALL bench_scale_pending_remove()');
      await db.query('VACUUM (ANALYZE) deliveries, purchase_events, purchases, clients');
    }
    rows.sweepIdle = await row('sweepIdle', () => timeSql(sdb, sweep));
    const { first } = await one<{ first: string }>(
      `WITH i AS (
         INSERT INTO jobs (account_id, kind, dedupe_key, run_at, payload, created_at)
         SELECT $1::uuid, 'purchase.expire', 'scale-bench-due:' || gen_random_uuid(), now() - random() * interval '10 minutes',
                jsonb_build_object('purchaseId', gen_random_uuid()), now() - interval '1 day'
           FROM generate_series(1, $2::integer)
         RETURNING id)
       SELECT min(id) AS first FROM i`,
      [big, settings.dueJobs],
    );
    try {
      rows.sweepDue = await row('sweepDue', () => timeSql(sdb, sweep));
    } finally {
      await db.query("DELETE FROM jobs WHERE id >= $1 AND dedupe_key LIKE 'scale-bench-due:%'", [first]);
      await db.query('VACUUM (ANALYZE) jobs');
    }
  } finally {
    pools.delete(closer);
    await sdb.close();
  }

  const sortedStarts = [...startMs].sort((a, b) => a - b);
  return {
    level,
    purchases: Number(purchases),
    bigMerchantPurchases: Number(bigCount),
    ...(seed ? { seed } : {}),
    startMs,
    startMedianMs: percentile(sortedStarts, 0.5),
    rows,
    export: exp,
    ...(pendingAddSeconds === undefined ? {} : { pendingAddSeconds }),
  };
}

// --- report --------------------------------------------------------------------------------

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

interface Verdict {
  row: string;
  target: string;
  verdict: string;
}

function report(levels: LevelResult[]): { text: string; verdicts: Verdict[] } {
  const first = levels[0]!;
  const label = (l: LevelResult) => `${fmtLevel(l.level)}${l.fromEarlierRun ? '*' : ''}`;
  const header = ['row'];
  for (const [i, l] of levels.entries()) {
    header.push(`${label(l)} p50 / p99 ms`);
    if (i > 0) header.push(`${fmtLevel(l.level)}/${fmtLevel(first.level)} p50 (p99)`);
  }
  header.push('target', 'verdict');
  const out: string[][] = [header];
  const verdicts: Verdict[] = [];
  const judge = (name: string, target: string, fails: string[], measuredAbove: boolean) => {
    const verdict = fails.length ? `NOT MET (${fails.join(', ')})` : measuredAbove ? 'MET' : 'n/a (one level)';
    verdicts.push({ row: name, target, verdict });
    return verdict;
  };

  for (const r of ROWS) {
    const cells = [r.label];
    const fails: string[] = [];
    for (const [i, l] of levels.entries()) {
      const m = l.rows[r.key];
      cells.push(m ? `${fmtMs(m.p50)} / ${fmtMs(m.p99)}` : '-');
      if (m?.errors) fails.push(`${m.errors} errors at ${fmtLevel(l.level)}`);
      if (i === 0) {
        if (r.kind === 'home' && m && m.p50 > HOME_TARGET_MS) fails.push(`${fmtLevel(l.level)}: ${fmtMs(m.p50)} ms`);
        continue;
      }
      const b = first.rows[r.key];
      if (!m || !b) {
        cells.push('-');
        continue;
      }
      const ratio = m.p50 / b.p50;
      cells.push(`${ratio.toFixed(2)} × (${(m.p99 / b.p99).toFixed(2)} ×)`);
      if (r.kind === 'home') {
        if (m.p50 > HOME_TARGET_MS) fails.push(`${fmtLevel(l.level)}: ${fmtMs(m.p50)} ms`);
      } else if (ratio > TARGET_RATIO) fails.push(`${ratio.toFixed(2)} × at ${fmtLevel(l.level)}`);
    }
    const target = r.kind === 'home' ? `p50 ≤ ${HOME_TARGET_MS} ms` : `p50 ≤ ${TARGET_RATIO} × ${fmtLevel(first.level)}`;
    cells.push(target, judge(r.label, target, fails, levels.length > 1));
    out.push(cells);
  }

  // The export: rows per second, and memory while it streams (its peak RSS over the RSS before it).
  {
    const cells = ['CSV export, big merchant (rows/s; RSS before → peak)'];
    const fails: string[] = [];
    for (const [i, l] of levels.entries()) {
      const e = l.export;
      const grew = e.rssPeakMb !== undefined && e.rssBeforeMb !== undefined ? round1(e.rssPeakMb - e.rssBeforeMb) : undefined;
      cells.push(`${e.rowsPerSecond.toLocaleString('en')}/s; ${e.rssBeforeMb ?? '-'} → ${e.rssPeakMb ?? '-'} MB${e.error ? ' (stopped)' : ''}`);
      if (e.error) fails.push(`stopped at ${fmtLevel(l.level)}: ${e.error}`);
      if (grew !== undefined && grew > EXPORT_RSS_SLACK_MB) fails.push(`RSS +${grew} MB at ${fmtLevel(l.level)}`);
      if (i === 0) continue;
      cells.push(`${e.rows.toLocaleString('en')} rows in ${e.seconds} s`);
      if (e.rowsPerSecond < EXPORT_TARGET_ROWS_PER_S) fails.push(`${e.rowsPerSecond.toLocaleString('en')} rows/s at ${fmtLevel(l.level)}`);
    }
    const target = `≥ ${EXPORT_TARGET_ROWS_PER_S / 1000}k rows/s; RSS peak ≤ before + ${EXPORT_RSS_SLACK_MB} MB`;
    cells.push(target, judge('CSV export', target, fails, levels.length > 1));
    out.push(cells);
  }
  // Start time: reported, no target.
  {
    const cells = ['start: spawn to /readyz 200 (median, ms)'];
    for (const [i, l] of levels.entries()) {
      cells.push(String(l.startMedianMs));
      if (i > 0) cells.push(`${(l.startMedianMs / first.startMedianMs).toFixed(2)} ×`);
    }
    cells.push('reported', '-');
    verdicts.push({ row: 'start', target: 'reported', verdict: '-' });
    out.push(cells);
  }
  return { text: table(out), verdicts };
}

function machine() {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    /* not Linux */
  }
  return { cpus: availableParallelism(), cpuModel, memTotalGiB: round1(totalmem() / 2 ** 30), node: process.version };
}

/**
 * The server's settings the figures depend on most: with a database larger than
 * `shared_buffers`, a row's pages come from the host's page cache or the disk
 * (docs/performance.md#data-growth), so a run states what it had.
 */
async function postgresSettings(db: pg.Pool): Promise<Record<'server_version' | 'shared_buffers' | 'effective_cache_size' | 'work_mem', string>> {
  const { rows } = await db.query<{ name: string; setting: string }>(
    "SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name IN ('server_version', 'shared_buffers', 'effective_cache_size', 'work_mem')",
  );
  const of = (name: string) => rows.find((r) => r.name === name)?.setting ?? 'unknown';
  return { server_version: of('server_version'), shared_buffers: of('shared_buffers'), effective_cache_size: of('effective_cache_size'), work_mem: of('work_mem') };
}

function earlierResults(name: string): LevelResult[] {
  try {
    const old = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as { database?: string; levels?: LevelResult[] };
    return old.database === name ? (old.levels ?? []) : [];
  } catch {
    return [];
  }
}

// --- main ----------------------------------------------------------------------------------

async function main(): Promise<void> {
  process.stdout.write(
    `Chipin scale benchmark: levels ${settings.levels.map(fmtLevel).join(', ')} purchases; ${settings.accounts} accounts, ${settings.bigSharePct} % at the big one, over ${settings.spanDays} days.\n` +
      `HTTP rows: ${settings.requests} sequential requests after ${settings.warmup} (at most ${settings.rowSeconds} s a row); SQL rows: ${settings.sqlCalls} calls after ${SQL_WARMUP}.\n` +
      `Machine: ${availableParallelism()} CPUs, shared: the server, PostgreSQL and this client run on the same cores.\n\n`,
  );
  const target = await chooseDatabase();
  const db = pool(target.url, 2);
  const postgres = await postgresSettings(db);
  process.stdout.write(
    `PostgreSQL ${postgres.server_version}: shared_buffers ${postgres.shared_buffers}, effective_cache_size ${postgres.effective_cache_size}, work_mem ${postgres.work_mem}.\n`,
  );
  const merchant = await prepare(target, db);
  const creator = await makeCreator(target);
  if (existsSync(RESULTS_DIR) === false) mkdirSync(RESULTS_DIR, { recursive: true });
  const earlier = earlierResults(target.name);

  const levels: LevelResult[] = [];
  for (const level of settings.levels) {
    checkInterrupted();
    const seeded = Number((await readMeta(db))!.seeded);
    if (seeded > level) {
      const old = earlier.find((l) => l.level === level);
      if (old) {
        levels.push({ ...old, fromEarlierRun: true });
        process.stdout.write(`level ${fmtLevel(level)}: the database holds ${seeded.toLocaleString('en')} purchases; figures of the earlier run (bench/results/scale.json)\n`);
      } else process.stdout.write(`level ${fmtLevel(level)}: the database already holds ${seeded.toLocaleString('en')} purchases: not measured\n`);
      continue;
    }
    process.stdout.write(`level ${fmtLevel(level)}:\n`);
    const seed = await seedTo(db, level);
    if (seed) {
      process.stdout.write(
        `  seeded +${seed.added.toLocaleString('en')} purchases in ${seed.totalSeconds} s (rows ${seed.insertSeconds} s` +
          (seed.indexSeconds === undefined ? ', indexes in place' : `, ${seed.droppedIndexes} secondary indexes recreated ${seed.indexSeconds} s`) +
          `, VACUUM ANALYZE ${seed.vacuumAnalyzeSeconds} s); database ${seed.databaseSize}\n`,
      );
    }
    const orphans = settings.check ? await countOrphans(db) : undefined;
    if (orphans) {
      const bad = Object.entries(orphans).filter(([, n]) => n > 0);
      process.stdout.write(
        bad.length ? `  ORPHANS: ${bad.map(([k, n]) => `${k} ${n}`).join(', ')}\n` : `  foreign keys: no orphan in ${Object.keys(orphans).length} constraints\n`,
      );
      if (bad.length) throw new Error('the seed left rows whose foreign key points nowhere');
    }
    const result = await measureLevel(target, db, merchant, creator, level, seed);
    if (orphans) result.orphans = orphans;
    levels.push(result);
  }
  if (levels.length === 0) throw new Error('no level measured');

  const { text, verdicts } = report(levels);
  process.stdout.write(`\n${text}\n`);
  if (levels.some((l) => l.fromEarlierRun)) process.stdout.write('* figures of an earlier run on the same database (bench/results/scale.json)\n');
  process.stdout.write('p50 / p99 of sequential requests (HTTP: to the last byte; SQL: the call, in a transaction rolled back). Ratios: p50 (p99) against the first level.\n');
  const busy = levels.map((l) => {
    const b = Object.values(l.rows).flatMap((m) => (m.machineBusyPercent === undefined ? [] : [m.machineBusyPercent]));
    return `${fmtLevel(l.level)} ${b.length ? Math.round(b.reduce((x, y) => x + y, 0) / b.length) : '-'} %`;
  });
  process.stdout.write(`machine busy during the rows (all ${availableParallelism()} cores, this benchmark's own processes included): ${busy.join(', ')}\n`);
  const seeds = levels.filter((l) => l.seed);
  if (seeds.length) {
    process.stdout.write(
      `seeding: ${seeds.map((l) => `${fmtLevel(l.level)} +${l.seed!.added.toLocaleString('en')} in ${l.seed!.totalSeconds} s (${l.seed!.databaseSize})`).join('; ')}\n`,
    );
  }

  const file = RESULTS_FILE;
  writeFileSync(
    file,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: machine(),
        postgres,
        database: target.name,
        settings: { ...settings, databaseUrl: settings.databaseUrl ? '(set)' : undefined },
        levels,
        verdicts,
        table: text,
      },
      null,
      2,
    ) + '\n',
  );
  process.stdout.write(`results written to ${file}\n`);
  const levelsLabel = levels.map((l) => fmtLevel(l.level)).join(' / ');
  saveRows(
    'scale',
    verdicts.map((v) => ({
      row: `data growth (${levelsLabel}): ${v.row}`,
      target: v.target,
      measured: 'see bench/results/scale.json',
      verdict: v.verdict.startsWith('MET') ? 'MET' : v.verdict.startsWith('NOT MET') ? 'NOT MET' : 'NOT MEASURED',
    })),
  );
  if (settings.keep || settings.databaseUrl)
    process.stdout.write(`database kept: ${target.name} (BENCH_SCALE_REUSE=1 or BENCH_DATABASE_URL=${withDatabase(settings.adminUrl, target.name)})\n`);
}

try {
  await main();
} catch (err) {
  process.stderr.write(`bench:scale: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
