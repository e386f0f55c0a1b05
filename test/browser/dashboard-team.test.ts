import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, startServedApp } from '../helpers/browser.ts';
import { addDashboardUser } from '../helpers/dashboard.ts';

/**
 * Roles and the Team page in real Chromium (docs/back-office.md#roles), by labels and roles only,
 * axe-core on every page met. The support user is added as an operator would (no invitations yet).
 */
let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;
let support: { email: string; password: string };

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  a = await caller(app);
  support = await addDashboardUser(app, a.accountId, 'support');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function signedIn(user: { email: string; password: string }): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'en-GB' });
  await page.goto(`${app.base}/dashboard`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.title()).toBe('Home · Chipin back office'); // where sign-in lands
  return page;
}

describe.skipIf(!hasBrowser)('roles in Chromium', () => {
  it('a support user has no Developers or Team in the menu, is refused the Developers page, and refunds; the refund shows who did it', async () => {
    const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ ref: 'SUPPORT-REFUND', amount: 10_000 }));
    const id = res.json().id as string;
    expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' })).statusCode).toBe(200);
    const page = await signedIn(support);
    try {
      const menu = page.getByRole('navigation', { name: 'Main menu' });
      expect(await menu.getByRole('link', { name: 'Purchases' }).count()).toBe(1);
      expect(await menu.getByRole('link', { name: 'Developers' }).count()).toBe(0);
      expect(await menu.getByRole('link', { name: 'Team' }).count()).toBe(0);
      expect(await menu.getByRole('link', { name: 'Offers' }).count()).toBe(0);

      const refused = await page.goto(`${app.base}/dashboard/developers`);
      expect(refused?.status()).toBe(403);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not allowed');
      await expectAccessible(page, 'refused page');

      await page.goto(`${app.base}/dashboard/purchases/pur_${id}`);
      await page.getByLabel('Amount').fill('20.00');
      await page.getByRole('button', { name: 'Refund…' }).click();
      await page.getByRole('button', { name: 'Confirm the refund' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Refund recorded.');
      expect(await page.getByText(`Refund requested, by ${support.email}`).count()).toBe(1);
      await expectAccessible(page, 'purchase with staff action');
    } finally {
      await page.close();
    }
  });

  it('an admin sees the Team page: members with their roles, and the activity', async () => {
    const page = await signedIn(a.merchant);
    try {
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Team' }).click();
      await expect.poll(() => page.title()).toBe('Team · Chipin back office');
      const members = page.getByRole('table', { name: 'Members' });
      expect(await members.getByRole('row').filter({ hasText: support.email }).getByRole('cell', { name: 'Support', exact: true }).count()).toBe(1);
      expect(await members.getByRole('row').filter({ hasText: a.merchant.email }).getByRole('cell', { name: 'Admin', exact: true }).count()).toBe(1);
      expect(await page.getByRole('table', { name: 'Activity' }).getByRole('cell', { name: `Signed in, by ${a.merchant.email}` }).count()).toBeGreaterThan(0);
      await expectAccessible(page, 'team');
    } finally {
      await page.close();
    }
  });
});
