import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { newMerchant, startTestApp } from '../helpers/app.ts';

/**
 * On PGlite, a test database is emptied and handed to the next test of the worker instead of a new
 * one (test/helpers/reused-databases.ts, docs/testing.md#fixed-costs-and-how-they-are-kept-down):
 * what a test sees must be what a new database shows. Runs on PGlite only (vitest.config.ts).
 */

/** Every public table's rows, and every sequence where it stands. */
async function contents(db: Database): Promise<Record<string, unknown>> {
  const { rows: tables } = await db.query<{ name: string }>(
    "SELECT quote_ident(relname) AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition ORDER BY 1",
  );
  const out: Record<string, unknown> = {};
  for (const { name } of tables) out[name] = (await db.query(`SELECT * FROM ${name}`)).rows;
  const { rows: sequences } = await db.query<{ name: string }>(
    "SELECT quote_ident(relname) AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'S' ORDER BY 1",
  );
  for (const { name } of sequences) out[name] = (await db.query(`SELECT last_value, is_called FROM ${name}`)).rows;
  return out;
}

async function transactionCounter(db: Database): Promise<bigint> {
  const { rows } = await db.query<{ xid: string }>('SELECT txid_current()::text AS xid');
  return BigInt(rows[0]!.xid);
}

describe('a test database handed on within a worker', () => {
  // An app started and closed: in a loaded run, as a worker's first file, over the 30 s default.
  it('shows the next test what a new database shows: no row a test wrote, the migrations’ rows, every sequence where it was', { timeout: 90_000 }, async () => {
    const first = await openTestDatabase();
    const asMigrated = await contents(first);
    const counterBefore = await transactionCounter(first);
    const app = await startTestApp({}, { db: first });
    await newMerchant(app);
    await first.query('UPDATE sandbox_clock SET offset_ms = 86400000');
    await first.query("INSERT INTO jobs (kind, dedupe_key, run_at) VALUES ('test', 'reused-databases', now())");
    await app.close();

    const next = await openTestDatabase();
    try {
      // The same database, emptied (its transaction counter went on), not a new one.
      expect(await transactionCounter(next)).toBeGreaterThan(counterBefore + 3n);
      expect(await contents(next)).toEqual(asMigrated);
    } finally {
      await next.close();
    }
  });

  it('is not handed on when a test changed its schema: a trigger left behind is not in the next one', async () => {
    const first = await openTestDatabase();
    await first.exec(`CREATE FUNCTION left_behind() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
      CREATE TRIGGER left_behind BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION left_behind()`);
    await first.close();

    const next = await openTestDatabase();
    try {
      const { rows } = await next.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_trigger WHERE tgname = 'left_behind'");
      expect(rows[0]!.n).toBe(0);
    } finally {
      await next.close();
    }
  });

  it('refuses every statement once closed, so a closed app never writes into the next test’s database', async () => {
    const db = await openTestDatabase();
    await db.close();
    await expect(db.query('SELECT 1')).rejects.toThrow();
    await expect(db.transaction((tx) => tx.query('SELECT 1'))).rejects.toThrow();
  });
});
