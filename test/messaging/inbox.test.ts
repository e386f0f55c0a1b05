import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twoMerchants, type Caller } from '../helpers/api.ts';
import { basic, getToken, newMerchant, startTestApp, type TestApp } from '../helpers/app.ts';
import { insertPurchaseRow, linkMessage } from './fixtures.ts';
import { signIn } from '../helpers/dashboard.ts';

const HOSTILE = '<script>alert(1)</script>';

let app: TestApp;
let a: Caller;
let b: Caller;
let aPurchases: string[];
let bPurchase: string;

beforeAll(async () => {
  // Sandbox without SMTP_URL or SMS gateway: the recording transport and the sandbox gateway.
  app = await startTestApp();
  [a, b] = await twoMerchants(app, ['Shop A', 'Shop B']);
  const a1 = await insertPurchaseRow(app, a.merchant);
  const a2 = await insertPurchaseRow(app, a.merchant);
  const b1 = await insertPurchaseRow(app, b.merchant);
  aPurchases = [a1.purchaseId, a2.purchaseId];
  bPurchase = b1.purchaseId;
  const { messenger } = app.services;
  expect(await messenger.sendPurchaseLinkEmail('first-a@example.test', linkMessage(a1, { merchantName: 'Shop A', title: HOSTILE }))).toBe(true);
  await new Promise((r) => setTimeout(r, 5));
  expect(await messenger.sendPurchaseLinkSms('+33612345678', linkMessage(a2, { merchantName: 'Shop A', language: 'en_GB' }))).toBe(true);
  await new Promise((r) => setTimeout(r, 5));
  expect(await messenger.sendPurchaseLinkEmail('latest-a@example.test', linkMessage(a2, { merchantName: 'Shop A', language: 'en_GB' }))).toBe(true);
  expect(await messenger.sendPurchaseLinkEmail('only-b@example.test', linkMessage(b1, { merchantName: 'Shop B' }))).toBe(true);
});
afterAll(async () => {
  await app?.close();
});

const inbox = (authorization?: string) => app.server.inject({ method: 'GET', url: '/sandbox/inbox', headers: authorization ? { authorization } : {} });

