/**
 * What a `npm run bench` run holds and gives back at the end and on SIGINT/SIGTERM: the running
 * autocannon, the servers (bench/children.ts), PostgreSQL's cores (bench/pinning.ts) and the
 * scratch DATA_DIR; and the servers' process ids, for their CPU time.
 */
import type { Instance } from 'autocannon';
import { rmSync } from 'node:fs';
import { killAllSync, stopAll } from '../children.ts';
import type { PostgresServer } from '../pinning.ts';
import type { Scenario } from '../scenarios.ts';

export const held: {
  current?: Instance;
  dataDir?: string;
  /** The PostgreSQL server both servers use (BENCH_DATABASE_URL): its CPU counts in a request's cost. */
  postgres?: PostgresServer;
} = {};
/** Server process ids, for their CPU time. */
export const pids: Partial<Record<Scenario['server'], number>> = {};

export async function cleanup(): Promise<void> {
  held.current?.stop();
  await stopAll();
  // The machine's PostgreSQL is shared with everything else: give it its cores back.
  held.postgres?.restore();
  held.postgres = undefined;
  if (held.dataDir) rmSync(held.dataDir, { recursive: true, force: true });
  held.dataDir = undefined;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the servers...\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllSync);

export function isInterrupted(): boolean {
  return interrupted;
}
