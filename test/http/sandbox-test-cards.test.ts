/**
 * The test cards of the original provider's integration guide ("Tests"), paid on the hosted
 * checkout against the built-in sandbox PSP (docs/psp-connectors.md#test-cards): each behaves as
 * the guide says. Its expiry, 02/22, is past: the card is refused as expired, any future one works.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEXT } from '../../src/pages/texts.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
});
afterAll(() => app.close());

const FUTURE = `02/${(new Date().getUTCFullYear() + 3) % 100}`;

/** A 3x purchase paid on its checkout page with `card`, CVC 222 as the guide says. */
async function payOnPage(card: string, expiry = FUTURE) {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: a.offer('INSTALLMENTS', 3), amount: 30_000 }))).json() as {
    id: string;
    payment_url: string;
  };
  const path = new URL(p.payment_url).pathname;
  const page = await app.server.inject(path);
  const cookie = String(page.headers['set-cookie']).split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
  const res = await app.server.inject({
    method: 'POST',
    url: path,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf, holder_name: 'Test Shopper', card_number: card, card_expiry: expiry, card_cvc: '222' }).toString(),
  });
  return { id: p.id, res };
}
const stateOf = async (id: string) => (await a.get(`/api/merchants/v1/purchases/pur_${id}`)).json().state as string;
const pspDeclines = async (id: string) =>
  (await app.services.db.query<{ decline_reason: string | null }>('SELECT decline_reason FROM payments WHERE purchase_id = $1', [id])).rows.map((r) => r.decline_reason);

it('4000 0566 5566 5556 (no 3-D Secure): accepted at once, the first installment paid', async () => {
  const { id, res } = await payOnPage('4000 0566 5566 5556');
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  expect(res.headers.location).toBe(`/pay/pur_${id}`);
  expect(await stateOf(id)).toBe('LEADER_PROCESSED');
});

it('4000 0000 0000 3063 (3-D Secure required): the challenge opens, and once completed the payment succeeds', async () => {
  const { id, res } = await payOnPage('4000000000003063');
  expect(res.statusCode).toBe(303);
  const challenge = new URL(String(res.headers.location)).pathname;
  expect(challenge).toMatch(/^\/sandbox-psp\/challenge\//);
  expect(await stateOf(id)).toBe('INITIALIZED');
  const token = /name="token" value="([^"]+)"/.exec((await app.server.inject(challenge)).body)![1]!;
  const done = await app.server.inject({
    method: 'POST',
    url: challenge,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ outcome: 'complete', token }).toString(),
  });
  expect(done.statusCode).toBe(303);
  // Back to Chipin's return page, as the shopper's browser follows the PSP's redirect.
  const returned = new URL(String(done.headers.location));
  expect((await app.server.inject(returned.pathname + returned.search)).statusCode).toBeLessThan(400);
  expect(await stateOf(id)).toBe('LEADER_PROCESSED');
});

it('378282246310005 (an Amex without 3-D Secure): refused authentication_failed, nothing paid; the page says why and to use another card, not to try again', async () => {
  const { id, res } = await payOnPage('378282246310005');
  expect(res.statusCode).toBe(402);
  expect(res.body).toContain(TEXT.en.errors.authentication_unsupported);
  expect(res.body).not.toContain(TEXT.en.errors.authentication_failed);
  expect(TEXT.en.errors.authentication_unsupported).toMatch(/does not support 3-D Secure.*Use another card\.$/);
  expect(TEXT.en.errors.authentication_unsupported).not.toMatch(/try again/i);
  expect(await pspDeclines(id)).toEqual(['authentication_failed']);
  expect(await stateOf(id)).toBe('INITIALIZED');
});

it("the guide's expiry 02/22 is past: refused as expired on the card's expiry field", async () => {
  const { id, res } = await payOnPage('4000056655665556', '02/22');
  expect(res.statusCode).toBe(402);
  expect(res.body).toContain(TEXT.en.errors.expired_card);
  expect(res.body).toMatch(/id="card_expiry"[^>]*aria-invalid="true"/);
  expect(await stateOf(id)).toBe('INITIALIZED');
});
