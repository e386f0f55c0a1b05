/**
 * The one path rule (docs/security.md#the-one-path-rule): every decision about a request is made
 * on the route the router matched (its template and method) and its decoded parameters, never on
 * the URL as sent. The router decodes `%74eam` to `team` before matching, so a rule on the raw URL
 * let a support user into every admin-only page and route by percent-encoding one letter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { basic, startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';

let app: TestApp;
let a: Caller;
let support: { id: string; email: string; password: string };
let s: { cookie: string; csrf: string };

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
  support = await addDashboardUser(app, a.accountId, 'support');
  s = await signIn(app, support);
  // An endpoint whose signing secret a support user must never read.
  const set = await app.server.inject({
    method: 'PUT',
    url: '/api/backoffice/webhook',
    headers: { authorization: a.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ url: 'https://shop.example/hook' }),
  });
  expect(set.statusCode, set.body).toBe(200);
});
afterAll(async () => {
  await app?.close();
});

const asSupportPage = (method: 'GET' | 'POST', url: string, fields?: Record<string, string>) =>
  app.server.inject({
    method,
    url,
    headers: { cookie: s.cookie, ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    payload: method === 'POST' ? form({ csrf: s.csrf, ...fields }) : undefined,
  });

const asSupportApi = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, how: 'basic' | 'cookie' = 'basic') =>
  app.server.inject({
    method,
    url,
    headers: {
      ...(how === 'basic' ? { authorization: basic(support.email, support.password) } : { cookie: s.cookie, 'x-csrf-token': s.csrf }),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });

const roleOf = async (userId: string) => (await app.services.db.query<{ role: string }>('SELECT role FROM dashboard_users WHERE id = $1', [userId])).rows[0]!.role;

const keysOf = async () => (await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1', [a.accountId])).rows[0]!.n;

describe('a support user and percent-encoded admin-only paths', () => {
  it('is refused GET /dashboard/%74eam, as /dashboard/team', async () => {
    const res = await asSupportPage('GET', '/dashboard/%74eam');
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('Your role (support) does not give access to this page.');
    expect(res.body).not.toContain(support.email);
  });

  it('is refused the webhook signing secret at GET /api/backoffice/%77ebhook with Basic and with the cookie', async () => {
    const secret = ((await app.server.inject({ method: 'GET', url: '/api/backoffice/webhook', headers: { authorization: a.dashboard } })).json() as { secret: string }).secret;
    expect(secret.length).toBeGreaterThan(10);
    for (const how of ['basic', 'cookie'] as const) {
      for (const url of ['/api/backoffice/%77ebhook', '/api/backoffice/webhoo%6B', '/api/%62ackoffice/webhook', '/api/backoffice/%77%65%62%68%6f%6f%6b']) {
        const res = await asSupportApi('GET', url, undefined, how);
        expect(res.statusCode, `${how} ${url}`).toBe(403);
        expect(res.body, `${how} ${url}`).not.toContain(secret);
      }
    }
  });

  it('mints no API key at POST /dashboard/%64evelopers/keys', async () => {
    const before = await keysOf();
    const res = await asSupportPage('POST', '/dashboard/%64evelopers/keys');
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('Your role (support) does not give access to this page.');
    expect(await keysOf()).toBe(before);
  });

  it('cannot promote itself with POST /dashboard/%74eam/members/<own id> role=admin', async () => {
    for (const url of [`/dashboard/%74eam/members/${support.id}`, `/dashboard/team/%6Dembers/${support.id}`, `/%64ashboard/team/members/${support.id}`]) {
      const res = await asSupportPage('POST', url, { role: 'admin' });
      expect(res.statusCode, url).toBe(403);
      expect(await roleOf(support.id), url).toBe('support');
    }
  });

  it('is refused the PSP accounts and offers pages and routes under their encoded spellings, reads and writes', async () => {
    const offer = a.offer('SHARED');
    const pages: ['GET' | 'POST', string][] = [
      ['GET', '/dashboard/%70sp-accounts'],
      ['GET', '/dashboard/psp%2Daccounts'],
      ['GET', '/dashboard/%70sp-accounts/new?psp=sandbox'],
      ['POST', '/dashboard/%70sp-accounts'],
      ['GET', '/dashboard/%6Fffers'],
      ['GET', `/dashboard/%6Fffers/${offer}`],
      ['POST', `/dashboard/%6Fffers/${offer}`],
      ['GET', '/dashboard/%64evelopers'],
      ['POST', '/dashboard/%64evelopers/webhook'],
    ];
    for (const [method, url] of pages) {
      const res = await asSupportPage(method, url, { label: 'Mine', url: 'https://evil.example/hook', events: 'paymentProcessed', psp_account_id: '' });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.body, `${method} ${url}`).toContain('Your role (support) does not give access to this page.');
    }
    const routes: ['GET' | 'POST' | 'PUT' | 'PATCH', string, unknown?][] = [
      ['GET', '/api/backoffice/psp%5Faccounts'],
      ['POST', '/api/backoffice/psp%5Faccounts', { psp: 'sandbox', environment: 'test', label: 'Mine', credentials: {} }],
      ['GET', '/api/backoffice/%70sps'],
      ['GET', '/api/backoffice/%70sp_accounts'],
      ['PUT', '/api/backoffice/%77ebhook', { url: 'https://evil.example/hook' }],
      ['POST', '/api/backoffice/%77ebhook/test'],
      ['PATCH', `/api/backoffice/%6Fffers/${offer}`, { psp_account_id: null }],
      ['POST', '/api/backoffice/%64eliveries/dlv_00000000-0000-4000-8000-000000000000/replay'],
    ];
    for (const how of ['basic', 'cookie'] as const) {
      for (const [method, url, payload] of routes) {
        const res = await asSupportApi(method, url, payload, how);
        expect(res.statusCode, `${how} ${method} ${url}`).toBe(403);
        expect(res.body, `${how} ${method} ${url}`).toContain('your role (support) may not use this');
      }
    }
    // Nothing was changed: no PSP account, the endpoint is the admin's.
    const accounts = (await app.server.inject({ method: 'GET', url: '/api/backoffice/psp_accounts', headers: { authorization: a.dashboard } })).json() as unknown[];
    expect(accounts).toEqual([]);
    const hook = (await app.server.inject({ method: 'GET', url: '/api/backoffice/webhook', headers: { authorization: a.dashboard } })).json() as { url: string };
    expect(hook.url).toBe('https://shop.example/hook');
  });

  it('gets the same answer as an admin does under the encoded spelling (the rule is the route, not a refusal of encodings)', async () => {
    const admin = await signIn(app, a.merchant);
    for (const url of ['/dashboard/%74eam', '/dashboard/%70sp-accounts', '/dashboard/%6Fffers']) {
      const res = await app.server.inject({ method: 'GET', url, headers: { cookie: admin.cookie } });
      expect(res.statusCode, url).toBe(200);
    }
    const res = await app.server.inject({ method: 'GET', url: '/api/backoffice/%77ebhook', headers: { authorization: a.dashboard } });
    expect(res.statusCode).toBe(200);
  });

  it('reads purchases under an encoded spelling as under the plain one (support may)', async () => {
    expect((await asSupportPage('GET', '/dashboard/%70urchases')).statusCode).toBe(200);
    expect((await asSupportApi('GET', '/api/backoffice/%6Fffers', undefined, 'cookie')).statusCode).toBe(200);
  });
});

describe('the access log', () => {
  it('names the matched route of an encoded request, as of the plain one', async () => {
    await asSupportPage('GET', '/dashboard/%74eam');
    const line = app.logs
      .map((l) => JSON.parse(l) as { msg?: string; url?: string; route?: string })
      .filter((l) => l.msg === 'request completed' && l.url === '/dashboard/%74eam')
      .at(-1);
    expect(line?.route).toBe('/dashboard/team');
  });
});

describe('the API family of an answer follows the matched route', () => {
  it('answers a Merchant API v1 route reached through an encoded path in the v1 error format', async () => {
    const plain = await a.get('/api/merchants/v1/purchases/00000000-0000-4000-8000-000000000000');
    const encoded = await a.get('/api/merchants/%761/purchases/00000000-0000-4000-8000-000000000000');
    expect(plain.statusCode).toBe(404);
    expect(encoded.statusCode).toBe(404);
    expect(Object.keys(encoded.json() as object)).toEqual(Object.keys(plain.json() as object));
    expect(encoded.json()).toEqual(plain.json());
  });
});
