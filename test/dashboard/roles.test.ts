import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { basic, startTestApp, type TestApp } from '../helpers/app.ts';
import { adminOnly, operatorOnly, refusedByRole } from '../../src/http/backoffice/roles.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';

/** Roles (docs/back-office.md#roles): what a support user may do, and the admin-only prefixes refused to them. */
let app: TestApp;
let a: Caller;
let support: { email: string; password: string };
let s: { cookie: string; csrf: string };

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
  support = await addDashboardUser(app, a.accountId, 'support');
  s = await signIn(app, support);
});
afterAll(async () => {
  await app?.close();
});

const page = (url: string, cookie = s.cookie) => app.server.inject({ method: 'GET', url, headers: { cookie } });
const post = (url: string, fields: Record<string, string>) =>
  app.server.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });

async function paidPurchase(): Promise<string> {
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }));
  const id = res.json().id as string;
  expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' })).statusCode).toBe(200);
  return id;
}

describe('the admin-only rule', () => {
  it('covers every route template under the prefixes, including ones added later, and nothing beside them', () => {
    for (const route of [
      '/dashboard/offers',
      '/dashboard/offers/:merchant_uid',
      '/dashboard/psp-accounts',
      '/dashboard/developers/keys/:api_key/:action',
      '/dashboard/team/members/:id',
      '/api/backoffice/psp_accounts/:id',
      '/dashboard/team/audit',
      '/dashboard/reports',
      '/api/backoffice/reports/daily.csv',
      '/dashboard/payouts',
      '/dashboard/payouts/:id',
      '/api/backoffice/payouts/:payout_id/lines.csv',
      '/api/backoffice/balance',
      '/api/backoffice/payout_bank_details',
    ])
      expect(adminOnly('GET', route), route).toBe(true);
    expect(adminOnly('PATCH', '/api/backoffice/offers/:merchant_uid')).toBe(true);
    for (const route of ['/dashboard/purchases', '/dashboard/teams', '/api/backoffice/offers', '/api/backoffice/deliveries/:delivery_id', '/api/backoffice/purchases/:id/refunds'])
      expect(adminOnly('GET', route), route).toBe(false);
    expect(adminOnly('POST', '/api/backoffice/purchases/:id/cancel')).toBe(false);
  });

  it('refuses when no route was matched (the rule is never asked about a URL)', () => {
    expect(adminOnly('GET', undefined)).toBe(true);
    for (const role of ['support', 'operator'] as const) expect(refusedByRole(role, 'GET', undefined), role).toBe(true);
  });
});

describe('the operator rule', () => {
  it("gives the pages under /dashboard/operator, later ones included, to the operator's staff only, and them no admin page", () => {
    for (const route of ['/dashboard/operator', '/dashboard/operator/payouts', '/dashboard/operator/payouts/exports/:export_id/file', '/dashboard/operator/later']) {
      expect(operatorOnly(route), route).toBe(true);
      for (const method of ['GET', 'POST']) {
        expect(refusedByRole('admin', method, route), route).toBe(true);
        expect(refusedByRole('support', method, route), route).toBe(true);
        expect(refusedByRole('operator', method, route), route).toBe(false);
      }
    }
    for (const route of ['/dashboard/operators', '/dashboard/payouts', '/dashboard/purchases']) expect(operatorOnly(route), route).toBe(false);
    expect(refusedByRole('operator', 'GET', '/dashboard/purchases')).toBe(false);
    expect(refusedByRole('operator', 'GET', '/dashboard/payouts')).toBe(true);
    expect(refusedByRole('operator', 'GET', '/api/backoffice/webhook')).toBe(true);
    expect(refusedByRole('admin', 'GET', '/dashboard/payouts')).toBe(false);
  });
});

