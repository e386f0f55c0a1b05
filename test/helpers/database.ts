import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { inject } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { PGlite } from '@electric-sql/pglite';
import { openPglite, pgliteDatabase, startPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { runDatabasePrefix, testConnection, type TestConnection } from './postgres-url.ts';
import { emptyForReuse, readEmptyingPlan, within, type EmptyingPlan } from './reused-databases.ts';
import { timed } from './timing.ts';

/**
 * Which database this test file runs on: its project's (vitest.config.ts). The `postgres`
 * project's workers have DATABASE_URL; the `pglite` project's have it removed.
 */
export const onPostgres = !!process.env.DATABASE_URL;

/** The migrated PGlite data directory of this run (test/setup/pglite-snapshot.ts), read once per file. */
let snapshot: Promise<Blob> | undefined;
function pgliteSnapshot(): Promise<Blob> {
  return (snapshot ??= readFile(inject('pgliteSnapshot')).then((bytes) => new Blob([bytes])));
}

/**
 * A database of its own, for every test app by default (`openTestDatabase`) and explicitly for
 * tests that need more: several apps on one database, a child process on it, or service-wide
 * state (the sandbox clock, the delivery queue) that must not leak into other suites running in
 * parallel on the PostgreSQL shared by every test file.
 *
 * On PostgreSQL it is a new database cloned from the run's migrated template
 * (test/setup/postgres-template.ts); on PGlite a new in-memory database loaded from the run's
 * migrated snapshot. Either way the schema is current and holds no rows.
 */
export interface IsolatedDatabase {
  /**
   * PostgreSQL URL of the isolated database, for a child process (DATABASE_URL); undefined on
   * PGlite, where a child process uses its own embedded database.
   */
  readonly url: string | undefined;
  /** The environment of a child process on this database (DATABASE_URL, and the pooler's settings when the run uses one); empty on PGlite. */
  readonly env: Record<string, string>;
  /**
   * Opens a handle: another connection pool on PostgreSQL (as a second process would have), the
   * one in-memory database on PGlite. Closing a handle is idempotent; on PGlite it closes the
   * database for every handle, so apps sharing it are started with `shareDatabase`.
   */
  open(options?: OpenOptions): Promise<Database>;
  /** Closes every handle still open and drops the database. Safe to call after the handles closed. */
  dispose(): Promise<void>;
}

/** `close()` at most once, whoever calls it first (the app or `dispose`). */
function closingOnce(db: Database): Database {
  let closed: Promise<void> | undefined;
  return { ...db, close: () => (closed ??= db.close()) };
}

/** How a handle is opened. */
export interface OpenOptions {
  /**
   * Connections of the handle's pool on PostgreSQL (default: the service's own); ignored on PGlite.
   * A suite running many apps at once keeps under the server's max_connections (100) with it.
   */
  max?: number;
}

export interface TestDatabaseOptions {
  /** No table at all, for tests of the migrations themselves. Default: migrated (the run's snapshot or template). */
  empty?: boolean;
}

/**
 * On PGlite, databases are reused within a worker: a disposed one is emptied back to the template
 * (test/helpers/reused-databases.ts) and handed to the next test that asks, instead of a new one
 * being loaded (1.4 s of CPU). At most this many wait, emptied, per worker; the rest are closed.
 * Not on PostgreSQL yet (docs/testing.md#fixed-costs-and-how-they-are-kept-down).
 */
const IDLE_AT_MOST = 4;
/** A database whose emptying has not ended within this is not reused (a transaction a test left open holds it). */
const EMPTYING_TIMEOUT_MS = 10_000;

const idlePglite: PGlite[] = [];
let pglitePlan: Promise<EmptyingPlan> | undefined;

/** Empties `instance` for the next test; false when it cannot be reused. */
async function emptiedPglite(instance: PGlite): Promise<boolean> {
  // A new app's session: settings, prepared statements and advisory locks as a fresh instance has them.
  await instance.exec('DISCARD ALL');
  return emptyForReuse(
    pgliteDatabase(instance, async () => {}),
    await pglitePlan!,
  );
}

async function reusablePglite(): Promise<IsolatedDatabase> {
  let instance = idlePglite.pop();
  if (!instance) {
    const loaded = await timed('database loaded', async () => startPglite(undefined, await pgliteSnapshot()));
    // Read from the first database this worker loads, before any test writes to it.
    await (pglitePlan ??= readEmptyingPlan(pgliteDatabase(loaded, async () => {})));
    instance = loaded;
  }
  const reused = instance;
  const db = pgliteDatabase(reused, async () => {
    const emptied = await timed('database emptied', () => within(EMPTYING_TIMEOUT_MS, emptiedPglite(reused))).catch(() => false);
    if (emptied && idlePglite.length < IDLE_AT_MOST) idlePglite.push(reused);
    else if (emptied) await reused.close();
    // Not waited for: a database whose emptying timed out may never answer.
    else reused.close().catch(() => {});
  });
  return { url: undefined, env: {}, open: async () => db, dispose: () => db.close() };
}

/**
 * Drops of this worker's databases still under way. A drop waits for the server (a checkpoint:
 * about 1 s), so `dispose` returns once the handles are closed and the drop goes on while the
 * file's next test runs; past {@link DROPS_AT_ONCE} under way, it waits for its own, so that admin
 * connections do not pile up. What a worker stopped before its drops ended leaves, the run's
 * teardown drops (test/setup/postgres-template.ts: the names carry the run's).
 */
let dropping = 0;
const DROPS_AT_ONCE = 2;

export async function isolatedDatabase(options: TestDatabaseOptions = {}): Promise<IsolatedDatabase> {
  if (!onPostgres) {
    if (!options.empty) return reusablePglite();
    // Closing a PGlite handle is idempotent itself (src/db/pglite.ts).
    const db = await timed('database loaded', () => openPglite(undefined));
    return { url: undefined, env: {}, open: async () => db, dispose: () => db.close() };
  }
  const handles: Database[] = [];
  const base = process.env.DATABASE_URL!;
  const runTemplate = inject('postgresTemplate');
  const name = `${runDatabasePrefix(runTemplate)}${randomBytes(6).toString('hex')}`;
  const admin = openPostgres(base, { max: 1 });
  // template0: an empty database whatever the server's template1 holds.
  const template = options.empty ? 'template0' : runTemplate;
  await timed('database cloned', () => admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const connection: TestConnection = testConnection(base, name);
  let disposed: Promise<void> | undefined;
  return {
    url: connection.url,
    env: connection.env,
    async open(options: OpenOptions = {}) {
      const db = closingOnce(openPostgres(connection.url, { ...connection.options, ...options }));
      handles.push(db);
      return db;
    },
    dispose: () =>
      (disposed ??= (async () => {
        await Promise.all(handles.map((h) => h.close().catch(() => {})));
        dropping++;
        const dropped = timed('database dropped', () => admin.query(`DROP DATABASE ${name} WITH (FORCE)`)).finally(() => {
          dropping--;
          return admin.close();
        });
        if (dropping > DROPS_AT_ONCE) await dropped;
        // Not waited for: a failed drop leaves a database the run's teardown drops.
        else dropped.catch(() => {});
      })()),
  };
}

/** A fresh database whose `close()` also drops it. */
export async function openTestDatabase(options: TestDatabaseOptions = {}): Promise<Database> {
  const isolated = await isolatedDatabase(options);
  const db = await isolated.open();
  return { ...db, close: () => isolated.dispose() };
}
