/**
 * A request with an Idempotency-Key that committed and lost its answer (the database cut under it
 * after the commit, as in a failover: docs/api-conventions.md#idempotency-key), retried with the
 * same key: the retry finds what the first attempt committed — the
 * refund, the purchase — and answers it; nothing is made twice, no money goes back twice.
 * The failed attempt ends its claim's lease, so the retry is sent at once; a claim whose process
 * died instead is held until its lease lapses (test/http/idempotency.test.ts).
 *
 * The cut is a trigger that fails one statement with SQLSTATE 57P01 (the server shutting the
 * connection down, src/db/unavailable.ts): the request answers 503 as in a failover, on either
 * engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cutOn as cutTrigger } from '../helpers/connection-cut.ts';
import { NO_JOB_POLL } from '../delivery/helpers.ts';

const URL = '/api/merchants/v1/purchases';
const OK = '4242424242424242';

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  // No job poller: the refund's resume job (10 min later) must not be what completes it here.
  app = await startTestApp(NO_JOB_POLL);
  [a] = await twoMerchants(app);
});
afterAll(() => app?.close());

const one = async <T>(sql: string, params: unknown[] = []): Promise<T> => (await app.services.db.query<{ v: T }>(sql, params)).rows[0]!.v;

/** Cuts on the app's database (test/helpers/connection-cut.ts). */
const cutOn = (name: string, table: string, event: 'INSERT' | 'UPDATE' | 'DELETE', when: string) => cutTrigger(app.services.db, name, table, event, when);

async function paid(): Promise<string> {
  const id = (await a.post(URL, minimalPurchase({ amount: 10_000 }))).json().id as string;
  expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK })).json().state).toBe('SUCCESSFUL');
  return id;
}

const refundsOf = (purchaseId: string) => one<number>('SELECT count(*)::int AS v FROM refunds WHERE purchase_id = $1', [purchaseId]);
/** What the sandbox PSP gave back on the purchase's payment, and how many refund calls it took (one per PSP key `<refund id>:<payment id>`). */
async function atPsp(purchaseId: string): Promise<{ refundedCents: number; refunds: number }> {
  const { rows } = await app.services.db.query<{ id: string; tx: string }>('SELECT id, psp_transaction_id AS tx FROM payments WHERE purchase_id = $1', [purchaseId]);
  expect(rows).toHaveLength(1);
  const refundedCents = Number(await one<number>('SELECT refunded_cents AS v FROM sandbox_psp_transactions WHERE id = $1', [rows[0]!.tx]));
  const refunds = await one<number>("SELECT count(*)::int AS v FROM sandbox_psp_idempotency WHERE operation = 'refund' AND idempotency_key LIKE '%:' || $1", [rows[0]!.id]);
  return { refundedCents, refunds };
}

const refId = (uuid: string) => `ref_${uuid}`;

/** 503 `service_unavailable`, in either family's body (Merchant API v1 `code`, the back office's `app_error`). */
function expect503(res: { statusCode: number; json(): { error: { code?: string; app_error?: string } } }): void {
  expect(res.statusCode).toBe(503);
  const error = res.json().error;
  expect(error.code ?? error.app_error).toBe('service_unavailable');
}

