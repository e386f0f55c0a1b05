import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHs256 } from '../../src/delivery/jwt.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { triggerCapture } from '../../src/use-cases/installments/trigger-capture.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { card, CARDS, newShop, paymentsOf, type Shop } from './support.ts';

let app: TestApp;
let shop: Shop;
let other: Shop;
beforeAll(async () => {
  app = await startTestApp();
  [shop, other] = [await newShop(app), await newShop(app)];
});
afterAll(() => app.close());

const deferred = () => shop.offer('DEFERRED');
const sign = (payload: object, secret = deferred().secret) => signHs256(payload as Record<string, unknown>, secret);
async function deferredPurchase(pay = true, ref?: string): Promise<string> {
  const id = await shop.purchase({ merchant_uid: deferred().merchant_uid, amount: 15_000, ...(ref ? { ref } : {}) });
  if (pay) await payAsLeader(app.services.payments, { id, accountId: shop.accountId }, card(CARDS.ok), [], () => 'http://127.0.0.1:3000/return');
  return id;
}
const captured = async (id: string) => (await paymentsOf(app, id)).reduce((s, p) => s + p.captured_cents, 0);

describe('triggerCapture', () => {
  it('captures a deferred purchase now; a second call answers the same and never captures twice', async () => {
    const id = await deferredPurchase();
    const token = sign({ merchantUid: deferred().merchant_uid, purchaseUid: `pur_${id}` });
    expect(await triggerCapture(app.services.payments, token)).toEqual({ kind: 'captured', purchaseId: id, state: 'SUCCESSFUL' });
    expect(await triggerCapture(app.services.payments, token)).toEqual({ kind: 'captured', purchaseId: id, state: 'SUCCESSFUL' });
    expect(await captured(id)).toBe(15_000);
  });

  it("finds the purchase by the merchant's reference too", async () => {
    const id = await deferredPurchase(true, 'UC-REF-1');
    expect(await triggerCapture(app.services.payments, sign({ merchantUid: deferred().merchant_uid, reference: 'UC-REF-1' }))).toMatchObject({ kind: 'captured', purchaseId: id });
  });

  it('a signature made with another secret is refused and captures nothing', async () => {
    const id = await deferredPurchase();
    const payload = { merchantUid: deferred().merchant_uid, purchaseUid: `pur_${id}` };
    expect(await triggerCapture(app.services.payments, sign(payload, other.offer('DEFERRED').secret))).toMatchObject({ kind: 'refused', code: 'invalid_signature' });
    expect(await triggerCapture(app.services.payments, 'not.a.jwt')).toMatchObject({ kind: 'refused', code: 'invalid_signature' });
    expect(await captured(id)).toBe(0);
  });

  it('a purchase not awaiting capture is in the wrong state', async () => {
    const id = await deferredPurchase(false);
    expect(await triggerCapture(app.services.payments, sign({ merchantUid: deferred().merchant_uid, purchaseUid: `pur_${id}` }))).toMatchObject({
      kind: 'refused',
      code: 'invalid_purchase_state',
    });
  });

  it('unknown identifiers are not found; missing ones are named', async () => {
    expect(await triggerCapture(app.services.payments, sign({ merchantUid: deferred().merchant_uid, purchaseUid: 'pur_00000000-0000-4000-8000-000000000000' }))).toEqual({
      kind: 'not_found',
      message: 'purchaseUid not found',
    });
    expect(await triggerCapture(app.services.payments, sign({ merchantUid: deferred().merchant_uid }))).toMatchObject({ kind: 'refused', code: 'missing_identifier' });
  });
});