describe('GET /sandbox/inbox (HTML, dashboard Basic auth)', () => {
  it('asks for Basic credentials without them, and refuses wrong ones', async () => {
    for (const res of [
      await inbox(),
      await inbox('Bearer abc'),
      await inbox('Basic !!!'),
      await inbox(basic(a.merchant.email, 'wrong password')),
      await inbox(basic('nobody@shop.test', a.merchant.password)),
      await inbox(basic(b.merchant.email, a.merchant.password)),
    ]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="Chipin sandbox"');
      expect(res.body).not.toContain('example.test');
    }
  });

  it("lists only the signed-in merchant's messages, newest first, escaped, links clickable", async () => {
    const res = await inbox(basic(a.merchant.email.toUpperCase(), a.merchant.password));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'unsafe-inline'/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    const html = res.body;
    expect(html).toContain('Shop A');
    expect(html).not.toContain('only-b@example.test');
    expect(html).not.toContain(bPurchase);
    // newest first
    const order = ['latest-a@example.test', '+33612345678', 'first-a@example.test'].map((r) => html.indexOf(r));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    // the merchant's hostile title is shown as text, never as markup
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // the payment link is a link
    const url = `http://127.0.0.1:3000/pay/pur_${aPurchases[0]}`;
    expect(html).toContain(`<a href="${url}" rel="noopener noreferrer">${url}</a>`);
    expect(html).toContain('accepted: yes');
    expect(html).toContain('SMS');
    // no third-party (or any external) asset
    expect(html).not.toMatch(/<(script|link|img|iframe)\b/i);

    const other = await inbox(b.dashboard);
    expect(other.statusCode).toBe(200);
    expect(other.body).toContain('only-b@example.test');
    expect(other.body).not.toContain('-a@example.test');
  });

  it("a signed-in user reads it as a back-office page, with its menu, in their language; only their account's messages", async () => {
    const s = await signIn(app, a.merchant);
    const fr = await app.server.inject({ method: 'GET', url: '/sandbox/inbox?lang=fr', headers: { cookie: s.cookie } });
    expect(fr.statusCode).toBe(200);
    expect(fr.body).toContain('<html lang="fr"');
    expect(fr.body).toMatch(/<nav aria-label="Menu principal"/);
    expect(fr.body).toContain('<h1>Messages envoyés (sandbox)</h1>');
    expect(fr.body).toContain('à latest-a@example.test');
    expect(fr.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(fr.body).not.toContain('only-b@example.test');
    const url = `http://127.0.0.1:3000/pay/pur_${aPurchases[0]}`;
    expect(fr.body).toContain(`<a href="${url}" rel="noopener noreferrer">${url}</a>`);
    const en = await app.server.inject({ method: 'GET', url: '/sandbox/inbox?lang=en', headers: { cookie: s.cookie } });
    expect(en.body).toContain('<h1>Sandbox inbox</h1>');
    expect(en.body).toMatch(/<nav aria-label="Main menu"/);
  });

  it('throttles repeated failures for one user (429 with Retry-After)', async () => {
    const victim = await newMerchant(app, 'Shop C');
    for (let i = 0; i < 5; i++) expect((await inbox(basic(victim.email, `guess-${i}`))).statusCode).toBe(401);
    const res = await inbox(basic(victim.email, victim.password));
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('GET /api/sandbox/messages (JSON, bearer)', () => {
  const get = (url: string, token?: string) => app.server.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('needs an access token', async () => {
    const res = await get('/api/sandbox/messages');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it("answers only the caller's messages, newest first, and filters by purchase", async () => {
    const token = a.token;
    const res = await get('/api/sandbox/messages', token);
    expect(res.statusCode).toBe(200);
    const { messages } = res.json() as { messages: Record<string, unknown>[] };
    expect(messages.map((m) => m.recipient)).toEqual(['latest-a@example.test', '+33612345678', 'first-a@example.test']);
    expect(messages[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      channel: 'email',
      recipient: 'latest-a@example.test',
      subject: 'Shop A: your payment link for Trip to Lisbon',
      body: expect.stringContaining(`/pay/pur_${aPurchases[1]}`),
      accepted: true,
      error: null,
      purchase_uid: `pur_${aPurchases[1]}`,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(messages[1]).toMatchObject({ channel: 'sms', subject: null, accepted: true });

    const one = (await get(`/api/sandbox/messages?purchase_uid=pur_${aPurchases[0]}`, token)).json() as { messages: { recipient: string }[] };
    expect(one.messages.map((m) => m.recipient)).toEqual(['first-a@example.test']);
    const limited = (await get('/api/sandbox/messages?limit=1', token)).json() as { messages: { recipient: string }[] };
    expect(limited.messages.map((m) => m.recipient)).toEqual(['latest-a@example.test']);
  });

  it("never shows another merchant's messages, even asked by purchase", async () => {
    const token = a.token;
    const res = await get(`/api/sandbox/messages?purchase_uid=pur_${bPurchase}`, token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ messages: [] });
    const tokenB = b.token;
    const mine = (await get('/api/sandbox/messages', tokenB)).json() as { messages: { recipient: string }[] };
    expect(mine.messages.map((m) => m.recipient)).toEqual(['only-b@example.test']);
  });

  it('rejects invalid query parameters', async () => {
    const token = a.token;
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'purchase_uid=pur_nope', 'purchase_uid=123', 'purchaseUid=x']) {
      const res = await get(`/api/sandbox/messages?${q}`, token);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.app_error).toBe('invalid_request');
    }
  });

  it('is documented in OpenAPI under the sandbox tag; the HTML page is hidden', async () => {
    const doc = (await app.server.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, { tags?: string[] }>> };
    expect(doc.paths['/api/sandbox/messages']?.get?.tags).toEqual(['sandbox']);
    expect(doc.paths['/sandbox/inbox']).toBeUndefined();
  });
});

describe('in production', () => {
  it('serves neither the inbox page nor the messages API', async () => {
    const prod = await startTestApp({ env: 'production', publicUrl: 'https://pay.example' });
    try {
      const m = await newMerchant(prod);
      expect((await prod.server.inject({ method: 'GET', url: '/sandbox/inbox', headers: { authorization: basic(m.email, m.password) } })).statusCode).toBe(404);
      const token = await getToken(prod, m);
      expect((await prod.server.inject({ method: 'GET', url: '/api/sandbox/messages', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
