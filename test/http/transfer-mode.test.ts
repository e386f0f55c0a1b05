/**
 * Transfer mode's API (docs/money-operations.md#transfer-mode): `credit_by_transfer` on purchases
 * paid by card and by bank transfer, `release`, the direct call of the back
 * (`/api/payment_by_transfer`) and the operator recording a transfer received, through the real
 * routes on the sandbox PSP.
 */
import { parseArgs } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/cli/command.ts';
import { transferCommands } from '../../src/cli/transfer.ts';
import { openDatabase } from '../../src/db/open.ts';
import { formatIsoDate } from '../../src/domain/dates.ts';
import { signHs256 } from '../../src/delivery/jwt.ts';
import { transfersToSend } from '../../src/use-cases/refunds/transfer-refunds.ts';
import { receiveTransfer } from '../../src/use-cases/checkout/receive-transfer.ts';
import { caller, minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { OPERATOR_BANK, useTransferMode } from '../helpers/transfer-mode.ts';

const OK = '4242424242424242';

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp({ operatorDebtor: OPERATOR_BANK, jobPollIntervalMs: 0 });
  [a, b] = await twoMerchants(app);
  await useTransferMode(app, a);
  await useTransferMode(app, b);
});
afterAll(() => app?.close());

const v1 = async (c: Caller, id: string) => (await c.get(`/api/merchants/v1/purchases/${id}`)).json();
const credit = (c: Caller, id: string, body?: unknown, headers?: Record<string, string>) => c.post(`/api/purchases/pur_${id}/credit_by_transfer`, body, headers);
const release = (c: Caller, id: string) => c.post(`/api/purchases/pur_${id}/release`);

async function created(c: Caller, over: Record<string, unknown> = {}): Promise<string> {
  const res = await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000, ...over }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

/** A transfer-mode SHARED purchase of 10,000 paid by its leader's card alone: SUCCESSFUL. */
async function paidByCard(c: Caller): Promise<string> {
  const id = await created(c);
  const res = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK });
  expect(res.json().state).toBe('SUCCESSFUL');
  return id;
}

/** A transfer-mode SHARED purchase of 10,000 whose bank transfer the operator recorded: SUCCESSFUL. */
async function paidByTransfer(c: Caller): Promise<string> {
  const id = await created(c);
  const r = await receiveTransfer(app.services, { purchaseId: id, amountCents: 10_000, actor: { label: 'cli' } });
  expect(r).toMatchObject({ kind: 'recorded', already: false, purchase: { state: 'SUCCESSFUL' } });
  return id;
}

const postings = async (c: Caller, journal: string) =>
  (
    await app.services.db.query<{ kind: string; book: string; amount_cents: number }>(
      'SELECT kind, book, amount_cents::int AS amount_cents FROM balance_postings WHERE account_id = $1 AND journal = $2 ORDER BY book',
      [c.accountId, journal],
    )
  ).rows;
const capturedMinusRefunded = async (id: string) =>
  Number(
    (await app.services.db.query<{ n: number }>('SELECT COALESCE(sum(captured_cents - refunded_cents), 0)::bigint AS n FROM payments WHERE purchase_id = $1', [id])).rows[0]!.n,
  );

/** Retries as a client would while another money operation holds the purchase (409 operation_in_progress, bounded). */
async function creditRetried(c: Caller, id: string, body: unknown) {
  for (let tries = 0; ; tries++) {
    const res = await credit(c, id, body);
    if (res.statusCode !== 409 || res.json().error.app_error !== 'operation_in_progress' || tries === 20) return res;
  }
}

