/**
 * Refunds and cancellation through Merchant API v1 and the back office
 * (docs/purchase-lifecycle.md#refunds, #cancel), on pots, installments and deferred purchases,
 * with the sandbox PSP: allocation to the cent, idempotent replay, a PSP refusal, concurrency,
 * the final states, and what the merchant is told.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { contractSignature, deliveries, NO_JOB_POLL, Receiver, setWebhook, TEST_DELIVERY } from '../delivery/helpers.ts';
import { bareRef } from '../psp/connector-contract.ts';

const OK = '4242424242424242';

let app: TestApp;
let a: Caller;
let b: Caller;
let receiver: Receiver;
beforeAll(async () => {
  app = await startTestApp(NO_JOB_POLL, { delivery: TEST_DELIVERY });
  [a, b] = await twoMerchants(app);
  receiver = await Receiver.start();
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const v1 = async (c: Caller, id: string) => (await c.get(`/api/merchants/v1/purchases/${id}`)).json();
const refund = (c: Caller, id: string, body?: unknown, headers?: Record<string, string>) => c.post(`/api/merchants/v1/purchases/${id}/refunds`, body, headers);

async function created(c: Caller, over: Record<string, unknown> = {}): Promise<string> {
  const res = await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000, ...over }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

/** A SHARED purchase paid by the leader alone: 10,000 captured. */
async function paidAlone(c: Caller, over: Record<string, unknown> = {}): Promise<string> {
  const id = await created(c, over);
  const res = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK });
  expect(res.json().state).toBe('SUCCESSFUL');
  return id;
}

/** A pot of 10,000: the leader pays 7,000, two pledgers 2,000 and 1,000: SUCCESSFUL. */
async function fullPot(c: Caller, over: Record<string, unknown> = {}): Promise<{ id: string; pledges: string[] }> {
  const id = await created(c, over);
  const led = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, {
    card_number: OK,
    pledgers: [
      { email: 'ann@example.com', amount_cents: 2_000 },
      { email: 'bob@example.com', amount_cents: 1_000 },
    ],
  });
  expect(led.statusCode, led.body).toBe(200);
  const pledges = (led.json().pledges as { id: string }[]).map((p) => p.id);
  for (const p of pledges) expect((await c.post(`/api/sandbox/pledges/${p}/pay`, { card_number: OK })).statusCode).toBe(200);
  expect((await v1(c, id)).state).toBe('SUCCESSFUL');
  return { id, pledges };
}

async function paidWith(c: Caller, offer: string, amount: number): Promise<string> {
  const id = await created(c, { merchant_uid: offer, amount });
  const res = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK });
  expect(res.json().state).toBe('LEADER_PROCESSED');
  return id;
}

const capturedMinusRefunded = async (id: string) =>
  Number(
    (await app.services.db.query<{ n: number }>('SELECT COALESCE(sum(captured_cents - refunded_cents), 0)::bigint AS n FROM payments WHERE purchase_id = $1', [id])).rows[0]!.n,
  );
const installments = async (id: string) =>
  (
    await app.services.db.query<{ index: number; state: string; due: number }>(
      'SELECT index, state, (amount_cents + fees_cents)::bigint AS due FROM installments WHERE purchase_id = $1 ORDER BY index',
      [id],
    )
  ).rows.map((r) => ({ ...r, due: Number(r.due) }));

