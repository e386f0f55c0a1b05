/**
 * The hosted checkout waits for the leader's attempt in progress (docs/hosted-payment.md#an-attempt-in-progress):
 * a submit while an attempt is under way or in doubt (its recording cut after the PSP charged, as in
 * a failover) shows "Your payment is being confirmed", which reloads a status address every 2 s
 * without script; that address resolves the attempt once it is in doubt (its payment lease ended
 * or lapsed, docs/money-operations.md#payments-in-doubt; without a lease, untouched for
 * LEADER_BUSY_MS), then sends the leader to the result — one charge at the PSP, also when several
 * tabs' reloads and the reconciliation resolve it at once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LEADER_BUSY_MS } from '../../src/domain/leader-plan.ts';
import { findPayment } from '../../src/payments/payment-repository.ts';
import { resolveLeaderAttempt } from '../../src/use-cases/checkout/resolve-leader-attempt.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cutOn, setPaymentLease } from '../helpers/connection-cut.ts';
import { NO_JOB_POLL } from '../delivery/helpers.ts';

/** The payments' lease of this test's purchase: setPaymentLease. */
const setLease = (id: string, lease: 'live' | 'lapsed' | 'none') => setPaymentLease(app.services.db, { purchaseId: id }, lease);

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  app = await startTestApp(NO_JOB_POLL);
  [a] = await twoMerchants(app);
});
afterAll(() => app?.close());

const one = async <T>(sql: string, params: unknown[] = []): Promise<T> => (await app.services.db.query<{ v: T }>(sql, params)).rows[0]!.v;
const authorizations = (id: string) =>
  one<number>("SELECT count(*)::int AS v FROM sandbox_psp_idempotency WHERE operation = 'authorize' AND idempotency_key LIKE $1 || ':leader:%'", [id]);

let cuts = 0;
/** A leader's attempt whose recording of the PSP's answer is cut (57P01, a 503): pending, charged at the PSP. */
async function attemptInDoubt(id: string): Promise<void> {
  const cut = await cutOn(app.services.db, `cut_confirming_${++cuts}`, 'payments', 'UPDATE', `NEW.purchase_id = '${id}' AND NEW.status <> 'pending'`);
  const first = await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' });
  await cut.heal();
  expect(first.statusCode, first.body).toBe(503);
  expect(await authorizations(id)).toBe(1);
}

async function submit(path: string, lang?: string) {
  const page = await app.server.inject({ url: path, headers: lang ? { 'accept-language': lang } : {} });
  const cookie = String(page.headers['set-cookie']).split(';')[0]!;
  const token = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
  return app.server.inject({
    method: 'POST',
    url: path,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...(lang ? { 'accept-language': lang } : {}) },
    payload: `csrf=${encodeURIComponent(token)}&holder_name=Lea&card_number=4242+4242+4242+4242&card_expiry=12%2F30&card_cvc=123`,
  });
}

const advance = async (ms: number) => {
  const moved = await a.post('/api/sandbox/clock', { advance_seconds: Math.ceil(ms / 1000) });
  expect(moved.statusCode, moved.body).toBe(200);
};

it('a submit after the request of the attempt failed resolves it at once (its lease ended) and leads to the result; one charge', async () => {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json();
  await attemptInDoubt(p.id);
  const known = await submit(new URL(p.payment_url).pathname);
  expect(known.statusCode).toBe(303);
  expect((await a.get(`/api/merchants/v1/purchases/${p.id}`)).json().state).toBe('SUCCESSFUL');
  expect(await authorizations(p.id)).toBe(1);
});

