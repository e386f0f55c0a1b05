import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { basic, startTestApp, type TestApp } from '../helpers/app.ts';
import { cookiesOf, form, postSignIn, signIn } from '../helpers/dashboard.ts';

/** Back-office sign-in, sessions and CSRF (docs/back-office.md), through the HTTP interface. */
let app: TestApp;
let a: Caller;

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
});
afterAll(async () => {
  await app?.close();
});

const get = (url: string, cookie?: string) => app.server.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
const postForm = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  app.server.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: form(fields) });

describe('sign-in', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie (not Secure on loopback) and stores only its hash', async () => {
    const res = await postSignIn(app, a.merchant.email, a.merchant.password);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard');
    const line = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('chipin_dashboard='))!;
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Lax/);
    expect(line).not.toMatch(/Secure/);
    const token = cookiesOf(res).chipin_dashboard!;
    const { rows } = await app.services.db.query<{ token_hash: Uint8Array }>('SELECT token_hash FROM dashboard_sessions');
    const stored = rows.map((r) => Buffer.from(r.token_hash).toString('hex'));
    expect(stored).toContain(createHash('sha256').update(token).digest('hex'));
    expect(stored).not.toContain(Buffer.from(token).toString('hex'));
    expect((await get('/dashboard/purchases', `chipin_dashboard=${token}`)).statusCode).toBe(200);
  });

  it('marks the cookie Secure when the service is not on loopback', async () => {
    const remote = await startTestApp({ publicUrl: 'https://pay.example.com' });
    try {
      const m = await caller(remote);
      const res = await postSignIn(remote, m.merchant.email, m.merchant.password, { 'sec-fetch-site': 'same-origin' });
      expect(res.statusCode).toBe(303);
      expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('chipin_dashboard='))).toMatch(/; Secure/);
    } finally {
      await remote.close();
    }
  });

  it('answers a wrong password and an unknown e-mail with the same message, naming neither', async () => {
    const wrongPassword = await postSignIn(app, a.merchant.email, 'not-the-password');
    const unknownEmail = await postSignIn(app, 'nobody@shop.test', a.merchant.password);
    for (const res of [wrongPassword, unknownEmail]) {
      expect(res.statusCode).toBe(401);
      expect(res.body).toContain('Wrong e-mail or password.');
      expect(cookiesOf(res).chipin_dashboard).toBeUndefined();
    }
  });

  it('says it in French for a French browser', async () => {
    const res = await postSignIn(app, a.merchant.email, 'not-the-password', { 'accept-language': 'fr-FR,fr;q=0.9' });
    expect(res.body).toContain('E-mail ou mot de passe incorrect.');
    expect(res.body).toContain('<html lang="fr">');
  });

  it('refuses a sign-in posted from another site (login CSRF), even with a valid token', async () => {
    const res = await postSignIn(app, a.merchant.email, a.merchant.password, { 'sec-fetch-site': 'cross-site' });
    expect(res.statusCode).toBe(403);
    expect(cookiesOf(res).chipin_dashboard).toBeUndefined();
  });

  it('refuses a sign-in form without its CSRF token, signing nobody in', async () => {
    const res = await postForm('/dashboard/sign-in', { email: a.merchant.email, password: a.merchant.password });
    expect(res.statusCode).toBe(403);
    expect(cookiesOf(res).chipin_dashboard).toBeUndefined();
  });

  it('shares the failure budget of HTTP Basic: after failed form sign-ins, the right Basic password is throttled too', async () => {
    const m = await caller(app);
    for (let i = 0; i < 5; i++) expect((await postSignIn(app, m.merchant.email, `wrong-${i}`)).statusCode).toBe(401);
    const form = await postSignIn(app, m.merchant.email, m.merchant.password);
    expect(form.statusCode).toBe(429);
    expect(form.body).toContain('Too many failed attempts');
    const api = await app.server.inject({ method: 'GET', url: '/api/backoffice/offers', headers: { authorization: basic(m.merchant.email, m.merchant.password) } });
    expect(api.statusCode).toBe(429);
  });
});

describe('secrets', () => {
  it('never writes the password, the session token or the CSRF token to the logs', async () => {
    // Debug level: successful requests are logged too.
    const verbose = await startTestApp({ logLevel: 'debug' });
    try {
      const m = await caller(verbose);
      const res = await postSignIn(verbose, m.merchant.email, m.merchant.password);
      const token = cookiesOf(res).chipin_dashboard!;
      const cookie = `chipin_dashboard=${token}`;
      const list = await verbose.server.inject({ method: 'GET', url: '/dashboard/purchases', headers: { cookie } });
      const csrf = /name="csrf" value="([^"]+)"/.exec(list.body)![1]!;
      await verbose.server.inject({
        method: 'POST',
        url: '/dashboard/sign-out',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ csrf }),
      });
      const logs = verbose.logs.join('\n');
      expect(logs).toContain('/dashboard/sign-out');
      for (const secret of [m.merchant.password, token, csrf]) expect(logs).not.toContain(secret);
    } finally {
      await verbose.close();
    }
  });
});

