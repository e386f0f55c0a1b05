/**
 * What a bench:scale run holds and gives back at the end, on error and on SIGINT/SIGTERM: its
 * child processes (bench/children.ts), its connection pools, its scratch DATA_DIR and the
 * database it created (dropped unless BENCH_SCALE_KEEP=1).
 */
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAllSync, stopAll } from '../children.ts';
import { ident } from './format.ts';
import { settings } from './settings.ts';
import { forgetDatabase } from './state-file.ts';

let dataDir: string | undefined;
export const pools = new Set<{ end(): Promise<void> }>();
/** The database this run created and will drop (unless BENCH_SCALE_KEEP=1). */
let created: { name: string } | undefined;
let interrupted = false;

/** The run's scratch DATA_DIR, made on first use. */
export function scratchDir(): string {
  return (dataDir ??= mkdtempSync(join(tmpdir(), 'chipin-scale-')));
}

/** Notes the database this run created, for {@link cleanup} to drop. */
export function createdDatabase(name: string): void {
  created = { name };
}

export async function cleanup(): Promise<void> {
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

export function checkInterrupted(): void {
  if (interrupted) throw new Error('interrupted');
}

export function pool(url: string, max = 2): pg.Pool {
  const p = new pg.Pool({ connectionString: url, max });
  p.on('error', () => {});
  pools.add(p);
  return p;
}

export function isInterrupted(): boolean {
  return interrupted;
}