it('a submit while a live request still runs the attempt shows the wait; once its lease lapses, the status address resolves it and leads to the result; one charge', async () => {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json();
  const path = new URL(p.payment_url).pathname;
  await attemptInDoubt(p.id);
  await setLease(p.id, 'live');

  const waiting = await submit(path);
  expect(waiting.statusCode).toBe(202);
  expect(waiting.body).toContain('Your payment is being confirmed');
  // Without script, a refresh; with it, the page's script, which the shopper can pause (WCAG 2.2.1).
  expect(waiting.body).toContain(`<noscript><meta http-equiv="refresh" content="2; url=/pay/pur_${p.id}/confirming"></noscript>`);
  expect(waiting.body).toContain('<script src="/assets/confirming.js" defer></script>');
  expect(waiting.body).toContain(`data-status="/pay/pur_${p.id}/confirming"`);

  // Whatever its age, a live request's attempt is its own: the wait again, nothing asked of the PSP.
  await advance(LEADER_BUSY_MS + 1_000);
  const again = await app.server.inject(`/pay/pur_${p.id}/confirming`);
  expect(again.statusCode).toBe(202);
  expect(await authorizations(p.id)).toBe(1);

  await setLease(p.id, 'lapsed');
  const known = await app.server.inject(`/pay/pur_${p.id}/confirming`);
  expect(known.statusCode).toBe(303);
  expect(known.headers.location).toBeDefined();
  expect((await a.get(`/api/merchants/v1/purchases/${p.id}`)).json().state).toBe('SUCCESSFUL');
  expect(await authorizations(p.id)).toBe(1);
  // Known: the status address leads to the purchase's page.
  const after = await app.server.inject(`/pay/pur_${p.id}/confirming`);
  expect(after.statusCode).toBe(303);
  expect(after.headers.location).toBe(`/pay/pur_${p.id}`);
});

it('an attempt without a lease (made by an older build) is in doubt once untouched for LEADER_BUSY_MS', async () => {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json();
  await attemptInDoubt(p.id);
  await setLease(p.id, 'none');
  const waiting = await submit(new URL(p.payment_url).pathname);
  expect(waiting.statusCode).toBe(202);
  expect(await authorizations(p.id)).toBe(1);
  await advance(LEADER_BUSY_MS + 1_000);
  const known = await app.server.inject(`/pay/pur_${p.id}/confirming`);
  expect(known.statusCode).toBe(303);
  expect((await a.get(`/api/merchants/v1/purchases/${p.id}`)).json().state).toBe('SUCCESSFUL');
  expect(await authorizations(p.id)).toBe(1);
});

it('in French', async () => {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json();
  await attemptInDoubt(p.id);
  await setLease(p.id, 'live');
  const waiting = await submit(new URL(p.payment_url).pathname, 'fr-FR');
  expect(waiting.statusCode).toBe(202);
  expect(waiting.body).toContain('Votre paiement est en cours de confirmation');
});

it('several tabs reloading and the reconciliation resolving the same attempt at once: one charge, the purchase paid once', async () => {
  for (let round = 0; round < 4; round++) {
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json();
    await attemptInDoubt(p.id);
    // As the reconciliation job read it, before any of the tabs resolved it.
    const payment = (await findPayment(app.services.db, a.accountId, await one<string>('SELECT id::text AS v FROM payments WHERE purchase_id = $1', [p.id])))!;
    const answers = await Promise.all([
      app.server.inject(`/pay/pur_${p.id}/confirming`),
      app.server.inject(`/pay/pur_${p.id}/confirming`),
      app.server.inject(`/pay/pur_${p.id}/confirming`),
      // The reconciliation job's resolution of the same attempt.
      resolveLeaderAttempt(app.services.payments, payment, 0).catch(() => undefined),
    ]);
    for (const r of answers.slice(0, 3) as { statusCode: number }[]) expect([202, 303]).toContain(r.statusCode);
    expect((await a.get(`/api/merchants/v1/purchases/${p.id}`)).json().state).toBe('SUCCESSFUL');
    expect(await authorizations(p.id)).toBe(1);
    expect(await one<number>("SELECT count(*)::int AS v FROM payments WHERE purchase_id = $1 AND status IN ('authorized', 'captured')", [p.id])).toBe(1);
  }
});

it('an attempt nobody left in doubt: the status address leads back to the page', async () => {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json();
  const res = await app.server.inject(`/pay/pur_${p.id}/confirming`);
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toBe(`/pay/pur_${p.id}`);
  expect(await authorizations(p.id)).toBe(0);
});
