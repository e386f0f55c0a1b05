import { PGlite, type Transaction } from '@electric-sql/pglite';
import { parseInt8, type Database, type QueryResult, type Sql } from './database.ts';
import { CommitNotifier } from './notifier.ts';
import { StatementTurns } from './statement-turns.ts';
import { assertOutsideTransactionOf, inTransactionOf } from './transaction-scope.ts';

/** A handle on the database, or on one transaction, whose statements then take turns as on PostgreSQL (db/statement-turns.ts). */
function wrap(target: PGlite | Transaction, notify: (channel: string) => void, turns?: StatementTurns): Sql {
  return {
    async query<R>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const wait = turns?.begin(text);
      if (wait) await wait;
      try {
        const res = await target.query<R>(text, params as unknown[] | undefined);
        return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
      } finally {
        turns?.end();
      }
    },
    async exec(script: string): Promise<void> {
      const wait = turns?.begin(script);
      if (wait) await wait;
      try {
        await target.exec(script);
      } finally {
        turns?.end();
      }
    },
    notify,
  };
}

export interface PgliteDatabase extends Database {
  /** The whole data directory as an uncompressed tarball, for `openPglite(…, snapshot)`. */
  dump(): Promise<Blob>;
}

/**
 * The embedded database: PGlite (PostgreSQL compiled to WASM) in `dataDir`, or in memory.
 * `snapshot` starts it from a data directory dumped by `PgliteDatabase.dump()` instead of running
 * initdb (2-3 s of CPU): the test suite opens hundreds of databases from one migrated snapshot.
 */
export async function openPglite(dataDir: string | undefined, snapshot?: Blob): Promise<PgliteDatabase> {
  return pgliteDatabase(await startPglite(dataDir, snapshot));
}

/** A started PGlite instance, as `openPglite` opens it (the test suite keeps some open to reuse: test/helpers/database.ts). */
export async function startPglite(dataDir: string | undefined, snapshot?: Blob): Promise<PGlite> {
  // Options must go in the first argument: PGlite ignores the second when the first is undefined.
  const db = new PGlite({ dataDir, parsers: { 20: parseInt8 }, ...(snapshot ? { loadDataDir: snapshot } : {}) });
  await db.waitReady;
  return db;
}

/**
 * The service's handle on a started instance. Closing it runs `close` (by default, closes the
 * instance) and refuses every later statement, as a closed instance does, so that a statement a
 * closed app still sends never reaches an instance that `close` handed on.
 */
export function pgliteDatabase(db: PGlite, close: () => Promise<void> = () => db.close()): PgliteDatabase {
  let closed: Promise<void> | undefined;
  const open = () => {
    if (closed) throw new Error('PGlite is closed');
  };
  // One process holds the embedded database: notifications stay in it.
  const notifier = new CommitNotifier();
  const outer = wrap(db, (channel) => notifier.publish(channel));
  return {
    kind: 'pglite',
    async query<R>(text: string, params?: readonly unknown[]) {
      open();
      assertOutsideTransactionOf(db);
      return outer.query<R>(text, params);
    },
    async exec(script: string) {
      open();
      assertOutsideTransactionOf(db);
      return outer.exec(script);
    },
    notify: outer.notify,
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      open();
      const committed = new Set<string>();
      assertOutsideTransactionOf(db); // a transaction opened inside another waits for it as a query does
      const result = await db.transaction(async (tx) => {
        const turns = new StatementTurns();
        let value: T;
        try {
          value = await inTransactionOf(db, () => fn(wrap(tx, (channel) => committed.add(channel), turns)));
        } catch (err) {
          await turns.close().catch(() => {});
          throw err;
        }
        await turns.close();
        return value;
      });
      for (const channel of committed) notifier.publish(channel);
      return result;
    },
    async listen(channel, onNotify) {
      const unlisten = notifier.listen(channel, onNotify);
      return async () => unlisten();
    },
    close: () => (closed ??= close()),
    dump: () => db.dumpDataDir('none'),
  };
}
