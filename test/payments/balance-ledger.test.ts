/**
 * The transfer mode's double-entry ledger at the database (docs/money-operations.md#the-merchants-balance):
 * a journal is booked once and only when it balances, and a merchant's rows can name its own PSP
 * account or an operator's, never another merchant's.
 */
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balancedLegs, commissionOf, type Leg } from '../../src/domain/balance-books.ts';
import { bookBalances, owedCents, postJournal } from '../../src/payments/balance-repository.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp({ jobPollIntervalMs: 0 });
  [a, b] = await twoMerchants(app);
});
afterAll(() => app.close());

const db = () => app.services.db;
const offerId = (c: Caller) => c.offer('SHARED').slice('mer_'.length);

async function pspAccount(owner: string | null): Promise<string> {
  const id = randomUUID();
  await db().query(
    `INSERT INTO psp_accounts (id, account_id, psp, environment, label, credentials_enc, created_at, updated_at) VALUES ($1, $2, 'sandbox', 'test', 'x', 'sealed', now(), now())`,
    [id, owner],
  );
  return id;
}

describe('journals', () => {
  it('books a journal once, however often it is posted', async () => {
    const journal = { accountId: a.accountId, currency: 'EUR', journal: `test:${randomUUID()}`, kind: 'validated' as const, occurredAt: new Date() };
    const legs: Leg[] = [
      { book: 'shopper_receivable', amountCents: 10_000 },
      { book: 'merchant_payable', amountCents: -9_700 },
      { book: 'commission', amountCents: -300 },
    ];
    const before = await bookBalances(db(), a.accountId, 'EUR');
    expect(await postJournal(db(), { ...journal, legs })).toBe(true);
    expect(await postJournal(db(), { ...journal, legs })).toBe(false);
    const after = await bookBalances(db(), a.accountId, 'EUR');
    expect(owedCents(after) - owedCents(before)).toBe(9_700);
    expect(after.commission - before.commission).toBe(-300);
    expect(await bookBalances(db(), b.accountId, 'EUR')).toMatchObject({ merchant_payable: 0 });
  });

  it('refuses a journal whose legs do not add up to zero, and stores nothing of it', async () => {
    const journal = `test:${randomUUID()}`;
    await expect(
      postJournal(db(), {
        accountId: a.accountId,
        currency: 'EUR',
        journal,
        kind: 'capture',
        occurredAt: new Date(),
        legs: [
          { book: 'psp_cash', amountCents: 100 },
          { book: 'shopper_receivable', amountCents: -99 },
        ],
      }),
    ).rejects.toThrow(/balance/);
    expect((await db().query('SELECT 1 FROM balance_postings WHERE journal = $1', [journal])).rows).toHaveLength(0);
  });

  it('merges legs on one book and drops the zero ones, keeping the sum at zero', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            book: fc.constantFrom('psp_cash', 'shopper_receivable', 'merchant_payable', 'commission') as fc.Arbitrary<Leg['book']>,
            amountCents: fc.integer({ min: -1e9, max: 1e9 }),
          }),
        ),
        (legs) => {
          const total = legs.reduce((s, l) => s + l.amountCents, 0);
          const balanced = [...legs, { book: 'paid_out' as const, amountCents: -total }];
          const stored = balancedLegs(balanced);
          expect(stored.reduce((s, l) => s + l.amountCents, 0)).toBe(0);
          expect(new Set(stored.map((l) => l.book)).size).toBe(stored.length);
          expect(stored.every((l) => l.amountCents !== 0)).toBe(true);
        },
      ),
    );
  });

  it('takes the commission half up on the basis points, plus the fixed part, never more than the amount', () => {
    expect(commissionOf(10_000, 250, 0)).toBe(250);
    expect(commissionOf(333, 150, 0)).toBe(5); // 4.995 → 5
    expect(commissionOf(100, 0, 500)).toBe(100);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999_999 }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 100_000 }), (amount, bps, fixed) => {
        const c = commissionOf(amount, bps, fixed);
        expect(Number.isSafeInteger(c)).toBe(true);
        expect(c).toBeGreaterThanOrEqual(0);
        expect(c).toBeLessThanOrEqual(amount);
        // Within half a cent of the exact proportional figure, before the cap.
        if (c < amount) expect(Math.abs((c - fixed) * 10_000 - amount * bps)).toBeLessThanOrEqual(5_000);
      }),
    );
  });
});

describe('PSP accounts of an offer or a payment', () => {
  it("refuses another merchant's PSP account on an offer", async () => {
    const theirs = await pspAccount(b.accountId);
    await expect(db().query('UPDATE offers SET psp_account_id = $1 WHERE account_id = $2 AND id = $3', [theirs, a.accountId, offerId(a)])).rejects.toThrow(/another merchant/);
  });

  it("lets a transfer-mode offer use an operator's account, and only that mode", async () => {
    const operator = await pspAccount(null);
    await expect(db().query('UPDATE offers SET psp_account_id = $1 WHERE account_id = $2 AND id = $3', [operator, a.accountId, offerId(a)])).rejects.toThrow(/back mode/);
    await db().query(`UPDATE offers SET psp_account_id = $1, payment_mode = 'transfer' WHERE account_id = $2 AND id = $3`, [operator, a.accountId, offerId(a)]);
    const own = await pspAccount(a.accountId);
    await expect(db().query('UPDATE offers SET psp_account_id = $1 WHERE account_id = $2 AND id = $3', [own, a.accountId, offerId(a)])).rejects.toThrow(/transfer mode/);
    await db().query(`UPDATE offers SET psp_account_id = NULL, payment_mode = 'back' WHERE account_id = $1 AND id = $2`, [a.accountId, offerId(a)]);
  });
});

describe("payments on an operator's collecting account", () => {
  it("records a merchant's payment on an operator's account, and refuses one on another merchant's", async () => {
    const operator = await pspAccount(null);
    const theirs = await pspAccount(b.accountId);
    const created = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000, merchant_uid: a.offer('SHARED') }));
    expect(created.statusCode).toBe(201);
    const purchaseId = String(created.json().id).replace(/^pur_/, '');
    const insert = (psa: string) =>
      db().query(
        `INSERT INTO payments (id, account_id, purchase_id, purpose, psp, psp_account_id, idempotency_key, amount_cents, status, created_at, updated_at)
         VALUES ($1, $2, $3, 'guarantee', 'sandbox', $4, $5, 100, 'authorized', now(), now())`,
        [randomUUID(), a.accountId, purchaseId, psa, randomUUID()],
      );
    await insert(operator);
    await expect(insert(theirs)).rejects.toThrow(/another merchant/);
  });
});
