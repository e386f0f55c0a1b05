/**
 * The security headers of every answer (docs/security.md#security-headers), walked over the
 * server's own route table (`registeredRoutes`), so that a route added later is walked too:
 *
 * - every answer of every GET route, HTML page or document (the OpenAPI document, the API
 *   reference's assets), to nobody, a back-office admin and a signed-in shopper: `X-Content-Type-Options:
 *   nosniff` and `Referrer-Policy: no-referrer`;
 * - every HTML answer among them: a Content-Security-Policy that says who may frame it
 *   (`frame-ancestors`), as each page family sets it;
 * - HSTS (`Strict-Transport-Security`) on every answer when `PUBLIC_URL` is https (a production
 *   app), on none when it is http (a sandbox on loopback).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopperSessions } from '../../src/http/routes/shopper-space/guard.ts';
import { registeredRoutes } from '../../src/http/server.ts';
import { caller, minimalPurchase } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard.ts';

const HSTS = 'max-age=31536000; includeSubDomains';
const SHOPPER = 'shopper@example.com';

/** A well-formed id of nothing for each path parameter but the purchase's (a real one), and a real file for the API reference's wildcard. */
const PARAMS: Record<string, string> = {
  id: '00000000-0000-4000-8000-000000000001',
  merchant_uid: 'mer_00000000-0000-4000-8000-000000000003',
  pledge_id: 'plg_00000000-0000-4000-8000-000000000004',
  pledge_uid: 'plg_00000000-0000-4000-8000-000000000004',
  delivery_id: 'dlv_00000000-0000-4000-8000-000000000005',
  psa_id: 'psa_00000000-0000-4000-8000-000000000006',
  transaction_id: 'sbx_00000000-0000-4000-8000-000000000008',
  token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  installment_id: '00000000-0000-4000-8000-000000000009',
  payment_id: '00000000-0000-4000-8000-00000000000a',
  dispute_id: 'dsp_00000000-0000-4000-8000-00000000000b',
  payout_id: 'po_00000000-0000-4000-8000-00000000000c',
  export_id: 'pex_00000000-0000-4000-8000-00000000000d',
  '*': 'index.css',
};

interface Seen {
  route: string;
  who: string;
  res: LightMyRequestResponse;
}

/**
 * Every GET route of the app, on a real purchase of a merchant whose shopper is signed in, as
 * nobody, as the merchant's admin (back-office session) and as that shopper (space session).
 */
async function walk(app: TestApp): Promise<Seen[]> {
  const a = await caller(app);
  const created = await a.post('/api/merchants/v1/purchases', minimalPurchase({ client: { email: SHOPPER } }));
  expect(created.statusCode, created.body).toBe(201);
  const purchaseUid = `pur_${(created.json() as { id: string }).id}`;
  const admin = await signIn(app, a.merchant);
  const { token } = await shopperSessions(app.services).create({ kind: 'email', value: SHOPPER });
  const callers: Record<string, Record<string, string>> = { nobody: {}, admin: { cookie: admin.cookie }, shopper: { cookie: `chipin_space=${token}` } };
  const seen: Seen[] = [];
  let seq = 0;
  for (const route of registeredRoutes(app.server).filter((r) => r.method === 'GET')) {
    const path = route.url.replace(/:([a-z_]+)|\*/g, (whole, name?: string) => {
      if (name === 'purchase_uid') return purchaseUid;
      const value = PARAMS[name ?? whole];
      if (value === undefined) throw new Error(`no sample value for ${whole} of ${route.url} (add one to PARAMS)`);
      return value;
    });
    for (const [who, headers] of Object.entries(callers)) {
      seq += 1;
      // A browser's navigation; each call from an address of its own (the per-address budgets).
      const res = await app.server.inject({ method: 'GET', url: path, headers: { accept: 'text/html,*/*;q=0.8', ...headers }, remoteAddress: `10.9.${seq >> 8}.${seq & 255}` });
      seen.push({ route: route.url, who, res });
    }
  }
  return seen;
}

