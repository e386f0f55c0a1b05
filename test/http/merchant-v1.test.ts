import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';

const V1 = '/api/merchants/v1';
let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = await twoMerchants(app);
});
afterAll(() => app.close());

const count = async (table: string) => (await app.services.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n;

describe('POST /api/merchants/v1/purchases', () => {
  it('creates a purchase with every spec field and answers 201 INITIALIZED with a payment_url', async () => {
    const payload = {
      ref: 'ORDER-1',
      title: 'Weekend in Lisbon',
      subtitle: '2 nights',
      description: 'Hotel and flights for four',
      client: { ref: 'CUST-9', last_name: 'Martin', first_name: 'Léa', email: 'lea@example.com' },
      picture_url: 'https://shop.example/lisbon.jpg',
      amount: 48_000,
      currency: 'EUR',
      callback_url: 'https://shop.example/done',
      products: [
        { ref: 'H1', label: 'Hotel', amount: 30_000, currency: 'EUR' },
        { ref: 'F1', label: 'Flights', amount: 18_000, currency: 'EUR' },
      ],
      paymentNotificationUrl: 'https://shop.example/notify',
    };
    const res = await a.post(`${V1}/purchases`, payload);
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(p.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.payment_url).toBe(`http://127.0.0.1:3000/pay/pur_${p.id}`);
    expect(p).toMatchObject({ ...payload, client: { ...payload.client, id: expect.any(String) }, state: 'INITIALIZED', merchant_uid: a.offer('SHARED') });
    expect(typeof p.comment).toBe('string');
    const got = await a.get(`${V1}/purchases/${p.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(p);
  });

  it("defaults currency to the offer's EUR and merchant_uid to the SHARED offer; accepts another offer of the account", async () => {
    const res = await a.post(`${V1}/purchases`, minimalPurchase());
    expect(res.json()).toMatchObject({ currency: 'EUR', merchant_uid: a.offer('SHARED'), products: [] });
    const x3 = await a.post(`${V1}/purchases`, minimalPurchase({ merchant_uid: a.offer('INSTALLMENTS', 3) }));
    expect(x3.statusCode).toBe(201);
    expect(x3.json().merchant_uid).toBe(a.offer('INSTALLMENTS', 3));
  });

  it.each([
    ['title missing', { title: undefined }, 'title'],
    ['amount missing', { amount: undefined }, 'amount'],
    ['client.email missing', { client: { first_name: 'x' } }, 'client.email'],
    ['amount as string', { amount: '100' }, 'amount'],
    ['negative amount', { amount: -1 }, 'amount'],
    ['fractional amount', { amount: 10.5 }, 'amount'],
    ['unknown currency', { currency: 'XYZ' }, 'currency'],
    ['lower-case currency', { currency: 'eur' }, 'currency'],
    ['other currency than the offer', { currency: 'USD' }, 'currency'],
    ['amount under the offer minimum', { amount: 50 }, 'amount'],
    ['amount over the offer maximum', { amount: 1_000_001 }, 'amount'],
    ['malformed client e-mail', { client: { email: 'not-an-email' } }, 'client.email'],
    ['javascript: picture_url', { picture_url: 'javascript:alert(1)' }, 'picture_url'],
    ['malformed callback_url', { callback_url: 'nope' }, 'callback_url'],
    ['unknown field', { colour: 'red' }, 'colour'],
    ['unknown client field', { client: { email: 'a@b.co', age: 3 } }, 'client.age'],
    ['product in another currency', { products: [{ label: 'x', amount: 1, currency: 'USD' }] }, 'products[0].currency'],
    ['negative product amount', { products: [{ label: 'x', amount: -5, currency: 'EUR' }] }, 'products[0].amount'],
    ['merchant_uid of another account', { merchant_uid: 'OTHER' }, 'merchant_uid'],
    ['title too long', { title: 'x'.repeat(256) }, 'title'],
    ['balance date not a date', { balance_payment_date: '2026-02-30' }, 'balance_payment_date'],
    ['down payment balance after the maximum delay', { merchant_uid: 'DOWN_PAYMENT', balance_payment_date: '2999-01-01' }, 'balance_payment_date'],
  ])('%s → 406 naming the field, nothing stored', async (_name, over, field) => {
    const overrides = { ...over } as Record<string, unknown>;
    if (overrides.merchant_uid === 'OTHER') overrides.merchant_uid = b.offer('SHARED');
    if (overrides.merchant_uid === 'DOWN_PAYMENT') overrides.merchant_uid = a.offer('DOWN_PAYMENT');
    const payload = minimalPurchase(overrides);
    for (const k of Object.keys(payload)) if ((payload as Record<string, unknown>)[k] === undefined) delete (payload as Record<string, unknown>)[k];
    const before = await count('purchases');
    const res = await a.post(`${V1}/purchases`, payload);
    expect(res.statusCode).toBe(406);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toEqual(expect.any(String));
    expect(body.error.message).toContain(field);
    expect(await count('purchases')).toBe(before);
  });

  it('answers 406 for a body that is not JSON or not an object', async () => {
    const broken = await app.server.inject({
      method: 'POST',
      url: `${V1}/purchases`,
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
      payload: '{"title":',
    });
    expect(broken.statusCode).toBe(406);
    expect((await a.post(`${V1}/purchases`, [1, 2])).statusCode).toBe(406);
  });

  it('answers 401 in the v1 error format without a valid token', async () => {
    const res = await app.server.inject({ method: 'POST', url: `${V1}/purchases`, payload: minimalPurchase() });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(res.json()).toEqual({ error: { code: 'invalid_token', message: expect.any(String) } });
  });

  it('one client per account by ref, else by e-mail; names are refreshed', async () => {
    const c = await caller(app);
    const p1 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { email: 'same@example.com' } }))).json();
    const p2 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { email: 'SAME@example.com', first_name: 'Sam' } }))).json();
    expect(p2.client.id).toBe(p1.client.id);
    expect(p2.client.first_name).toBe('Sam');
    // Nothing to refresh (no name given, or the same one): the same client, names kept.
    const p3 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { email: 'same@example.com' } }))).json();
    const p4 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { email: 'Same@Example.com', first_name: 'Sam', last_name: 'Lee' } }))).json();
    const p5 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { email: 'same@example.com', first_name: 'Sam' } }))).json();
    expect(p3.client).toMatchObject({ id: p1.client.id, first_name: 'Sam' });
    expect(p4.client).toMatchObject({ id: p1.client.id, first_name: 'Sam', last_name: 'Lee' });
    expect(p5.client).toMatchObject({ id: p1.client.id, first_name: 'Sam', last_name: 'Lee' });
    const r1 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { ref: 'R1', email: 'same@example.com' } }))).json();
    expect(r1.client.id).not.toBe(p1.client.id);
    const r2 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { ref: 'R1', email: 'new@example.com' } }))).json();
    expect(r2.client).toMatchObject({ id: r1.client.id, email: 'new@example.com' });
    const r3 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { ref: 'R1', email: 'new@example.com', last_name: 'Roe' } }))).json();
    const r4 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { ref: 'R1', email: 'new@example.com' } }))).json();
    expect(r3.client).toMatchObject({ id: r1.client.id, email: 'new@example.com', last_name: 'Roe' });
    expect(r4.client).toMatchObject({ id: r1.client.id, email: 'new@example.com', last_name: 'Roe' });
    // The same e-mail at another merchant is another client.
    const other = (await b.post(`${V1}/purchases`, minimalPurchase({ client: { email: 'same@example.com' } }))).json();
    expect(other.client.id).not.toBe(p1.client.id);
  });

  it('purchases created at once for one new client make one client', async () => {
    const c = await caller(app);
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) => c.post(`${V1}/purchases`, minimalPurchase({ client: { email: 'burst@example.com', ...(i % 3 === 0 ? { first_name: 'Bo' } : {}) } }))),
    );
    expect(created.map((r) => r.statusCode)).toEqual(created.map(() => 201));
    expect(new Set(created.map((r) => r.json().client.id)).size).toBe(1);
  });

  // A plain read finds a client with nothing to refresh: no row lock, so a shopper's purchases
  // (or a load test's) do not wait for each other's commits one by one. The lock held here is
  // the one a refreshing upsert takes (FOR NO KEY UPDATE: the unique indexes are partial).
  it.skipIf(!onPostgres)('a purchase for a known client with nothing to refresh does not wait for a lock held on the client', async () => {
    const c = await caller(app);
    const first = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { email: 'held@example.com', first_name: 'Al' } }))).json();
    await app.services.db.transaction(async (tx) => {
      await tx.query('SELECT id FROM clients WHERE id = $1 FOR NO KEY UPDATE', [first.client.id]);
      const again = await c.post(`${V1}/purchases`, minimalPurchase({ client: { email: 'held@example.com' } }));
      expect(again.statusCode).toBe(201);
      expect(again.json().client).toMatchObject({ id: first.client.id, first_name: 'Al' });
    });
  });
});

describe('GET /api/merchants/v1/purchases/{id}', () => {
  it("answers 404 alike for unknown, malformed and other merchants' purchases", async () => {
    const mine = (await a.post(`${V1}/purchases`, minimalPurchase())).json();
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', `pur_not-a-uuid`, `plg_${mine.id}`, `pur${mine.id}`, "1' OR '1'='1"]) {
      const res = await a.get(`${V1}/purchases/${encodeURIComponent(id)}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    for (const id of [mine.id, `pur_${mine.id}`]) {
      const theirs = await b.get(`${V1}/purchases/${id}`);
      expect(theirs.statusCode, id).toBe(404);
      expect(theirs.body).not.toContain(mine.client.email);
      expect((await b.get(`${V1}/purchases/${id}/refunds`)).statusCode, id).toBe(404);
      expect((await b.post(`${V1}/purchases/${id}/cancel`)).statusCode, id).toBe(404);
    }
  });

  it('answers the same purchase for the bare uuid and the Token API spelling pur_<uuid>, on every purchase route', async () => {
    const mine = (await a.post(`${V1}/purchases`, minimalPurchase())).json();
    const bare = await a.get(`${V1}/purchases/${mine.id}`);
    expect(bare.statusCode).toBe(200);
    for (const id of [`pur_${mine.id}`, `pur_${mine.id.toUpperCase()}`]) {
      const prefixed = await a.get(`${V1}/purchases/${id}`);
      expect(prefixed.statusCode, id).toBe(200);
      expect(prefixed.body).toBe(bare.body);
      expect((await a.get(`${V1}/purchases/${id}/refunds`)).json()).toEqual({ data: [] });
    }
    const cancelled = await a.post(`${V1}/purchases/pur_${mine.id}/cancel`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({ id: mine.id, state: 'CANCELLED' });
  });
});

describe('GET /api/merchants/v1/clients/{id}', () => {
  it("returns the client with their purchases; 404 for others' and unknown clients", async () => {
    const c = await caller(app);
    const p1 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { ref: 'K', email: 'k@example.com', last_name: 'Kay' } }))).json();
    const p2 = (await c.post(`${V1}/purchases`, minimalPurchase({ client: { ref: 'K', email: 'k@example.com' }, title: 'Second' }))).json();
    const res = await c.get(`${V1}/clients/${p1.client.id}`);
    expect(res.statusCode).toBe(200);
    const client = res.json();
    expect(client).toMatchObject({ id: p1.client.id, ref: 'K', email: 'k@example.com', last_name: 'Kay' });
    expect(client.purchases.map((p: { id: string }) => p.id)).toEqual([p2.id, p1.id]);
    expect((await b.get(`${V1}/clients/${p1.client.id}`)).statusCode).toBe(404);
    expect((await c.get(`${V1}/clients/nope`)).statusCode).toBe(404);
  });
});

