/**
 * What existing integrations send and Chipin takes: `metadata` and `language` on
 * Merchant API v1, a JSON body without a Content-Type header, an `exp` in the trigger_capture
 * signature, and identification by reference.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHs256 } from '../../src/delivery/jwt.ts';
import { leaderFrontResult } from '../../src/use-cases/checkout/leader-front-result.ts';
import { findPurchase } from '../../src/purchases/purchase-repository.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL, Receiver, TEST_DELIVERY } from '../delivery/helpers.ts';

const OK = '4242424242424242';

let app: TestApp;
let a: Caller;
let receiver: Receiver;
beforeAll(async () => {
  app = await startTestApp(NO_JOB_POLL, { delivery: TEST_DELIVERY });
  [a] = await twoMerchants(app);
  receiver = await Receiver.start();
  await app.server.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

describe('Merchant API v1: metadata and language', () => {
  it('stores metadata and language; metadata reaches the back-mode notification and the front-end result', async () => {
    const res = await a.post(
      '/api/merchants/v1/purchases',
      minimalPurchase({ amount: 10_000, ref: 'ORDER-M', metadata: { cart: 'c-9', items: [1, 2] }, language: 'fr_FR', paymentNotificationUrl: receiver.url('/n') }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    const purchase = (await findPurchase(app.services.db, a.accountId, id))!;
    expect(purchase).toMatchObject({ language: 'fr_FR', metadata: { cart: 'c-9', items: [1, 2] } });
    expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK })).statusCode).toBe(200);
    await app.services.deliveries.worker.runDue();
    const note = JSON.parse(receiver.received.find((r) => r.path === '/n')!.body);
    expect(note).toMatchObject({ metadata: { cart: 'c-9', items: [1, 2] }, reference: 'ORDER-M', status: 'completed' });
    const front = await leaderFrontResult(app.services.payments, purchase);
    expect(front!.result.purchase.meta_data).toEqual({ cart: 'c-9', items: [1, 2] });
  });

  it('refuses with 406 naming the field: more than 50 keys, more than 8 KB, not an object, a bad language', async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    const big = { blob: 'x'.repeat(8 * 1024) };
    for (const [over, field] of [
      [{ metadata: many }, 'metadata'],
      [{ metadata: big }, 'metadata'],
      [{ metadata: ['a'] }, 'metadata'],
      [{ language: 'french' }, 'language'],
    ] as const) {
      const res = await a.post('/api/merchants/v1/purchases', minimalPurchase(over));
      expect(res.statusCode, JSON.stringify(over).slice(0, 40)).toBe(406);
      expect(res.json().error.message).toContain(`field ${field}`);
    }
  });
});

describe('a JSON body without Content-Type', () => {
  it("is read as JSON on the API (the plugin's simulation request, a purchase creation); an explicit other type still gets 415", async () => {
    const url = `/api/users/me/merchants/${a.offer('INSTALLMENTS', 3)}/simulate_payment_schedule`;
    const payload = JSON.stringify({ amount_cents: 30_000, created: '2026-01-31' });
    const bare = await app.server.inject({ method: 'POST', url, payload });
    expect(bare.statusCode, bare.body).toBe(200);
    const typed = await app.server.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
    expect(bare.body).toBe(typed.body);
    const xmlTyped = await app.server.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/xml' } });
    expect(xmlTyped.statusCode).toBe(415);
    expect(xmlTyped.json().error.app_error).toBe('unsupported_media_type');
    // text/plain (a browser's string body, no preflight) is JSON on the simulation, as the plugins post it from checkout pages...
    const plain = await app.server.inject({ method: 'POST', url, payload, headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    expect(plain.body).toBe(typed.body);

    const created = await app.server.inject({
      method: 'POST',
      url: '/api/merchants/v1/purchases',
      headers: { authorization: `Bearer ${a.token}` },
      payload: JSON.stringify(minimalPurchase()),
    });
    expect(created.statusCode, created.body).toBe(201);
    const broken = await app.server.inject({ method: 'POST', url: '/api/merchants/v1/purchases', headers: { authorization: `Bearer ${a.token}` }, payload: '{nope' });
    expect(broken.statusCode).toBe(406);
    const xml = await app.server.inject({
      method: 'POST',
      url: '/api/merchants/v1/purchases',
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expect(xml.statusCode).toBe(415);
    // ...and any other type elsewhere: 415, the body unread.
    const plainElsewhere = await app.server.inject({
      method: 'POST',
      url: '/api/merchants/v1/purchases',
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'text/plain' },
      payload: JSON.stringify(minimalPurchase()),
    });
    expect(plainElsewhere.statusCode).toBe(415);
  });

  it("an empty Content-Type header, as the plugin's HTTP client sends it, is read like an absent one (simulation, purchase creation)", async () => {
    const simulation = `/api/users/me/merchants/${a.offer('INSTALLMENTS', 3)}/simulate_payment_schedule`;
    const payload = JSON.stringify({ amount_cents: 30_000, created: '2026-01-31' });
    const bare = await app.server.inject({ method: 'POST', url: simulation, payload });
    for (const empty of ['', '   ']) {
      const answer = await rawPost(simulation, payload, [`Content-Type:${empty}`]);
      expect(answer.status, answer.body).toBe(200);
      expect(answer.body).toBe(bare.body);
      const created = await rawPost('/api/merchants/v1/purchases', JSON.stringify(minimalPurchase()), [`Content-Type:${empty}`, `Authorization: Bearer ${a.token}`]);
      expect(created.status, created.body).toBe(201);
    }
    // An empty body with an empty type is an absent body, as without the header: the schema's 400.
    expect((await rawPost(simulation, '', ['Content-Type:'])).status).toBe(400);
  });

  it('the token endpoint still wants a form (400), and an unknown route still answers 404', async () => {
    const token = await app.server.inject({ method: 'POST', url: '/api/token', payload: 'grant_type=client_credentials' });
    expect(token.statusCode).toBe(400);
    const nowhere = await app.server.inject({ method: 'POST', url: '/api/nowhere', payload: '{}', headers: { 'content-type': 'text/plain' } });
    expect(nowhere.statusCode).toBe(404);
  });
});

/**
 * A POST written byte by byte on a socket, so that a header given as `Content-Type:` reaches the
 * server exactly so, empty; the status and body of the answer.
 */
