import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChallengeRelay } from '../../src/psp/challenge-relay.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const KEY = Buffer.alloc(32, 7);
const relay = new ChallengeRelay(KEY, 'https://chipin.example');
const FORM = { action: 'https://acs.bank.example/3ds?x=1', fields: { PaReq: 'eJz+/=', MD: 'a"b<c>&d', TermUrl: 'https://chipin.example/pay/pur_1/return?payment=2' } };

describe('the 3-D Secure relay URL', () => {
  it('opens what it sealed, whatever the fields hold', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 20 }), fc.string({ maxLength: 200 }), { maxKeys: 8 }), (fields) => {
        const url = new URL(relay.url({ action: FORM.action, fields }));
        expect(url.origin + url.pathname).toBe('https://chipin.example/psp-challenge');
        expect(relay.open(url.searchParams.get('f'), url.searchParams.get('s'))).toEqual({ action: FORM.action, fields: { ...fields } });
      }),
    );
  });

  it('refuses a form it did not seal: altered, re-signed with another key, or not a web address', () => {
    const url = new URL(relay.url(FORM));
    const f = url.searchParams.get('f')!;
    const s = url.searchParams.get('s')!;
    const forged = Buffer.from(JSON.stringify({ a: 'https://evil.example/', f: {} })).toString('base64url');
    expect(relay.open(forged, s)).toBeUndefined();
    expect(relay.open(f, s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A'))).toBeUndefined();
    const other = new URL(new ChallengeRelay(Buffer.alloc(32, 8), 'https://chipin.example').url(FORM));
    expect(relay.open(other.searchParams.get('f'), other.searchParams.get('s'))).toBeUndefined();
    const js = new URL(relay.url({ action: 'javascript:alert(1)', fields: {} }));
    expect(relay.open(js.searchParams.get('f'), js.searchParams.get('s'))).toBeUndefined();
    expect(relay.open(undefined, s)).toBeUndefined();
    expect(relay.open('not base64!', s)).toBeUndefined();
  });
});

describe('GET /psp-challenge', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('serves a page that posts the sealed form to the issuer only, fields escaped, with a button for browsers without script', async () => {
    const url = new URL(app.services.psps.challengeRelay!.url(FORM));
    const res = await app.server.inject({ method: 'GET', url: url.pathname + url.search, headers: { 'accept-language': 'fr-FR' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/form-action https:\/\/acs\.bank\.example;/);
    expect(res.headers['content-security-policy']).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<html lang="fr">');
    expect(res.body).toContain('<form id="acs" method="post" action="https://acs.bank.example/3ds?x=1">');
    expect(res.body).toContain('<input type="hidden" name="MD" value="a&quot;b&lt;c&gt;&amp;d">');
    expect(res.body).toContain('<button type="submit">Continuer vers ma banque</button>');
  });

  it('answers 404 with no form for a URL it did not seal, and 400 for an oversized one', async () => {
    const url = new URL(app.services.psps.challengeRelay!.url(FORM));
    const forged = Buffer.from(JSON.stringify({ a: 'https://evil.example/', f: {} })).toString('base64url');
    for (const query of [`?f=${forged}&s=${url.searchParams.get('s')}`, '', '?f=&s=', `?f=${url.searchParams.get('f')}`]) {
      const res = await app.server.inject({ method: 'GET', url: `/psp-challenge${query}` });
      expect(res.statusCode, query).toBe(404);
      expect(res.body).not.toContain('<form');
    }
    expect((await app.server.inject({ method: 'GET', url: `/psp-challenge?f=${'a'.repeat(9_000)}&s=x` })).statusCode).toBe(400);
  });
});