describe(`POST /api/purchases/{purchase_uid}/credit_by_transfer (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("refunds a card-paid transfer-mode purchase on the card: 201 with the refund, the original interface's names beside v1's", async () => {
    const id = await paidByCard(a);
    const res = await credit(a, id, { amount_cents: 2_500 });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ purchase_id: id, purchase_uid: `pur_${id}`, amount: 2_500, amount_cents: 2_500, by_transfer: false, state: 'succeeded' });
    expect(body.id).toMatch(/^ref_[0-9a-f-]{36}$/);
    expect(body.allocations).toEqual([expect.objectContaining({ kind: 'refund', payer: 'leader', amount: 2_500, state: 'succeeded' })]);
    expect(await v1(a, id)).toMatchObject({ state: 'SUCCESSFUL', refunded_amount: 2_500 });
    expect(await capturedMinusRefunded(id)).toBe(7_500);
    // The same refund through the v1 listing: one object, two views.
    expect((await a.get(`/api/merchants/v1/purchases/${id}/refunds`)).json().data.map((r: { id: string }) => r.id)).toEqual([body.id]);
  });

  it('refuses an amount that is not a positive integer, or is missing, naming amount_cents (400), and refunds nothing', async () => {
    const id = await paidByCard(a);
    const cases: [unknown, RegExp][] = [
      [{ amount_cents: 0 }, /field amount_cents must be >= 1/],
      [{ amount_cents: -100 }, /field amount_cents must be >= 1/],
      [{ amount_cents: 12.5 }, /field amount_cents must be integer/],
      [{ amount_cents: '100' }, /field amount_cents must be integer/],
      [{}, /field amount_cents is required/],
      [{ amount: 100 }, /field amount_cents is required/],
    ];
    for (const [body, message] of cases) {
      const res = await credit(a, id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatchObject({ app_error: 'invalid_request', debug: expect.stringMatching(message) });
    }
    const none = await app.server.inject({ method: 'POST', url: `/api/purchases/pur_${id}/credit_by_transfer`, headers: { authorization: `Bearer ${a.token}` } });
    expect(none.statusCode).toBe(400);
    expect(await v1(a, id)).toMatchObject({ refunded_amount: 0 });
  });

  it('refuses more than what is left to refund, saying how much is left, then refunds exactly that', async () => {
    const id = await paidByCard(a);
    expect((await credit(a, id, { amount_cents: 4_000 })).statusCode).toBe(201);
    const tooMuch = await credit(a, id, { amount_cents: 6_001 });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json().error.debug).toBe('field amount_cents must be at most 6000, what is left to refund');
    expect((await credit(a, id, { amount_cents: 6_000 })).statusCode).toBe(201);
    expect(await v1(a, id)).toMatchObject({ state: 'REFUNDED', refunded_amount: 10_000 });
    const nothing = await credit(a, id, { amount_cents: 1 });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json().error.debug).toMatch(/field amount_cents: nothing is left to refund/);
  });

  it("answers 404 for another merchant's purchase, an unknown one and a malformed uid, and refunds nothing", async () => {
    const theirs = await paidByCard(b);
    for (const uid of [`pur_${theirs}`, theirs, 'pur_00000000-0000-4000-8000-000000000000', 'pur_nope']) {
      const res = await a.post(`/api/purchases/${uid}/credit_by_transfer`, { amount_cents: 100 });
      expect(res.statusCode, uid).toBe(404);
      expect(res.json().error.app_error).toBe('not_found');
    }
    expect(await v1(b, theirs)).toMatchObject({ refunded_amount: 0 });
  });

  it('answers 409 not_transfer_mode for a purchase created in back mode, which is refunded as any other', async () => {
    const id = await created(a, { merchant_uid: a.offer('DEFERRED') });
    const res = await credit(a, id, { amount_cents: 100 });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ app_error: 'not_transfer_mode', debug: expect.stringContaining('not created in transfer mode') });
  });

  it('an Idempotency-Key replays the first refund and refunds nothing more; another body with it is 422', async () => {
    const id = await paidByCard(a);
    const key = { 'idempotency-key': `credit-${id}` };
    const first = await credit(a, id, { amount_cents: 1_000 }, key);
    const again = await credit(a, id, { amount_cents: 1_000 }, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect((await credit(a, id, { amount_cents: 2_000 }, key)).statusCode).toBe(422);
    expect(await v1(a, id)).toMatchObject({ refunded_amount: 1_000 });
  });

  it('concurrent requests never refund more than the card paid (the money claim)', async () => {
    const id = await paidByCard(a);
    const answers = await Promise.all(Array.from({ length: 8 }, () => creditRetried(a, id, { amount_cents: 3_000 })));
    const ok = answers.filter((r) => r.statusCode === 201);
    expect(answers.every((r) => r.statusCode === 201 || r.statusCode === 400 || r.statusCode === 409)).toBe(true);
    expect(ok.length).toBe(3); // 3 × 3,000 ≤ 10,000 < 4 × 3,000
    expect(await v1(a, id)).toMatchObject({ refunded_amount: 9_000 });
    expect(await capturedMinusRefunded(id)).toBe(1_000);
  }, 60_000);

  describe('a purchase paid by bank transfer', () => {
    it("is refunded by transfer: a transfer allocation, booked as credit_by_transfer against what the merchant is owed, on the operator's list to send", async () => {
      const id = await paidByTransfer(a);
      const res = await credit(a, id, { amount_cents: 3_000 });
      expect(res.statusCode, res.body).toBe(201);
      const refund = res.json();
      expect(refund).toMatchObject({ amount_cents: 3_000, by_transfer: true, state: 'succeeded' });
      expect(refund.allocations).toEqual([{ kind: 'transfer', payer: 'leader', amount: 3_000, state: 'succeeded' }]);
      const refundId = refund.id.slice(4);
      expect(await postings(a, `credit_by_transfer:${refundId}`)).toEqual([
        { kind: 'credit_by_transfer', book: 'merchant_payable', amount_cents: 3_000 },
        { kind: 'credit_by_transfer', book: 'psp_cash', amount_cents: -3_000 },
      ]);
      const toSend = (await transfersToSend(app.services)).find((t) => t.refundId === refundId);
      expect(toSend).toMatchObject({ purchaseId: id, amountCents: 3_000, currency: 'EUR', shopperEmail: 'leader@example.com', sentAt: null });
      expect(await v1(a, id)).toMatchObject({ state: 'SUCCESSFUL', refunded_amount: 3_000 });

      const tooMuch = await credit(a, id, { amount_cents: 7_001 });
      expect(tooMuch.json().error.debug).toBe('field amount_cents must be at most 7000, what is left to refund');
      expect((await credit(a, id, { amount_cents: 7_000 })).statusCode).toBe(201);
      expect(await v1(a, id)).toMatchObject({ state: 'REFUNDED', refunded_amount: 10_000 });
    });

    it('concurrent requests never refund more than the transfer brought', async () => {
      const id = await paidByTransfer(a);
      const answers = await Promise.all(Array.from({ length: 8 }, () => creditRetried(a, id, { amount_cents: 3_000 })));
      expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(3);
      const { rows } = await app.services.db.query<{ n: number }>(
        "SELECT COALESCE(sum(amount_cents), 0)::int AS n FROM bank_transfers WHERE purchase_id = $1 AND direction = 'refund'",
        [id],
      );
      expect(rows[0]!.n).toBe(9_000);
      expect(await v1(a, id)).toMatchObject({ refunded_amount: 9_000 });
    }, 60_000);

    it('an Idempotency-Key replays the first refund by transfer, booked once', async () => {
      const id = await paidByTransfer(a);
      const key = { 'idempotency-key': `transfer-credit-${id}` };
      const first = await credit(a, id, { amount_cents: 500 }, key);
      const again = await credit(a, id, { amount_cents: 500 }, key);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      const { rows } = await app.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM balance_postings WHERE purchase_id = $1 AND kind = 'credit_by_transfer'", [id]);
      expect(rows[0]!.n).toBe(2); // one journal: two legs
    });
  });
});

describe('POST /api/purchases/{purchase_uid}/release', () => {
  it('releases an unpaid purchase: 200 CANCELLED, and the same answer when asked again', async () => {
    const id = await created(a);
    const first = await release(a, id);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ purchase_uid: `pur_${id}`, state: 'CANCELLED' });
    expect((await release(a, id)).json()).toEqual(first.json());
    expect(await v1(a, id)).toMatchObject({ state: 'CANCELLED' });
  });

  it("voids a deferred purchase's hold at once: the shopper keeps everything", async () => {
    const id = await created(a, { merchant_uid: a.offer('DEFERRED') });
    const paid = await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK });
    expect(paid.json().state).toBe('LEADER_PROCESSED');
    expect((await release(a, id)).json()).toEqual({ purchase_uid: `pur_${id}`, state: 'CANCELLED' });
    const { rows } = await app.services.db.query<{ status: string; captured_cents: number }>(
      'SELECT status, captured_cents::int AS captured_cents FROM payments WHERE purchase_id = $1',
      [id],
    );
    expect(rows).toEqual([{ status: 'voided', captured_cents: 0 }]);
  });

  it('answers 409 purchase_not_releasable once money was captured (refund instead), and changes nothing', async () => {
    const id = await paidByCard(a);
    const res = await release(a, id);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ app_error: 'purchase_not_releasable', debug: expect.stringContaining('refund it instead') });
    expect(await v1(a, id)).toMatchObject({ state: 'SUCCESSFUL' });
  });

  it("answers 404 for another merchant's purchase and leaves it as it was", async () => {
    const theirs = await created(b);
    expect((await a.post(`/api/purchases/pur_${theirs}/release`)).statusCode).toBe(404);
    expect(await v1(b, theirs)).toMatchObject({ state: 'INITIALIZED' });
  });
});

describe('/api/payment_by_transfer (the direct call of the back)', () => {
  let refs = 0;
  const settings = (over: Record<string, unknown> = {}) => ({
    merchantUid: a.offer('SHARED'),
    amountCents: 12_990,
    email: 'ana@example.com',
    firstName: 'Ana',
    title: 'Bike',
    reference: `TR-${++refs}`,
    currency: 'EUR',
    redirectUrl: 'https://shop.example/ok',
    paymentNotificationUrl: 'https://shop.example/notify',
    ...over,
  });
  const secretOf = (c: Caller, type: 'SHARED' | 'DEFERRED' = 'SHARED') => c.merchant.offers.find((o) => o.type === type)!.secret;
  const call = (query: string) => app.server.inject({ method: 'GET', url: `/api/payment_by_transfer?${query}` });
  const signed = (data: Record<string, unknown>, secret = secretOf(a)) => `signature=${encodeURIComponent(signHs256({ data }, secret))}`;

  it("creates the purchase and answers its uid, the amount and the operator's bank details, the uid as descriptor; a reload answers the same purchase", async () => {
    const s = settings();
    const res = await call(signed(s));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      purchase_uid: expect.stringMatching(/^pur_[0-9a-f-]{36}$/),
      reference: s.reference,
      amount_cents: 12_990,
      currency: 'EUR',
      state: 'INITIALIZED',
      reused: false,
      bank_transfer: { iban: OPERATOR_BANK.iban, bic: OPERATOR_BANK.bic, beneficiary: OPERATOR_BANK.holderName, amount_cents: 12_990, currency: 'EUR' },
    });
    expect(body.bank_transfer.descriptor).toBe(body.purchase_uid);
    expect(body.bank_transfer.instructions).toContain(`with ${body.purchase_uid} in the transfer's descriptor`);
    expect(body.bank_transfer.instructions).toContain('129.90 EUR');
    const id = body.purchase_uid.slice(4);
    const { rows } = await app.services.db.query<{ payment_mode: string; callback_url: string | null; notification_url: string }>(
      'SELECT payment_mode, callback_url, notification_url FROM purchases WHERE id = $1',
      [id],
    );
    // redirectUrl does not apply: nothing returns to the shop after a bank transfer.
    expect(rows[0]).toEqual({ payment_mode: 'transfer', callback_url: null, notification_url: 'https://shop.example/notify' });

    const reload = await call(signed(s));
    expect(reload.json()).toMatchObject({ purchase_uid: body.purchase_uid, reused: true });
    // POST with the signature in a JSON body: the same call.
    const posted = await app.server.inject({
      method: 'POST',
      url: '/api/payment_by_transfer',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ signature: signHs256({ data: s }, secretOf(a)) }),
    });
    expect(posted.json()).toMatchObject({ purchase_uid: body.purchase_uid, reused: true });

    // Paid, the reference is not payable again.
    expect((await receiveTransfer(app.services, { purchaseId: id, amountCents: 12_990, actor: { label: 'cli' } })).kind).toBe('recorded');
    const paid = await call(signed(s));
    expect(paid.statusCode).toBe(409);
    expect(paid.json().error.app_error).toBe('purchase_not_payable');
  });

  it('refuses an unsigned call (the signature is mandatory) naming it, and creates nothing', async () => {
    const s = settings();
    const query = Object.entries(s)
      .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
      .join('&');
    const res = await call(query);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ app_error: 'invalid_signature', debug: expect.stringContaining('signature is required') });
    const { rows } = await app.services.db.query('SELECT 1 FROM purchases WHERE ref = $1', [s.reference]);
    expect(rows).toEqual([]);
  });

  it('refuses a signature made with another secret, and an offer not in transfer mode (409)', async () => {
    const forged = await call(signed(settings(), secretOf(b)));
    expect(forged.statusCode).toBe(400);
    expect(forged.json().error.app_error).toBe('invalid_signature');
    const back = await call(signed(settings({ merchantUid: a.offer('DEFERRED') }), secretOf(a, 'DEFERRED')));
    expect(back.statusCode).toBe(409);
    expect(back.json().error).toMatchObject({ app_error: 'not_transfer_mode', debug: 'merchantUid names an offer that is not in transfer mode' });
  });

  it("refuses a wrong setting naming it (400), as the front's direct call does", async () => {
    const res = await call(signed(settings({ amountCents: 'abc' })));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ app_error: 'invalid_request', debug: expect.stringContaining('amountCents') });
  });

  it('answers 404 not_found (not offered) when the operator has no bank account configured', async () => {
    const bare = await startTestApp({ jobPollIntervalMs: 0 });
    try {
      const res = await bare.server.inject({ method: 'GET', url: `/api/payment_by_transfer?${signed(settings())}` });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ app_error: 'not_found', debug: expect.stringContaining("operator's bank account") });
    } finally {
      await bare.close();
    }
  });
});

