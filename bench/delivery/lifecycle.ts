/**
 * What a bench:delivery run holds and gives back at the end and on SIGINT/SIGTERM: its
 * connections, the server (bench/children.ts), the receiver, the database it created (dropdb)
 * and its scratch DATA_DIR.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import type pg from 'pg';
import type { CommitNotifier } from '../../src/db/notifier.ts';
import { killAllSync, stopAll } from '../children.ts';
import type { Receiver } from './receiver.ts';
import { PG_ADMIN } from './settings.ts';

export const held: {
  dataDir?: string;
  createdDb?: string;
  receiver?: Receiver;
  sqlClient?: pg.Client;
  /**
   * The sql producers write events as a Chipin process does, so they wake the workers as one does:
   * after each commit, through a NOTIFY of their own, coalesced (src/db/notifier.ts).
   */
  notifier?: CommitNotifier;
} = {};
/** The sql producer's extra connections (BENCH_PRODUCERS). */
export const producerClients: pg.Client[] = [];
/** Other connections of the run (the quiet merchant's, the notifier's), closed at the end. */
export const otherClients: pg.Client[] = [];

export async function cleanup(): Promise<void> {
  await held.sqlClient?.end().catch(() => {});
  held.sqlClient = undefined;
  await held.notifier?.flush();
  held.notifier = undefined;
  for (const c of [...producerClients.splice(0), ...otherClients.splice(0)]) await c.end().catch(() => {});
  await stopAll();
  await held.receiver?.close().catch(() => {});
  held.receiver = undefined;
  const { createdDb } = held;
  if (createdDb) {
    try {
      execFileSync('dropdb', ['-h', PG_ADMIN.host, '-p', PG_ADMIN.port, '-U', PG_ADMIN.user, '--if-exists', '--force', createdDb], { stdio: 'pipe', timeout: 30_000 });
    } catch (err) {
      process.stderr.write(`could not drop database ${createdDb}: ${(err as Error).message}\n`);
    }
    held.createdDb = undefined;
  }
  if (held.dataDir) rmSync(held.dataDir, { recursive: true, force: true });
  held.dataDir = undefined;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping...\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllSync);

export function isInterrupted(): boolean {
  return interrupted;
}
