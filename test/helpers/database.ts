import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/database.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';

/** The suite runs on PGlite by default and on PostgreSQL when DATABASE_URL is set. */
export const onPostgres = !!process.env.DATABASE_URL;

/**
 * A database of its own for tests that move the sandbox clock: the clock is service-wide, so on
 * the PostgreSQL shared by every test file it would jump under the other suites' feet (and one
 * file's jobs would run in another's app). On
 * PostgreSQL it is a fresh schema of DATABASE_URL (search_path set on every connection); on
 * PGlite a fresh in-memory database.
 */
export interface IsolatedDatabase {
  /** Opens a handle (another connection pool on PostgreSQL; the same database on PGlite). */
  open(): Promise<Database>;
  /** Closes every handle opened and drops the schema. */
  dispose(): Promise<void>;
}

export async function isolatedDatabase(): Promise<IsolatedDatabase> {
  const handles: Database[] = [];
  if (!onPostgres) {
    const db = await openPglite(undefined);
    // One in-memory database: every "handle" is it, closed once.
    return { open: async () => db, dispose: () => db.close() };
  }
  const base = process.env.DATABASE_URL!;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = openPostgres(base, { max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    async open() {
      const db = openPostgres(url);
      handles.push(db);
      return db;
    },
    async dispose() {
      await Promise.all(handles.map((h) => h.close().catch(() => {})));
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.close();
    },
  };
}


/** A fresh database (schema on PostgreSQL) whose `close()` also drops it. */
export async function openTestDatabase(): Promise<Database> {
  const isolated = await isolatedDatabase();
  const db = await isolated.open();
  return { ...db, close: () => isolated.dispose() };
}