describe('the operator records a transfer received (chipin transfer received)', () => {
  const actor = { label: 'cli' };

  it('refuses an amount other than what is due, recording nothing', async () => {
    const id = await created(a);
    const r = await receiveTransfer(app.services, { purchaseId: id, amountCents: 9_999, actor });
    expect(r).toMatchObject({ kind: 'wrong_amount', dueCents: 10_000, message: expect.stringContaining('asks for 10000') });
    expect(await v1(a, id)).toMatchObject({ state: 'INITIALIZED' });
    const { rows } = await app.services.db.query('SELECT 1 FROM bank_transfers WHERE purchase_id = $1', [id]);
    expect(rows).toEqual([]);
  });

  it('validates the purchase, books transfer_received once, and changes nothing when recorded again', async () => {
    const id = await created(a);
    const r = await receiveTransfer(app.services, { purchaseId: id, amountCents: 10_000, actor });
    expect(r).toMatchObject({ kind: 'recorded', already: false, purchase: { state: 'SUCCESSFUL', amountCents: 10_000, currency: 'EUR' } });
    expect(await postings(a, `transfer_received:${id}`)).toEqual([
      { kind: 'transfer_received', book: 'psp_cash', amount_cents: 10_000 },
      { kind: 'transfer_received', book: 'shopper_receivable', amount_cents: -10_000 },
    ]);
    const events = await app.services.db.query<{ type: string }>('SELECT type FROM purchase_events WHERE purchase_id = $1 ORDER BY id', [id]);
    expect(events.rows.map((e) => e.type)).toEqual(['purchase.created', 'purchase.leader_processed', 'purchase.succeeded']);
    expect(await receiveTransfer(app.services, { purchaseId: id, amountCents: 10_000, actor })).toMatchObject({ kind: 'recorded', already: true });
    expect((await receiveTransfer(app.services, { purchaseId: id, amountCents: 5_000, actor })).kind).toBe('wrong_amount');
    expect(await postings(a, `transfer_received:${id}`)).toHaveLength(2);
  });

  it('refuses a purchase already paid by card, one not in transfer mode, and a date in the future', async () => {
    const card = await paidByCard(a);
    expect(await receiveTransfer(app.services, { purchaseId: card, amountCents: 10_000, actor })).toMatchObject({
      kind: 'not_payable',
      message: expect.stringContaining('already paid by card'),
    });
    const back = await created(a, { merchant_uid: a.offer('DEFERRED') });
    expect((await receiveTransfer(app.services, { purchaseId: back, amountCents: 10_000, actor })).kind).toBe('not_transfer_mode');
    const id = await created(a);
    expect(await receiveTransfer(app.services, { purchaseId: id, amountCents: 10_000, valueDate: '2999-01-01', actor })).toMatchObject({ kind: 'invalid_date' });
    expect(await receiveTransfer(app.services, { purchaseId: id, amountCents: 10_000, valueDate: '1 May', actor })).toMatchObject({ kind: 'invalid_date' });
  });
});

