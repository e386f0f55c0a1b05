import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { basic, startTestApp, type TestApp } from '../helpers/app.ts';
import { form, signIn } from '../helpers/dashboard.ts';

/** The back office's API keys (Developers page): list, create, rotate, revoke. */
let app: TestApp;
let a: Caller;
let s: { cookie: string; csrf: string };

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
  s = await signIn(app, a.merchant);
});
afterAll(async () => {
  await app?.close();
});

const get = (url: string, cookie = s.cookie) => app.server.inject({ method: 'GET', url, headers: { cookie } });
const post = (url: string, body: string, cookie = s.cookie) =>
  app.server.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
const tokenStatus = async (key: string, secret: string) =>
  (
    await app.server.inject({
      method: 'POST',
      url: '/api/token',
      headers: { authorization: basic(key, secret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    })
  ).statusCode;
const whoami = async (token: string) => (await app.server.inject({ method: 'GET', url: '/api/whoami', headers: { authorization: `Bearer ${token}` } })).statusCode;
/** The key and secret shown in a create or rotate answer. */
const shown = (body: string) => {
  const m = /<code>(key_[^<]+)<\/code><\/dd><dt>[^<]+<\/dt><dd><code>(sk_[^<]+)<\/code>/.exec(body);
  if (!m) throw new Error('no new key in the page');
  return { key: m[1]!, secret: m[2]! };
};

describe('API keys on the Developers page', () => {
  it('lists the account key made with the merchant, without any secret', async () => {
    const page = await get('/dashboard/developers');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(a.merchant.api_key);
    expect(page.body).not.toContain(a.merchant.api_secret);
    expect(page.body).not.toContain('sk_');
  });

  it('creates a key whose secret works, shown in that answer only, never on a later page nor in the logs', async () => {
    const res = await post('/dashboard/developers/keys', form({ csrf: s.csrf }));
    expect(res.statusCode).toBe(200);
    const k = shown(res.body);
    expect(await tokenStatus(k.key, k.secret)).toBe(200);
    const later = await get('/dashboard/developers');
    expect(later.body).toContain(k.key);
    expect(later.body).not.toContain(k.secret);
    expect(app.logs.join('\n')).not.toContain(k.secret);
  });

  it('rotates after a confirmation: the old secret is refused by /api/token at once, its tokens stop, the new one works', async () => {
    const made = shown((await post('/dashboard/developers/keys', form({ csrf: s.csrf }))).body);
    const oldToken = (
      await app.server.inject({
        method: 'POST',
        url: '/api/token',
        headers: { authorization: basic(made.key, made.secret), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      })
    ).json().access_token as string;
    expect(await whoami(oldToken)).toBe(200);

    const ask = await post(`/dashboard/developers/keys/${made.key}/rotate`, form({ csrf: s.csrf }));
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain('name="confirm" value="yes"');
    expect(await tokenStatus(made.key, made.secret)).toBe(200); // asking changed nothing

    const done = await post(`/dashboard/developers/keys/${made.key}/rotate`, form({ csrf: s.csrf, confirm: 'yes' }));
    expect(done.statusCode).toBe(200);
    const fresh = shown(done.body);
    expect(fresh.key).not.toBe(made.key);
    expect(await tokenStatus(made.key, made.secret)).toBe(401);
    expect(await whoami(oldToken)).toBe(401);
    expect(await tokenStatus(fresh.key, fresh.secret)).toBe(200);
    expect((await get('/dashboard/developers')).body).not.toContain(fresh.secret);
    expect(app.logs.join('\n')).not.toContain(fresh.secret);
    // Recorded in the audit log, by whom, with the key ids only.
    const { rows } = await app.services.db.query<{ action: string; actor: string; details: unknown }>(
      "SELECT action, actor, details FROM audit_log WHERE subject = $1 AND action = 'api_key_rotate'",
      [made.key],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.details).toEqual({ new_key: fresh.key });
    expect(JSON.stringify(rows)).not.toContain(fresh.secret);
  });

  it('revokes after a confirmation; a revoked key offers no rotate or revoke any more', async () => {
    const made = shown((await post('/dashboard/developers/keys', form({ csrf: s.csrf }))).body);
    const done = await post(`/dashboard/developers/keys/${made.key}/revoke`, form({ csrf: s.csrf, confirm: 'yes' }));
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/developers?revoked=${made.key}`);
    expect(await tokenStatus(made.key, made.secret)).toBe(401);
    const page = await get(done.headers.location as string);
    expect(page.body).toContain(made.key);
    expect(page.body).not.toContain(`/dashboard/developers/keys/${made.key}/revoke`);
    expect((await post(`/dashboard/developers/keys/${made.key}/rotate`, form({ csrf: s.csrf, confirm: 'yes' }))).statusCode).toBe(404);
  });

  it('refuses every key post without the CSRF token, and changes nothing', async () => {
    const before = (await get('/dashboard/developers')).body.match(/key_[0-9a-f-]{36}/g)?.length;
    expect((await post('/dashboard/developers/keys', '')).statusCode).toBe(403);
    expect((await post(`/dashboard/developers/keys/${a.merchant.api_key}/revoke`, form({ confirm: 'yes' }))).statusCode).toBe(403);
    expect((await post(`/dashboard/developers/keys/${a.merchant.api_key}/rotate`, form({ csrf: 'wrong', confirm: 'yes' }))).statusCode).toBe(403);
    expect((await get('/dashboard/developers')).body.match(/key_[0-9a-f-]{36}/g)?.length).toBe(before);
    expect(await tokenStatus(a.merchant.api_key, a.merchant.api_secret)).toBe(200);
  });

  it("answers 404 for another merchant's key, which keeps working", async () => {
    const b = await caller(app);
    for (const action of ['rotate', 'revoke']) {
      const res = await post(`/dashboard/developers/keys/${b.merchant.api_key}/${action}`, form({ csrf: s.csrf, confirm: 'yes' }));
      expect(res.statusCode).toBe(404);
    }
    expect((await get('/dashboard/developers')).body).not.toContain(b.merchant.api_key);
    expect(await tokenStatus(b.merchant.api_key, b.merchant.api_secret)).toBe(200);
  });
});
