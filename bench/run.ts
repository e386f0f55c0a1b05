/**
 * HTTP benchmark: a bare Fastify baseline and the Chipin service, measured one scenario after
 * another with autocannon, in one run.
 *
 *   npm run bench
 *
 * Environment (all optional):
 *   BENCH_DURATION=10        seconds measured per scenario
 *   BENCH_CONNECTIONS=50     concurrent connections
 *   BENCH_WARMUP=2           seconds of unrecorded warm-up before each scenario (0: none)
 *   BENCH_ROUNDS=1           run the whole list this many times and keep, per scenario, the round
 *                            with the highest throughput (a filter for a shared, noisy machine)
 *   BENCH_DATABASE_URL=...   run Chipin on this PostgreSQL database instead of embedded PGlite
 *   BENCH_LOG_LEVEL=info     Chipin's LOG_LEVEL (its log goes to /dev/null either way)
 *   BENCH_ONLY=whoami,token  only the scenarios whose name contains one of these (case-insensitive)
 *   BENCH_SERVER_NODE_ARGS   extra node flags for the server processes (both), e.g.
 *                            "--cpu-prof --cpu-prof-dir=bench/results/prof"
 *   BENCH_PROCESSES          2 with BENCH_DATABASE_URL, else 1; with 2 or more: after the list, run that
 *                            many Chipin processes on the same database and the same pinned core(s)
 *                            and load them in parallel with the purchase read (one autocannon per
 *                            process, summed), compared with the one-process read of the same run
 *   BENCH_PIN=0              do not pin (default: autocannon on core 0, the servers and every
 *                            PostgreSQL process on the other cores, with taskset; bench/pinning.ts)
 *
 * Every target row (docs/performance.md#current-figures) is printed at the end with MET / NOT MET,
 * or why it was not measured (a row with a pg baseline needs BENCH_DATABASE_URL).
 *
 * Results: a table on stdout and bench/results/latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './children.ts';
import { SCENARIOS } from './scenarios.ts';
import { cleanup } from './run/lifecycle.ts';
import { measureRounds } from './run/measure.ts';
import { measureProcesses } from './run/processes.ts';
import { compare, machine, printTable, printTargets } from './run/report.ts';
import { startServers } from './run/servers.ts';
import { MACHINE_CORES, pinned, settings } from './run/settings.ts';

async function main(): Promise<void> {
  const scenarios = SCENARIOS.filter(
    (s) => (settings.only.length === 0 || settings.only.some((o) => s.name.toLowerCase().includes(o))) && (!s.needsDatabase || settings.databaseUrl),
  );
  if (scenarios.length === 0) throw new Error(`BENCH_ONLY matches no scenario (${SCENARIOS.map((s) => s.name).join('; ')})`);
  const needsBare = scenarios.some((s) => s.server === 'bare');
  const needsChipin = scenarios.some((s) => s.server === 'chipin');

  const db = settings.databaseUrl ? 'PostgreSQL (BENCH_DATABASE_URL)' : 'embedded PGlite (fresh temp DATA_DIR)';
  process.stdout.write(
    `Chipin benchmark: ${settings.rounds > 1 ? `best of ${settings.rounds} rounds, ` : ''}${settings.duration} s per scenario after ${settings.warmup} s warm-up, ${settings.connections} connections, ` +
      `LOG_LEVEL=${settings.logLevel} (log to /dev/null), ${db}.\n` +
      (pinned
        ? `Pinned: autocannon on core ${pinned.load}; the servers and PostgreSQL on core(s) ${pinned.server} of ${MACHINE_CORES}.\n\n`
        : `Not pinned (${'none' in settings.cores ? settings.cores.none : ''}): autocannon shares the ${MACHINE_CORES} CPU(s) with the servers, so figures are relative, not capacity.\n\n`),
  );

  const ctx = await startServers(needsBare, needsChipin);
  const measured = await measureRounds(scenarios, ctx);
  if (!measured) return;
  const { rounds, results } = measured;
  const comparisons = compare(scenarios, results);
  printTable(results, comparisons);
  const processes = settings.processes > 1 ? await measureProcesses(ctx, results) : undefined;
  printTargets(results, comparisons, processes);

  const outDir = join(ROOT, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, 'latest.json');
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    settings: { ...settings, databaseUrl: settings.databaseUrl ? '(set)' : undefined, database: db },
    results,
    comparisons,
    processes,
    rounds: settings.rounds > 1 ? rounds : undefined,
  };
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(`\nresults written to ${file}\n`);
}

try {
  await main();
} catch (err) {
  process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
