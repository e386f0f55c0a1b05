import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../src/accounts/accounts.ts';
import { parsePublicId } from '../../src/domain/ids.ts';
import { findPurchase, listPurchases } from '../../src/purchases/purchase-repository.ts';
import { createPurchase, type CreatePurchaseInput } from '../../src/use-cases/checkout/create-purchase.ts';
import { twoMerchants } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: CreatedMerchant;
let b: CreatedMerchant;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = (await twoMerchants(app, ['Shop A', 'Shop B'])).map((c) => c.merchant) as [CreatedMerchant, CreatedMerchant];
});
afterAll(() => app.close());

const accountOf = (m: CreatedMerchant) => parsePublicId('acc', m.account_id)!;
const offerOf = (m: CreatedMerchant, type: string) => m.offers.find((o) => o.type === type)!.merchant_uid;
const input = (m: CreatedMerchant, over: Partial<CreatePurchaseInput> = {}): CreatePurchaseInput => ({
  accountId: accountOf(m),
  title: 'Weekend in Lisbon',
  amountCents: 30_000,
  language: 'en_GB',
  client: { email: 'leader@example.com' },
  ...over,
});
const stored = async (m: CreatedMerchant) => (await listPurchases(app.services.db, accountOf(m), { limit: 100 })).length;

describe('createPurchase (both API families)', () => {
  it('creates a CREATED purchase on the default (SHARED) offer, in its currency, when no offer is named', async () => {
    const outcome = await createPurchase(app.services, input(a));
    expect(outcome.kind).toBe('created');
    if (outcome.kind !== 'created') return;
    expect(outcome.offer.type).toBe('SHARED');
    expect(outcome.purchase).toMatchObject({ accountId: accountOf(a), offerId: outcome.offer.id, state: 'CREATED', currency: 'EUR', amountCents: 30_000 });
    expect(await findPurchase(app.services.db, accountOf(a), outcome.purchase.id)).toMatchObject({ title: 'Weekend in Lisbon', client: { email: 'leader@example.com' } });
  });

  it('creates on the named offer of the account', async () => {
    const outcome = await createPurchase(app.services, input(a, { merchantUid: offerOf(a, 'DEFERRED') }));
    expect(outcome.kind === 'created' && outcome.offer.type).toBe('DEFERRED');
  });

  it("answers no_offer for an unknown, malformed or another merchant's offer, and stores nothing", async () => {
    const before = await stored(a);
    for (const merchantUid of ['mer_00000000-0000-4000-8000-000000000000', 'nope', offerOf(b, 'SHARED')]) {
      expect(await createPurchase(app.services, input(a, { merchantUid }))).toEqual({ kind: 'no_offer', merchantUid });
    }
    expect(await stored(a)).toBe(before);
  });

  it("refuses an amount outside the offer's limits, naming the amount field, and stores nothing", async () => {
    const before = await stored(a);
    const created = await createPurchase(app.services, input(a));
    const offer = created.kind === 'created' ? created.offer : undefined;
    expect(offer).toBeDefined();
    expect(await createPurchase(app.services, input(a, { amountCents: offer!.minAmountCents - 1 }))).toEqual({
      kind: 'invalid',
      field: 'amount',
      message: `must be at least ${offer!.minAmountCents} for this offer`,
    });
    expect(await createPurchase(app.services, input(a, { amountCents: offer!.maxAmountCents + 1 }))).toEqual({
      kind: 'invalid',
      field: 'amount',
      message: `must be at most ${offer!.maxAmountCents} for this offer`,
    });
    expect(await stored(a)).toBe(before + 1);
  });

  it("refuses a currency other than the offer's, an unknown currency, and products in another currency, naming the field", async () => {
    const before = await stored(a);
    expect(await createPurchase(app.services, input(a, { currency: 'USD' }))).toEqual({ kind: 'invalid', field: 'currency', message: 'must be EUR, the currency of this offer' });
    expect(await createPurchase(app.services, input(a, { currency: 'ABC' }))).toEqual({ kind: 'invalid', field: 'currency', message: 'is not an ISO 4217 currency code: "ABC"' });
    const products = [
      { label: 'Flight', amount: 20_000, currency: 'EUR' },
      { label: 'Hotel', amount: 10_000, currency: 'USD' },
    ];
    expect(await createPurchase(app.services, input(a, { products }))).toEqual({ kind: 'invalid', field: 'products[1].currency', message: "must be EUR, the purchase's currency" });
    expect(await stored(a)).toBe(before);
  });

  it('a DOWN_PAYMENT purchase keeps the balance date asked within the maximum delay; one outside it is refused naming balance_payment_date, and stores nothing', async () => {
    const today = app.services.clock.now().toISOString().slice(0, 10);
    const day = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    const merchantUid = offerOf(a, 'DOWN_PAYMENT');
    const kept = await createPurchase(app.services, input(a, { merchantUid, balancePaymentDate: day(60) }));
    expect(kept.kind === 'created' && kept.purchase.balancePaymentDate).toBe(day(60));
    const before = await stored(a);
    for (const [date, says] of [
      [day(61), `is after the latest this offer allows, ${day(60)}`],
      [today, `must be after created ${today}`],
    ] as const) {
      const refused = await createPurchase(app.services, input(a, { merchantUid, balancePaymentDate: date }));
      expect(refused).toMatchObject({ kind: 'invalid', field: 'balance_payment_date' });
      expect(refused.kind === 'invalid' && refused.message).toMatch(new RegExp(`^is not possible for this offer: the balance payment date ${date} ${says}`));
    }
    expect(await stored(a)).toBe(before);
    // Another offer ignores it, as a requested date of another type (docs/schedules.md#requested-dates).
    expect((await createPurchase(app.services, input(a, { merchantUid: offerOf(a, 'DEFERRED'), balancePaymentDate: day(400) }))).kind).toBe('created');
  });
});
