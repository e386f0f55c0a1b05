import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, PHONE, signedInPage, startServedApp } from '../helpers/browser.ts';
import { addDashboardUser } from '../helpers/dashboard.ts';
import { Receiver, setWebhook } from '../delivery/helpers.ts';

/**
 * The Developers page's webhook tools and what the back office refuses, in real Chromium
 * (docs/back-office.md): a test event reaches the receiver and its answer is shown; a delivery
 * replayed reaches the receiver again; a form sent without its CSRF token and a support user's key
 * rotation are refused and change nothing.
 */
let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;
let receiver: Receiver;

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser, receiver] = await Promise.all([startServedApp(), launchBrowser(), Receiver.start()]);
  a = await caller(app);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await receiver?.close();
});

const signedIn = (user: { email: string; password: string }): Promise<Page> => signedInPage(browser, app.base, user);

const tokenStatus = async (key: string, secret: string) =>
  (
    await app.server.inject({
      method: 'POST',
      url: '/api/token',
      headers: { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    })
  ).statusCode;

describe.skipIf(!hasBrowser)('back office replays and refusals in Chromium', () => {
  it('says a refused IBAN on the Payouts page in the page’s language, by the field, not the API’s English, at 390 px', async () => {
    const page = await signedInPage(browser, app.base, a.merchant, PHONE);
    const want = {
      en: {
        iban: 'IBAN',
        holder: 'Account holder',
        password: 'Your current password',
        save: 'Save',
        error: 'IBAN: this is not a valid IBAN, its check digits are wrong (a typing mistake?). Nothing changed.',
      },
      fr: {
        iban: 'IBAN',
        holder: 'Titulaire du compte',
        password: 'Votre mot de passe actuel',
        save: 'Enregistrer',
        error: 'IBAN\u00a0: cet IBAN n’est pas valide, sa clé de contrôle est fausse (une faute de frappe\u00a0?). Rien n’a changé.',
      },
    };
    try {
      for (const lang of ['en', 'fr'] as const) {
        const w = want[lang];
        await page.goto(`${app.base}/dashboard/payouts?lang=${lang}`);
        await page.getByLabel(w.holder).fill('Atelier Lumière');
        // One check digit wrong.
        await page.getByLabel(w.iban, { exact: true }).fill('FR76 3000 6000 0112 3456 7890 188');
        await page.getByLabel('BIC', { exact: true }).fill('AGRIFRPP');
        await page.getByLabel(w.password).fill(a.merchant.password);
        await page.getByRole('button', { name: w.save }).click();
        const alert = page.getByRole('alert');
        await expect.poll(() => alert.textContent()).toBe(w.error);
        expect(await page.getByLabel(w.iban, { exact: true }).getAttribute('aria-invalid'), lang).toBe('true');
        expect(await page.locator('main').innerText(), lang).not.toContain('field iban');
        await expectAccessible(page, `payouts with a refused IBAN (${lang})`);
      }
    } finally {
      await page.close();
    }
  });

  it('shows a refund above what is left by its amount field, focused and in view, not at the top of the page, at 390 px in English and French', async () => {
    const created = await a.post('/api/merchants/v1/purchases', minimalPurchase({ ref: 'TOO-MUCH', amount: 10_000 }));
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' })).statusCode).toBe(200);
    const page = await signedInPage(browser, app.base, a.merchant, PHONE);
    const want = {
      en: { amount: 'Amount', refund: 'Refund…', error: 'Amount: at most €100.00, what is left to refund.' },
      fr: { amount: 'Montant', refund: 'Rembourser…', error: 'Montant\u00a0: au plus 100,00\u00a0€, ce qu’il reste à rembourser.' },
    };
    try {
      for (const lang of ['en', 'fr'] as const) {
        const w = want[lang];
        await page.goto(`${app.base}/dashboard/purchases/pur_${id}?lang=${lang}`);
        await page.getByLabel(w.amount, { exact: true }).fill(lang === 'en' ? '500.00' : '500,00');
        await page.getByRole('button', { name: w.refund }).click();
        const error = page.locator('#amount-error');
        await expect.poll(() => error.textContent()).toBe(w.error);
        expect(await page.locator('#action-error').count(), lang).toBe(0);
        const field = page.getByLabel(w.amount, { exact: true });
        expect(await field.evaluate((el) => el === document.activeElement), lang).toBe(true);
        expect(await field.getAttribute('aria-invalid'), lang).toBe('true');
        expect(await field.getAttribute('aria-describedby'), lang).toContain('amount-error');
        // The message sits right by the field, both on the screen.
        const [e, f] = [(await error.boundingBox())!, (await field.boundingBox())!];
        expect(f.y - (e.y + e.height), lang).toBeLessThan(24);
        expect(f.y - (e.y + e.height), lang).toBeGreaterThanOrEqual(0);
        for (const box of [e, f]) {
          expect(box.y, lang).toBeGreaterThanOrEqual(0);
          expect(box.y + box.height, lang).toBeLessThanOrEqual(PHONE.height);
        }
        await expectAccessible(page, `refund above what is left (${lang})`);
      }
    } finally {
      await page.close();
    }
  });

  it('replays a delivered webhook from the Developers page: the receiver gets the same event again', async () => {
    await setWebhook(app, a, receiver.url());
    const created = await a.post('/api/merchants/v1/purchases', minimalPurchase({ ref: 'REPLAY-1', amount: 5_000 }));
    expect(created.statusCode, created.body).toBe(201);
    expect((await a.post(`/api/sandbox/purchases/pur_${created.json().id}/pay`, { card_number: '4242424242424242' })).statusCode).toBe(200);
    await receiver.waitFor((r) => r.length >= 1, 'the first delivery');
    const before = receiver.received.length;
    const first = receiver.received[0]!.body;

    const page = await signedIn(a.merchant);
    try {
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Developers' }).click();
      await expect.poll(() => page.title()).toBe('Developers · Chipin back office');
      // The oldest delivery is the first one sent (the list is newest first).
      const replays = page.getByRole('button', { name: /^Replay dlv_/ });
      await replays.last().click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Delivery queued to be sent again now.');
      await expectAccessible(page, 'developers after replay');
      await receiver.waitFor((r) => r.length > before, 'the replayed delivery');
      expect(receiver.received.slice(before).map((r) => r.body)).toContain(first);

      // Its own page lists both attempts.
      await page.goto(`${app.base}/dashboard/developers`);
      await page.getByRole('region', { name: 'Recent deliveries' }).getByRole('link').last().click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Delivery dlv_/);
      await expect.poll(() => page.getByRole('region', { name: 'Attempts' }).getByRole('row').count()).toBe(3); // the header and two attempts
      await expectAccessible(page, 'a delivery');
    } finally {
      await page.close();
    }
  });

  it('sends a test event from the Developers page and shows what the endpoint answered', async () => {
    await setWebhook(app, a, receiver.url('/test-event'));
    const page = await signedIn(a.merchant);
    try {
      await page.goto(`${app.base}/dashboard/developers`);
      const before = receiver.received.length;
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Test event \w+ sent: the endpoint answered 204 in \d+ ms\.$/);
      await expectAccessible(page, 'developers after a test event');
      expect(receiver.received.slice(before).map((r) => r.path)).toEqual(['/test-event']);
    } finally {
      await page.close();
    }
  });

  it('refuses a form sent without its CSRF token, and the webhook keeps its URL', async () => {
    await setWebhook(app, a, receiver.url('/kept'));
    const page = await signedIn(a.merchant);
    try {
      await page.goto(`${app.base}/dashboard/developers`);
      // A forged form has no token: take it out of the real one before sending.
      await page.evaluate(() => document.querySelectorAll('input[name="csrf"]').forEach((input) => input.remove()));
      await page.getByLabel('Webhook URL').fill('https://attacker.example/hook');
      const answer = page.waitForResponse((r) => r.url().endsWith('/dashboard/developers/webhook') && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Save the webhook' }).click();
      expect((await answer).status()).toBe(403);
      await expectAccessible(page, 'refused form');
      const api = (await app.server.inject({ method: 'GET', url: '/api/backoffice/webhook', headers: { authorization: a.dashboard } })).json();
      expect(api.url).toBe(receiver.url('/kept'));
    } finally {
      await page.close();
    }
  });

  it("refuses a support user's key rotation, sent with their own session and token: 403 and the key still works", async () => {
    const support = await addDashboardUser(app, a.accountId, 'support');
    const page = await signedIn(support);
    try {
      // The support user has no Developers page to take a form from: post what it would send.
      const csrf = await page.locator('input[name="csrf"]').first().inputValue();
      const res = await page.request.post(`${app.base}/dashboard/developers/keys/${a.merchant.api_key}/rotate`, { form: { csrf, confirm: 'yes' }, maxRedirects: 0 });
      expect(res.status()).toBe(403);
      expect(await tokenStatus(a.merchant.api_key, a.merchant.api_secret)).toBe(200);
    } finally {
      await page.close();
    }
  });
});
