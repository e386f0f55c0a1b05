import { PGlite, type Transaction } from '@electric-sql/pglite';
import { parseInt8, type Database, type QueryResult, type Sql } from './database.ts';
import { CommitNotifier } from './notifier.ts';

function wrap(target: PGlite | Transaction, notify: (channel: string) => void): Sql {
  return {
    async query<R>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const res = await target.query<R>(text, params as unknown[] | undefined);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async exec(script: string): Promise<void> {
      await target.exec(script);
    },
    notify,
  };
}

/** The embedded database: PGlite (PostgreSQL compiled to WASM) in `dataDir`, or in memory. */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  // Options must go in the first argument: PGlite ignores the second when the first is undefined.
  const db = new PGlite({ dataDir, parsers: { 20: parseInt8 } });
  await db.waitReady;
  // One process holds the embedded database: notifications stay in it.
  const notifier = new CommitNotifier();
  const outer = wrap(db, (channel) => notifier.publish(channel));
  return {
    kind: 'pglite',
    query: outer.query,
    exec: outer.exec,
    notify: outer.notify,
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      const committed = new Set<string>();
      const result = await db.transaction((tx) => fn(wrap(tx, (channel) => committed.add(channel))));
      for (const channel of committed) notifier.publish(channel);
      return result;
    },
    async listen(channel, onNotify) {
      const unlisten = notifier.listen(channel, onNotify);
      return async () => unlisten();
    },
    close: () => db.close(),
  };
}
