/**
 * Back-office writes with HTTP Basic credentials refuse what a browser sends cross-site
 * (docs/security.md#cross-site-writes-with-basic-credentials): a browser that once answered the
 * Basic prompt sends the credentials again with every request to the service, from any site.
 *
 * The write routes come from the server's own route table (`registeredRoutes`): every route taking
 * the back office's credentials (HTTP Basic, `routeAccess`) with a method other than GET, HEAD and
 * OPTIONS, so a route added later is covered without a line here. Each is sent the attacker's
 * requests with the admin's right credentials; each answers 403 `forbidden` naming the header, and
 * the database is the same afterwards, row for row (the credentials were not even checked: the
 * failure budgets are untouched). The same calls as a script makes them (no `Origin`, no
 * `Sec-Fetch-Site`, a JSON body or none) still work, and so does a call of the API reference's
 * page (same origin).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes, type RegisteredRoute } from '../../src/http/server.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { basic, startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard.ts';

const OWN_ORIGIN = 'http://127.0.0.1:3000';
const ATTACKER = 'https://attacker.example';

/** A well-formed id of nothing for each path parameter; the purchases' routes get a real purchase (see `pathOf`). */
const PARAMS: Record<string, string> = {
  id: '00000000-0000-4000-8000-000000000001',
  merchant_uid: 'mer_00000000-0000-4000-8000-000000000003',
  delivery_id: 'dlv_00000000-0000-4000-8000-000000000005',
};

/** The form an attacker's page posts, where a route's body has fields: what the route would take as JSON. */
const FORMS: Record<string, string> = {
  'PUT /api/backoffice/webhook': 'url=https%3A%2F%2Fattacker.example%2Fhook',
  'POST /api/backoffice/reconciliation_runs': 'from=2026-11-01&to=2026-11-01',
  'POST /api/backoffice/purchases/:id/refunds': 'amount=100',
  'PUT /api/backoffice/risk_scoring_hook': 'url=https%3A%2F%2Fattacker.example%2Fscore',
};

interface Attack {
  what: string;
  headers: Record<string, string>;
  /** A form body (its Content-Type is in `headers`), or none. */
  form: boolean;
  /** The header the refusal names. */
  names: string;
}

/** What a browser sends cross-site: each on its own, so that each is shown refused by itself. */
const ATTACKS: readonly Attack[] = [
  {
    what: 'the finding: a cross-site form post',
    headers: { 'sec-fetch-site': 'cross-site', origin: ATTACKER, 'content-type': 'application/x-www-form-urlencoded' },
    form: true,
    names: 'Sec-Fetch-Site',
  },
  { what: 'a no-cors fetch without a body', headers: { 'sec-fetch-site': 'cross-site', origin: ATTACKER }, form: false, names: 'Sec-Fetch-Site' },
  { what: 'a sibling site (same-site)', headers: { 'sec-fetch-site': 'same-site', origin: 'http://evil.127.0.0.1:3000' }, form: false, names: 'Sec-Fetch-Site' },
  { what: 'a browser without fetch metadata, from another origin', headers: { origin: ATTACKER }, form: false, names: 'Origin' },
  { what: 'a sandboxed frame (Origin: null)', headers: { origin: 'null' }, form: false, names: 'Origin' },
  {
    what: 'a form post without Origin nor Sec-Fetch-Site',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    form: true,
    names: 'Content-Type',
  },
  { what: 'a multipart form post', headers: { 'content-type': 'multipart/form-data; boundary=x' }, form: false, names: 'Content-Type' },
  { what: 'a text/plain post', headers: { 'content-type': 'text/plain;charset=UTF-8' }, form: false, names: 'Content-Type' },
];

let app: TestApp;
let a: Caller;
let writes: RegisteredRoute[];
let purchaseUid: string;
let seq = 0;

