import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AccessTokens } from '../../src/auth/access-tokens.ts';
import { basic, getToken, newMerchant, startTestApp, type TestApp } from '../helpers/app.ts';
import type { CreatedMerchant } from '../../src/accounts/accounts.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let app: TestApp;
let m: CreatedMerchant;
beforeAll(async () => {
  app = await startTestApp();
  m = await newMerchant(app);
});
afterAll(() => app.close());

function tokenRequest(headers: Record<string, string>, payload: string, remoteAddress = '127.0.0.1') {
  return app.server.inject({ method: 'POST', url: '/api/token', headers, payload, remoteAddress });
}

function whoami(authorization?: string) {
  return app.server.inject({ method: 'GET', url: '/api/whoami', headers: authorization ? { authorization } : {} });
}

describe('POST /api/token', () => {
  it('issues a Bearer token for 600 s with Cache-Control: no-store, for Basic API key and secret', async () => {
    const res = await tokenRequest({ authorization: basic(m.api_key, m.api_secret), ...FORM }, 'grant_type=client_credentials');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 600 });
    const me = await whoami(`Bearer ${body.access_token}`);
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ account_id: m.account_id, api_key: m.api_key });
  });

  it('accepts the credentials in the form body (client_secret_post) too', async () => {
    const payload = new URLSearchParams({ grant_type: 'client_credentials', client_id: m.api_key, client_secret: m.api_secret });
    const res = await tokenRequest(FORM, payload.toString());
    expect(res.statusCode).toBe(200);
  });

  it('refuses a wrong secret with 401 invalid_client and a Basic challenge (RFC 6749 §5.2)', async () => {
    const res = await tokenRequest({ authorization: basic(m.api_key, 'sk_wrong'), ...FORM }, 'grant_type=client_credentials', '10.0.0.1');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    expect(res.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
  });

  it('refuses an unknown key and a request without credentials alike', async () => {
    const unknown = await tokenRequest({ authorization: basic('key_nope', 'x'), ...FORM }, 'grant_type=client_credentials', '10.0.0.2');
    const none = await tokenRequest(FORM, 'grant_type=client_credentials', '10.0.0.2');
    for (const res of [unknown, none]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('invalid_client');
    }
  });

  it('accepts a JSON body with grant_type, client_id and client_secret as the form body (docs/authentication.md)', async () => {
    const payload = JSON.stringify({ grant_type: 'client_credentials', client_id: m.api_key, client_secret: m.api_secret });
    const res = await tokenRequest({ 'content-type': 'application/json' }, payload);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ token_type: 'Bearer', expires_in: 600 });
  });

  it('answers 400 invalid_request "body must be object" to a call with no body, Basic credentials or not (docs/authentication.md)', async () => {
    for (const headers of [{}, { authorization: basic(m.api_key, m.api_secret) }]) {
      const res = await app.server.inject({ method: 'POST', url: '/api/token', headers, remoteAddress: '10.0.0.4' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_request', error_description: 'body must be object' });
    }
  });

  it('answers 400 unsupported_grant_type for another grant type', async () => {
    const res = await tokenRequest({ authorization: basic(m.api_key, m.api_secret), ...FORM }, 'grant_type=password');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('unsupported_grant_type');
  });

  it('answers 400 invalid_request naming grant_type when it is missing or repeated', async () => {
    const auth = { authorization: basic(m.api_key, m.api_secret), ...FORM };
    for (const payload of ['', 'scope=x', 'grant_type=client_credentials&grant_type=client_credentials']) {
      const res = await tokenRequest(auth, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expect(res.json().error_description).toContain('grant_type');
    }
  });

  it('throttles repeated failures per API key with 429 and Retry-After, even with the right secret', async () => {
    const victim = await newMerchant(app);
    for (let i = 0; i < 5; i++) {
      const res = await tokenRequest({ authorization: basic(victim.api_key, 'bad'), ...FORM }, 'grant_type=client_credentials', `10.1.0.${i}`);
      expect(res.statusCode).toBe(401);
    }
    const blocked = await tokenRequest({ authorization: basic(victim.api_key, victim.api_secret), ...FORM }, 'grant_type=client_credentials', '10.1.1.1');
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.json().error).toBe('too_many_requests');
  });

  it('reads the key and both budgets in one statement, and answers from both up to their limits', async () => {
    const victim = await newMerchant(app);
    const right = (address: string) => tokenRequest({ authorization: basic(victim.api_key, victim.api_secret), ...FORM }, 'grant_type=client_credentials', address);
    const wrong = (key: string, address: string) => tokenRequest({ authorization: basic(key, 'bad'), ...FORM }, 'grant_type=client_credentials', address);
    // 4 failures of the key and 19 of the address: one below each limit, so the right secret is served.
    for (let i = 0; i < 4; i++) expect((await wrong(victim.api_key, '10.4.0.1')).statusCode).toBe(401);
    for (let i = 0; i < 15; i++) expect((await wrong(`key_other${i}`, '10.4.0.1')).statusCode).toBe(401);
    const queries = vi.spyOn(app.services.db, 'query');
    try {
      expect((await right('10.4.0.1')).statusCode).toBe(200);
      const credentialReads = queries.mock.calls.filter(([text]) => /\b(api_keys|auth_throttle)\b/.test(text));
      expect(credentialReads).toHaveLength(1);
    } finally {
      queries.mockRestore();
    }
    // The address's 20th failure spends its budget: the right secret is refused there, served elsewhere.
    expect((await wrong('key_other15', '10.4.0.1')).statusCode).toBe(401);
    const atAddress = await right('10.4.0.1');
    expect(atAddress.statusCode).toBe(429);
    expect(Number(atAddress.headers['retry-after'])).toBeGreaterThan(0);
    expect((await right('10.4.0.2')).statusCode).toBe(200);
    // The key's 5th failure spends its budget: refused from any address.
    expect((await wrong(victim.api_key, '10.4.0.3')).statusCode).toBe(401);
    const anywhere = await right('10.4.0.4');
    expect(anywhere.statusCode).toBe(429);
    expect(anywhere.json()).toEqual({ error: 'too_many_requests', error_description: expect.stringMatching(/^too many failed attempts, retry in \d+ s$/) });
  });

  it('throttles repeated failures per client address across keys', async () => {
    for (let i = 0; i < 20; i++) {
      await tokenRequest({ authorization: basic(`key_guess${i}`, 'bad'), ...FORM }, 'grant_type=client_credentials', '10.2.0.1');
    }
    const blocked = await tokenRequest({ authorization: basic(m.api_key, m.api_secret), ...FORM }, 'grant_type=client_credentials', '10.2.0.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
    const elsewhere = await tokenRequest({ authorization: basic(m.api_key, m.api_secret), ...FORM }, 'grant_type=client_credentials', '10.2.0.2');
    expect(elsewhere.statusCode).toBe(200);
  });
});

describe('bearer guard', () => {
  const challenge = /^Bearer .*error="invalid_token"/;

  it('answers 401 with WWW-Authenticate error="invalid_token" for a missing token', async () => {
    const res = await whoami();
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(challenge);
    expect(res.json().error.app_error).toBe('invalid_token');
  });

  it('answers 401 for malformed and tampered tokens', async () => {
    const good = await getToken(app, m);
    const tampered = good.slice(0, -2) + (good.endsWith('AA') ? 'BB' : 'AA');
    for (const auth of ['Bearer', 'Bearer not-a-token', `Basic ${good}`, `Bearer ${tampered}`, `Bearer ${good}x`]) {
      const res = await whoami(auth);
      expect(res.statusCode, auth).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(challenge);
    }
  });

  it('answers 401 for an expired token', async () => {
    const past = new AccessTokens(app.services.config.masterKey, () => Date.now() - 601_000);
    const { token } = past.issue(m.account_id.slice(4), m.api_key);
    const res = await whoami(`Bearer ${token}`);
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('expired');
  });

  it('stops tokens of a revoked key within 5 s and refuses new ones', async () => {
    const other = await newMerchant(app);
    const token = await getToken(app, other);
    expect((await whoami(`Bearer ${token}`)).statusCode).toBe(200);
    await app.services.accounts.revokeKey(other.api_key);
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 5_000) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await whoami(`Bearer ${token}`)).statusCode;
    }
    expect(status).toBe(401);
    const again = await tokenRequest({ authorization: basic(other.api_key, other.api_secret), ...FORM }, 'grant_type=client_credentials', '10.3.0.1');
    expect(again.statusCode).toBe(401);
  });
});
