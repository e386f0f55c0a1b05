/**
 * Reconciliation of an Adyen PSP account from Adyen's daily reports (docs/money-operations.md#reconciliation,
 * docs/psp/adyen.md#reconciliation-from-the-payment-accounting-report): an offer bound to an Adyen
 * account on its local fake, a purchase paid alone and partly refunded through Chipin, a payment made at
 * Adyen that Chipin never started; the back office's run of the day reads the fake's reports and
 * finds exactly that payment, Chipin's own agreeing with Adyen's records.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, cheapDashboardPassword, minimalPurchase, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL } from '../delivery/helpers.ts';
import { adyenHarness, type AdyenHarness } from './fixtures/adyen/harness.ts';

let app: TestApp;
let adyen: AdyenHarness;
beforeAll(async () => {
  [app, adyen] = await Promise.all([startTestApp(NO_JOB_POLL), adyenHarness()]);
});
afterAll(async () => {
  await app?.close();
  await adyen?.teardown();
});

const json = (m: Caller, method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown) =>
  app.server.inject({
    method,
    url,
    headers: { authorization: m.dashboard, ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload: JSON.stringify(payload) } : {}),
  });

describe(`reconciling an Adyen account from its reports (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('reads the day’s reports: Chipin’s payments agree, the payment Chipin never started is unknown to Chipin', async () => {
    const m = await caller(app);
    await cheapDashboardPassword(app, m);
    const created = await json(m, 'POST', '/api/backoffice/psp_accounts', {
      psp: 'adyen',
      environment: 'test',
      label: 'adyen',
      credentials: { ...adyen.credentials },
      endpoint_url: adyen.fake.url,
    });
    expect(created.statusCode, created.body).toBe(201);
    const psa = (created.json() as { id: string }).id;
    const offer = m.offer('SHARED');
    expect((await json(m, 'PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: psa })).statusCode).toBe(200);

    const purchase = await m.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: offer }));
    const id = (purchase.json() as { id: string }).id;
    const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: adyen.cards.success.number });
    expect(paid.statusCode, paid.body).toBe(200);
    const refund = await m.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 1_000 }, { 'Idempotency-Key': randomUUID() });
    // Given back on the leader's captured payment, at Adyen.
    expect(refund.json()).toMatchObject({ state: 'succeeded', allocations: [{ kind: 'refund', amount: 1_000 }] });

    // A payment at Adyen that no Chipin payment knows.
    const pm = await adyen.connector.attachPaymentMethod({ idempotencyKey: randomUUID(), card: adyen.cards.success });
    if (!pm.ok) throw new Error(pm.reason);
    const stranger = await adyen.connector.authorize({
      idempotencyKey: randomUUID(),
      paymentMethodId: pm.paymentMethodId,
      amountCents: 4_200,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: 'https://shop.example/back',
    });

    // Today in the account's time zone (Europe/Paris by default), and the fake's clock two days
    // on: Adyen makes a UTC day's report once the day is over, and the period touches two of them.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris' }).format(new Date());
    adyen.clock.advance(2 * 86_400_000);
    const run = await json(m, 'POST', '/api/backoffice/reconciliation_runs', { from: today, to: today, psp_account_id: psa });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ psp: 'adyen', state: 'completed', error: null });
    expect((run.json() as { matched_count: number }).matched_count).toBeGreaterThan(0);
    const list = (await json(m, 'GET', '/api/backoffice/reconciliation_mismatches?state=open')).json() as { data: { transaction_id: string; kind: string; operation: string }[] };
    expect(list.data.map((x) => [x.transaction_id, x.kind, x.operation])).toEqual([[stranger.transactionId, 'unknown_to_chipin', 'transaction']]);
    // Every report was asked with the report user's key, never the API user's.
    const downloads = adyen.fake.requests.filter((r) => r.path.startsWith('/reports/'));
    expect(downloads.length).toBeGreaterThan(0);
    for (const r of downloads) expect(r.headers['x-api-key']).toBe(adyen.credentials.report_api_key);
  });
});