describe('a retry after the takeover finds what the first attempt committed', () => {
  it('a partial refund whose recording was cut after the PSP refunded: the retry records that refund, never sends a second', async () => {
    const id = await paid();
    const key = `refund-cut-${id}`;
    const post = () => a.post(`${URL}/${id}/refunds`, { amount: 3_000 }, { 'idempotency-key': key });
    // The refund is reserved and sent to the PSP; recording the PSP's answer is cut.
    const cut = await cutOn('cut_refund_recording', 'refund_allocations', 'UPDATE', `NEW.purchase_id = '${id}' AND NEW.state <> 'pending'`);
    expect503(await post());
    await cut.heal();
    const pending = (await app.services.db.query<{ id: string; state: string }>('SELECT id, state FROM refunds WHERE purchase_id = $1', [id])).rows;
    expect(pending).toEqual([{ id: expect.any(String), state: 'pending' }]);
    expect(await atPsp(id)).toEqual({ refundedCents: 3_000, refunds: 1 });

    // The claim stayed (same generation) with its lease ended by the failed attempt: the retry,
    // sent at once, takes it over.
    expect(await one<boolean>('SELECT lease_until < now() AS v FROM idempotency_keys WHERE key = $1', [key])).toBe(true);
    const retried = await post();
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.json()).toMatchObject({ id: refId(pending[0]!.id), amount: 3_000, state: 'succeeded' });
    expect(await refundsOf(id)).toBe(1);
    expect(await atPsp(id)).toEqual({ refundedCents: 3_000, refunds: 1 });
    expect((await a.get(`${URL}/${id}`)).json().refunded_amount).toBe(3_000);
    expect(Number(await one<number>('SELECT refunded_cents AS v FROM payments WHERE purchase_id = $1', [id]))).toBe(3_000);

    // Stored now: replayed.
    const replayed = await post();
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual(retried.json());
    expect(await refundsOf(id)).toBe(1);
  });

  it('a refund made in full whose answer was lost (storing it cut): the retry answers that refund, not "nothing left to refund" nor a second one', async () => {
    const id = await paid();
    const key = `refund-answer-lost-${id}`;
    const post = () => a.post(`${URL}/${id}/refunds`, {}, { 'idempotency-key': key });
    const cut = await cutOn('cut_refund_answer', 'idempotency_keys', 'UPDATE', `NEW.key = '${key}' AND NEW.response_status IS NOT NULL`);
    expect503(await post());
    await cut.heal();
    const made = await one<string>('SELECT id::text AS v FROM refunds WHERE purchase_id = $1', [id]);
    expect(await atPsp(id)).toEqual({ refundedCents: 10_000, refunds: 1 });

    const retried = await post();
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.json()).toMatchObject({ id: refId(made), amount: 10_000, state: 'succeeded' });
    expect(await refundsOf(id)).toBe(1);
    expect(await atPsp(id)).toEqual({ refundedCents: 10_000, refunds: 1 });
    expect((await a.get(`${URL}/${id}`)).json().state).toBe('REFUNDED');
  });

  it('a refund whose claim could not be given back (cut) and whose answer was lost: the retry answers it at once, and a later retry never makes a second one', async () => {
    const id = await paid();
    const key = `refund-claim-kept-${id}`;
    const post = () => a.post(`${URL}/${id}/refunds`, { amount: 4_000 }, { 'idempotency-key': key });
    // Recorded at the PSP and here; then the purchase's claim is not given back and the answer not stored.
    const keepClaim = await cutOn('cut_claim_give_back', 'money_claims', 'DELETE', `OLD.purchase_id = '${id}'`);
    const loseAnswer = await cutOn('cut_claim_answer', 'idempotency_keys', 'UPDATE', `NEW.key = '${key}' AND NEW.response_status IS NOT NULL`);
    expect503(await post());
    await keepClaim.heal();
    await loseAnswer.heal();
    const made = await one<string>('SELECT id::text AS v FROM refunds WHERE purchase_id = $1', [id]);
    // The orphaned claim is still there, its lease running: the settled refund is answered without it.
    expect(await one<number>('SELECT count(*)::int AS v FROM money_claims WHERE purchase_id = $1 AND lease_until > now()', [id])).toBe(1);
    const retried = await post();
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.json()).toMatchObject({ id: refId(made), amount: 4_000, state: 'succeeded' });
    // Long after (the claim lapsed): the same key is the same refund.
    await app.services.db.query("UPDATE money_claims SET lease_until = now() - interval '1 second' WHERE purchase_id = $1", [id]);
    expect((await post()).json()).toMatchObject({ id: refId(made) });
    expect(await refundsOf(id)).toBe(1);
    expect(await atPsp(id)).toEqual({ refundedCents: 4_000, refunds: 1 });
  });

  it('a retry told 409 operation_in_progress keeps its key: once the purchase is free, the same key resumes the first refund instead of making another', async () => {
    const id = await paid();
    const key = `refund-in-progress-${id}`;
    const post = () => a.post(`${URL}/${id}/refunds`, { amount: 3_500 }, { 'idempotency-key': key });
    // The recording is cut and the claim is not given back: a refund pending, a claim orphaned.
    const cutRecording = await cutOn('cut_ip_recording', 'refund_allocations', 'UPDATE', `NEW.purchase_id = '${id}' AND NEW.state <> 'pending'`);
    const keepClaim = await cutOn('cut_ip_give_back', 'money_claims', 'DELETE', `OLD.purchase_id = '${id}'`);
    expect503(await post());
    await cutRecording.heal();
    await keepClaim.heal();
    const made = await one<string>('SELECT id::text AS v FROM refunds WHERE purchase_id = $1', [id]);
    const generation = () => one<string>('SELECT expires_at::text AS v FROM idempotency_keys WHERE key = $1', [key]);
    const before = await generation();

    const waitMs = app.services.payments.claimWaitMs;
    app.services.payments.claimWaitMs = 0;
    try {
      // The orphaned claim's lease runs: "retry later", and the key keeps its claim (not released).
      const busy = await post();
      expect(busy.statusCode, busy.body).toBe(409);
      expect(busy.json().error.code).toBe('operation_in_progress');
      expect(await generation()).toBe(before);
    } finally {
      app.services.payments.claimWaitMs = waitMs;
    }
    // The claim lapses; the retry resumes the first refund (the PSP asked first), never a second.
    await app.services.db.query("UPDATE money_claims SET lease_until = now() - interval '1 second' WHERE purchase_id = $1", [id]);
    const resumed = await post();
    expect(resumed.statusCode, resumed.body).toBe(201);
    expect(resumed.json()).toMatchObject({ id: refId(made), amount: 3_500, state: 'succeeded' });
    expect(await refundsOf(id)).toBe(1);
    expect(await atPsp(id)).toEqual({ refundedCents: 3_500, refunds: 1 });
    expect((await a.get(`${URL}/${id}`)).json().refunded_amount).toBe(3_500);
  });

  it('a refund whose reserving commit landed but whose answer was lost: the claim is given back, and the retry sends and answers that refund at once', async () => {
    const id = await paid();
    const key = `refund-commit-lost-${id}`;
    const post = () => a.post(`${URL}/${id}/refunds`, { amount: 2_000 }, { 'idempotency-key': key });
    // The payments' database answers the refund's reserving transaction (the money engine's, which
    // answers the movement's `go`: src/money/movement.ts) with a cut after its commit.
    const real = app.services.payments.db;
    const transaction: typeof real.transaction = async (fn) => {
      const result = await real.transaction(fn);
      if ((result as { go?: { refundId?: unknown } } | undefined)?.go?.refundId !== undefined) {
        throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
      }
      return result;
    };
    app.services.payments.db = new Proxy(real, {
      get: (target, prop) => {
        if (prop === 'transaction') return transaction;
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      expect503(await post());
    } finally {
      app.services.payments.db = real;
    }
    // Committed: the refund pending, nothing sent to the PSP yet; its claim was given back all the same.
    expect((await app.services.db.query('SELECT state FROM refunds WHERE purchase_id = $1', [id])).rows).toEqual([{ state: 'pending' }]);
    expect(await atPsp(id)).toEqual({ refundedCents: 0, refunds: 0 });
    expect(await one<number>('SELECT count(*)::int AS v FROM money_claims WHERE purchase_id = $1', [id])).toBe(0);

    const retried = await post();
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.json()).toMatchObject({ amount: 2_000, state: 'succeeded' });
    expect(await refundsOf(id)).toBe(1);
    expect(await atPsp(id)).toEqual({ refundedCents: 2_000, refunds: 1 });
  });

  it('the back-office refund resumes the same way', async () => {
    const id = await paid();
    const key = `bo-refund-cut-${id}`;
    const post = () =>
      app.server.inject({
        method: 'POST',
        url: `/api/backoffice/purchases/pur_${id}/refunds`,
        headers: { authorization: a.dashboard, 'content-type': 'application/json', 'idempotency-key': key },
        payload: JSON.stringify({ amount: 2_500 }),
      });
    const cut = await cutOn('cut_bo_refund_recording', 'refund_allocations', 'UPDATE', `NEW.purchase_id = '${id}' AND NEW.state <> 'pending'`);
    expect503(await post());
    await cut.heal();
    const made = await one<string>('SELECT id::text AS v FROM refunds WHERE purchase_id = $1', [id]);
    const retried = await post();
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.json()).toMatchObject({ id: refId(made), amount: 2_500, state: 'succeeded' });
    expect(await refundsOf(id)).toBe(1);
    expect(await atPsp(id)).toEqual({ refundedCents: 2_500, refunds: 1 });
  });

  it('a purchase created whose answer was lost: the retry answers that purchase, none is created twice', async () => {
    const key = 'purchase-answer-lost';
    const body = minimalPurchase({ ref: key });
    const count = () => one<number>('SELECT count(*)::int AS v FROM purchases WHERE account_id = $1 AND ref = $2', [a.accountId, key]);
    const cut = await cutOn('cut_purchase_answer', 'idempotency_keys', 'UPDATE', `NEW.key = '${key}' AND NEW.response_status IS NOT NULL`);
    expect503(await a.post(URL, body, { 'idempotency-key': key }));
    await cut.heal();
    const made = await one<string>('SELECT id::text AS v FROM purchases WHERE account_id = $1 AND ref = $2', [a.accountId, key]);

    const retried = await a.post(URL, body, { 'idempotency-key': key });
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.json().id).toBe(made);
    expect(await count()).toBe(1);
    const replayed = await a.post(URL, body, { 'idempotency-key': key });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json().id).toBe(made);
  });

  it('a purchase_link whose answer was lost: the retry answers that purchase', async () => {
    const key = 'link-answer-lost';
    const url = `/api/merchants/${a.offer('SHARED')}/purchase_link`;
    const body = { data: { title: 'Bike', amountCents: 5000, email: 'link-lost@example.com', reference: key } };
    const cut = await cutOn('cut_link_answer', 'idempotency_keys', 'UPDATE', `NEW.key = '${key}' AND NEW.response_status IS NOT NULL`);
    expect((await a.post(url, body, { 'idempotency-key': key })).statusCode).toBe(503);
    await cut.heal();
    const made = await one<string>('SELECT id::text AS v FROM purchases WHERE account_id = $1 AND ref = $2', [a.accountId, key]);
    const retried = await a.post(url, body, { 'idempotency-key': key });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().purchase_uid).toBe(`pur_${made}`);
    expect(await one<number>('SELECT count(*)::int AS v FROM purchases WHERE account_id = $1 AND ref = $2', [a.accountId, key])).toBe(1);
  });

  it('a key used afresh after its 24 h (expired) is a new request: it creates anew', async () => {
    const key = 'reused-after-expiry';
    const first = await a.post(URL, minimalPurchase(), { 'idempotency-key': key });
    await app.services.db.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1", [key]);
    const later = await a.post(URL, minimalPurchase(), { 'idempotency-key': key });
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().id).not.toBe(first.json().id);
  });
});
