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
const cutOn = (name: string, table: string, event: 'INSERT' | 'UPDATE', when: string) => cutTrigger(app.services.db, name, table, event, when);

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
