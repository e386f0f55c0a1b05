/**
 * The hostile inputs of the fuzzing report, one by one (the generated cases: fuzz.test.ts): each
 * is refused in its API family's format, naming the field or the limit, with a request id.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startTestApp, type TestApp } from '../helpers/app.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';

let app: TestApp;
let a: Caller;
let base: string;

beforeAll(async () => {
  app = await startTestApp();
  [a] = await twoMerchants(app);
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  base = `127.0.0.1:${(app.server.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await app?.close();
});

async function count(table: string): Promise<number> {
  const { rows } = await app.services.db.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]!.n);
}

/** Raw bytes to the listening server; the whole answer as text. */
function raw(bytes: string | Buffer): Promise<string> {
  const [host, port] = base.split(':') as [string, string];
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), host);
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (out += d));
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

describe('text: NUL and unpaired surrogates', () => {
  it('Merchant API v1: a NUL in title is 406 naming the field; nothing stored', async () => {
    const before = await count('purchases');
    const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ title: 'Lis\u0000bon' }));
    expect(res.statusCode).toBe(406);
    expect(res.json()).toEqual({ error: { code: 'invalid_input', message: 'field title contains a NUL character (U+0000)' } });
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(await count('purchases')).toBe(before);
  });

  it('Token API: an unpaired surrogate in purchase_link metadata is 400 naming the field', async () => {
    const res = await app.server.inject({
      method: 'POST',
      url: `/api/merchants/${a.offer('SHARED')}/purchase_link`,
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
      payload: '{"data":{"title":"T","amountCents":10000,"email":"l@example.com","metadata":{"note":"\\ud800"}}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ app_error: 'invalid_request', debug: 'field data.metadata.note contains an unpaired UTF-16 surrogate (not valid Unicode text)' });
  });

  it('a NUL in a list filter (ref) is refused, naming the query field', async () => {
    const res = await a.get('/api/merchants/v1/purchases?ref=A%00B');
    expect(res.statusCode).toBe(406);
    expect(res.json().error.message).toBe('querystring field ref contains a NUL character (U+0000)');
  });

  it("a NUL in a pledger's name (sandbox helper) is refused", async () => {
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json() as { id: string };
    const res = await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, {
      card_number: '4242 4242 4242 4242',
      pledgers: [{ email: 'ann@example.com', name: 'A\u0000', amount_cents: 3_000 }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.debug).toBe('field pledgers[0].name contains a NUL character (U+0000)');
  });
});

describe('credentials: NUL before authentication', () => {
  it('POST /api/token: a NUL in Basic credentials is 400 (RFC 6749 body) and counts as a failed attempt', async () => {
    const send = (authorization: string) =>
      app.server.inject({
        method: 'POST',
        url: '/api/token',
        remoteAddress: '10.9.9.9',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      });
    const first = await send(basic('key%00', 'x'));
    expect(first.statusCode).toBe(400);
    expect(first.json()).toEqual({ error: 'invalid_request', error_description: 'the client_id contains a NUL character (U+0000)' });
    let last = first;
    for (let i = 0; i < 40 && last.statusCode !== 429; i++) last = await send('Basic ' + Buffer.from([0x6b, 0x00, 0x3a, 0x00]).toString('base64'));
    expect(last.statusCode, 'the address is throttled after repeated NUL attempts').toBe(429);
  });

  it('dashboard routes: a NUL in the Basic password is 400 and counts against the address budget', async () => {
    const send = () =>
      app.server.inject({ method: 'GET', url: '/api/backoffice/deliveries', remoteAddress: '10.8.8.8', headers: { authorization: basic(a.merchant.email, 'pw\u0000') } });
    const first = await send();
    expect(first.statusCode).toBe(400);
    expect(first.json().error.debug).toBe('the password of the Authorization header contains a NUL character (U+0000)');
    let last = first;
    for (let i = 0; i < 40 && last.statusCode !== 429; i++) last = await send();
    expect(last.statusCode).toBe(429);
  });
});

describe('size, depth and dates', () => {
  it('5,000 levels of JSON under data.metadata are 400 naming the limit', async () => {
    const deep = '['.repeat(5_000) + ']'.repeat(5_000);
    const res = await app.server.inject({
      method: 'POST',
      url: `/api/merchants/${a.offer('SHARED')}/purchase_link`,
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
      payload: `{"data":{"title":"T","amountCents":10000,"email":"l@example.com","metadata":{"x":${deep}}}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.debug).toBe('request body nests deeper than 32 levels');
  });

  it('a body over the limit is 413 naming the limit', async () => {
    const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ description: 'x'.repeat(300_000) }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: { code: 'payload_too_large', message: 'request body is larger than 262144 bytes' } });
  });

  it.each(['2026-06-30T23:59:60Z', '0000-01-01T00:00:00Z'])('created_to=%s is 406 naming the field', async (date) => {
    const res = await a.get(`/api/merchants/v1/purchases?created_to=${encodeURIComponent(date)}`);
    expect(res.statusCode).toBe(406);
    expect(res.json().error.message).toMatch(/^querystring field created_to must match format "date-time"/);
  });

  it('hand-made cursors with out-of-range dates are refused (v1 list and back-office deliveries)', async () => {
    for (const iso of ['0000-01-01T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '-000001-01-01T00:00:00.000Z']) {
      const v1 = await a.get(`/api/merchants/v1/purchases?cursor=${Buffer.from(`${iso}|00000000-0000-4000-8000-000000000000`).toString('base64url')}`);
      expect(v1.statusCode, iso).toBe(406);
      const bo = await app.server.inject({
        method: 'GET',
        url: `/api/backoffice/deliveries?cursor=${Buffer.from(`${iso}|1|00000000-0000-4000-8000-000000000000`).toString('base64url')}`,
        headers: { authorization: a.dashboard },
      });
      expect(bo.statusCode, iso).toBe(400);
    }
  });
});

describe('refusals before routing', () => {
  it('a path parameter over 100 characters: 414 in the family format with a request id', async () => {
    const res = await a.get(`/api/merchants/v1/purchases/${'a'.repeat(101)}`);
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual({ error: { code: 'invalid_input', message: 'a path parameter is longer than 100 characters' } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each(['%ZZ', '%C0%AE'])('bad percent-encoding (%s) in a path parameter: 400 in the Token API format with a request id', async (bad) => {
    const res = await app.server.inject({ method: 'POST', url: `/api/purchases/${bad}/abort`, headers: { authorization: `Bearer ${a.token}` } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { app_error: 'invalid_request', debug: 'the path is not valid percent-encoded UTF-8', info: expect.any(String) } });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('the HTTP parser: a malformed request and oversized headers answer in the family format with x-request-id', async () => {
    const bad = await raw('GET /api/merchants/v1/purchases HTTP/1.1\r\nHost: x\r\nBad Header: \x01\r\n\r\n');
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    expect(bad).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    // The security headers of every answer (docs/security.md#security-headers), these included.
    expect(bad).toMatch(/\r\nx-content-type-options: nosniff\r\nreferrer-policy: no-referrer\r\n/);
    expect(JSON.parse(bad.slice(bad.indexOf('\r\n\r\n') + 4))).toEqual({ error: { code: 'invalid_input', message: 'the request is not valid HTTP' } });

    const big = await raw(`GET /api/whoami HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(big).toMatch(/\r\nx-request-id: /);
    expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4)).error.app_error).toBe('invalid_request');
  });
});
