import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { bundledMigrations, migrate, MigrationOrderError, newerMigrations, pendingMigrations } from '../../src/db/migrate.ts';
import { openDatabase } from '../../src/db/open.ts';
import { DEFAULT_POOL_SIZE, openPostgres, PRIMARY_WAIT_MS, StatementNames } from '../../src/db/postgres.ts';
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts';
import { onPostgres, openTestDatabase } from '../helpers/app.ts';

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase({ empty: true });
});
afterAll(() => db.close());

describe(`database (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it.runIf(onPostgres)(
    "waits at most PRIMARY_WAIT_MS for a connection of the primary's pool, then fails as unavailable (a 503 with Retry-After), never hangs",
    async () => {
      const primary = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, dataDir: '/nonexistent' });
      try {
        // Every connection of the pool busy for longer than the wait.
        const busy = Array.from({ length: DEFAULT_POOL_SIZE }, () => primary.query(`SELECT pg_sleep(${PRIMARY_WAIT_MS / 1000 + 2})`));
        const waited = await primary.query('SELECT 1').then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(waited).toBeInstanceOf(Error);
        expect(isDatabaseUnavailable(waited)).toBe(true);
        await Promise.all(busy);
      } finally {
        await primary.close();
      }
    },
    30_000,
  );

  it('reads bigint money back as a JS integer, exactly', async () => {
    const { rows } = await db.query<{ big: number; n: number }>('SELECT $1::bigint AS big, count(*) AS n FROM (VALUES (1),(2)) v', [9_007_199_254_740_991]);
    expect(rows[0]).toEqual({ big: 9_007_199_254_740_991, n: 2 });
    await expect(db.query('SELECT 9007199254740993::bigint AS big')).rejects.toThrow(/safe integer/);
  });

  it('migrations are versioned, applied once, and a second run applies nothing', async () => {
    const versions = bundledMigrations().map((m) => m.version);
    expect(await pendingMigrations(db)).toEqual(versions);
    expect(await migrate(db)).toEqual(versions);
    expect(await migrate(db)).toEqual([]);
    expect(await pendingMigrations(db)).toEqual([]);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
  });

  it('an older build on a newer schema applies nothing, stays ready, and refuses a migration older than the newest applied', async () => {
    await migrate(db);
    // The next release migrated ahead of this build (a rolling upgrade: docs/deployment.md).
    await db.query("INSERT INTO schema_migrations (version, name) VALUES (9999, 'next_release')");
    try {
      expect(await migrate(db)).toEqual([]);
      expect(await pendingMigrations(db)).toEqual([]);
      expect(await newerMigrations(db)).toEqual([9999]);
      // A migration this build has and the database lacks, older than one applied: never run.
      const late = { version: 9000, name: 'late', sql: 'CREATE TABLE late_probe (v int)' };
      await expect(migrate(db, [...bundledMigrations(), late])).rejects.toThrow(MigrationOrderError);
      const { rows } = await db.query<{ t: string | null }>("SELECT to_regclass('late_probe')::text AS t");
      expect(rows[0]!.t).toBeNull();
    } finally {
      await db.query('DELETE FROM schema_migrations WHERE version = 9999');
    }
    expect(await newerMigrations(db)).toEqual([]);
  });

  it('a transaction rolls back everything when it throws', async () => {
    await db.query('CREATE TABLE IF NOT EXISTS tx_probe (v int)');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO tx_probe VALUES (1)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const { rows } = await db.query('SELECT * FROM tx_probe');
    expect(rows).toEqual([]);
  });

  // A failover kills the primary while transactions hold connections between two statements:
  // the server's farewell arrives with no statement running. Without the transaction's own error
  // listener, node-postgres emits it unhandled and the process dies (vitest reports it).
  it.runIf(onPostgres)('a connection killed between two statements of a transaction fails that transaction only, and the pool goes on', async () => {
    await expect(
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const pid = rows[0]!.pid;
        await db.query('SELECT pg_terminate_backend($1)', [pid]);
        // Gone from pg_stat_activity once it has sent its FATAL and closed; the polls' round
        // trips let this process read that while the transaction runs no statement.
        while ((await db.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount > 0);
        await db.query('SELECT 1');
        await tx.query('SELECT 1');
      }),
    ).rejects.toThrow();
    const { rows } = await db.query<{ one: number }>('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
  });
});

describe('prepared statements', () => {
  it('names each text once, the same name at every use, and none past the bound', () => {
    const names = new StatementNames(2);
    const a = names.nameOf('SELECT $1::int');
    expect(a).toBeDefined();
    expect(names.nameOf('SELECT $1::int')).toBe(a);
    const b = names.nameOf('SELECT $1::text');
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
    expect(names.nameOf('SELECT $1::bigint')).toBeUndefined();
    expect(names.nameOf('SELECT $1::int')).toBe(a);
  });

  // Through a transaction pooler (npm run test:pgbouncer, DATABASE_POOLER=transaction) nothing is prepared.
  const pooled = !!process.env.CHIPIN_TEST_POOLER_URL;
  it.runIf(onPostgres)('prepares a statement with parameters on its connection (none through a transaction pooler), and one asked not to be prepared never', async () => {
    const prepared = await db.transaction(async (tx) => {
      // A transaction holds one connection: what it prepared is visible to its next statements.
      expect((await tx.query<{ n: number }>('SELECT $1::int AS n /* probe: prepared */', [1])).rows[0]!.n).toBe(1);
      expect((await tx.query<{ n: number }>('SELECT $1::int AS n /* probe: unprepared */', [2], { prepare: false })).rows[0]!.n).toBe(2);
      const { rows } = await tx.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%probe:%'");
      return rows.map((r) => r.statement);
    });
    expect(prepared).toEqual(pooled ? [] : ['SELECT $1::int AS n /* probe: prepared */']);
  });

  it.skipIf(!onPostgres)("a pool with a statement timeout (the read replica's) gives up a statement that hangs, and its next statements run", async () => {
    const pool = openPostgres(process.env.DATABASE_URL!, { max: 1, queryTimeoutMs: 300, keepAlive: true });
    try {
      const started = Date.now();
      await expect(pool.query('SELECT pg_sleep(5)')).rejects.toThrow(/Query read timeout/);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect((await pool.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    } finally {
      await pool.close();
    }
  });

  it('a statement that fails to prepare leaves the connection and its other statements working', async () => {
    await expect(db.query('SELECT $1::int FROM no_such_table', [1])).rejects.toThrow(/no_such_table/);
    await expect(db.query('SELECT $1::int FROM no_such_table', [1])).rejects.toThrow(/no_such_table/);
    for (let i = 0; i < 12; i++) expect((await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [i])).rows[0]!.n).toBe(i + 1);
  });
});