describe('language', () => {
  it('keeps the language chosen with ?lang= for the next pages', async () => {
    const chosen = await get('/dashboard/sign-in?lang=fr');
    expect(chosen.body).toContain('<html lang="fr">');
    const kept = cookiesOf(chosen).chipin_dashboard_lang;
    expect(kept).toBe('fr');
    const next = await app.server.inject({ method: 'GET', url: '/dashboard/sign-in', headers: { cookie: `chipin_dashboard_lang=${kept}`, 'accept-language': 'en' } });
    expect(next.body).toContain('Mot de passe');
  });
});

describe('pages without a session', () => {
  it('send the browser to the sign-in page', async () => {
    for (const url of ['/dashboard', '/dashboard/purchases', `/dashboard/purchases/pur_${crypto.randomUUID()}`]) {
      const res = await get(url, 'chipin_dashboard=forged-or-expired');
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location, url).toBe('/dashboard/sign-in');
    }
  });
});

describe('sign-out', () => {
  it('revokes the session server-side: the old cookie no longer opens any page', async () => {
    const s = await signIn(app, a.merchant);
    const out = await postForm('/dashboard/sign-out', { csrf: s.csrf }, { cookie: s.cookie });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/dashboard/sign-in');
    expect(([] as string[]).concat(out.headers['set-cookie'] ?? []).some((c) => /^chipin_dashboard=;.*Max-Age=0/.test(c))).toBe(true);
    expect((await get('/dashboard/purchases', s.cookie)).statusCode).toBe(303);
    const api = await app.server.inject({ method: 'GET', url: '/api/backoffice/offers', headers: { cookie: s.cookie } });
    expect(api.statusCode).toBe(401);
  });

  it('refuses a sign-out without the CSRF token: the session stays open', async () => {
    const s = await signIn(app, a.merchant);
    expect((await postForm('/dashboard/sign-out', {}, { cookie: s.cookie })).statusCode).toBe(403);
    expect((await get('/dashboard/purchases', s.cookie)).statusCode).toBe(200);
  });
});

describe('the back-office API with the session cookie', () => {
  it('accepts the cookie for reads', async () => {
    const s = await signIn(app, a.merchant);
    const res = await app.server.inject({ method: 'GET', url: '/api/backoffice/offers', headers: { cookie: s.cookie } });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('refuses a write with the cookie alone (cross-site), and accepts it with the X-CSRF-Token header or from our own origin', async () => {
    const s = await signIn(app, a.merchant);
    const cancel = async (headers: Record<string, string>) => {
      const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase())).json() as { id: string };
      const res = await app.server.inject({ method: 'POST', url: `/api/backoffice/purchases/pur_${p.id}/cancel`, headers: { cookie: s.cookie, ...headers } });
      const state = (await a.get(`/api/merchants/v1/purchases/${p.id}`)).json().state as string;
      return { status: res.statusCode, state };
    };
    expect(await cancel({})).toEqual({ status: 403, state: 'INITIALIZED' });
    expect(await cancel({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).toEqual({ status: 403, state: 'INITIALIZED' });
    expect(await cancel({ 'x-csrf-token': 'wrong' })).toEqual({ status: 403, state: 'INITIALIZED' });
    expect(await cancel({ 'x-csrf-token': s.csrf })).toEqual({ status: 200, state: 'CANCELLED' });
    expect(await cancel({ 'sec-fetch-site': 'same-origin' })).toEqual({ status: 200, state: 'CANCELLED' });
    expect(await cancel({ origin: 'http://127.0.0.1:3000' })).toEqual({ status: 200, state: 'CANCELLED' });
  });
});

describe('page headers', () => {
  /** The CSP's directives by name. */
  const directives = (csp: string | string[] | number | undefined) =>
    new Map(
      String(csp)
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );

  it("let every form post, and every redirect after it, reach our own origin only (form-action 'self'), and never frame a page", async () => {
    const s = await signIn(app, a.merchant);
    const answers = [
      await get('/dashboard/sign-in'),
      await get('/dashboard/purchases', s.cookie),
      await get('/dashboard/developers', s.cookie),
      await get('/dashboard/purchases/pur_00000000-0000-4000-8000-000000000000', s.cookie),
      await postForm('/dashboard/developers/keys', { csrf: 'wrong' }, { cookie: s.cookie }),
    ];
    for (const res of answers) {
      const csp = directives(res.headers['content-security-policy']);
      expect(csp.get('form-action'), res.body.slice(0, 100)).toEqual(["'self'"]);
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(csp.get('default-src')).toEqual(["'none'"]);
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });
});
