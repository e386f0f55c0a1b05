/**
 * What a `npm run bench:lifecycle` run holds and gives back at the end, on error and on
 * SIGINT/SIGTERM: the servers (bench/children.ts), PostgreSQL's cores (bench/pinning.ts), the
 * webhook receiver, the run's database (dropped) with the connection holding its WAL slot, and the
 * scratch DATA_DIR.
 */
import { rmSync } from 'node:fs';
import type pg from 'pg';
import { killAllSync, stopAll } from '../children.ts';
import type { PostgresServer } from '../pinning.ts';
import type { Receiver } from './receiver.ts';

export const held: {
  postgres?: PostgresServer;
  receiver?: Receiver;
  /** A connection to the server's `postgres` database: creates and drops the run's database. */
  admin?: pg.Client;
  /** The connection holding the temporary replication slot that keeps the run's WAL until it is decoded. */
  slot?: pg.Client;
  /** Connections to the run's databases: statistics, LSNs. */
  stats: pg.Client[];
  database?: string;
  bareDatabase?: string;
  dataDir?: string;
} = { stats: [] };

let cleaning: Promise<void> | undefined;

export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll();
    // The machine's PostgreSQL is shared with everything else: give it its cores back.
    try {
      held.postgres?.restore();
    } catch (err) {
      process.stderr.write(`could not restore PostgreSQL's cores: ${(err as Error).message}\n`);
    }
    await held.receiver?.close().catch(() => {});
    for (const c of held.stats) await c.end().catch(() => {});
    for (const name of [held.database, held.bareDatabase]) {
      if (held.admin && name) {
        await held.admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((err: unknown) => process.stderr.write(`could not drop ${name}: ${String(err)}\n`));
      }
    }
    await held.admin?.end().catch(() => {});
    await held.slot?.end().catch(() => {}); // drops the temporary slot
    if (held.dataDir) rmSync(held.dataDir, { recursive: true, force: true });
  })();
  return cleaning;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the servers and dropping the database...\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllSync);

export function isInterrupted(): boolean {
  return interrupted;
}
