import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledInstallments } from '../../src/payments/installment-repository.ts';
import { findPurchase } from '../../src/purchases/purchase-repository.ts';
import { collectInstallment } from '../../src/use-cases/installments/collect-installment.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { card, CARDS, newShop, paymentsOf, type Shop } from './support.ts';

let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  app = await startTestApp();
  shop = await newShop(app);
});
afterAll(() => app.close());

const deps = () => app.services.payments;

/** A purchase the leader paid with `number`: its installments still to collect. */
async function paid(type: 'INSTALLMENTS' | 'DEFERRED', number: string): Promise<{ id: string; toCollect: string[] }> {
  const offer = type === 'INSTALLMENTS' ? shop.offer('INSTALLMENTS', 3) : shop.offer('DEFERRED');
  const id = await shop.purchase({ merchant_uid: offer.merchant_uid, amount: 30_000 });
  expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(number), [], () => 'http://127.0.0.1:3000/return')).toEqual({
    kind: 'processed',
    state: 'LEADER_PROCESSED',
  });
  return { id, toCollect: (await scheduledInstallments(app.services.db, shop.accountId, id)).map((i) => i.id) };
}
const purchaseOf = async (id: string) => (await findPurchase(app.services.db, shop.accountId, id))!;

describe('collectInstallment', () => {
  it('each installment is charged once on the saved card; the last makes the purchase SUCCESSFUL', async () => {
    const { id, toCollect } = await paid('INSTALLMENTS', CARDS.ok);
    expect(toCollect).toHaveLength(2);
    expect(await collectInstallment(deps(), shop.accountId, toCollect[0]!)).toBe('paid');
    expect((await purchaseOf(id)).comment).toBe('2 of 3 installments paid.');
    expect(await collectInstallment(deps(), shop.accountId, toCollect[0]!)).toBe('already_paid'); // a job run twice
    expect(await collectInstallment(deps(), shop.accountId, toCollect[1]!)).toBe('paid');
    expect(await purchaseOf(id)).toMatchObject({ state: 'SUCCESSFUL', comment: 'All 3 installments are paid.' });
    const captured = (await paymentsOf(app, id)).reduce((s, p) => s + p.captured_cents, 0);
    expect(captured).toBe(30_000 + 450);
  });

  it('a refused installment is retried by dunning, three times, then the purchase is FAILED', async () => {
    const { id, toCollect } = await paid('INSTALLMENTS', CARDS.offSessionFails);
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await collectInstallment(deps(), shop.accountId, toCollect[0]!));
    expect(outcomes).toEqual(['retry_scheduled', 'retry_scheduled', 'retry_scheduled', 'failed']);
    expect(await purchaseOf(id)).toMatchObject({ state: 'FAILED', comment: 'Installment 2 of 3 could not be collected after 4 attempts (card_declined).' });
    const retries = await app.services.db.query<{ n: number }>('SELECT count(*) AS n FROM jobs WHERE dedupe_key LIKE $1', [`installment.collect:${toCollect[0]}:%`]);
    expect(retries.rows[0]!.n).toBe(4); // the due-date job and three retries
    expect(await collectInstallment(deps(), shop.accountId, toCollect[1]!)).toBe('not_collectable');
  });

  it('a deferred payment is captured from its hold at the due date', async () => {
    const { id, toCollect } = await paid('DEFERRED', CARDS.ok);
    expect(await collectInstallment(deps(), shop.accountId, toCollect[0]!)).toBe('paid');
    expect(await purchaseOf(id)).toMatchObject({ state: 'SUCCESSFUL', comment: 'The deferred payment is collected.' });
    expect(await paymentsOf(app, id)).toEqual([{ purpose: 'deferred', status: 'captured', amount_cents: 30_000, captured_cents: 30_000 }]);
  });
});
