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
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { saveRows } from './rows.ts';
import { fmtLevel, withDatabase } from './scale/format.ts';
import { cleanup, checkInterrupted, pool } from './scale/lifecycle.ts';
import { measureLevel, type LevelResult } from './scale/level.ts';
import { makeCreator, prepare } from './scale/merchant.ts';
import { earlierResults, machine, postgresSettings, report } from './scale/report.ts';
import { countOrphans, readMeta, seedTo } from './scale/seed.ts';
import { RESULTS_DIR, RESULTS_FILE, SQL_WARMUP, settings } from './scale/settings.ts';
import { chooseDatabase } from './scale/target.ts';

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
