import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelBar, type PurchaseState } from '../../src/domain/purchase-states.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard.ts';

/**
 * The purchase page offers "Cancel the purchase…" only when the cancel would go ahead: the page
 * and the cancel use case apply one rule (`cancelBar`, docs/back-office.md): a purchase with money
 * captured offers no cancel that would then answer 409 "refund it instead".
 */
let app: TestApp;
let a: Caller;
let s: { cookie: string; csrf: string };

const CARD = '4242424242424242';

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
  s = await signIn(app, a.merchant);
});
afterAll(async () => {
  await app?.close();
});

async function created(over: Record<string, unknown> = {}): Promise<string> {
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000, ...over }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function paid(over: Record<string, unknown> = {}, pledgers: { email: string; amount_cents: number }[] = []): Promise<string> {
  const id = await created(over);
  const res = await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CARD, pledgers });
  expect(res.statusCode, res.body).toBe(200);
  return id;
}

const page = async (id: string, lang = 'en') => {
  const res = await app.server.inject({ method: 'GET', url: `/dashboard/purchases/pur_${id}?lang=${lang}`, headers: { cookie: s.cookie } });
  expect(res.statusCode).toBe(200);
  return res.body;
};
const offersCancel = (body: string, id: string) => body.includes(`action="/dashboard/purchases/pur_${id}/cancel"`);
const state = async (id: string) => (await a.get(`/api/merchants/v1/purchases/${id}`)).json().state as string;
const CAPTURED_HINT = 'Money was captured, so this purchase can no longer be cancelled: a refund gives the money back.';

describe('the cancel action on the purchase page', () => {
  it('a purchase with money captured shows no cancel action, and says a refund gives the money back', async () => {
    // A 3x plan (its first installment) and a pot (the leader's share) are captured while the
    // purchase is still LEADER_PROCESSED, a state the cancel move starts from: the page offered
    // the cancel on the state alone.
    const plan = await paid({ merchant_uid: a.offer('INSTALLMENTS', 3), amount: 30_000 });
    const pot = await paid({}, [{ email: 'friend@example.com', amount_cents: 3_000 }]);
    const paidInFull = await paid();
    expect([await state(plan), await state(pot), await state(paidInFull)]).toEqual(['LEADER_PROCESSED', 'LEADER_PROCESSED', 'SUCCESSFUL']);
    for (const id of [plan, pot, paidInFull]) {
      const body = await page(id);
      expect(offersCancel(body, id), id).toBe(false);
      expect(body).not.toContain('id="cancel-heading"');
      expect(body).not.toContain('Cancel the purchase…');
      expect(body).toContain('id="refund-heading"');
      expect(body).toContain(CAPTURED_HINT);
      expect(await page(id, 'fr')).toContain('De l’argent a été encaissé, cet achat ne peut donc plus être annulé\u00a0: un remboursement rend l’argent.');
    }
  });

  it('a purchase that can be cancelled shows the action, as a secondary button, not the refund’s full-width primary one', async () => {
    const unpaid = await created();
    const deferred = await paid({ merchant_uid: a.offer('DEFERRED'), amount: 20_000 });
    expect([await state(unpaid), await state(deferred)]).toEqual(['INITIALIZED', 'LEADER_PROCESSED']);
    for (const id of [unpaid, deferred]) {
      const body = await page(id);
      expect(offersCancel(body, id), id).toBe(true);
      expect(body).toMatch(/<button type="submit" class="secondary">Cancel the purchase…<\/button>/);
      expect(body).not.toContain(CAPTURED_HINT);
    }
    // The deferred purchase's hold is refundable too: both actions, which do not look alike.
    const both = await page(deferred);
    expect(both).toContain('<p><button type="submit">Refund…</button></p>');
  });

  it('the page offers the cancel exactly when the cancel use case would not refuse it (409)', async () => {
    const refunded = await paid();
    expect((await a.post(`/api/merchants/v1/purchases/${refunded}/refunds`, {})).statusCode).toBe(201);
    const cancelled = await created();
    expect((await a.post(`/api/merchants/v1/purchases/${cancelled}/cancel`)).statusCode).toBe(200);
    const cases: Record<string, string> = {
      unpaid: await created(),
      deferred: await paid({ merchant_uid: a.offer('DEFERRED'), amount: 20_000 }),
      'pot, a friend still to pay': await paid({}, [{ email: 'friend@example.com', amount_cents: 3_000 }]),
      '3x plan, first installment captured': await paid({ merchant_uid: a.offer('INSTALLMENTS', 3), amount: 30_000 }),
      'paid in full': await paid(),
      refunded,
      cancelled,
    };
    const seen: Record<string, { offered: boolean; answer: number; captured: boolean }> = {};
    for (const [name, id] of Object.entries(cases)) {
      const body = await page(id);
      const res = await a.post(`/api/merchants/v1/purchases/${id}/cancel`);
      const captured = res.statusCode === 409 && (res.json() as { error: { message: string } }).error.message.includes('refund it instead');
      seen[name] = { offered: offersCancel(body, id), answer: res.statusCode, captured };
      // Offered iff the cancel goes ahead; the refund line iff it is refused for captured money.
      expect(seen[name]!.offered, name).toBe(res.statusCode === 200);
      expect(body.includes(CAPTURED_HINT), name).toBe(captured);
    }
    expect(seen).toMatchObject({
      unpaid: { offered: true, answer: 200 },
      deferred: { offered: true, answer: 200 },
      'pot, a friend still to pay': { offered: false, answer: 409, captured: true },
      '3x plan, first installment captured': { offered: false, answer: 409, captured: true },
      'paid in full': { offered: false, answer: 409, captured: true },
      refunded: { offered: false, answer: 409, captured: false },
      cancelled: { offered: false, answer: 409, captured: false },
    });
  });

  it('one rule: the states the cancel move starts from, while nothing was captured', () => {
    const states: PurchaseState[] = ['CREATED', 'ABORTED', 'LEADER_PROCESSED', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED'];
    expect(Object.fromEntries(states.map((x) => [x, [cancelBar(x, false) ?? 'ok', cancelBar(x, true) ?? 'ok']]))).toEqual({
      CREATED: ['ok', 'captured'],
      ABORTED: ['not_cancellable', 'not_cancellable'],
      LEADER_PROCESSED: ['ok', 'captured'],
      SUCCESSFUL: ['captured', 'captured'],
      FAILED: ['not_cancellable', 'not_cancellable'],
      CANCELLED: ['not_cancellable', 'not_cancellable'],
      REFUNDED: ['not_cancellable', 'not_cancellable'],
    });
  });
});
