import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMove } from '../../src/purchases/transitions.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = await twoMerchants(app);
});
afterAll(() => app.close());

async function newPurchase(c: Caller): Promise<string> {
  return (await c.post('/api/merchants/v1/purchases', minimalPurchase())).json().id;
}

const events = async (id: string) =>
  (
    await app.services.db.query<{ type: string; from_state: string | null; to_state: string }>(
      'SELECT type, from_state, to_state FROM purchase_events WHERE purchase_id = $1 ORDER BY id',
      [id],
    )
  ).rows;

describe('POST /api/purchases/<purchase_uid>/abort', () => {
  it('aborts a CREATED purchase: 200 {purchase_uid, state: ABORTED}, v1 shows CANCELLED, event written', async () => {
    const id = await newPurchase(a);
    const res = await a.post(`/api/purchases/pur_${id}/abort`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ purchase_uid: `pur_${id}`, state: 'ABORTED' });
    const v1 = (await a.get(`/api/merchants/v1/purchases/${id}`)).json();
    expect(v1.state).toBe('CANCELLED');
    expect(v1.comment).toMatch(/aborted by the merchant/i);
    expect(await events(id)).toEqual([
      { type: 'purchase.created', from_state: null, to_state: 'CREATED' },
      { type: 'purchase.aborted', from_state: 'CREATED', to_state: 'ABORTED' },
    ]);
  });

  it('answers 409 purchase_already_aborted the second time, in the Token API error format', async () => {
    const id = await newPurchase(a);
    await a.post(`/api/purchases/pur_${id}/abort`);
    const res = await a.post(`/api/purchases/pur_${id}/abort`, undefined, { 'accept-language': 'fr' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: { app_error: 'purchase_already_aborted', debug: expect.any(String), info: expect.any(String) } });
  });

  it('answers 409 purchase_non_abortable once the leader has paid', async () => {
    const id = await newPurchase(a);
    await app.services.db.transaction((tx) => applyMove(tx, app.services.clock, a.merchant.account_id.slice(4), id, 'leaderProcessed'));
    const res = await a.post(`/api/purchases/pur_${id}/abort`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.app_error).toBe('purchase_non_abortable');
    expect((await a.get(`/api/merchants/v1/purchases/${id}`)).json().state).toBe('LEADER_PROCESSED');
  });

  it('localises info from the purchase language', async () => {
    const link = await a.post(`/api/merchants/${a.offer('SHARED')}/purchase_link`, {
      data: { title: 'Vélo', amountCents: 1000, email: 'x@example.com', language: 'fr_FR' },
    });
    const uid = link.json().purchase_uid;
    await a.post(`/api/purchases/${uid}/abort`);
    const res = await a.post(`/api/purchases/${uid}/abort`, undefined, { 'accept-language': 'en' });
    expect(res.json().error.info).toBe('Cet achat a déjà été annulé.');
  });

  it("answers 404 for unknown, malformed and other merchants' purchases, and leaves theirs untouched", async () => {
    const theirs = await newPurchase(b);
    for (const uid of [`pur_${theirs}`, 'pur_00000000-0000-4000-8000-000000000000', theirs, 'pur_nope']) {
      const res = await a.post(`/api/purchases/${uid}/abort`);
      expect(res.statusCode, uid).toBe(404);
      expect(res.json().error.app_error).toBe('not_found');
    }
    expect((await b.get(`/api/merchants/v1/purchases/${theirs}`)).json().state).toBe('INITIALIZED');
  });

  it('answers 401 with bad credentials', async () => {
    const id = await newPurchase(a);
    const res = await app.server.inject({ method: 'POST', url: `/api/purchases/pur_${id}/abort`, headers: { authorization: 'Bearer nope' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.app_error).toBe('invalid_token');
  });

  it('accepts an empty JSON body', async () => {
    const id = await newPurchase(a);
    const res = await a.post(`/api/purchases/pur_${id}/abort`, undefined, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(200);
  });

  it('concurrent aborts of one purchase: exactly one 200, the others 409 already aborted, one event', async () => {
    const id = await newPurchase(a);
    const results = await Promise.all(Array.from({ length: 8 }, () => a.post(`/api/purchases/pur_${id}/abort`)));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.statusCode === 409)) expect(r.json().error.app_error).toBe('purchase_already_aborted');
    expect((await events(id)).filter((e) => e.type === 'purchase.aborted')).toHaveLength(1);
  });
});
