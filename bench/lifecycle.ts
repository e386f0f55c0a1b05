/**
 * Lifecycle benchmark: shoppers run complete purchase lifecycles against Chipin over HTTP (a pot
 * with friends, a 3x plan, a deferred payment captured now, a share refunded on one in three;
 * bench/lifecycle/mix.ts), each waiting for its webhooks, then a bare Fastify + pg baseline writes
 * the same number of money movements and events per lifecycle; throughput, CPU, WAL and rows
 * written per lifecycle for both (docs/performance.md#lifecycle-npm-run-benchlifecycle).
 *
 *   npm run bench:lifecycle
 *
 * It needs the machine's PostgreSQL (BENCH_LIFECYCLE_ADMIN_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres, a superuser on loopback) and to read its pg_wal
 * directory (run as root or the postgres user). It creates `chipin_lifecycle_<random>` and
 * `…_bare`, dropped at the end (also on error and Ctrl-C).
 *
 * Environment (all optional):
 *   BENCH_LIFECYCLE_MERCHANTS=4         merchants, each with a webhook endpoint on the receiver
 *   BENCH_LIFECYCLE_CONCURRENCY=8       shoppers running lifecycles at once (Chipin and bare alike)
 *   BENCH_LIFECYCLE_DURATION=20         seconds measured, per side
 *   BENCH_LIFECYCLE_WARMUP=3            seconds of unmeasured lifecycles before, per side
 *   BENCH_LIFECYCLE_WEBHOOK_TIMEOUT=30  seconds a step's webhooks may take before the run fails
 *   BENCH_LIFECYCLE_STEP_SAMPLES=9      lifecycles run one at a time afterwards to attribute WAL to each step (0: none)
 *   BENCH_LOG_LEVEL=warn                Chipin's LOG_LEVEL (its log goes to /dev/null)
 *   BENCH_LIFECYCLE_PARTMAN=1           pg_partman in Chipin's database: its append-only tables partitioned (docs/partitioning.md)
 *   BENCH_PIN=0                         do not pin (default: this process on core 0, the servers and PostgreSQL on the others)
 *   PG_WALDUMP, PG_WAL_DIR              as bench/wal-decode.ts
 *
 * Results: tables on stdout and bench/results/lifecycle.json; exits non-zero on any failure.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT } from './children.ts';
import { monthsBack } from './partitions.ts';
import { runBareLifecycle, type BarePlan } from './lifecycle/bare.ts';
import { cleanup, held } from './lifecycle/cleanup.ts';
import { createDatabases, untilDispatched } from './lifecycle/database.ts';
import { KINDS, refunded, runLifecycle, type Timing } from './lifecycle/mix.ts';
import { figures, printReport, stepFigures, walBy } from './lifecycle/report.ts';
import { startServers } from './lifecycle/servers.ts';
import { MACHINE_CORES, log, pinned, settings } from './lifecycle/settings.ts';
import { measureSteps } from './lifecycle/steps.ts';
import { measureWindow } from './lifecycle/window.ts';
import { autovacuumOff } from './wal-decode.ts';

/** Chipin's tables whose inserted rows are money movements: a payment (charge, hold, capture) and a refund of one payment. */
export const MOVEMENT_TABLES = ['payments', 'refund_allocations'];

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  held.stats.push(c);
  await c.connect();
  return c;
}

async function main(): Promise<void> {
  log(
    `Lifecycle benchmark: ${settings.merchants} merchants, ${settings.concurrency} shoppers, ${settings.duration} s measured after ${settings.warmup} s warm-up, per side; ` +
      `PostgreSQL ${new URL(settings.adminUrl).host}. Load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}.\n` +
      (pinned
        ? `Pinned: this process on core ${pinned.load}; the servers and PostgreSQL on core(s) ${pinned.server} of ${MACHINE_CORES}.`
        : `Not pinned (${'none' in settings.cores ? settings.cores.none : ''}).`),
  );
  const dbs = await createDatabases();
  const servers = await startServers(dbs);
  const chipinDb = await connect(dbs.chipinUrl);
  // Partitioned: a year of months, as a database in service for a year has (bench/partitions.ts).
  if (settings.partman) await monthsBack(chipinDb, 365);
  const bareDb = await connect(dbs.bareUrl);
  await autovacuumOff((sql) => chipinDb.query(sql));
  await autovacuumOff((sql) => bareDb.query(sql));

  const timings: { n: number; t: Timing[] }[] = [];
  const chipinLifecycle = async (n: number) => {
    const m = servers.merchants[Math.floor(n / KINDS.length) % servers.merchants.length]!;
    timings.push({ n, t: await runLifecycle(servers.chipinUrl, m, servers.receiver, n) });
  };
  process.stdout.write('  Chipin ...');
  const chipin = await measureWindow(
    { label: 'chipin', pid: servers.chipinPid, database: dbs.chipin, stats: chipinDb, walDir: dbs.walDir, drain: () => untilDispatched(chipinDb) },
    servers.postgres,
    chipinLifecycle,
  );
  const chipinFigures = figures(chipin.window);
  log(` ${chipinFigures.lifecyclesPerSec} lifecycles/s`);
  const measured = timings.filter((x) => x.n >= chipin.measuredFrom);
  const steps = stepFigures(measured.flatMap((x) => x.t));

  // The baseline writes what Chipin's window wrote, per lifecycle: inserted rows, counted.
  const ins = (t: string) => chipin.window.tables.get(t)?.ins ?? 0;
  const plan: BarePlan = {
    movementsPerLifecycle: MOVEMENT_TABLES.reduce((s, t) => s + ins(t), 0) / chipin.window.lifecycles,
    eventsPerLifecycle: ins('purchase_events') / chipin.window.lifecycles,
  };
  process.stdout.write('  bare ...');
  const bare = await measureWindow({ label: 'bare', pid: servers.barePid, database: dbs.bare, stats: bareDb, walDir: dbs.walDir, drain: async () => {} }, servers.postgres, (n) =>
    runBareLifecycle(servers.bareUrl, plan, n),
  );
  const bareFigures = figures(bare.window);
  log(` ${bareFigures.lifecyclesPerSec} lifecycles/s`);

  const stepWal = settings.stepSamples > 0 ? await measureSteps(servers, chipinDb, dbs.walDir, chipin.next) : undefined;

  const walByRelation = walBy(chipin.window.wal.byRelation, chipin.window.lifecycles, 20);
  printReport(chipinFigures, bareFigures, steps, walByRelation, plan);
  if (stepWal) stepWal.print();

  const kinds = Object.fromEntries(KINDS.map((k, i) => [k, measured.filter((x) => x.n % KINDS.length === i).length]));
  const outDir = join(ROOT, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, 'lifecycle.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cpus: MACHINE_CORES, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAvgAtStart: loadavg() },
        settings: { ...settings, adminUrl: '(set)' },
        mix: { kinds, refunded: measured.filter((x) => refunded(x.n)).length },
        chipin: {
          ...chipinFigures,
          walByRelation,
          walByType: walBy(chipin.window.wal.byType, chipin.window.lifecycles, 40),
          walByRelationType: walBy(chipin.window.wal.byRelationType, chipin.window.lifecycles, 60),
          otherDatabasesRecords: chipin.window.wal.others,
        },
        bare: { ...bareFigures, plan, otherDatabasesRecords: bare.window.wal.others },
        steps,
        stepWal: stepWal?.json,
      },
      null,
      2,
    ) + '\n',
  );
  log(`\nresults written to ${file}`);
}

try {
  await main();
} catch (err) {
  process.stderr.write(`\nbench:lifecycle: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
