import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHALLENGE_CSP } from '../../src/pages/html.ts';
import type { PspConnector } from '../../src/psp/connector.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { englishLeft } from '../helpers/words-left.ts';
import { SANDBOX_CARDS } from './fixtures/sandbox/cards.ts';
import { bareRef } from './connector-contract.ts';

const RETURN_URL = 'https://shop.example/return?order=42';

let app: TestApp;
let psp: PspConnector;
beforeAll(async () => {
  app = await startTestApp();
  psp = app.services.psps.get('sandbox');
});
afterAll(() => app.close());

async function challenged(capture: 'automatic' | 'manual' = 'automatic'): Promise<{ id: string; path: string }> {
  const a = await psp.attachPaymentMethod({ idempotencyKey: randomUUID(), card: SANDBOX_CARDS.challenge });
  if (!a.ok) throw new Error(a.reason);
  const r = await psp.authorize({ idempotencyKey: randomUUID(), paymentMethodId: a.paymentMethodId, amountCents: 123_456, currency: 'EUR', capture, returnUrl: RETURN_URL });
  expect(r.status).toBe('requires_action');
  return { id: r.transactionId, path: new URL(r.challengeUrl!).pathname };
}

function tokenOf(html: string): string {
  const m = /name="token" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no token in the page');
  return m[1]!;
}

function post(path: string, form: Record<string, string>) {
  return app.server.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

describe('sandbox PSP 3-D Secure challenge page', () => {
  it('shows the amount and card with both buttons, in English, under the page CSP', async () => {
    const { path } = await challenged();
    const res = await app.server.inject(path);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toBe(CHALLENGE_CSP);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<html lang="en">');
    expect(res.body).toMatch(/<button type="submit" name="outcome" value="complete"[^>]*>Complete authentication<\/button>/);
    expect(res.body).toMatch(/<button type="submit" name="outcome" value="fail"[^>]*>Fail authentication<\/button>/);
    expect(res.body).toContain('<form method="post"');
    expect(res.body).toContain('€1,234.56');
    expect(res.body).toContain('VISA ending in 3220');
    expect(res.body).not.toContain('4000 0000 0000 3220');
    expect(res.body).not.toMatch(/<script/i);
  });

  it("speaks the language the page is asked in (?lang=), over the browser's and the return address's", async () => {
    const { path } = await challenged();
    const fr = await app.server.inject({ url: `${path}?lang=fr`, headers: { 'accept-language': 'en-GB' } });
    expect(fr.body).toContain('<html lang="fr">');
    expect(fr.body).toContain('Faire échouer l’authentification');
    const en = await app.server.inject({ url: `${path}?lang=en`, headers: { 'accept-language': 'fr-FR' } });
    expect(en.body).toContain('<html lang="en">');
    // Anything else is no choice: the browser's language then.
    expect((await app.server.inject({ url: `${path}?lang=xx`, headers: { 'accept-language': 'fr-FR' } })).body).toContain('<html lang="fr">');
    // The other languages of the hosted pages, whole: nothing left in English.
    for (const lang of ['de', 'es', 'it', 'nl'] as const) {
      const page = (await app.server.inject({ url: path, headers: { 'accept-language': `${lang},en;q=0.5` } })).body;
      expect(page, lang).toContain(`<html lang="${lang}">`);
      expect(englishLeft(page, lang, ['sandbox-challenge'], ['3-D Secure']), lang).toEqual([]);
    }
  });

  it('refuses a POST with a wrong or missing token (403) and changes nothing', async () => {
    const { id, path } = await challenged();
    for (const form of [{ outcome: 'complete', token: 'forged-token' }, { outcome: 'complete' }] as Record<string, string>[]) {
      const res = await post(path, form);
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-security-policy']).toBe(CHALLENGE_CSP);
    }
    // Another transaction's valid token does not work here either.
    const other = await challenged();
    const otherToken = tokenOf((await app.server.inject(other.path)).body);
    expect((await post(path, { outcome: 'complete', token: otherToken })).statusCode).toBe(403);
    expect((await psp.retrieve(bareRef(id))).status).toBe('requires_action');
  });

  it('completing redirects (303) to the return URL with the transaction id, and the payment is captured', async () => {
    const { id, path } = await challenged();
    const token = tokenOf((await app.server.inject(path)).body);
    const res = await post(path, { outcome: 'complete', token });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`https://shop.example/return?order=42&transaction_id=${id}`);
    expect(await psp.retrieve(bareRef(id))).toMatchObject({ status: 'captured', capturedCents: 123_456 });

    // A second submission (double click, back button) changes nothing and sends the shopper back again.
    const again = await post(path, { outcome: 'fail', token });
    expect(again.statusCode).toBe(303);
    expect((await psp.retrieve(bareRef(id))).status).toBe('captured');
    const page = await app.server.inject(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Authentication finished');
    expect(page.body).not.toContain('<form');
  });

  it('completing a manual-capture payment leaves it authorised', async () => {
    const { id, path } = await challenged('manual');
    const res = await post(path, { outcome: 'complete', token: tokenOf((await app.server.inject(path)).body) });
    expect(res.statusCode).toBe(303);
    expect((await psp.retrieve(bareRef(id))).status).toBe('authorized');
  });

  it('failing redirects (303) to the return URL, and the payment is declined with authentication_failed', async () => {
    const { id, path } = await challenged();
    const res = await post(path, { outcome: 'fail', token: tokenOf((await app.server.inject(path)).body) });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toContain(`transaction_id=${id}`);
    const after = await psp.retrieve(bareRef(id));
    expect(after.status).toBe('declined');
    expect(after.decline?.reason).toBe('authentication_failed');
  });

  it('answers 400 for a POST without a valid outcome, and 404 for an unknown transaction', async () => {
    const { path } = await challenged();
    const token = tokenOf((await app.server.inject(path)).body);
    expect((await post(path, { outcome: 'maybe', token })).statusCode).toBe(400);
    const unknown = `/sandbox-psp/challenge/sbx_txn_${randomUUID()}`;
    expect((await app.server.inject(unknown)).statusCode).toBe(404);
    expect((await post(unknown, { outcome: 'complete', token })).statusCode).toBe(404);
    expect((await app.server.inject('/sandbox-psp/challenge/not-an-id')).statusCode).toBe(404);
  });

  it('has no page for a transaction that never asked for a challenge', async () => {
    const a = await psp.attachPaymentMethod({ idempotencyKey: randomUUID(), card: SANDBOX_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    const r = await psp.authorize({
      idempotencyKey: randomUUID(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 100,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect((await app.server.inject(`/sandbox-psp/challenge/${r.transactionId}`)).statusCode).toBe(404);
  });
});