beforeAll(async () => {
  // No background work: the database changes only by the requests of the test.
  app = await startTestApp({ jobPollIntervalMs: 0 }, { delivery: { background: false } });
  a = await caller(app);
  const created = await a.post('/api/merchants/v1/purchases', minimalPurchase());
  expect(created.statusCode, created.body).toBe(201);
  purchaseUid = `pur_${(created.json() as { id: string }).id}`;
  writes = registeredRoutes(app.server).filter((r) => r.access.credentials === 'Basic or session cookie' && !['GET', 'HEAD', 'OPTIONS'].includes(r.method));
});
afterAll(async () => {
  await app?.close();
});

function pathOf(route: string): string {
  return route.replace(/:([a-z_]+)/g, (whole, name: string) => {
    if (name === 'id' && route.startsWith('/api/backoffice/purchases/')) return purchaseUid;
    const value = PARAMS[name];
    if (value === undefined) throw new Error(`no sample value for ${whole} of ${route} (add one to PARAMS)`);
    return value;
  });
}

function send(route: RegisteredRoute, headers: Record<string, string>, payload?: string): Promise<LightMyRequestResponse> {
  seq += 1;
  return app.server.inject({
    method: route.method as 'POST',
    url: pathOf(route.url),
    headers: { authorization: a.dashboard, ...headers },
    payload,
    remoteAddress: `10.60.${seq >> 8}.${seq & 255}`,
  });
}

/** Every table's rows, as text: equal before and after means nothing was written anywhere. */
async function snapshot(): Promise<Record<string, string>> {
  const { rows: tables } = await app.services.db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
  );
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const { rows } = await app.services.db.query<{ f: string }>(`SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS f FROM "${name}" t`);
    out[name] = rows[0]!.f;
  }
  return out;
}