describe('a sandbox whose clock was moved forward: transfer mode reads the service clock (docs/jobs-and-clock.md#the-service-clock)', () => {
  it('payment_by_transfer creates the purchase at the sandbox now; `chipin transfer received` takes a transfer of the sandbox today, `transfer refund-sent` records the sandbox now', async () => {
    // The clock is service-wide: this test moves it on a database of its own, which the CLI's commands open as the operator's would.
    const isolated = await isolatedDatabase();
    const pooled = isolated.env.DATABASE_POOLER ? { databasePooler: 'transaction' as const, databaseListenUrl: isolated.env.DATABASE_LISTEN_URL } : {};
    const config = testConfig({ operatorDebtor: OPERATOR_BANK, jobPollIntervalMs: 0, databaseUrl: isolated.url, ...pooled });
    try {
      const moved = await startTestApp(config, { db: openDatabase(config) });
      let toReceive: string;
      let toSend: string;
      const days = 40;
      try {
        const m = await caller(moved);
        await useTransferMode(moved, m);
        const clock = await m.post('/api/sandbox/clock', { advance_seconds: days * 86_400 });
        expect(clock.statusCode, clock.body).toBe(200);
        const sandboxNow = new Date(clock.json().now);
        const data = { merchantUid: m.offer('SHARED'), amountCents: 10_000, email: 'ana@example.com', firstName: 'Ana', title: 'Bike', reference: 'MOVED-1', currency: 'EUR' };
        const secret = m.merchant.offers.find((o) => o.type === 'SHARED')!.secret;
        // The signature is the shop's, on real time: its exp is not read on the sandbox clock.
        const signature = signHs256({ data, exp: Math.floor(Date.now() / 1000) + 600 }, secret);
        const res = await moved.server.inject({ method: 'GET', url: `/api/payment_by_transfer?signature=${encodeURIComponent(signature)}` });
        expect(res.statusCode, res.body).toBe(200);
        toReceive = res.json().purchase_uid;
        const { rows } = await moved.services.db.query<{ created_at: Date }>('SELECT created_at FROM purchases WHERE id = $1', [toReceive.slice(4)]);
        expect(rows[0]!.created_at.getTime()).toBeGreaterThanOrEqual(sandboxNow.getTime());

        // A purchase paid by transfer, partly refunded by transfer: a refund for the operator to send.
        const paid = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }));
        expect(paid.statusCode, paid.body).toBe(201);
        expect((await receiveTransfer(moved.services, { purchaseId: paid.json().id, amountCents: 10_000, actor: { label: 'cli' } })).kind).toBe('recorded');
        const refund = await m.post(`/api/purchases/pur_${paid.json().id}/credit_by_transfer`, { amount_cents: 1_000 });
        expect(refund.statusCode, refund.body).toBe(201);
        toSend = refund.json().id;
      } finally {
        await moved.close();
      }

      // The operator's commands, on the same database (the app closed: a DATA_DIR is held by one process at a time).
      const answers: unknown[] = [];
      const out = (_human: string, data: unknown) => void answers.push(data);
      const chipin = (command: string, args: string[]) => transferCommands[command]!(config, parseArgs({ args, options: OPTIONS, allowPositionals: true }).values, out);
      const sandboxToday = formatIsoDate(new Date(Date.now() + days * 86_400_000));
      await chipin('transfer received', ['--purchase', toReceive, '--amount-cents', '10000']);
      expect(answers[0]).toMatchObject({ purchase_uid: toReceive, value_date: sandboxToday, state: 'SUCCESSFUL', already_recorded: false });
      // Dated explicitly on the sandbox's today: not "in the future".
      await chipin('transfer received', ['--purchase', toReceive, '--amount-cents', '10000', '--date', sandboxToday]);
      expect(answers[1]).toMatchObject({ already_recorded: true });
      const before = Date.now() + days * 86_400_000;
      await chipin('transfer refund-sent', ['--refund', toSend]);
      const sent = answers[2] as { sent_at: string; already_sent: boolean };
      expect(sent.already_sent).toBe(false);
      expect(new Date(sent.sent_at).getTime()).toBeGreaterThanOrEqual(before - 60_000);
    } finally {
      await isolated.dispose();
    }
  }, 180_000);
});