describe('GET /api/merchants/v1/purchases (listing)', () => {
  it('pages newest first with a cursor and filters by state, ref and created range; never shows other merchants', async () => {
    const c = await caller(app);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await c.post(`${V1}/purchases`, minimalPurchase({ ref: i % 2 ? 'odd' : 'even' }))).json().id);
      await new Promise((r) => setTimeout(r, 2));
    }
    await b.post(`${V1}/purchases`, minimalPurchase({ ref: 'odd' }));
    const page1 = (await c.get(`${V1}/purchases?limit=2`)).json();
    expect(page1.data.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[3]]);
    expect(page1.has_more).toBe(true);
    const page2 = (await c.get(`${V1}/purchases?limit=2&cursor=${page1.next_cursor}`)).json();
    const page3 = (await c.get(`${V1}/purchases?limit=2&cursor=${page2.next_cursor}`)).json();
    expect([...page2.data, ...page3.data].map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(page3).toMatchObject({ has_more: false, next_cursor: null });

    const odd = (await c.get(`${V1}/purchases?ref=odd`)).json();
    expect(odd.data.map((p: { id: string }) => p.id)).toEqual([ids[3], ids[1]]);
    const aborted = await c.post(`/api/purchases/pur_${ids[0]}/abort`);
    expect(aborted.statusCode).toBe(200);
    const cancelled = (await c.get(`${V1}/purchases?state=CANCELLED`)).json();
    expect(cancelled.data.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    expect(cancelled.data[0].comment).toMatch(/merchant/i);

    // One v1 state is one internal state: an equality the list's index checks (docs/performance.md#the-state-filter).
    const open1 = (await c.get(`${V1}/purchases?state=INITIALIZED&limit=2`)).json();
    const open2 = (await c.get(`${V1}/purchases?state=INITIALIZED&limit=2&cursor=${open1.next_cursor}`)).json();
    expect([...open1.data, ...open2.data].map((p: { id: string }) => p.id)).toEqual([ids[4], ids[3], ids[2], ids[1]]);
    expect(open2).toMatchObject({ has_more: false, next_cursor: null });

    const created = page1.data[1].created_at;
    const range = (await c.get(`${V1}/purchases?created_to=${encodeURIComponent(created)}`)).json();
    expect(range.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1], ids[0]]);
  });

  it('answers 406 for a bad filter or cursor', async () => {
    for (const q of ['state=OPEN', 'limit=0', 'limit=101', 'created_from=yesterday', 'cursor=garbage', 'colour=red']) {
      const res = await a.get(`${V1}/purchases?${q}`);
      expect(res.statusCode, q).toBe(406);
    }
  });
});