describe('back-office writes with HTTP Basic refuse what a browser sends cross-site', () => {
  it('every write route taking the back office credentials is in the walk, the findings among them', () => {
    const names = writes.map((r) => `${r.method} ${r.url}`);
    expect(names).toContain('POST /api/backoffice/purchases/:id/cancel');
    expect(names).toContain('POST /api/backoffice/reconciliation_runs');
    expect(names.length).toBeGreaterThanOrEqual(15);
  });

  it('each write route answers 403 forbidden naming the header to each of them, before its handler: nothing changed', async () => {
    const before = await snapshot();
    const wrong: string[] = [];
    for (const route of writes) {
      for (const attack of ATTACKS) {
        const res = await send(route, attack.headers, attack.form ? (FORMS[`${route.method} ${route.url}`] ?? '') : undefined);
        const body = (res.body ? res.json() : {}) as { error?: { app_error?: string; debug?: string } };
        const at = `${route.method} ${route.url}, ${attack.what}`;
        if (res.statusCode !== 403 || body.error?.app_error !== 'forbidden' || !body.error.debug?.includes(attack.names)) wrong.push(`${at}: ${res.statusCode} ${res.body}`);
        else if (res.headers['www-authenticate'] !== undefined) wrong.push(`${at}: a Basic challenge with the refusal`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
    const state = await a.get(`/api/merchants/v1/purchases/${purchaseUid}`);
    expect(state.json()).toMatchObject({ state: 'INITIALIZED' });
  });

  it('is decided before the credentials are checked: a wrong password cross-site is refused the same way and costs no failure', async () => {
    const route = writes.find((r) => r.url === '/api/backoffice/purchases/:id/cancel')!;
    const before = await snapshot();
    for (let i = 0; i < 8; i++) {
      const res = await send(route, { authorization: basic(a.merchant.email, `guess-${i}`), 'sec-fetch-site': 'cross-site', origin: ATTACKER });
      expect(res.statusCode).toBe(403);
    }
    expect(await snapshot()).toEqual(before);
    // The budget of 5 failures a minute is whole: the right password still opens the back office.
    const ok = await app.server.inject({ method: 'GET', url: '/api/backoffice/webhook', headers: { authorization: a.dashboard }, remoteAddress: '10.62.0.1' });
    expect(ok.statusCode, ok.body).not.toBe(429);
  });
});

describe('the OpenAPI document', () => {
  it('lists the 403 on every write route taking the back office credentials, naming the headers', async () => {
    const doc = (await app.server.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>>;
    };
    const missing = writes
      .filter((r) => r.url.startsWith('/api/'))
      .filter((r) => !doc.paths[r.url.replace(/:([a-z_]+)/g, '{$1}')]?.[r.method.toLowerCase()]?.responses?.['403']?.description?.includes('Sec-Fetch-Site'))
      .map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });
});

describe('what keeps working', () => {
  const route = (method: string, url: string) => writes.find((r) => r.method === method && r.url === url)!;

  it('the same calls as a script makes them: Basic, no Origin, no Sec-Fetch-Site, JSON or no body', async () => {
    const webhook = await send(route('PUT', '/api/backoffice/webhook'), { 'content-type': 'application/json' }, JSON.stringify({ url: 'https://shop.example/hook' }));
    expect(webhook.statusCode, webhook.body).toBe(200);
    const run = await send(route('POST', '/api/backoffice/reconciliation_runs'), { 'content-type': 'application/json' }, JSON.stringify({ from: '2026-11-01', to: '2026-11-01' }));
    expect(run.statusCode, run.body).toBe(200);
    const other = await a.post('/api/merchants/v1/purchases', minimalPurchase());
    const cancel = await send(route('POST', '/api/backoffice/purchases/:id/cancel'), {});
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(cancel.json()).toMatchObject({ state: 'CANCELLED' });
    const noBody = await app.server.inject({
      method: 'POST',
      url: `/api/backoffice/purchases/pur_${(other.json() as { id: string }).id}/cancel`,
      headers: { authorization: a.dashboard, 'content-type': 'application/json' },
    });
    expect(noBody.statusCode, noBody.body).toBe(200);
  });

  it('a call from our own origin (the API reference page): Sec-Fetch-Site same-origin, or Origin ours', async () => {
    const hook = route('PUT', '/api/backoffice/webhook');
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ url: 'https://shop.example/hook2' });
    expect((await send(hook, { ...json, 'sec-fetch-site': 'same-origin', origin: OWN_ORIGIN }, body)).statusCode).toBe(200);
    expect((await send(hook, { ...json, origin: OWN_ORIGIN }, body)).statusCode).toBe(200);
    expect((await send(hook, { ...json, 'sec-fetch-site': 'none' }, body)).statusCode).toBe(200);
  });

  it('a write with the session cookie keeps its own rule: the X-CSRF-Token header, or our own origin', async () => {
    const session = await signIn(app, a.merchant);
    const hook = route('PUT', '/api/backoffice/webhook');
    const body = JSON.stringify({ url: 'https://shop.example/hook3' });
    const withToken = await app.server.inject({
      method: 'PUT',
      url: '/api/backoffice/webhook',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      payload: body,
    });
    expect(withToken.statusCode, withToken.body).toBe(200);
    const forged = await app.server.inject({
      method: hook.method as 'PUT',
      url: hook.url,
      headers: { cookie: session.cookie, 'sec-fetch-site': 'cross-site', origin: ATTACKER, 'content-type': 'application/json' },
      payload: body,
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.json()).toMatchObject({ error: { app_error: 'forbidden', debug: expect.stringContaining('X-CSRF-Token') } });
  });
});

describe('the Basic challenge', () => {
  const get = (headers: Record<string, string>) => {
    seq += 1;
    return app.server.inject({ method: 'GET', url: '/api/backoffice/webhook', headers, remoteAddress: `10.61.${seq >> 8}.${seq & 255}` });
  };

  it('is not sent to a browser asking for a page, so that it never prompts for the password nor keeps it', async () => {
    const page = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    for (const res of [await get({ accept: page }), await get({ accept: page, authorization: basic(a.merchant.email, 'wrong') })]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.json()).toMatchObject({ error: { app_error: 'invalid_client', debug: expect.stringContaining('/dashboard/sign-in') } });
    }
  });

  it('is sent to everyone else (curl, scripts, an API client)', async () => {
    for (const headers of [{} as Record<string, string>, { accept: '*/*' }, { accept: 'application/json' }, { accept: 'text/html;q=0, application/json' }]) {
      const res = await get(headers);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="Chipin back office", charset="UTF-8"');
    }
  });
});
