/**
 * Disputes from real connectors in back mode (docs/money-operations.md#disputes): an offer bound to
 * a Stripe or an Adyen PSP account on its local fake; the fake's signed dispute events reach
 * `POST /api/psp/{psa_id}/notifications` and become the payment's dispute, once however often they
 * are delivered, with its events; staff's evidence on a Stripe dispute is submitted to Stripe
 * (the fake records it); an Adyen chargeback lost then reversed ends won, each outcome an event;
 * a Mercado Pago chargeback lost is counted once, as the dispute's, even when the charged-back
 * payment is read again (its payment webhook): never a refund as well.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, cheapDashboardPassword, minimalPurchase, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL } from '../delivery/helpers.ts';
import { adyenHarness, type AdyenHarness } from './fixtures/adyen/harness.ts';
import { ACCESS_TOKEN as MERCADOPAGO_TOKEN, WEBHOOK_SECRET as MERCADOPAGO_WEBHOOK_SECRET, mercadopagoHarness, type MercadoPagoHarness } from './fixtures/mercadopago/harness.ts';
import { stripeHarness, type StripeHarness } from './fixtures/stripe/harness.ts';

let app: TestApp;
let stripe: StripeHarness;
let adyen: AdyenHarness;
let mercadopago: MercadoPagoHarness;
beforeAll(async () => {
  app = await startTestApp(NO_JOB_POLL);
  [stripe, adyen, mercadopago] = await Promise.all([stripeHarness(), adyenHarness(), mercadopagoHarness()]);
});
afterAll(async () => {
  await app?.close();
  await stripe?.teardown();
  await adyen?.teardown();
  await mercadopago?.teardown();
});

const json = (m: Caller, method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown) =>
  app.server.inject({
    method,
    url,
    headers: { authorization: m.dashboard, ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload: JSON.stringify(payload) } : {}),
  });

/** A merchant whose 3x offer pays through a PSP account of `psp` on its fake; the account's `psa_…` and the offer. */
async function boundMerchant(psp: string, credentials: Record<string, string>, endpointUrl: string): Promise<{ m: Caller; psa: string; offer: string }> {
  const m = await caller(app);
  await cheapDashboardPassword(app, m);
  const created = await json(m, 'POST', '/api/backoffice/psp_accounts', { psp, environment: 'test', label: psp, credentials, endpoint_url: endpointUrl });
  expect(created.statusCode, created.body).toBe(201);
  const psa = (created.json() as { id: string }).id;
  const offer = m.offer('INSTALLMENTS', 3);
  expect((await json(m, 'PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: psa })).statusCode).toBe(200);
  return { m, psa, offer };
}

/** A purchase paid as the leader (its first installment captured at once); its id and the captured payment's PSP transaction id. */
async function paid(m: Caller, offer: string, card: string): Promise<{ id: string; transactionId: string; capturedCents: number }> {
  const created = await m.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: offer }));
  const id = (created.json() as { id: string }).id;
  const res = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: card });
  expect(res.statusCode, res.body).toBe(200);
  const { rows } = await app.services.db.query<{ psp_transaction_id: string; captured_cents: string }>(
    "SELECT psp_transaction_id, captured_cents FROM payments WHERE account_id = $1 AND purchase_id = $2 AND status = 'captured' ORDER BY created_at LIMIT 1",
    [m.accountId, id],
  );
  return { id, transactionId: rows[0]!.psp_transaction_id, capturedCents: Number(rows[0]!.captured_cents) };
}

const notify = (psa: string, n: { headers?: Record<string, string>; rawBody: string }) =>
  app.server.inject({ method: 'POST', url: `/api/psp/${psa}/notifications`, headers: { 'content-type': 'application/json', ...(n.headers ?? {}) }, payload: n.rawBody });

async function disputes(m: Caller, id: string) {
  return (
    (await m.get(`/api/sandbox/purchases/pur_${id}/disputes`)).json() as {
      disputes: { id: string; kind: string; state: string; amount_cents: number; reason: string | null; evidence_due_at: string | null }[];
    }
  ).disputes;
}

