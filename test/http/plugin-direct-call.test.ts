import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHs256 } from '../../src/delivery/jwt.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;

beforeAll(async () => {
  app = await startTestApp({ simulationRateLimit: 100_000 });
  a = await caller(app);
});
afterAll(async () => {
  await app.close();
});

const offerOf = (c: Caller, type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED' = 'INSTALLMENTS') => c.merchant.offers.find((o) => o.type === type)!;
let refs = 0;
const settings = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  merchantUid: offerOf(a).merchant_uid,
  amountCents: 30_550,
  email: 'leader@example.com',
  firstName: 'Ana',
  lastName: 'Lima',
  reference: `ORDER-${++refs}`,
  title: 'Trip to Lisbon',
  currency: 'EUR',
  lang: 'fr_FR',
  redirectUrl: 'https://shop.example/ok?order=1',
  cancelUrl: 'https://shop.example/cancel?order=1',
  ...over,
});

/** A query as PHP's http_build_query writes it: nested arrays with brackets, `true` as 1. */
function phpQuery(value: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}[${k}]` : k;
    if (v !== null && typeof v === 'object') return phpQuery(v as Record<string, unknown>, key);
    const text = v === true ? '1' : v === false ? '0' : String(v);
    return [`${encodeURIComponent(key)}=${encodeURIComponent(text)}`];
  });
}
const get = (path: string, headers: Record<string, string> = {}) => app.server.inject({ method: 'GET', url: path, headers: { 'x-forwarded-for': '203.0.113.9', ...headers } });
const call = (s: Record<string, unknown>, extra = '') => get(`/purchase?${phpQuery(s).join('&')}${extra}`);
const purchaseOf = async (location: string) => {
  const uid = /\/pay\/(pur_[0-9a-f-]{36})/.exec(location)![1]!;
  return (await a.get(`/api/merchants/v1/purchases/${uid.slice(4)}`)).json();
};

describe('GET /purchase: the direct call of the front', () => {
  it('creates the purchase from query settings and answers 303 to its hosted checkout, in embed mode when asked', async () => {
    const res = await call(settings(), '&embed=1&parent_origin=https%3A%2F%2Fshop.example');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/pay\/pur_[0-9a-f-]{36}\?embed=1$/);
    const v1 = await purchaseOf(res.headers.location as string);
    expect(v1).toMatchObject({ amount: 30_550, currency: 'EUR', title: 'Trip to Lisbon', state: 'INITIALIZED' });
    const page = await get(res.headers.location as string);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'self' https://shop.example");
  });

  it('reads a signed call (JWT of {data}) with the offer secret', async () => {
    const token = signHs256({ data: settings(), exp: Math.floor(Date.now() / 1000) + 600 }, offerOf(a).secret);
    const res = await get(`/purchase?signature=${token}`);
    expect(res.statusCode).toBe(303);
  });

  it('refuses a tampered signature with a page naming it, and creates nothing', async () => {
    const token = signHs256({ data: settings() }, 'not-the-secret');
    const res = await get(`/purchases?signature=${token}`);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('signature');
  });
});
