import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
});
afterAll(() => app?.close());

describe('chipin.js', () => {
  it('is served minified (< 10 KB), versioned and immutable, with the SRI hash docs/front-end.md prints', async () => {
    const v1 = await app.server.inject('/sdk/v1/chipin.js');
    expect(v1.statusCode).toBe(200);
    expect(v1.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(v1.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(v1.headers['access-control-allow-origin']).toBe('*');
    expect(v1.rawPayload.length).toBeLessThan(10 * 1024);
    const integrity = `sha384-${createHash('sha384').update(v1.rawPayload).digest('base64')}`;
    expect(v1.headers['x-chipin-integrity']).toBe(integrity);
    const docs = readFileSync(new URL('../../docs/front-end.md', import.meta.url), 'utf8');
    expect(docs.match(/sha384-[A-Za-z0-9+/=]+/g)).toEqual([integrity]);

    const latest = await app.server.inject('/sdk/chipin.js');
    expect(latest.headers['cache-control']).toBe('public, max-age=300');
    expect(latest.body).toBe(v1.body);
  });

  it('is not in the OpenAPI document', async () => {
    expect((await app.server.inject('/api/openapi.json')).body).not.toContain('/sdk/');
  });
});

describe('the Pledg script', () => {
  it('is served at the paths of the original plugin.min.js, master and staging with the same bytes, under a short cache, to any origin', async () => {
    const master = await app.server.inject('/ecard-plugin/master/plugin.min.js');
    const staging = await app.server.inject('/ecard-plugin/staging/plugin.min.js');
    for (const res of [master, staging]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['x-chipin-integrity']).toBe(`sha384-${createHash('sha384').update(res.rawPayload).digest('base64')}`);
    }
    expect(staging.body).toBe(master.body);
    expect(master.body).toContain('window.Pledg=');
    // docs/front-end.md states its size.
    expect(master.rawPayload.length).toBeLessThan(12 * 1024);
  });
});

describe('hosted pages in a frame', () => {
  async function page(path: string) {
    const res = await app.server.inject(path);
    return {
      res,
      cookie: String(res.headers['set-cookie']).split(';')[0]!,
      csrf: /name="csrf" value="([^"]+)"/.exec(res.body)![1]!,
      frame: /name="csrf_frame" value="([^"]+)"/.exec(res.body)![1]!,
    };
  }
  const card = 'holder_name=Lea&card_number=4242+4242+4242+4242&card_expiry=12%2F30&card_cvc=123';
  const post = (path: string, payload: string, headers: Record<string, string>) =>
    app.server.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload });

  it('may be framed by the merchant origin only (frame-ancestors)', async () => {
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ callback_url: 'https://shop.example/done' }))).json();
    const { res } = await page(`/pay/pur_${p.id}`);
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'self' https:\/\/shop\.example$/);
  });

  it('accept a POST without the cookie (withheld in a third-party frame) when the frame token is valid and the browser says it came from our origin', async () => {
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ callback_url: 'https://shop.example/done' }))).json();
    const path = `/pay/pur_${p.id}?embed=1`;
    const { frame, res } = await page(path);
    expect(res.body).toContain(`action="/pay/pur_${p.id}?embed=1"`);
    // No fetch metadata, no Origin, no cookie: not provably ours.
    expect((await post(path, `csrf_frame=${encodeURIComponent(frame)}&${card}`, {})).statusCode).toBe(403);
    // A cross-site POST is refused even with the frame token.
    expect((await post(path, `csrf_frame=${encodeURIComponent(frame)}&${card}`, { 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    // A token of another purchase is refused.
    const other = (await a.post('/api/merchants/v1/purchases', minimalPurchase())).json();
    const { frame: otherFrame } = await page(`/pay/pur_${other.id}`);
    expect((await post(path, `csrf_frame=${encodeURIComponent(otherFrame)}&${card}`, { 'sec-fetch-site': 'same-origin' })).statusCode).toBe(403);
    expect((await a.get(`/api/merchants/v1/purchases/${p.id}`)).json().state).toBe('INITIALIZED');
    // Same-origin (the form inside our frame): paid, and the shopper stays on our page in the frame.
    const paid = await post(path, `csrf_frame=${encodeURIComponent(frame)}&${card}`, { 'sec-fetch-site': 'same-origin' });
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe(`/pay/pur_${p.id}?embed=1`);
    const status = await app.server.inject(paid.headers.location as string);
    expect(status.body).toContain('"type":"chipin:result"');
    expect(status.body).toContain('"target":"https://shop.example"');
  });

  it('an Origin equal to ours also proves it (browsers without fetch metadata); a valid cookie does not excuse a cross-site POST', async () => {
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase())).json();
    const path = `/pay/pur_${p.id}`;
    const { frame, cookie, csrf } = await page(path);
    expect((await post(path, `csrf=${encodeURIComponent(csrf)}&${card}`, { cookie, 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect((await post(path, `csrf_frame=${encodeURIComponent(frame)}&${card}`, { origin: 'https://evil.example' })).statusCode).toBe(403);
    const paid = await post(path, `csrf_frame=${encodeURIComponent(frame)}&${card}`, { origin: new URL(app.services.config.publicUrl).origin });
    expect(paid.statusCode).toBe(303);
  });

  it("/purchase's refusal, inside the Pledg script's frame, is posted to parent_origin as chipin:invalid-request; without embed nothing is posted", async () => {
    const frameData = (body: string) => /<script type="application\/json" id="chipin-frame">(.*?)<\/script>/.exec(body)?.[1];
    const refused = await app.server.inject('/purchase?amountCents=100&embed=1&parent_origin=https%3A%2F%2Fshop.example');
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-security-policy']).toMatch(/frame-ancestors 'self' https:\/\/shop\.example$/);
    const data = JSON.parse(frameData(refused.body)!);
    expect(data).toEqual({
      target: 'https://shop.example',
      purchase_uid: '',
      embed: false,
      message: { chipin: 1, type: 'chipin:invalid-request', message: expect.stringContaining('merchantUid') },
    });
    expect(refused.body).toContain('/assets/result.js');
    const plain = await app.server.inject('/purchase?amountCents=100&parent_origin=https%3A%2F%2Fshop.example');
    expect(plain.statusCode).toBe(400);
    expect(frameData(plain.body)).toBeUndefined();
  });

  it('an aborted purchase tells the embedding page purchase_aborted, with a JWT', async () => {
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ callback_url: 'https://shop.example/done' }))).json();
    expect((await a.post(`/api/purchases/pur_${p.id}/abort`)).statusCode).toBeLessThan(300);
    const res = await app.server.inject(`/pay/pur_${p.id}?embed=1`);
    const data = JSON.parse(/<script type="application\/json" id="chipin-frame">(.*?)<\/script>/.exec(res.body)![1]!);
    expect(data).toMatchObject({ target: 'https://shop.example', embed: true, message: { type: 'chipin:error', error: { code: 'purchase_aborted', retryable: false } } });
    expect(data.message.jwt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(res.body).toContain('/assets/result.js');
  });
});

describe('sandbox demo shop', () => {
  it('is not served in production', async () => {
    const prod = await startTestApp({ env: 'production', publicUrl: 'https://chipin.example' });
    try {
      expect((await prod.server.inject('/sandbox/demo-shop')).statusCode).toBe(404);
      expect((await prod.server.inject('/sdk/v1/chipin.js')).statusCode).toBe(200);
    } finally {
      await prod.close();
    }
  });
});
