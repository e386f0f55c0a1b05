/**
 * The sandbox payment helpers' answer to a risk refusal (docs/risk.md#the-decision-at-payment-time):
 * a 402 `risk_refused` naming the reason codes, with a shopper's text, never a 500 (the error
 * code once had no text and the error body could not be written).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let c: Caller;
beforeAll(async () => {
  app = await startTestApp();
  c = await caller(app);
});
afterAll(() => app?.close());

it('a leader refused by the risk rules gets a 402 risk_refused naming the codes, nothing paid', async () => {
  const res = await app.server.inject({
    method: 'PUT',
    url: '/api/backoffice/risk_rules/account',
    headers: { authorization: c.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ blocked_emails: ['fraud@example.com'] }),
  });
  expect(res.statusCode, res.body).toBe(200);
  const purchase = (await c.post('/api/merchants/v1/purchases', minimalPurchase({ client: { email: 'fraud@example.com' } }))).json() as { id: string };
  const paid = await c.post(`/api/sandbox/purchases/pur_${purchase.id}/pay`, { card_number: '4242 4242 4242 4242' });
  expect(paid.statusCode, paid.body).toBe(402);
  expect(paid.json()).toEqual({
    error: {
      app_error: 'risk_refused',
      debug: expect.stringContaining('refused by the risk rules (BLOCKED)'),
      info: 'This way of paying is not available for this purchase with this card. Nothing was charged.',
    },
  });
  expect((await c.get(`/api/merchants/v1/purchases/${purchase.id}`)).json()).toMatchObject({ state: 'INITIALIZED' });
});
