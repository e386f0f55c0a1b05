/**
 * One statement at a time on a transaction's connection, none once its body has returned
 * (src/db/statement-turns.ts, docs/architecture.md#conventions): refused in the test suite, where
 * test/setup/one-statement-at-a-time.ts turned the refusal on, on either engine; serialised with a
 * warning in production. And the pg clients tests hold themselves: one query at a time as well.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Sql } from '../../src/db/database.ts';
import { OverlappingStatementError, StatementTurns, TransactionEndedError } from '../../src/db/statement-turns.ts';
import { isolatedDatabase, onPostgres, type IsolatedDatabase } from '../helpers/database.ts';

describe('statements of one transaction', () => {
  let isolated: IsolatedDatabase;
  let db: Database;

  beforeAll(async () => {
    isolated = await isolatedDatabase();
    db = await isolated.open();
    await db.exec('CREATE TABLE turns_probe (n int PRIMARY KEY)');
  });
  afterAll(() => isolated.dispose());

  const rows = async () => (await db.query<{ n: number }>('SELECT n FROM turns_probe ORDER BY n')).rows.map((r) => r.n);

  it('refuses a second statement sent while the first runs, and the transaction rolls back', async () => {
    const failed = db.transaction(async (tx) => {
      await tx.query('INSERT INTO turns_probe (n) VALUES (1)');
      // A Promise.all over the transaction's handle: the second statement is sent before the first ends.
      await Promise.all([tx.query('SELECT pg_sleep(0.05)'), tx.query('INSERT INTO turns_probe (n) VALUES (2)')]);
    });
    await expect(failed).rejects.toThrow(OverlappingStatementError);
    await expect(failed).rejects.toThrow(/INSERT INTO turns_probe \(n\) VALUES \(2\).*while its statement "SELECT pg_sleep\(0.05\)" was running/);
    expect(await rows()).toEqual([]);
  });

  it('refuses a statement sent after the body returned: it would run after the COMMIT, on a connection lent to another transaction', async () => {
    let kept: Sql | undefined;
    await db.transaction(async (tx) => {
      kept = tx;
      await tx.query('INSERT INTO turns_probe (n) VALUES (3)');
    });
    await expect(kept!.query('INSERT INTO turns_probe (n) VALUES (4)')).rejects.toThrow(TransactionEndedError);
    await expect(kept!.exec('DELETE FROM turns_probe')).rejects.toThrow(TransactionEndedError);
    expect(await rows()).toEqual([3]);
    await db.exec('DELETE FROM turns_probe');
  });

  it('lets a statement the body did not await finish before the end, then fails the transaction', async () => {
    let dangling: Promise<unknown> | undefined;
    const failed = db.transaction(async (tx) => {
      dangling = tx.query('INSERT INTO turns_probe (n) SELECT 5 FROM pg_sleep(0.05)');
    });
    await expect(failed).rejects.toThrow(/still running when its transaction's body returned/);
    await dangling; // it ran, in the transaction, which then rolled back
    expect(await rows()).toEqual([]);
  });

  it('runs statements awaited one after the other, as before', async () => {
    const n = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO turns_probe (n) VALUES (6)');
      await tx.exec('INSERT INTO turns_probe (n) VALUES (7)');
      return (await tx.query<{ c: number }>('SELECT count(*)::int AS c FROM turns_probe')).rows[0]!.c;
    });
    expect(n).toBe(2);
    expect(await rows()).toEqual([6, 7]);
    await db.exec('DELETE FROM turns_probe');
  });
});

describe('StatementTurns where overlaps are not refused (production)', () => {
  const statement = (turns: StatementTurns, text: string, log: string[], ms: number) => async () => {
    const wait = turns.begin(text);
    if (wait) await wait;
    try {
      log.push(`start ${text}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`end ${text}`);
    } finally {
      turns.end();
    }
  };

  it('runs overlapping statements one after the other, in the order sent, and warns', async () => {
    const warnings: string[] = [];
    const turns = new StatementTurns(false, (m) => warnings.push(m));
    const log: string[] = [];
    await Promise.all([statement(turns, 'a', log, 20)(), statement(turns, 'b', log, 1)(), statement(turns, 'c', log, 1)()]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/statement "b" sent on a transaction while its statement "a" was running/);
    await turns.close();
    expect(() => turns.begin('d')).toThrow(TransactionEndedError);
  });

  it('waits for the statements left running before the transaction ends, then refuses any other', async () => {
    const turns = new StatementTurns(false, () => {});
    const log: string[] = [];
    const left = Promise.all([statement(turns, 'a', log, 20)(), statement(turns, 'b', log, 1)()]);
    await turns.close();
    log.push('closed');
    await left;
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'closed']);
    expect(() => turns.begin('c')).toThrow(TransactionEndedError);
  });
});

describe.skipIf(!onPostgres)('a pg client a test holds (PostgreSQL)', () => {
  it('refuses a second query sent while it runs one (test/setup/one-statement-at-a-time.ts)', async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const first = client.query('SELECT pg_sleep(0.05)');
      expect(() => client.query('SELECT 1')).toThrow(/already executing a query/);
      await first;
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });
});
