import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const URL = '/api/merchants/v1/purchases';
let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = await twoMerchants(app);
});
afterAll(() => app.close());

const purchasesOf = async (c: Caller) =>
  (await app.services.db.query<{ n: number }>('SELECT count(*) AS n FROM purchases WHERE account_id = $1', [c.merchant.account_id.slice(4)])).rows[0]!.n;

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, creating one purchase', async () => {
    const before = await purchasesOf(a);
    const first = await a.post(URL, minimalPurchase(), { 'idempotency-key': 'order-42' });
    // Same body, keys in another order: still the same request.
    const again = await a.post(URL, { client: { email: 'leader@example.com' }, amount: 30_000, title: 'Weekend in Lisbon' }, { 'idempotency-key': 'order-42' });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await purchasesOf(a)).toBe(before + 1);
  });

  it('answers 422 for the same key with another body, and creates nothing', async () => {
    await a.post(URL, minimalPurchase(), { 'idempotency-key': 'order-43' });
    const before = await purchasesOf(a);
    const res = await a.post(URL, minimalPurchase({ amount: 30_001 }), { 'idempotency-key': 'order-43' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('idempotency_key_reused');
    expect(await purchasesOf(a)).toBe(before);
  });

  it('answers 409 while the first request with the key is in flight', async () => {
    const body = minimalPurchase();
    const first = await a.post(URL, body, { 'idempotency-key': 'order-44a' });
    // Put the record back in its in-flight form, as it is between claim and completion.
    await app.services.db.query("UPDATE idempotency_keys SET response_status = NULL, response_body = NULL WHERE key = 'order-44a'");
    const res = await a.post(URL, body, { 'idempotency-key': 'order-44a' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('idempotency_key_in_use');
    // A claim abandoned for over a minute (its process died) is taken over.
    await app.services.db.query("UPDATE idempotency_keys SET created_at = now() - interval '2 minutes' WHERE key = 'order-44a'");
    const retried = await a.post(URL, body, { 'idempotency-key': 'order-44a' });
    expect(retried.statusCode).toBe(201);
    expect(retried.json().id).not.toBe(first.json().id);
  });

  it('concurrent requests with one key create one purchase', async () => {
    const results = await Promise.all([
      a.post(URL, minimalPurchase(), { 'idempotency-key': 'order-44' }),
      a.post(URL, minimalPurchase(), { 'idempotency-key': 'order-44' }),
      a.post(URL, minimalPurchase(), { 'idempotency-key': 'order-44' }),
    ]);
    const statuses = results.map((r) => r.statusCode);
    // One creates; the others either saw it in flight (409) or already done (replay 201).
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const ids = new Set(results.filter((r) => r.statusCode === 201).map((r) => r.json().id));
    expect(ids.size).toBe(1);
    for (const r of results.filter((r) => r.statusCode === 409)) expect(r.json().error.code).toBe('idempotency_key_in_use');
  });

  it('does not store a failure: a corrected request may reuse the key', async () => {
    const bad = await a.post(URL, minimalPurchase({ amount: -1 }), { 'idempotency-key': 'order-45' });
    expect(bad.statusCode).toBe(406);
    const good = await a.post(URL, minimalPurchase(), { 'idempotency-key': 'order-45' });
    expect(good.statusCode).toBe(201);
  });

  it('keys are per merchant: another merchant\'s same key is independent', async () => {
    const mine = await a.post(URL, minimalPurchase(), { 'idempotency-key': 'shared-key' });
    const theirs = await b.post(URL, minimalPurchase({ amount: 40_000 }), { 'idempotency-key': 'shared-key' });
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().id).not.toBe(mine.json().id);
  });

  it('refuses a malformed key with 406 naming the header', async () => {
    const res = await a.post(URL, minimalPurchase(), { 'idempotency-key': 'x'.repeat(256) });
    expect(res.statusCode).toBe(406);
    expect(res.json().error.message).toContain('Idempotency-Key');
  });

  it('applies to purchase_link too', async () => {
    const url = `/api/merchants/${a.offer('SHARED')}/purchase_link`;
    const body = { data: { title: 'Bike', amountCents: 5000, email: 'l@example.com' } };
    const first = await a.post(url, body, { 'idempotency-key': 'link-1' });
    const again = await a.post(url, body, { 'idempotency-key': 'link-1' });
    expect(first.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    const other = await a.post(url, { data: { ...body.data, amountCents: 5001 } }, { 'idempotency-key': 'link-1' });
    expect(other.statusCode).toBe(422);
    expect(other.json().error.app_error).toBe('idempotency_key_reused');
  });
});