const html = (s: Seen) => String(s.res.headers['content-type'] ?? '').startsWith('text/html');

function headerProblems(seen: readonly Seen[], hsts: string | undefined): string[] {
  const wrong: string[] = [];
  for (const s of seen) {
    const h = s.res.headers;
    const at = `GET ${s.route} as ${s.who} (${s.res.statusCode} ${String(h['content-type'] ?? '')})`;
    if (h['x-content-type-options'] !== 'nosniff') wrong.push(`${at}: X-Content-Type-Options ${String(h['x-content-type-options'])}`);
    if (h['referrer-policy'] !== 'no-referrer') wrong.push(`${at}: Referrer-Policy ${String(h['referrer-policy'])}`);
    if (h['strict-transport-security'] !== hsts) wrong.push(`${at}: Strict-Transport-Security ${String(h['strict-transport-security'])}`);
    if (html(s) && !/frame-ancestors /.test(String(h['content-security-policy'] ?? ''))) wrong.push(`${at}: Content-Security-Policy ${String(h['content-security-policy'])}`);
  }
  return wrong;
}

/** The HTML pages and documents the walk must have met with a 200: their headers are judged on what they answer, not only on refusals. */
function expectCovered(seen: readonly Seen[], pages: readonly string[], documents: readonly string[]): void {
  const ok = (s: Seen) => s.res.statusCode === 200;
  const htmlRoutes = new Set(seen.filter((s) => ok(s) && html(s)).map((s) => s.route));
  for (const page of pages) expect(htmlRoutes, `${page} answered an HTML page`).toContain(page);
  const answered = new Set(seen.filter(ok).map((s) => s.route));
  for (const doc of documents) expect(answered, `${doc} answered`).toContain(doc);
}

const PAGES = ['/docs', '/dashboard/sign-in', '/dashboard', '/dashboard/purchases', '/space/sign-in', '/space', '/space/purchases/:purchase_uid', '/pay/:purchase_uid'];
const DOCUMENTS = ['/api/openapi.json', '/docs/json', '/docs/static/*', '/healthz'];

describe('security headers, http PUBLIC_URL (sandbox on loopback)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('every GET route, HTML or not, sends nosniff and no-referrer; every HTML page a CSP that says who may frame it; none sends HSTS', async () => {
    const seen = await walk(app);
    expectCovered(seen, [...PAGES, '/sandbox/demo-shop', '/sandbox/inbox'], DOCUMENTS);
    expect(headerProblems(seen, undefined)).toEqual([]);
  });

  it('an answer no route made (a 404, a refusal of the router) carries them too', async () => {
    for (const url of ['/nothing-here', '/api/backoffice/purchases/%E0%A4%A/refunds']) {
      const res = await app.server.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
      expect(res.headers['strict-transport-security'], url).toBeUndefined();
    }
  });
});

describe('security headers, https PUBLIC_URL (production)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: 'production', publicUrl: 'https://chipin.example', jobPollIntervalMs: 0 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it(`every GET route sends HSTS (${HSTS}) besides nosniff, no-referrer and the pages' CSP`, async () => {
    const seen = await walk(app);
    expectCovered(seen, PAGES, DOCUMENTS);
    expect(headerProblems(seen, HSTS)).toEqual([]);
  });

  it('so do the API, a write, a 404 and a refusal of the router', async () => {
    const a = await caller(app);
    const answers = [
      await a.get('/api/whoami'),
      await a.post('/api/merchants/v1/purchases', minimalPurchase()),
      await app.server.inject({ method: 'GET', url: '/nothing-here' }),
      await app.server.inject({ method: 'GET', url: '/api/backoffice/purchases/%E0%A4%A/refunds' }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 201, 404, 400]);
    for (const res of answers) expect(res.headers['strict-transport-security']).toBe(HSTS);
  });
});
