import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, signedInPage, startServedApp } from '../helpers/browser.ts';
import { addDashboardUser } from '../helpers/dashboard.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';

/**
 * Roles and the Team page in real Chromium (docs/back-office.md#roles), by labels and roles only,
 * axe-core on every page met. The support user of the first tests is written into the table; the
 * last test invites a member by e-mail through a real SMTP listener.
 */
let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;
let support: { email: string; password: string };
let smtp: Awaited<ReturnType<typeof smtpListener>>;

beforeAll(async () => {
  if (!hasBrowser) return;
  smtp = await smtpListener();
  [app, browser] = await Promise.all([startServedApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` }), launchBrowser()]);
  a = await caller(app);
  support = await addDashboardUser(app, a.accountId, 'support');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await smtp?.close();
});

const signedIn = (user: { email: string; password: string }): Promise<Page> => signedInPage(browser, app.base, user);

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
      expect(
        await page
          .getByRole('table', { name: 'Activity' })
          .getByRole('cell', { name: `Signed in, by ${a.merchant.email}` })
          .count(),
      ).toBeGreaterThan(0);
      await expectAccessible(page, 'team');
    } finally {
      await page.close();
    }
  });

  it('an admin invites a colleague by e-mail; the link in the e-mail lets them choose a password and lands them signed in', async () => {
    const email = `colleague-${Date.now()}@shop.example`;
    const page = await signedIn(a.merchant);
    try {
      await page.goto(`${app.base}/dashboard/team`);
      const invite = page.getByRole('region', { name: 'Invite a member' });
      await invite.getByLabel('E-mail').fill(email);
      await invite.getByLabel('Role').selectOption({ label: 'Support' });
      await invite.getByRole('button', { name: 'Send the invitation' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe(`Invitation sent to ${email}.`);
      expect(await page.getByRole('table', { name: 'Pending invitations' }).getByRole('cell', { name: email, exact: true }).count()).toBe(1);
      await expectAccessible(page, 'team with an invitation');
    } finally {
      await page.close();
    }

    await expect.poll(() => smtp.received.filter((m) => m.to.includes(email)).length).toBe(1);
    const link = /http:\/\/127\.0\.0\.1:\d+\/dashboard\/invitation\?token=[A-Za-z0-9_-]+/.exec(decoded(smtp.received.find((m) => m.to.includes(email))!.raw))![0];
    const invited = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'en-GB' });
    try {
      await invited.goto(link);
      const account = (await app.services.accounts.profileOf(a.accountId))!.name;
      await expect.poll(() => invited.getByRole('heading', { level: 1 }).textContent()).toBe(`Join ${account} on Chipin`);
      await expectAccessible(invited, 'invitation');
      await invited.getByLabel('New password', { exact: true }).fill('a long enough passphrase');
      await invited.getByLabel('New password, again').fill('a long enough passphrase');
      await invited.getByRole('button', { name: 'Join and sign in' }).click();
      await expect.poll(() => invited.title()).toBe('Home · Chipin back office');
      const menu = invited.getByRole('navigation', { name: 'Main menu' });
      expect(await menu.getByRole('link', { name: 'Team' }).count()).toBe(0); // a support member
    } finally {
      await invited.close();
    }
  });
});
