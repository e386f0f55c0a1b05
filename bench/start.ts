/**
 * Start time: from the process's spawn to the first 200 of `GET /readyz` (the database answers
 * and every migration is applied), what a load balancer waits for after a restart
 * (docs/performance.md#start).
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
import { LOOPBACK, freePort, killAllSync, spawnTs, stop, stopAll, waitForOk } from './children.ts';

const starts = Number(process.env.BENCH_STARTS ?? 3);
if (!Number.isInteger(starts) || starts < 1 || starts > 20) throw new Error('BENCH_STARTS must be an integer from 1 to 20');
const databaseUrl = process.env.BENCH_DATABASE_URL?.trim() || undefined;
const dirs: string[] = [];
process.on('exit', killAllSync);

/** One start: ms from spawn to the first 200 of /readyz; the process is stopped after. */
async function startOnce(env: Record<string, string | undefined>): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawnTs('chipin', 'src/main.ts', ['serve'], { CHIPIN_ENV: 'sandbox', LOG_LEVEL: 'warn', HOST: LOOPBACK, PUBLIC_URL: undefined, PORT: String(port), ...env });
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
  process.stdout.write(`Start to /readyz, ${starts} start(s) per case:\n`);
  const first: number[] = [];
  const later: number[] = [];
  for (let i = 0; i < starts; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'chipin-bench-start-'));
    dirs.push(dir);
    first.push(await startOnce({ DATA_DIR: dir, DATABASE_URL: undefined }));
    later.push(await startOnce({ DATA_DIR: dir, DATABASE_URL: undefined }));
  }
  process.stdout.write(`  PGlite, new DATA_DIR (migrations, demo merchant): ${show(first)}\n`);
  process.stdout.write(`  PGlite, existing DATA_DIR: ${show(later)}\n`);
  const rows: Row[] = [
    { row: 'start to /readyz, PGlite, new DATA_DIR', target: 'reported', measured: show(first), verdict: 'MET' },
    { row: 'start to /readyz, PGlite, existing DATA_DIR', target: 'reported', measured: show(later), verdict: 'MET' },
  ];
  if (databaseUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'chipin-bench-start-'));
    dirs.push(dir);
    const pg: number[] = [];
    for (let i = 0; i < starts; i++) pg.push(await startOnce({ DATA_DIR: dir, DATABASE_URL: databaseUrl, MASTER_KEY: process.env.MASTER_KEY }));
    process.stdout.write(`  PostgreSQL (BENCH_DATABASE_URL as it is): ${show(pg)}\n`);
    rows.push({ row: 'start to /readyz, PostgreSQL (BENCH_DATABASE_URL)', target: 'reported', measured: show(pg), verdict: 'MET' });
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
