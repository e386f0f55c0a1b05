import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { bundledMigrations, migrate } from '../../src/db/migrate.ts';
import { newUuid } from '../../src/domain/ids.ts';
import { claimKey, purgeExpiredIdempotencyKeys, renewLease, storeResponse } from '../../src/idempotency/idempotency-repository.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { openTestDatabase, startTestApp, type TestApp } from '../helpers/app.ts';

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

  it('answers 409 while the first request with the key is in flight (its lease running); once the lease lapses (its process died) a retry takes the claim over and answers what it committed', async () => {
    const body = minimalPurchase();
    const first = await a.post(URL, body, { 'idempotency-key': 'order-44a' });
    // Put the record back in its in-flight form, as it is between claim and completion, its lease
    // as the process running it keeps renewing it.
    await app.services.db.query("UPDATE idempotency_keys SET response_status = NULL, response_body = NULL, lease_until = now() + interval '10 seconds' WHERE key = 'order-44a'");
    const res = await a.post(URL, body, { 'idempotency-key': 'order-44a' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('idempotency_key_in_use');
    // Its process died: nothing renews the lease, which lapses; the next retry takes the claim over
    // and finds the purchase the first request committed, not creating it again
    // (test/http/idempotency-takeover.test.ts).
    await app.services.db.query("UPDATE idempotency_keys SET lease_until = now() - interval '1 second' WHERE key = 'order-44a'");
    const before = await purchasesOf(a);
    const retried = await a.post(URL, body, { 'idempotency-key': 'order-44a' });
    expect(retried.statusCode).toBe(201);
    expect(retried.json().id).toBe(first.json().id);
    expect(await purchasesOf(a)).toBe(before);
  });

  it('a claim made by a build without leases (lease_until NULL, a rolling upgrade) is held for 60 s, as that build holds every claim, then taken over', async () => {
    const body = minimalPurchase();
    const first = await a.post(URL, body, { 'idempotency-key': 'order-44b' });
    await app.services.db.query(
      "UPDATE idempotency_keys SET response_status = NULL, response_body = NULL, lease_until = NULL, created_at = now() - interval '50 seconds' WHERE key = 'order-44b'",
    );
    expect((await a.post(URL, body, { 'idempotency-key': 'order-44b' })).statusCode).toBe(409);
    await app.services.db.query("UPDATE idempotency_keys SET created_at = now() - interval '61 seconds' WHERE key = 'order-44b'");
    const retried = await a.post(URL, body, { 'idempotency-key': 'order-44b' });
    expect(retried.statusCode).toBe(201);
    expect(retried.json().id).toBe(first.json().id);
  });

  it('a request that runs longer than the lease keeps its claim: its process renews the lease while it runs', async () => {
    const key = { accountId: a.accountId, scope: 'test lease', key: 'long-request' };
    expect(await claimKey(app.services.db, key, 'h')).toBeDefined();
    await app.services.db.query("UPDATE idempotency_keys SET lease_until = now() + interval '1 second' WHERE key = 'long-request'");
    await renewLease(app.services.db, key);
    const left = await app.services.db.query<{ s: number }>("SELECT extract(epoch FROM lease_until - now())::float8 AS s FROM idempotency_keys WHERE key = 'long-request'");
    expect(left.rows[0]!.s).toBeGreaterThan(5);
    expect(await claimKey(app.services.db, key, 'h')).toBeUndefined();
    // A response stored ends what a renewal may touch: a late renewal changes nothing.
    await storeResponse(app.services.db, key, 201, '{}');
    await app.services.db.query("UPDATE idempotency_keys SET lease_until = now() WHERE key = 'long-request'");
    await renewLease(app.services.db, key);
    expect((await app.services.db.query<{ live: boolean }>("SELECT lease_until > now() AS live FROM idempotency_keys WHERE key = 'long-request'")).rows[0]!.live).toBe(false);
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

  it("keys are per merchant: another merchant's same key is independent", async () => {
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

/** The key's scope is the account, the matched route and the resource: never the URL as sent (docs/security.md#idempotency-scope). */
describe('expired Idempotency-Keys', () => {
  const keysNamed = async (prefix: string) =>
    (await app.services.db.query<{ key: string }>('SELECT key FROM idempotency_keys WHERE key LIKE $1 ORDER BY key', [`${prefix}%`])).rows.map((r) => r.key);
  const expire = (keys: string[]) => app.services.db.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 minute' WHERE key = ANY($1)", [keys]);
  const expiredCount = async () => (await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at < now()')).rows[0]!.n;

  it('are deleted by the purge, a batch at a time; live keys and a key claimed afresh after its expiry stay', async () => {
    for (const key of ['purge-live', 'purge-old-1', 'purge-old-2', 'purge-old-3', 'purge-reclaimed']) {
      expect((await b.post(URL, minimalPurchase(), { 'idempotency-key': key })).statusCode).toBe(201);
    }
    await expire(['purge-old-1', 'purge-old-2', 'purge-old-3', 'purge-reclaimed']);
    // Past its expiry a key is new again: another body is a new request, and the key lives 24 h more.
    const again = await b.post(URL, minimalPurchase({ amount: 31_000 }), { 'idempotency-key': 'purge-reclaimed' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();

    const expired = await expiredCount();
    expect(expired).toBeGreaterThanOrEqual(3);
    expect(await purgeExpiredIdempotencyKeys(app.services.db, expired - 1)).toBe(expired - 1);
    expect(await purgeExpiredIdempotencyKeys(app.services.db)).toBe(1);
    expect(await purgeExpiredIdempotencyKeys(app.services.db)).toBe(0);
    expect(await keysNamed('purge-')).toEqual(['purge-live', 'purge-reclaimed']);
    // The live key still answers its first response.
    const replay = await b.post(URL, minimalPurchase(), { 'idempotency-key': 'purge-live' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});

describe('Idempotency-Key scope: one key for every spelling of one URL', () => {
  const refundsOf = async (purchaseId: string) =>
    (await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM refunds WHERE purchase_id = $1', [purchaseId])).rows[0]!.n;

  async function paid(): Promise<string> {
    const id = (await a.post(URL, minimalPurchase({ amount: 10_000 }))).json().id as string;
    expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' })).json().state).toBe('SUCCESSFUL');
    return id;
  }

  it('refunds once for one key on …/purchases/<id>/refunds, …/refund%73, …/purchase%73/<id>/refunds and the pur_<id> spelling (Merchant API v1)', async () => {
    const id = await paid();
    const key = { 'idempotency-key': `spellings-${id}` };
    const answers = [];
    for (const url of [
      `${URL}/${id}/refunds`,
      `${URL}/${id}/refund%73`,
      `/api/merchants/v1/purchase%73/${id}/refunds`,
      `/api/merchants/%761/purchases/%${id.charCodeAt(0).toString(16)}${id.slice(1)}/refunds`,
      `${URL}/pur_${id}/refunds`,
      `${URL}/pur_${id.toUpperCase()}/refunds`,
    ]) {
      answers.push(await a.post(url, { amount: 1_000 }, key));
    }
    expect(answers.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(answers.slice(1).map((r) => r.headers['idempotent-replayed'])).toEqual(['true', 'true', 'true', 'true', 'true']);
    expect(new Set(answers.map((r) => r.json().id)).size).toBe(1);
    expect(await refundsOf(id)).toBe(1);
    expect((await a.get(`${URL}/${id}`)).json().refunded_amount).toBe(1_000);
    // Another body under the key, on any spelling: 422, as on the path it was first sent to.
    const other = await a.post(`${URL}/${id}/refund%73`, { amount: 2_000 }, key);
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('idempotency_key_reused');
    expect(await refundsOf(id)).toBe(1);
  });

  it('refunds once for one key on every spelling of the back-office refund, pur_ id or bare uuid', async () => {
    const id = await paid();
    const key = `bo-spellings-${id}`;
    const post = (url: string, amount = 1_000) =>
      app.server.inject({
        method: 'POST',
        url,
        headers: { authorization: a.dashboard, 'content-type': 'application/json', 'idempotency-key': key },
        payload: JSON.stringify({ amount }),
      });
    const answers = [];
    for (const url of [
      `/api/backoffice/purchases/pur_${id}/refunds`,
      `/api/backoffice/purchases/pur_${id}/refund%73`,
      `/api/backoffice/purchase%73/pur_${id}/refunds`,
      `/api/backoffice/purchases/${id}/refunds`,
      `/api/backoffice/purchases/${id.toUpperCase()}/refunds`,
      `/api/backoffice/purchases/%70ur_${id}/refunds`,
    ]) {
      answers.push(await post(url));
    }
    expect(answers.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(answers.map((r) => r.json().id)).size).toBe(1);
    expect(await refundsOf(id)).toBe(1);
    expect((await post(`/api/backoffice/purchase%73/${id}/refunds`, 2_000)).statusCode).toBe(422);
  });

  it('creates one purchase for one key on /api/merchants/v1/purchases and its encoded spellings', async () => {
    const before = await purchasesOf(a);
    const answers = [];
    for (const url of [URL, '/api/merchants/v1/purchase%73', '/api/merchants/%761/purchases', '/api/%6Derchants/v1/purchases']) {
      answers.push(await a.post(url, minimalPurchase(), { 'idempotency-key': 'create-spellings' }));
    }
    expect(answers.map((r) => r.statusCode)).toEqual([201, 201, 201, 201]);
    expect(new Set(answers.map((r) => r.json().id)).size).toBe(1);
    expect(await purchasesOf(a)).toBe(before + 1);
    const other = await a.post('/api/merchants/v1/purchase%73', minimalPurchase({ amount: 30_001 }), { 'idempotency-key': 'create-spellings' });
    expect(other.statusCode).toBe(422);
  });

  it('creates one purchase for one key on every spelling of a purchase_link URL, merchant_uid in any case', async () => {
    const offer = a.offer('SHARED');
    const body = { data: { title: 'Bike', amountCents: 5000, email: 'l@example.com' } };
    const before = await purchasesOf(a);
    const answers = [];
    for (const url of [
      `/api/merchants/${offer}/purchase_link`,
      `/api/merchants/${offer}/purchase%5Flink`,
      `/api/merchants/${offer.toUpperCase().replace('MER_', 'mer_')}/purchase_link`,
    ]) {
      answers.push(await a.post(url, body, { 'idempotency-key': 'link-spellings' }));
    }
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((r) => r.json().purchase_uid ?? JSON.stringify(r.json()))).size).toBe(1);
    expect(await purchasesOf(a)).toBe(before + 1);
  });

  it('keeps one key of two purchases apart: a refund of another purchase under the same key is its own', async () => {
    const [x, y] = [await paid(), await paid()];
    const key = { 'idempotency-key': `two-purchases-${x}` };
    expect((await a.post(`${URL}/${x}/refunds`, { amount: 500 }, key)).statusCode).toBe(201);
    const theirs = await a.post(`${URL}/${y}/refunds`, { amount: 500 }, key);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect([await refundsOf(x), await refundsOf(y)]).toEqual([1, 1]);
  });
});

describe('migration 020 (idempotency scope)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase({ empty: true });
    await migrate(
      db,
      bundledMigrations().filter((m) => m.version < 20),
    );
  });
  afterAll(() => db.close());

  it('copies live keys of the plain URLs to their new scope, leaves old rows harmless, and skips expired ones', async () => {
    const account = newUuid();
    await db.query("INSERT INTO accounts (id, name) VALUES ($1, 'Migration')", [account]);
    const purchase = newUuid();
    const offer = newUuid();
    const rows: [string, string, string][] = [
      [`POST /api/merchants/v1/purchases/${purchase}/refunds`, 'k1', '1 day'],
      [`POST /api/backoffice/purchases/pur_${purchase.toUpperCase()}/refunds`, 'k2', '1 day'],
      [`POST /api/merchants/mer_${offer}/purchase_link`, 'k3', '1 day'],
      ['POST /api/merchants/v1/purchases', 'k4', '1 day'],
      [`POST /api/merchants/v1/purchases/${purchase}/refund%73`, 'k5', '1 day'],
      [`POST /api/merchants/v1/purchases/${purchase}/refunds`, 'k6', '-1 hour'],
    ];
    for (const [endpoint, key, ttl] of rows) {
      await db.query(
        `INSERT INTO idempotency_keys (account_id, endpoint, key, request_hash, response_status, response_body, expires_at)
         VALUES ($1, $2, $3, 'h', 201, '{}', now() + $4::interval)`,
        [account, endpoint, key, ttl],
      );
    }
    expect(await migrate(db)).toEqual(
      bundledMigrations()
        .filter((m) => m.version >= 20)
        .map((m) => m.version),
    );
    const { rows: after } = await db.query<{ scope: string; key: string }>('SELECT scope, key FROM idempotency_keys WHERE account_id = $1', [account]);
    const scopes = (key: string) =>
      after
        .filter((r) => r.key === key)
        .map((r) => r.scope)
        .sort();
    expect(scopes('k1')).toEqual([`POST /api/merchants/v1/purchases/${purchase}/refunds`, `POST /api/merchants/v1/purchases/:id/refunds id=${purchase}`].sort());
    expect(scopes('k2')).toEqual([`POST /api/backoffice/purchases/:id/refunds id=${purchase}`, `POST /api/backoffice/purchases/pur_${purchase.toUpperCase()}/refunds`].sort());
    expect(scopes('k3')).toEqual([`POST /api/merchants/:merchant_uid/purchase_link merchant_uid=mer_${offer}`, `POST /api/merchants/mer_${offer}/purchase_link`].sort());
    expect(scopes('k4')).toEqual(['POST /api/merchants/v1/purchases']);
    expect(scopes('k5')).toHaveLength(1);
    expect(scopes('k6')).toHaveLength(1);
  });
});