async function events(m: Caller, id: string) {
  const { rows } = await app.services.db.query<{ type: string; data: unknown }>(
    "SELECT type, data FROM purchase_events WHERE account_id = $1 AND purchase_id = $2 AND type IN ('purchase.disputed', 'dispute.closed') ORDER BY id",
    [m.accountId, id],
  );
  return rows.map((r) => [r.type, ((typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as { outcome?: string }).outcome ?? null]);
}

describe(`disputes in back mode (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('Stripe: charge.dispute.created opens the dispute once; the evidence is submitted to Stripe; charge.dispute.closed (lost) ends it', async () => {
    const { m, psa, offer } = await boundMerchant('stripe', { ...stripe.account.credentials }, stripe.account.baseUrl);
    const p = await paid(m, offer, stripe.cards.success.number);
    const d = stripe.fake.openDispute(p.transactionId, { reason: 'product_not_received' });
    const created = stripe.fake.disputeEvent(d.id, 'charge.dispute.created');
    for (let i = 0; i < 2; i++) expect((await notify(psa, created)).statusCode).toBe(200);
    const [open, ...more] = await disputes(m, p.id);
    expect(more).toEqual([]);
    expect(open).toMatchObject({
      kind: 'chargeback',
      state: 'open',
      reason: 'product_not_received',
      amount_cents: p.capturedCents,
      evidence_due_at: new Date(d.dueBy * 1000).toISOString(),
    });

    const evidence = await json(m, 'POST', `/api/backoffice/disputes/${open!.id}/evidence`, { text: 'Tracking number 1Z999, delivered 3 May.' });
    expect(evidence.statusCode, evidence.body).toBe(200);
    expect(evidence.json()).toMatchObject({ submitted_to_psp: true, dispute: { state: 'evidence_sent' } });
    expect(stripe.fake.disputes.get(d.id)).toMatchObject({ status: 'under_review', evidence: { uncategorizedText: 'Tracking number 1Z999, delivered 3 May.', submitted: true } });
    // Stripe's update after the submission does not reopen it.
    expect((await notify(psa, stripe.fake.disputeEvent(d.id, 'charge.dispute.updated'))).statusCode).toBe(200);
    expect((await disputes(m, p.id)).map((x) => x.state)).toEqual(['evidence_sent']);

    stripe.fake.setDisputeStatus(d.id, 'lost');
    const closed = stripe.fake.disputeEvent(d.id, 'charge.dispute.closed');
    for (let i = 0; i < 2; i++) expect((await notify(psa, closed)).statusCode).toBe(200);
    expect((await disputes(m, p.id)).map((x) => x.state)).toEqual(['lost']);
    expect(await events(m, p.id)).toEqual([
      ['purchase.disputed', null],
      ['dispute.closed', 'lost'],
    ]);
    // A radar early fraud warning is a dispute of its own, a fraud warning, with the payment's amount.
    expect((await notify(psa, stripe.fake.earlyFraudWarningEvent(p.transactionId, { id: 'issfr_e2e' }))).statusCode).toBe(200);
    expect((await disputes(m, p.id)).map((x) => [x.kind, x.state, x.amount_cents])).toEqual([
      ['chargeback', 'lost', p.capturedCents],
      ['fraud_warning', 'open', p.capturedCents],
    ]);
  });

  it('Adyen: NOTIFICATION_OF_CHARGEBACK opens it, CHARGEBACK loses it, CHARGEBACK_REVERSED wins it back; evidence is only marked', async () => {
    const { m, psa, offer } = await boundMerchant('adyen', { ...adyen.credentials }, adyen.fake.url);
    const p = await paid(m, offer, adyen.cards.success.number);
    const ref = 'DSPE2E0000000001';
    const opened = adyen.fake.disputeNotification(p.transactionId, 'NOTIFICATION_OF_CHARGEBACK', {
      disputeRef: ref,
      reasonCode: '4837',
      defensePeriodEndsAt: '2030-01-01T00:00:00Z',
    });
    for (let i = 0; i < 2; i++) {
      const res = await notify(psa, { rawBody: opened });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('[accepted]');
    }
    const [d] = await disputes(m, p.id);
    expect(d).toMatchObject({ kind: 'chargeback', state: 'open', reason: '4837', evidence_due_at: '2030-01-01T00:00:00.000Z' });
    const evidence = await json(m, 'POST', `/api/backoffice/disputes/${d!.id}/evidence`, { text: 'Sent through the Customer Area' });
    expect(evidence.json()).toMatchObject({ submitted_to_psp: false, dispute: { state: 'evidence_sent' } });
    expect((await notify(psa, { rawBody: adyen.fake.disputeNotification(p.transactionId, 'CHARGEBACK', { disputeRef: ref, reasonCode: '4837' }) })).statusCode).toBe(200);
    expect((await notify(psa, { rawBody: adyen.fake.disputeNotification(p.transactionId, 'CHARGEBACK_REVERSED', { disputeRef: ref, reasonCode: '4837' }) })).statusCode).toBe(200);
    expect((await disputes(m, p.id)).map((x) => x.state)).toEqual(['won']);
    expect(await events(m, p.id)).toEqual([
      ['purchase.disputed', null],
      ['dispute.closed', 'lost'],
      ['dispute.closed', 'won'],
    ]);
  });

  it('Mercado Pago: a settled chargeback is a lost dispute, in the ledger once; the payment read again is not refunded', async () => {
    const credentials = { access_token: MERCADOPAGO_TOKEN, webhook_secret: MERCADOPAGO_WEBHOOK_SECRET };
    const { m, psa, offer } = await boundMerchant('mercadopago', credentials, mercadopago.fake.url);
    const p = await paid(m, offer, mercadopago.cards.success.number);
    const cb = mercadopago.fake.openChargeback(p.transactionId, { reason: 'fraud' });
    expect((await notify(psa, mercadopago.fake.chargebackNotification(cb))).statusCode).toBe(200);
    expect(await disputes(m, p.id)).toMatchObject([{ kind: 'chargeback', state: 'open', reason: 'fraud', amount_cents: p.capturedCents }]);
    mercadopago.fake.decideChargeback(cb, 'settled');
    for (const n of [mercadopago.fake.chargebackNotification(cb), mercadopago.fake.notification(p.transactionId)]) expect((await notify(psa, n)).statusCode).toBe(200);
    expect((await disputes(m, p.id)).map((x) => x.state)).toEqual(['lost']);
    const { rows } = await app.services.db.query<{ kind: string; amount_cents: string }>(
      'SELECT l.kind, l.amount_cents FROM ledger_entries l JOIN payments p ON p.account_id = l.account_id AND p.id = l.payment_id WHERE l.account_id = $1 AND p.psp_transaction_id = $2 ORDER BY l.id',
      [m.accountId, p.transactionId],
    );
    expect(rows.map((r) => [r.kind, Number(r.amount_cents)])).toEqual([
      ['capture', p.capturedCents],
      ['chargeback', p.capturedCents],
    ]);
    const pay = await app.services.db.query<{ status: string; refunded_cents: string }>(
      'SELECT status, refunded_cents FROM payments WHERE account_id = $1 AND psp_transaction_id = $2',
      [m.accountId, p.transactionId],
    );
    expect(pay.rows.map((r) => [r.status, Number(r.refunded_cents)])).toEqual([['captured', 0]]);
  });
});
