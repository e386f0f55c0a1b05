/**
 * Expiry (docs/purchase-lifecycle.md#expiry): a purchase still unpaid after its offer's
 * `expiry_hours` (24 by default) is CANCELLED ("Expired unpaid.", purchase.cancelled), driven by
 * the sandbox clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';

const HOUR = 3_600;

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = await twoMerchants(app);
  // Set per offer: B's SHARED offer expires its purchases after 2 hours.
  await app.services.db.query("UPDATE offers SET expiry_hours = 2 WHERE account_id = $1 AND type = 'SHARED'", [b.accountId]);
});
afterAll(() => app?.close());

const advance = async (seconds: number) => expect((await a.post('/api/sandbox/clock', { advance_seconds: seconds })).statusCode).toBe(200);
const v1 = async (c: Caller, id: string) => (await c.get(`/api/merchants/v1/purchases/${id}`)).json();
const create = async (c: Caller) => (await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json().id as string;

describe(`expiry on the sandbox clock (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("expires an unpaid purchase at its offer's expiry_hours, not before; a paid one is left alone", async () => {
    const unpaid = await create(a);
    const paid = await create(a);
    expect((await a.post(`/api/sandbox/purchases/pur_${paid}/pay`, { card_number: '4242424242424242' })).json().state).toBe('SUCCESSFUL');
    const short = await create(b);

    await advance(2 * HOUR - 60);
    expect((await v1(b, short)).state).toBe('INITIALIZED');
    await advance(120);
    expect(await v1(b, short)).toMatchObject({ state: 'CANCELLED', comment: 'Expired unpaid.' });
    expect((await v1(a, unpaid)).state).toBe('INITIALIZED');

    await advance(22 * HOUR);
    expect(await v1(a, unpaid)).toMatchObject({ state: 'CANCELLED', comment: 'Expired unpaid.' });
    expect((await v1(a, paid)).state).toBe('SUCCESSFUL');
    const events = await app.services.db.query<{ type: string; from_state: string; to_state: string }>(
      "SELECT type, from_state, to_state FROM purchase_events WHERE purchase_id = $1 AND type = 'purchase.cancelled'",
      [unpaid],
    );
    expect(events.rows).toEqual([{ type: 'purchase.cancelled', from_state: 'CREATED', to_state: 'CANCELLED' }]);
  });

  it('the expired payment page says so, abort answers 409 purchase_non_abortable, and it can no longer be paid', async () => {
    const id = await create(b);
    await advance(3 * HOUR);
    const page = await app.server.inject(`/pay/pur_${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('This payment link has expired');
    const abort = await b.post(`/api/purchases/pur_${id}/abort`);
    expect(abort.statusCode).toBe(409);
    expect(abort.json().error.app_error).toBe('purchase_non_abortable');
    const pay = await b.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' });
    expect(pay.statusCode).toBe(409);
    expect((await v1(b, id)).state).toBe('CANCELLED');
  });
});
