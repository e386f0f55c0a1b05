import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, startServedApp } from '../helpers/browser.ts';

/**
 * The two staff journeys (a dozen page loads and three accessibility audits each) take about 5 s
 * alone; CI runs this file beside three others on two cores, where one journey of both together
 * outlasted the default 30 s. They are two tests now, each with room: a hang still fails.
 */
const JOURNEY_TIMEOUT = 60_000;

/**
 * The back office as merchant staff uses it (docs/back-office.md): real Chromium, by labels and
 * roles only, on a phone-sized window, axe-core on every page met.
 */
let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;

const PHONE = { width: 390, height: 844 };
const CARD = '4242424242424242';

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  a = await caller(app);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function paidPurchase(ref: string, amount = 10_000): Promise<string> {
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ ref, amount, client: { email: 'lea@example.com' } }));
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as string;
  expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CARD })).statusCode).toBe(200);
  return id;
}

async function signInPage(lang: 'en' | 'fr' = 'en'): Promise<Page> {
  const page = await browser.newPage({ viewport: PHONE, locale: lang === 'fr' ? 'fr-FR' : 'en-GB' });
  await page.goto(`${app.base}/dashboard`);
  return page;
}

async function signIn(page: Page, password = a.merchant.password): Promise<void> {
  await page.getByLabel('E-mail').fill(a.merchant.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe.skipIf(!hasBrowser)('back office in Chromium', () => {
  it('shows one message for wrong credentials, without saying which part was wrong', async () => {
    const page = await signInPage();
    try {
      await expect.poll(() => page.title()).toBe('Sign in · Chipin back office');
      await expectAccessible(page, 'sign-in');
      await signIn(page, 'not-the-password');
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong e-mail or password.');
      await expectAccessible(page, 'sign-in with error');
    } finally {
      await page.close();
    }
  });

  it(
    'signs in, finds a purchase by reference, refunds part then the rest (REFUNDED)',
    async () => {
      const refundable = await paidPurchase('BROWSER-REFUND');
      const page = await signInPage();
      try {
        await signIn(page);
        await expect.poll(() => page.title()).toBe('Home · Chipin back office');
        await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Purchases' }).click();
        await expect.poll(() => page.title()).toBe('Purchases · Chipin back office');
        await expectAccessible(page, 'purchases');

        await page.getByRole('searchbox', { name: 'Search' }).fill('BROWSER-REFUND');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.getByRole('link', { name: 'BROWSER-REFUND' }).click();
        await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Successful');
        expect(page.url()).toContain(refundable);
        await expectAccessible(page, 'purchase');
        // Money was captured: no cancel on offer, a line says a refund gives it back.
        expect(await page.getByRole('button', { name: 'Cancel the purchase…' }).count()).toBe(0);
        expect(await page.getByText('Money was captured, so this purchase can no longer be cancelled: a refund gives the money back.').count()).toBe(1);

        // Part of it: 30.00 of 100.00, with a confirmation step.
        await page.getByLabel('Amount').fill('30.00');
        await page.getByLabel('Reason (optional)').fill('One night cancelled');
        await page.getByRole('button', { name: 'Refund…' }).click();
        await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm the refund');
        expect(await page.getByText('Refund €30.00 on this purchase of lea@example.com?').count()).toBe(1);
        await expectAccessible(page, 'refund confirmation');
        await page.getByRole('button', { name: 'Confirm the refund' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toBe('Refund recorded.');
        expect(await page.getByRole('cell', { name: 'One night cancelled' }).count()).toBe(1);

        // The rest: the amount left empty refunds everything left.
        await page.getByRole('button', { name: 'Refund…' }).click();
        await page.getByRole('button', { name: 'Confirm the refund' }).click();
        await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Refunded');
        expect((await a.get(`/api/merchants/v1/purchases/${refundable}`)).json().state).toBe('REFUNDED');
      } finally {
        await page.close();
      }
    },
    JOURNEY_TIMEOUT,
  );

  it(
    'cancels a purchase found by reference from the list, with confirmation, then signs out and the session is gone',
    async () => {
      const cancellable = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ ref: 'BROWSER-CANCEL' }))).json().id as string;
      const page = await signInPage();
      try {
        await signIn(page);
        await expect.poll(() => page.title()).toBe('Home · Chipin back office');
        await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Purchases' }).click();
        await page.getByRole('searchbox', { name: 'Search' }).fill('BROWSER-CANCEL');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.getByRole('link', { name: 'BROWSER-CANCEL' }).click();
        // A destructive secondary action, not a full-width primary button like the refund's.
        const cancel = page.getByRole('button', { name: 'Cancel the purchase…' });
        const look = await cancel.evaluate((b) => ({
          width: b.getBoundingClientRect().width,
          form: b.parentElement!.clientWidth,
          background: getComputedStyle(b).backgroundColor,
        }));
        expect(look.width).toBeLessThan(look.form * 0.8);
        expect(look.background).not.toBe('rgb(11, 92, 173)');
        await expectAccessible(page, 'purchase with cancel');
        await cancel.click();
        await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm the cancellation');
        await expectAccessible(page, 'cancel confirmation');
        await page.getByRole('button', { name: 'Confirm the cancellation' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toBe('Purchase cancelled.');
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Cancelled');
        expect((await a.get(`/api/merchants/v1/purchases/${cancellable}`)).json().state).toBe('CANCELLED');

        await page.getByRole('button', { name: 'Sign out' }).click();
        await expect.poll(() => page.title()).toBe('Sign in · Chipin back office');
        // The session is gone: the list sends the browser back to the sign-in page.
        await page.goto(`${app.base}/dashboard/purchases`);
        await expect.poll(() => page.title()).toBe('Sign in · Chipin back office');
      } finally {
        await page.close();
      }
    },
    JOURNEY_TIMEOUT,
  );

  it('the menu links to the sandbox inbox, which opens with the session, without an HTTP Basic prompt', async () => {
    const page = await signInPage();
    try {
      await signIn(page);
      await expect.poll(() => page.title()).toBe('Home · Chipin back office');
      const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/sandbox/inbox');
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Sandbox inbox' }).click();
      const res = await answer;
      expect(res.status()).toBe(200);
      expect(res.headers()['www-authenticate']).toBeUndefined();
      await expect(page.getByRole('heading', { level: 1, name: 'Sandbox inbox' }).isVisible()).resolves.toBe(true);
      // A back-office page: its menu stays, and it passes the same accessibility check.
      await expect(page.getByRole('navigation', { name: 'Main menu' }).isVisible()).resolves.toBe(true);
      await expectAccessible(page, 'sandbox inbox');
    } finally {
      await page.close();
    }
    // Without the session (a client with no cookie), the inbox still asks for the dashboard credentials.
    const stranger = await browser.newContext();
    try {
      const res = await stranger.request.get(`${app.base}/sandbox/inbox`);
      expect(res.status()).toBe(401);
      expect(res.headers()['www-authenticate']).toBe('Basic realm="Chipin sandbox"');
    } finally {
      await stranger.close();
    }
  });

  it("on a 1280 px screen an admin's banner is the name, language and sign-out on one line and the menu on at most two under it, in English and French", async () => {
    for (const lang of ['en', 'fr'] as const) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: lang === 'fr' ? 'fr-FR' : 'en-GB' });
      try {
        await page.goto(`${app.base}/dashboard?lang=${lang}`);
        await page.getByLabel('E-mail').fill(a.merchant.email);
        await page.getByLabel(lang === 'fr' ? 'Mot de passe' : 'Password').fill(a.merchant.password);
        await page.getByRole('button', { name: lang === 'fr' ? 'Se connecter' : 'Sign in' }).click();
        const menu = page.getByRole('navigation', { name: lang === 'fr' ? 'Menu principal' : 'Main menu' });
        await menu.waitFor();
        const lines = await menu.locator('li').evaluateAll((items) => new Set(items.map((li) => Math.round(li.getBoundingClientRect().top))).size);
        expect(lines, lang).toBeLessThanOrEqual(2);
        // The account's name, the language switch and sign-out share the line above the menu.
        const [brand, langSwitch, signOut, nav] = await page.locator('header.bo .bar').evaluate((bar) =>
          ['.brand', 'nav.lang', 'form', 'nav.menu'].map((q) => {
            const r = bar.querySelector(q)!.getBoundingClientRect();
            return { top: r.top, bottom: r.bottom };
          }),
        );
        for (const item of [langSwitch!, signOut!]) expect(item.top < brand!.bottom && brand!.top < item.bottom, lang).toBe(true);
        expect(nav!.top, lang).toBeGreaterThanOrEqual(Math.max(brand!.bottom, signOut!.bottom) - 1);
      } finally {
        await page.close();
      }
    }
  });

  it("answers 404 for another merchant's purchase", async () => {
    const b = await caller(app);
    const theirs = (await b.post('/api/merchants/v1/purchases', minimalPurchase())).json().id as string;
    const page = await signInPage();
    try {
      await signIn(page);
      await expect.poll(() => page.title()).toBe('Home · Chipin back office');
      const res = await page.goto(`${app.base}/dashboard/purchases/pur_${theirs}`);
      expect(res?.status()).toBe(404);
      await expectAccessible(page, 'not found');
    } finally {
      await page.close();
    }
  });

  it('sets the webhook on the Developers page and shows its new secret once', async () => {
    const page = await signInPage();
    try {
      await signIn(page);
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Developers' }).click();
      await expect.poll(() => page.title()).toBe('Developers · Chipin back office');
      await expectAccessible(page, 'developers');
      await page.getByLabel('Webhook URL').fill(`${app.base}/healthz`);
      await page.getByRole('checkbox', { name: 'purchaseRefunded' }).check();
      await page.getByRole('button', { name: 'Save the webhook' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Webhook saved.');
      const api = (await app.server.inject({ method: 'GET', url: '/api/backoffice/webhook', headers: { authorization: a.dashboard } })).json();
      expect(api.events).toContain('purchaseRefunded');
      expect(await page.getByText(api.secret).count()).toBe(1);
      await expectAccessible(page, 'developers after save');
      await page.reload();
      expect(await page.getByText(api.secret).count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('works in French', async () => {
    const page = await signInPage('fr');
    try {
      await page.getByLabel('E-mail').fill(a.merchant.email);
      await page.getByLabel('Mot de passe').fill(a.merchant.password);
      await page.getByRole('button', { name: 'Se connecter' }).click();
      await expect.poll(() => page.title()).toBe('Accueil · Back-office Chipin');
      await expectAccessible(page, 'accueil');
      await page.getByRole('button', { name: 'Se déconnecter' }).click();
      await expect.poll(() => page.title()).toBe('Connexion · Back-office Chipin');
    } finally {
      await page.close();
    }
  });
});