function rawPost(path: string, body: string, headers: string[]): Promise<{ status: number; body: string }> {
  const { port } = app.server.server.address() as { port: number };
  const request = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', `Content-Length: ${Buffer.byteLength(body)}`, ...headers, '', body].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (out += d));
    socket.on('close', () => {
      const [head = '', ...rest] = out.split('\r\n\r\n');
      const text = rest.join('\r\n\r\n');
      // Chunked answers: the chunk sizes are not part of the body.
      const chunked = /transfer-encoding: chunked/i.test(head);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: chunked ? dechunk(text) : text });
    });
    socket.on('error', reject);
    // Written, not ended: a half-closed socket is a client gone, whose request the service abandons.
    // `Connection: close` makes the server close once it has answered.
    socket.write(request);
  });
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

describe('trigger_capture', () => {
  const secret = () => a.merchant.offers.find((o) => o.type === 'DEFERRED')!.secret;
  const trigger = (token: string) => app.server.inject({ method: 'POST', url: `/api/trigger_capture/?signature=${encodeURIComponent(token)}` });
  async function deferred(ref: string): Promise<string> {
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: a.offer('DEFERRED'), amount: 12_000, ref }))).json();
    expect((await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: OK })).json().state).toBe('LEADER_PROCESSED');
    return p.id;
  }

  it('refuses a signature whose exp has passed (400), and captures with one still valid', async () => {
    const id = await deferred('ORDER-EXP');
    const now = Math.floor(Date.now() / 1000);
    const expired = await trigger(signHs256({ merchantUid: a.offer('DEFERRED'), purchaseUid: `pur_${id}`, exp: now - 5 }, secret()));
    expect(expired.statusCode).toBe(400);
    expect(expired.json().error).toMatchObject({ app_error: 'invalid_signature', debug: 'the signed payload has expired (exp)' });
    const bogus = await trigger(signHs256({ merchantUid: a.offer('DEFERRED'), purchaseUid: `pur_${id}`, exp: 'tomorrow' }, secret()));
    expect(bogus.statusCode).toBe(400);
    const valid = await trigger(signHs256({ merchantUid: a.offer('DEFERRED'), purchaseUid: `pur_${id}`, exp: now + 300 }, secret()));
    expect(valid.json()).toEqual({ purchase_uid: `pur_${id}`, state: 'SUCCESSFUL' });
  });

  it('identifies the purchase by merchantUid + reference as well as by purchaseUid', async () => {
    const id = await deferred('ORDER-REF-7');
    const res = await trigger(signHs256({ merchantUid: a.offer('DEFERRED'), reference: 'ORDER-REF-7', exp: Math.floor(Date.now() / 1000) + 60 }, secret()));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ purchase_uid: `pur_${id}`, state: 'SUCCESSFUL' });
  });
});