describe('a support user in the pages', () => {
  it('is refused every admin-only page with a 403 that says why', async () => {
    for (const url of ['/dashboard/developers', '/dashboard/team']) {
      const res = await page(url);
      expect(res.statusCode, url).toBe(403);
      expect(res.body, url).toContain('Your role (support) does not give access to this page.');
    }
  });

  it('is refused a write under an admin-only prefix, and nothing changes', async () => {
    const res = await post('/dashboard/developers/webhook', { csrf: s.csrf, url: 'https://evil.example/hook', events: 'paymentProcessed' });
    expect(res.statusCode).toBe(403);
    expect((await app.server.inject({ method: 'GET', url: '/api/backoffice/webhook', headers: { authorization: a.dashboard } })).statusCode).toBe(404);
  });

  it('does not see Developers or Team in the menu; an admin does', async () => {
    const mine = await page('/dashboard/purchases');
    expect(mine.statusCode).toBe(200);
    expect(mine.body).not.toContain('href="/dashboard/developers"');
    expect(mine.body).not.toContain('href="/dashboard/team"');
    const admin = await signIn(app, a.merchant);
    const theirs = await page('/dashboard/purchases', admin.cookie);
    expect(theirs.body).toContain('href="/dashboard/developers"');
    expect(theirs.body).toContain('href="/dashboard/team"');
  });

  it('refunds and cancels', async () => {
    const paid = await paidPurchase();
    expect((await post(`/dashboard/purchases/pur_${paid}/refund`, { csrf: s.csrf, amount: '10.00', confirm: 'yes' })).statusCode).toBe(303);
    const refunds = (await a.get(`/api/merchants/v1/purchases/${paid}/refunds`)).json().data as { amount: number }[];
    expect(refunds.map((r) => r.amount)).toEqual([1_000]);

    const unpaid = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000 }))).json().id as string;
    expect((await post(`/dashboard/purchases/pur_${unpaid}/cancel`, { csrf: s.csrf, confirm: 'yes' })).statusCode).toBe(303);
    expect(((await a.get(`/api/merchants/v1/purchases/${unpaid}`)).json() as { state: string }).state).toBe('CANCELLED');
  });
});

describe('a support user on the back-office API', () => {
  const asSupport = (method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE', url: string, how: 'basic' | 'cookie') =>
    app.server.inject({
      method,
      url,
      headers:
        how === 'basic'
          ? { authorization: basic(support.email, support.password), 'content-type': 'application/json' }
          : { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json' },
      payload: method === 'GET' ? undefined : '{}',
    });

  it('is refused 403 on every admin-only route, with Basic and with the session cookie', async () => {
    const routes: ['GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE', string][] = [
      ['GET', '/api/backoffice/webhook'],
      ['PUT', '/api/backoffice/webhook'],
      ['POST', '/api/backoffice/deliveries/dlv_x/replay'],
      ['GET', '/api/backoffice/psp_accounts'],
      ['POST', '/api/backoffice/psp_accounts'],
      ['GET', '/api/backoffice/psps'],
      ['PATCH', `/api/backoffice/offers/${a.offer('SHARED')}`],
      ['POST', '/api/backoffice/webhook/test'],
      ['DELETE', '/api/backoffice/psp_accounts/psa_00000000-0000-4000-8000-000000000000'],
    ];
    for (const how of ['basic', 'cookie'] as const) {
      for (const [method, url] of routes) {
        const res = await asSupport(method, url, how);
        expect(res.statusCode, `${how} ${method} ${url}`).toBe(403);
        expect(JSON.stringify(res.json()), url).toContain('your role (support) may not use this');
      }
    }
  });

  it('reads purchases, offers and deliveries, and refunds and cancels through the API', async () => {
    for (const url of ['/api/backoffice/offers', '/api/backoffice/deliveries']) expect((await asSupport('GET', url, 'basic')).statusCode, url).toBe(200);
    const paid = await paidPurchase();
    const refund = await app.server.inject({
      method: 'POST',
      url: `/api/backoffice/purchases/pur_${paid}/refunds`,
      headers: { authorization: basic(support.email, support.password), 'content-type': 'application/json', 'idempotency-key': `r-${paid}` },
      payload: JSON.stringify({ amount: 500 }),
    });
    expect(refund.statusCode, refund.body).toBe(201);
    const unpaid = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000 }))).json().id as string;
    expect((await asSupport('POST', `/api/backoffice/purchases/pur_${unpaid}/cancel`, 'basic')).statusCode).toBe(200);
  });

  it('an admin is let through the same routes (the rule is the role, not the route)', async () => {
    const res = await app.server.inject({ method: 'GET', url: '/api/backoffice/psps', headers: { authorization: a.dashboard } });
    expect(res.statusCode).toBe(200);
  });
});
