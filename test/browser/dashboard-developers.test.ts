import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { basic, type TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, signedInPage, startServedApp } from '../helpers/browser.ts';
import { Receiver, setWebhook } from '../delivery/helpers.ts';
import { SECRET_KEY as STRIPE_SECRET, WEBHOOK_SECRET as STRIPE_WEBHOOK_SECRET, stripeHarness } from '../psp/fixtures/stripe/harness.ts';

/**
 * The back office's Developers and Offers pages in real Chromium (docs/back-office.md), by labels and roles
 * only, on a phone-sized window, axe-core on every page met.
 */
let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;

const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  a = await caller(app);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Signs in with the merchant's dashboard e-mail and password, by the form's labels. */
async function signInAs(page: Page, c: Caller): Promise<void> {
  await page.goto(`${app.base}/dashboard`);
  await page.getByLabel('E-mail').fill(c.merchant.email);
  await page.getByLabel('Password').fill(c.merchant.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const tokenStatus = async (key: string, secret: string) =>
  (
    await app.server.inject({
      method: 'POST',
      url: '/api/token',
      headers: { authorization: basic(key, secret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    })
  ).statusCode;

describe.skipIf(!hasBrowser)('Developers page in Chromium', () => {
  it('calls a delivery that failed 3 times and is retrying by one word on the purchase, Developers, delivery and home pages, in English and French', async () => {
    const b = await caller(app);
    const failing = await Receiver.start();
    failing.answer = { kind: 'status', code: 500 };
    try {
      await setWebhook(app, b, failing.url());
      const created = await b.post('/api/merchants/v1/purchases', minimalPurchase({ ref: 'FAILING-HOOK', amount: 5_000 }));
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as string;
      expect((await b.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' })).statusCode).toBe(200);
      const deliveries = async () =>
        (
          await app.services.db.query<{ id: string; status: string; failures: number }>('SELECT id, status, failures FROM deliveries WHERE account_id = $1 ORDER BY created_at', [
            b.accountId,
          ])
        ).rows;
      // Three failed attempts each, the retries brought forward by the sandbox clock: still retrying (pending, 3 failures).
      for (const failures of [1, 2, 3]) {
        if (failures > 1) expect((await b.post('/api/sandbox/clock', { advance_seconds: 600 })).statusCode).toBe(200);
        await vi.waitFor(
          async () => {
            const all = await deliveries();
            expect(all.length).toBeGreaterThan(0);
            expect(all.map((x) => x.failures)).toEqual(all.map(() => failures));
          },
          { timeout: 10_000, interval: 50 },
        );
      }
      const all = await deliveries();
      expect(all.map((x) => x.status)).toEqual(all.map(() => 'pending'));
      const d = all[0]!;

      const page = await signedInPage(browser, app.base, b.merchant, PHONE);
      try {
        for (const [lang, word] of [
          ['en', 'Failing'],
          ['fr', 'En échec'],
        ] as const) {
          await page.goto(`${app.base}/dashboard/purchases/pur_${id}?lang=${lang}`);
          const hooks = page.getByRole('region', { name: lang === 'en' ? 'Webhooks and notifications' : 'Webhooks et notifications' }).and(page.locator('.scroll'));
          expect(await hooks.locator('tbody tr td:nth-child(3)').allTextContents(), `purchase (${lang})`).toEqual(all.map(() => word));
          await page.goto(`${app.base}/dashboard/developers?lang=${lang}`);
          expect(await page.locator(`tr:has(a[href="/dashboard/developers/deliveries/dlv_${d.id}"]) td:nth-child(3)`).textContent(), `developers (${lang})`).toBe(word);
          await page.goto(`${app.base}/dashboard/developers/deliveries/dlv_${d.id}?lang=${lang}`);
          expect(await page.locator('dl.facts dt:has-text("' + (lang === 'en' ? 'Status' : 'Statut') + '") + dd').textContent(), `delivery (${lang})`).toBe(word);
          await expectAccessible(page, `delivery (${lang})`);
          await page.goto(`${app.base}/dashboard?lang=${lang}`);
          const figures = await page.evaluate(() =>
            [...document.querySelectorAll('dl.figures dt')].map((dt) => [dt.textContent!.trim(), dt.nextElementSibling!.textContent!.trim()]),
          );
          expect(figures, `home (${lang})`).toContainEqual([word, String(all.length)]);
        }
      } finally {
        await page.close();
      }
    } finally {
      await failing.close();
    }
  });

  it('rotates an API key after a confirmation, shows the new secret once, and the old one is refused', async () => {
    const page = await browser.newPage({ viewport: PHONE, locale: 'en-GB' });
    try {
      await signInAs(page, a);
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Developers' }).click();
      await expect.poll(() => page.title()).toBe('Developers · Chipin back office');
      await expectAccessible(page, 'developers');

      await page.getByRole('button', { name: `Rotate ${a.merchant.api_key}` }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Rotate this API key?');
      await expectAccessible(page, 'rotate confirmation');
      await page.getByRole('button', { name: 'Confirm the rotation' }).click();

      const notice = page.getByRole('status');
      await expect.poll(() => notice.textContent()).toContain(`${a.merchant.api_key} is revoked`);
      const [newKey, newSecret] = await notice.locator('code').allTextContents();
      expect(newKey).toMatch(/^key_/);
      expect(newSecret).toMatch(/^sk_/);
      await expectAccessible(page, 'rotated');
      expect(await tokenStatus(a.merchant.api_key, a.merchant.api_secret)).toBe(401);
      expect(await tokenStatus(newKey!, newSecret!)).toBe(200);

      // A reload would post the rotation again (answered 404: that key is revoked); open the page anew.
      await page.goto(`${app.base}/dashboard/developers`);
      await expect.poll(() => page.getByRole('cell', { name: newKey!, exact: true }).count()).toBe(1);
      expect(await page.content()).not.toContain(newSecret!);
    } finally {
      await page.close();
    }
  });
  it("opens an offer from the Offers page and points it at one of the account's PSP accounts", async () => {
    const created = await app.server.inject({
      method: 'POST',
      url: '/api/backoffice/psp_accounts',
      headers: { authorization: a.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ psp: 'sandbox', environment: 'test', label: 'Browser PSP', credentials: {} }),
    });
    expect(created.statusCode, created.body).toBe(201);
    const page = await browser.newPage({ viewport: PHONE, locale: 'en-GB' });
    try {
      await signInAs(page, a);
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Offers' }).click();
      await expect.poll(() => page.title()).toBe('Offers · Chipin back office');
      await expectAccessible(page, 'offers');
      await page.getByRole('link', { name: 'Shared pot' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Shared pot');
      await expectAccessible(page, 'offer');
      await page.getByLabel('PSP account its next payments run on').selectOption({ label: 'Browser PSP (sandbox, test)' });
      await page.getByRole('button', { name: 'Save the offer' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Offer saved.');
      await expectAccessible(page, 'offer saved');
      const offers = (await app.server.inject({ method: 'GET', url: '/api/backoffice/offers', headers: { authorization: a.dashboard } })).json();
      expect(offers.find((o: { type: string }) => o.type === 'SHARED').psp_account_id).toBe(created.json().id);
    } finally {
      await page.close();
    }
  });

  // Three saves checked with the PSP, the notification URL step and five accessibility checks: the
  // browser project's 90 s (a 60 s of its own cut it off under CI's load).
  it('adds a PSP account from the form built for the connector, checked with the PSP; the notification URL is given to copy; the secret is shown masked', async () => {
    const stripe = await stripeHarness();
    const page = await browser.newPage({ viewport: PHONE, locale: 'en-GB' });
    try {
      await signInAs(page, a);
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'PSP accounts' }).click();
      await expect.poll(() => page.title()).toBe('PSP accounts · Chipin back office');
      await expectAccessible(page, 'psp accounts');
      await page.getByRole('link', { name: 'Stripe' }).click();
      await expectAccessible(page, 'add a stripe account');
      await page.getByLabel('Label').fill('Shop Stripe');
      await page.getByLabel('Secret key').fill(STRIPE_SECRET);
      await page.getByLabel('API address, if not the PSP’s own').fill(stripe.account.baseUrl);
      await page.getByRole('button', { name: 'Save the PSP account' }).click();
      // Saved without its webhook secret: the account's page gives the notification URL to copy into Stripe, then the secret is added.
      await expect.poll(() => page.getByRole('status').textContent()).toBe('PSP account saved.');
      const notificationUrl = page.getByRole('textbox', { name: 'Notification URL to set at Stripe' });
      expect(await notificationUrl.inputValue()).toMatch(/\/api\/psp\/psa_[0-9a-f-]{36}\/notifications$/);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base });
      await page.getByRole('button', { name: 'Copy the notification URL' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await notificationUrl.inputValue());
      await expect.poll(() => page.getByText('Copied.').count()).toBe(1);
      await expectAccessible(page, 'psp account with its notification URL');
      await page.getByLabel('Webhook signing secret').fill(STRIPE_WEBHOOK_SECRET);
      await page.getByRole('button', { name: 'Save the PSP account' }).click();
      await expect.poll(() => page.getByText('is not set yet').count()).toBe(0);
      await page.getByRole('link', { name: 'Go back' }).click();
      const table = page.getByRole('region', { name: 'Your PSP accounts' });
      expect(await table.getByRole('row').filter({ hasText: 'Shop Stripe' }).count()).toBe(1);
      expect(await page.content()).not.toContain(STRIPE_SECRET);
      expect(await page.content()).toContain(`…${STRIPE_SECRET.slice(-4)}`);

      // Its own page: check it again with the PSP, then rename it with the secrets left blank.
      await table.getByRole('link', { name: 'Shop Stripe' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Shop Stripe');
      await expectAccessible(page, 'psp account');
      await page.getByRole('button', { name: 'Check again' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('The PSP accepted the saved settings.');
      await page.getByLabel('Label').fill('Main shop Stripe');
      await page.getByRole('button', { name: 'Save the PSP account' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Main shop Stripe');
      await expectAccessible(page, 'psp account saved');
      expect(await page.content()).not.toContain(STRIPE_SECRET);
    } finally {
      await page.close();
      await stripe.teardown();
    }
  });

  it("edits an offer's fee by its label, and the offer list and the schedule simulation show the new fee", async () => {
    const page = await browser.newPage({ viewport: PHONE, locale: 'en-GB' });
    try {
      await signInAs(page, a);
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Offers' }).click();
      await page.getByRole('link', { name: '3 installments' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('3 installments');
      await page.getByLabel('Fee rate (%)').fill('2.25');
      await page.getByLabel('Fixed fee (EUR)').fill('0.50');
      await page.getByRole('button', { name: 'Save the offer' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Offer saved.');
      await expectAccessible(page, 'offer terms saved');

      // A refusal names the field next to the form, and keeps what was typed.
      await page.getByLabel('Minimum amount (EUR)').fill('5000');
      await page.getByLabel('Maximum amount (EUR)').fill('100');
      await page.getByRole('button', { name: 'Save the offer' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('Minimum amount (EUR)');
      await expectAccessible(page, 'offer terms refused');

      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Offers' }).click();
      const row = page.getByRole('region', { name: 'Offers and their terms' }).getByRole('row').filter({ hasText: '3 installments' });
      await expect.poll(() => row.textContent()).toContain('2.25 %');
      // The credential-less simulation (this merchant's API key was rotated above).
      const sim = await app.server.inject({
        method: 'POST',
        url: `/api/users/me/merchants/${a.offer('INSTALLMENTS', 3)}/simulate_payment_schedule`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ amount_cents: 30_000, created: '2026-11-23' }),
      });
      expect(sim.json().INSTALLMENT[0].fees).toBe(675 + 50); // 2.25 % of 300.00, plus 0.50
    } finally {
      await page.close();
    }
  });
});
