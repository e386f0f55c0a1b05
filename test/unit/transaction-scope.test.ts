import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfferCache } from '../../src/accounts/offers.ts';
import type { Database } from '../../src/db/database.ts';
import { TransactionScopeError } from '../../src/db/transaction-scope.ts';
import { openTestDatabase } from '../helpers/database.ts';

// The check is on in the pglite project (test/setup/transaction-scope.ts), where this file runs.
let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db?.close());

describe('reads that would wait for the transaction they run in', () => {
  it('an offer cache read inside a transaction is refused at once, even when the copy is fresh; before it, it is answered', async () => {
    const cache = new OfferCache(db);
    const accountId = randomUUID();
    await expect(cache.list(accountId)).resolves.toEqual([]); // the copy is now fresh
    await expect(db.transaction(() => cache.list(accountId))).rejects.toBeInstanceOf(TransactionScopeError);
    await expect(db.transaction(() => cache.findPublic(`mer_${randomUUID()}`))).rejects.toThrow(/the offer cache read inside a transaction/);
    await expect(cache.list(accountId)).resolves.toEqual([]); // after it, answered again
  });

  it("on the embedded database, a query on the database's handle or a second transaction inside a transaction fails at once instead of waiting forever", async () => {
    await expect(db.transaction(() => db.query('SELECT 1'))).rejects.toBeInstanceOf(TransactionScopeError);
    await expect(db.transaction(() => db.transaction((tx) => tx.query('SELECT 1')))).rejects.toBeInstanceOf(TransactionScopeError);
    await expect(db.transaction((tx) => tx.query<{ n: number }>('SELECT 1 AS n'))).resolves.toMatchObject({ rows: [{ n: 1 }] });
    await expect(db.query<{ n: number }>('SELECT 1 AS n')).resolves.toMatchObject({ rows: [{ n: 1 }] });
  });
});
