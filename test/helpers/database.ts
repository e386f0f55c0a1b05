import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/database.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';

/** The suite runs on PGlite by default and on PostgreSQL when DATABASE_URL is set. */
export const onPostgres = !!process.env.DATABASE_URL;

/**
 * A database of its own, for every test app by default (`openTestDatabase`) and explicitly for
 * tests that need more: several apps on one database, a child process on it, or service-wide
 * state (the sandbox clock, the delivery queue) that must not leak into other suites running in
 * parallel on the PostgreSQL shared by every test file.
 *
 * On PostgreSQL it is a fresh schema of DATABASE_URL (search_path set on every connection of the
 * URL); on PGlite a fresh in-memory database.
 */
export interface IsolatedDatabase {
  /**
   * PostgreSQL URL of the isolated schema, for a child process (DATABASE_URL); undefined on
   * PGlite, where a child process uses its own embedded database.
   */
  readonly url: string | undefined;
  /**
   * Opens a handle: another connection pool on PostgreSQL (as a second process would have), the
   * one in-memory database on PGlite. Closing a handle is idempotent; on PGlite it closes the
   * database for every handle, so apps sharing it are started with `shareDatabase`.
   */
  open(): Promise<Database>;
  /** Closes every handle still open and drops the schema. Safe to call after the handles closed. */
  dispose(): Promise<void>;
}

/** `close()` at most once, whoever calls it first (the app or `dispose`). */
function closingOnce(db: Database): Database {
  let closed: Promise<void> | undefined;
  return { ...db, close: () => (closed ??= db.close()) };
}

export async function isolatedDatabase(): Promise<IsolatedDatabase> {
  if (!onPostgres) {
    const db = closingOnce(await openPglite(undefined));
    return { url: undefined, open: async () => db, dispose: () => db.close() };
  }
  const handles: Database[] = [];
  const base = process.env.DATABASE_URL!;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = openPostgres(base, { max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  let disposed: Promise<void> | undefined;
  return {
    url,
    async open() {
      const db = closingOnce(openPostgres(url));
      handles.push(db);
      return db;
    },
    dispose: () =>
      (disposed ??= (async () => {
        await Promise.all(handles.map((h) => h.close().catch(() => {})));
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.close();
      })()),
  };
}

/** A fresh database (schema on PostgreSQL) whose `close()` also drops it. */
export async function openTestDatabase(): Promise<Database> {
  const isolated = await isolatedDatabase();
  const db = await isolated.open();
  return { ...db, close: () => isolated.dispose() };
}
