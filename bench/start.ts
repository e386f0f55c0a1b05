/**
 * Start time: from the process's spawn to the first 200 of `GET /readyz` (the database answers
 * and every migration is applied), what a load balancer waits for after a restart
 * (docs/performance.md#start). Chipin runs from its bundle (dist/main.mjs, as production does);
 * the same start from the sources through tsx is measured beside it.
 *
 *   npm run bench:start                                   # embedded PGlite: first and later starts
 *   BENCH_DATABASE_URL=postgres://… npm run bench:start   # also on that PostgreSQL database, as it is
 *
 * BENCH_STARTS=3: starts measured per case (the median is reported). On PGlite the first start of
 * a new DATA_DIR creates the database, applies every migration and the demo merchant; later starts
 * open it. On PostgreSQL the database is used as it is (point it at a seeded one, bench:scale's, to
 * measure a start with millions of rows present), with the MASTER_KEY it was set up with.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveRows, type Row } from './rows.ts';
import { execFileSync } from 'node:child_process';
import { LOOPBACK, freePort, killAllSync, spawnBundle, spawnTs, stop, stopAll, waitForOk } from './children.ts';

/** The bundle, built from the sources as they are (`npm run build`, about a second). */
function build(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}

const starts = Number(process.env.BENCH_STARTS ?? 3);
if (!Number.isInteger(starts) || starts < 1 || starts > 20) throw new Error('BENCH_STARTS must be an integer from 1 to 20');
const databaseUrl = process.env.BENCH_DATABASE_URL?.trim() || undefined;
const dirs: string[] = [];
process.on('exit', killAllSync);

/** One start: ms from spawn to the first 200 of /readyz; the process is stopped after. `from`: the bundle as production runs it, or the sources through tsx. */
async function startOnce(env: Record<string, string | undefined>, from: 'bundle' | 'tsx' = 'bundle'): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const childEnv = { CHIPIN_ENV: 'sandbox', LOG_LEVEL: 'warn', HOST: LOOPBACK, PUBLIC_URL: undefined, PORT: String(port), ...env };
  const child = from === 'bundle' ? spawnBundle('chipin', ['serve'], childEnv) : spawnTs('chipin', 'src/main.ts', ['serve'], childEnv);
  try {
    await waitForOk(child, `http://${LOOPBACK}:${port}/readyz`, 180_000);
    return performance.now() - t0;
  } finally {
    await stop(child);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const show = (xs: number[]) => `median ${Math.round(median(xs))} ms (${xs.map((x) => Math.round(x)).join(', ')})`;

async function main(): Promise<void> {
  process.stdout.write(`Start to /readyz, ${starts} start(s) per case, from the bundle (npm run build) unless said:\n`);
  build();
  const first: number[] = [];
  const later: number[] = [];
  const sources: number[] = [];
  for (let i = 0; i < starts; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'chipin-bench-start-'));
    dirs.push(dir);
    first.push(await startOnce({ DATA_DIR: dir, DATABASE_URL: undefined }));
    later.push(await startOnce({ DATA_DIR: dir, DATABASE_URL: undefined }));
    // The baseline, in the same run: the same start through tsx, as `npm start` does.
    sources.push(await startOnce({ DATA_DIR: dir, DATABASE_URL: undefined }, 'tsx'));
  }
  process.stdout.write(`  PGlite, new DATA_DIR (migrations, demo merchant): ${show(first)}\n`);
  process.stdout.write(`  PGlite, existing DATA_DIR: ${show(later)}\n`);
  process.stdout.write(`  PGlite, existing DATA_DIR, from the sources through tsx: ${show(sources)}\n`);
  const rows: Row[] = [
    { row: 'start to /readyz, PGlite, new DATA_DIR', target: 'reported', measured: show(first), verdict: 'MET' },
    { row: 'start to /readyz, PGlite, existing DATA_DIR', target: 'reported', measured: show(later), verdict: 'MET' },
    { row: 'start to /readyz, PGlite, existing DATA_DIR, sources through tsx', target: 'reported', measured: show(sources), verdict: 'MET' },
  ];
  if (databaseUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'chipin-bench-start-'));
    dirs.push(dir);
    const pg: number[] = [];
    const pgSources: number[] = [];
    for (let i = 0; i < starts; i++) {
      const env = { DATA_DIR: dir, DATABASE_URL: databaseUrl, MASTER_KEY: process.env.MASTER_KEY };
      pg.push(await startOnce(env));
      pgSources.push(await startOnce(env, 'tsx'));
    }
    process.stdout.write(`  PostgreSQL (BENCH_DATABASE_URL as it is): ${show(pg)}\n`);
    process.stdout.write(`  PostgreSQL, from the sources through tsx: ${show(pgSources)}\n`);
    rows.push({ row: 'start to /readyz, PostgreSQL (BENCH_DATABASE_URL)', target: 'reported', measured: show(pg), verdict: 'MET' });
    rows.push({ row: 'start to /readyz, PostgreSQL, sources through tsx', target: 'reported', measured: show(pgSources), verdict: 'MET' });
  } else process.stdout.write('  PostgreSQL: needs BENCH_DATABASE_URL\n');
  saveRows('start', rows);
}

try {
  await main();
} catch (err) {
  process.stderr.write(`bench/start.ts: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
} finally {
  await stopAll();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