describe(`refunds (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a partial then a full refund of a leader paying alone: 201 with its allocation, refunded_amount, then REFUNDED', async () => {
    const id = await paidAlone(a);
    const first = await refund(a, id, { amount: 3_000, reason: 'one item returned' });
    expect(first.statusCode, first.body).toBe(201);
    const r = first.json();
    expect(r).toMatchObject({ purchase_id: id, amount: 3_000, reason: 'one item returned', state: 'succeeded' });
    expect(r.id).toMatch(/^ref_[0-9a-f-]{36}$/);
    expect(r.allocations).toEqual([expect.objectContaining({ kind: 'refund', payer: 'leader', amount: 3_000, state: 'succeeded' })]);
    expect(await v1(a, id)).toMatchObject({ state: 'SUCCESSFUL', refunded_amount: 3_000 });

    const rest = await refund(a, id); // no amount: everything left
    expect(rest.json()).toMatchObject({ amount: 7_000, state: 'succeeded' });
    expect(await v1(a, id)).toMatchObject({ state: 'REFUNDED', refunded_amount: 10_000, comment: 'Fully refunded.' });
    expect(await capturedMinusRefunded(id)).toBe(0);
    const list = (await a.get(`/api/merchants/v1/purchases/${id}/refunds`)).json();
    expect(list.data.map((x: { amount: number }) => x.amount)).toEqual([3_000, 7_000]);
  });

  it('a pot refund is shared in proportion to what each paid, to the cent (largest remainder), and every cardholder refunded, the leader too, gets an e-mail', async () => {
    const { id, pledges } = await fullPot(a);
    const res = await refund(a, id, { amount: 1_001 });
    expect(res.statusCode, res.body).toBe(201);
    // 7,000 : 2,000 : 1,000 of 1,001 → 700.7, 200.2, 100.1: the cent left goes to the largest remainder.
    const byPayer = Object.fromEntries(res.json().allocations.map((x: { pledge_id?: string; amount: number }) => [x.pledge_id ?? 'leader', x.amount]));
    expect(byPayer).toEqual({ leader: 701, [pledges[0]!]: 200, [pledges[1]!]: 100 });
    const mails = await app.services.db.query<{ recipient: string; subject: string }>(
      "SELECT recipient, subject FROM outbound_messages WHERE purchase_id = $1 AND subject LIKE '%refunded%' ORDER BY recipient",
      [id],
    );
    expect(mails.rows.map((m) => m.recipient)).toEqual(['ann@example.com', 'bob@example.com', 'leader@example.com']);
    expect(mails.rows.map((m) => m.subject)).toEqual([
      expect.stringContaining('€2.00 refunded'),
      expect.stringContaining('€1.00 refunded'),
      expect.stringContaining('€7.01 refunded'),
    ]);

    const all = await refund(a, id);
    expect(all.json().amount).toBe(8_999);
    expect(await v1(a, id)).toMatchObject({ state: 'REFUNDED', refunded_amount: 10_000 });
    expect(await capturedMinusRefunded(id)).toBe(0);
  });

  it('refuses with 406 naming amount: ≤ 0, fractional, a string, above what is refundable, nothing captured; 404 for another merchant', async () => {
    const id = await paidAlone(a);
    for (const amount of [0, -5, 1.5, '100']) {
      const res = await refund(a, id, { amount });
      expect(res.statusCode, JSON.stringify(amount)).toBe(406);
      expect(res.json().error.message).toMatch(/amount/);
    }
    const above = await refund(a, id, { amount: 10_001 });
    expect(above.statusCode).toBe(406);
    expect(above.json().error).toEqual({ code: 'invalid_input', message: 'field amount must be at most 10000, what is left to refund' });
    const unpaid = await created(a);
    const none = await refund(a, unpaid, { amount: 100 });
    expect(none.statusCode).toBe(406);
    expect(none.json().error.message).toMatch(/^field amount: nothing is left to refund/);
    expect((await refund(a, id, { amount: 100, extra: 1 })).statusCode).toBe(406);

    expect((await refund(b, id, { amount: 100 })).statusCode).toBe(404);
    expect((await b.get(`/api/merchants/v1/purchases/${id}/refunds`)).statusCode).toBe(404);
    expect((await refund(a, 'not-a-uuid', { amount: 100 })).statusCode).toBe(404);
    expect((await v1(a, id)).refunded_amount).toBe(0);
  });

  it('an Idempotency-Key replays the first refund and refunds nothing more', async () => {
    const id = await paidAlone(a);
    const key = { 'idempotency-key': `refund-${id}` };
    const first = await refund(a, id, { amount: 1_000 }, key);
    const again = await refund(a, id, { amount: 1_000 }, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect((await v1(a, id)).refunded_amount).toBe(1_000);
    expect((await refund(a, id, { amount: 2_000 }, key)).statusCode).toBe(422);
  });

  it('a refund the PSP refuses is failed with the reason, and nothing else changes', async () => {
    const id = await paidAlone(a);
    // The PSP has less to refund than Chipin believes (refunded out of band): it refuses.
    const { rows } = await app.services.db.query<{ psp_transaction_id: string }>('SELECT psp_transaction_id FROM payments WHERE purchase_id = $1', [id]);
    await app.services.psps.get('sandbox').refund({ idempotencyKey: `oob-${id}`, transaction: bareRef(rows[0]!.psp_transaction_id), amountCents: 9_000 });
    const before = await v1(a, id);
    const res = await refund(a, id, { amount: 5_000 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ state: 'failed', failure_reason: expect.stringMatching(/^amount_too_large/) });
    expect(res.json().allocations[0]).toMatchObject({ state: 'failed' });
    const after = await v1(a, id);
    expect(after).toMatchObject({ state: before.state, refunded_amount: 0, comment: before.comment });
    const events = await app.services.db.query<{ type: string }>(
      "SELECT type FROM purchase_events WHERE purchase_id = $1 AND type IN ('refund.made', 'purchase.refunded') OR (purchase_id = $1 AND data->'transaction'->>'status' = 'refunded')",
      [id],
    );
    expect(events.rows).toEqual([]);
    // What was refused is refundable again.
    expect((await refund(a, id, { amount: 1_000 })).json().state).toBe('succeeded');
  });

  // One refund at a time per purchase (docs/money-operations.md#one-money-operation-at-a-time):
  // a refund that waited 2 s for the others answers 409 operation_in_progress, and is retried as
  // a client would (bounded).
  const refundRetried = async (id: string, body?: Record<string, unknown>) => {
    for (let tries = 0; ; tries++) {
      const res = await refund(a, id, body);
      if (res.statusCode !== 409 || tries === 20) return res;
      expect(res.json()).toMatchObject({ error: { code: 'operation_in_progress' } });
      expect(res.headers['retry-after']).toBe('2');
    }
  };

  it('20 concurrent refunds never refund more than was captured', async () => {
    const id = await paidAlone(a);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refundRetried(id, { amount: 700 })));
    const ok = answers.filter((r) => r.statusCode === 201);
    expect(answers.every((r) => r.statusCode === 201 || r.statusCode === 406)).toBe(true);
    expect(ok.length).toBe(14); // 14 × 700 = 9,800 ≤ 10,000 < 15 × 700
    const after = await v1(a, id);
    expect(after.refunded_amount).toBe(9_800);
    expect(await capturedMinusRefunded(id)).toBe(200);
    const rest = await Promise.all(Array.from({ length: 20 }, () => refundRetried(id)));
    expect(rest.filter((r) => r.statusCode === 201).map((r) => r.json().amount)).toEqual([200]);
    expect(await v1(a, id)).toMatchObject({ state: 'REFUNDED', refunded_amount: 10_000 });
    // 40 refunds one after the other under the claim, each retried: longer than the default on a loaded machine.
  }, 120_000);

  it('installments: a refund cancels the installments not collected yet, from the last, before refunding collected money', async () => {
    const id = await paidWith(a, a.offer('INSTALLMENTS', 3), 30_000);
    expect((await installments(id)).map((i) => i.due)).toEqual([10_450, 10_000, 10_000]);
    const first = (await refund(a, id, { amount: 12_000 })).json();
    expect(first.allocations.map((x: { kind: string; amount: number }) => [x.kind, x.amount])).toEqual([
      ['installment', 10_000],
      ['installment', 2_000],
    ]);
    expect((await installments(id)).map((i) => [i.state, i.due])).toEqual([
      ['paid', 10_450],
      ['scheduled', 8_000],
      ['cancelled', 0],
    ]);
    expect(await capturedMinusRefunded(id)).toBe(10_450); // nothing paid back yet
    const second = (await refund(a, id, { amount: 9_000 })).json();
    expect(second.allocations.map((x: { kind: string; amount: number }) => [x.kind, x.amount])).toEqual([
      ['installment', 8_000],
      ['refund', 1_000],
    ]);
    // Nothing is left to collect: the plan is complete for what remains.
    expect(await v1(a, id)).toMatchObject({ state: 'SUCCESSFUL', refunded_amount: 21_000 });
    expect(await capturedMinusRefunded(id)).toBe(9_450);
    await refund(a, id);
    expect(await v1(a, id)).toMatchObject({ state: 'REFUNDED', refunded_amount: 30_450 });
    expect(await capturedMinusRefunded(id)).toBe(0);
  });

  it('deferred: before capture a refund lowers the hold, and a full one voids it: REFUNDED without any money moved', async () => {
    const id = await paidWith(a, a.offer('DEFERRED'), 20_000);
    const lowered = (await refund(a, id, { amount: 5_000 })).json();
    expect(lowered.allocations).toEqual([expect.objectContaining({ kind: 'installment', amount: 5_000, state: 'succeeded', payment_id: expect.any(String) })]);
    expect((await installments(id))[0]).toMatchObject({ state: 'scheduled', due: 15_000 });
    const rest = (await refund(a, id)).json();
    expect(rest).toMatchObject({ amount: 15_000, state: 'succeeded' });
    const { rows } = await app.services.db.query<{ status: string }>('SELECT status FROM payments WHERE purchase_id = $1', [id]);
    expect(rows.map((r) => r.status)).toEqual(['voided']);
    expect(await v1(a, id)).toMatchObject({ state: 'REFUNDED', refunded_amount: 20_000 });
  });

  it('deferred: a lowered hold is captured for less at its due date, and the captured money is refunded after', async () => {
    const id = await paidWith(a, a.offer('DEFERRED'), 20_000);
    await refund(a, id, { amount: 5_000 });
    const capture = await a.post('/api/sandbox/clock', { advance_seconds: 31 * 86_400 });
    expect(capture.statusCode).toBe(200);
    expect((await v1(a, id)).state).toBe('SUCCESSFUL');
    expect(await capturedMinusRefunded(id)).toBe(15_000);
    const r = (await refund(a, id)).json();
    expect(r.allocations).toEqual([expect.objectContaining({ kind: 'refund', amount: 15_000 })]);
    expect(await v1(a, id)).toMatchObject({ state: 'REFUNDED', refunded_amount: 20_000 });
  });

  it('webhooks purchaseRefunded for every refund, and a signed notification `refunded` for each refunded payment', async () => {
    const m = a;
    await setWebhook(app, m, receiver.url('/webhook'), ['purchaseRefunded']);
    const { id } = await fullPot(m, { paymentNotificationUrl: receiver.url('/notify'), ref: 'ORDER-R' });
    await app.services.deliveries.worker.runDue();
    receiver.received.length = 0;
    await refund(m, id, { amount: 1_000 });
    await refund(m, id);
    await app.services.deliveries.worker.runDue();
    const hooks = receiver.received.filter((r) => r.path === '/webhook').map((r) => JSON.parse(r.body));
    expect(hooks.map((h) => [h.triggerName, h.objects.purchaseId])).toEqual([
      ['purchaseRefunded', id],
      ['purchaseRefunded', id],
    ]);
    const notes = receiver.received.filter((r) => r.path === '/notify').map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(notes.length).toBe(6); // 3 payments × 2 refunds
    const secret = m.merchant.offers.find((o) => o.type === 'SHARED')!.secret;
    for (const n of notes) {
      expect(n).toMatchObject({ status: 'refunded', error: '', reference: 'ORDER-R' });
      expect(n.signature).toBe(contractSignature(n, secret));
    }
    expect((await deliveries(app, m.accountId)).every((d) => d.status === 'succeeded')).toBe(true);
    await setWebhook(app, m, receiver.url('/webhook'), ['paymentProcessed']);
  });
});

describe(`cancel (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('cancels a CREATED purchase and a deferred one not captured (hold voided): CANCELLED, purchaseCancelled', async () => {
    await setWebhook(app, b, receiver.url('/b-webhook'), ['purchaseCancelled']);
    receiver.received.length = 0;
    const unpaid = await created(b);
    const res = await b.post(`/api/merchants/v1/purchases/${unpaid}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: unpaid, state: 'CANCELLED', comment: 'Cancelled by the merchant.' });

    const deferred = await paidWith(b, b.offer('DEFERRED'), 20_000);
    expect((await b.post(`/api/merchants/v1/purchases/${deferred}/cancel`)).json().state).toBe('CANCELLED');
    const { rows } = await app.services.db.query<{ status: string }>('SELECT status FROM payments WHERE purchase_id = $1', [deferred]);
    expect(rows.map((r) => r.status)).toEqual(['voided']);
    expect((await installments(deferred)).map((i) => i.state)).toEqual(['cancelled']);
    await app.services.deliveries.worker.runDue();
    const hooks = receiver.received.filter((r) => r.path === '/b-webhook').map((r) => JSON.parse(r.body));
    expect(hooks.map((h) => [h.triggerName, h.objects.purchaseId])).toEqual([
      ['purchaseCancelled', unpaid],
      ['purchaseCancelled', deferred],
    ]);
    // A cancelled purchase cannot be aborted, cancelled again or paid.
    expect((await b.post(`/api/purchases/pur_${unpaid}/abort`)).json().error.app_error).toBe('purchase_non_abortable');
    expect((await b.post(`/api/merchants/v1/purchases/${unpaid}/cancel`)).statusCode).toBe(409);
  });

  it('answers 409 when money was captured (refund instead), 404 for another merchant', async () => {
    const id = await paidAlone(a);
    const res = await a.post(`/api/merchants/v1/purchases/${id}/cancel`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toEqual({ code: 'invalid_purchase_state', message: 'money was captured on this purchase: refund it instead' });
    expect((await b.post(`/api/merchants/v1/purchases/${id}/cancel`)).statusCode).toBe(404);
    expect((await v1(a, id)).state).toBe('SUCCESSFUL');
  });
});

describe('back office: the same refund and cancel with dashboard credentials', () => {
  const bo = (c: Caller, method: 'GET' | 'POST', url: string, body?: unknown) =>
    app.server.inject({
      method,
      url,
      headers: { authorization: c.dashboard, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });

  it('refunds, lists and cancels through the same use cases; 400 naming amount; 404 for another merchant', async () => {
    const id = await paidAlone(a);
    const res = await bo(a, 'POST', `/api/backoffice/purchases/pur_${id}/refunds`, { amount: 2_500 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ amount: 2_500, state: 'succeeded' });
    expect((await bo(a, 'GET', `/api/backoffice/purchases/${id}/refunds`)).json().data).toHaveLength(1);
    const tooMuch = await bo(a, 'POST', `/api/backoffice/purchases/pur_${id}/refunds`, { amount: 9_000 });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json().error.debug).toMatch(/amount/);
    expect((await bo(b, 'POST', `/api/backoffice/purchases/pur_${id}/refunds`, { amount: 1 })).statusCode).toBe(404);
    expect((await v1(a, id)).refunded_amount).toBe(2_500);

    const unpaid = await created(a);
    expect((await bo(b, 'POST', `/api/backoffice/purchases/pur_${unpaid}/cancel`)).statusCode).toBe(404);
    const cancelled = await bo(a, 'POST', `/api/backoffice/purchases/pur_${unpaid}/cancel`);
    expect(cancelled.json()).toEqual({ purchase_uid: `pur_${unpaid}`, state: 'CANCELLED' });
  });
});
