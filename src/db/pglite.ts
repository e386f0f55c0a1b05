import { PGlite, type Transaction } from '@electric-sql/pglite';
import { parseInt8, type Database, type QueryResult, type Sql } from './database.ts';

function wrap(target: PGlite | Transaction): Sql {
  return {
    async query<R>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const res = await target.query<R>(text, params as unknown[] | undefined);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async exec(script: string): Promise<void> {
      await target.exec(script);
    },
  };
}

/** The embedded database: PGlite (PostgreSQL compiled to WASM) in `dataDir`, or in memory. */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  // Options must go in the first argument: PGlite ignores the second when the first is undefined.
  const db = new PGlite({ dataDir, parsers: { 20: parseInt8 } });
  await db.waitReady;
  const outer = wrap(db);
  return {
    kind: 'pglite',
    query: outer.query,
    exec: outer.exec,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    async listen(channel, onNotify) {
      const unlisten = await db.listen(channel, onNotify);
      return async () => {
        if (!db.closed) await unlisten();
      };
    },
    close: () => db.close(),
  };
}
