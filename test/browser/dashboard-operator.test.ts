import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutOfDay } from '../../src/use-cases/payouts/payouts.ts';
import { caller, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, overflowing, signedInPage, startServedApp, watchProblems } from '../helpers/browser.ts';
import { addDashboardUser } from '../helpers/dashboard.ts';
import { book, OPERATOR, SILENT } from '../payouts/helpers.ts';

/**
 * The operator's payout files page in real Chromium, on a phone (390 px) in English and French
 * (docs/back-office.md#the-operators-pages): one of the operator's staff makes the SEPA file of a
 * merchant's payout, downloads it and marks it as sent, by labels and roles only, axe-core on
 * every state of the page; a merchant's admin has no such page in the menu and is refused it.
 */
let app: TestApp & { base: string };
let browser: Browser;
let c: Caller;
let operator: { email: string; password: string };
const IBAN = 'DE89370400440532013000';

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp({ operatorDebtor: OPERATOR, payoutPainFormat: 'pain.001.001.09' }), launchBrowser()]);
  c = await caller(app);
  const bank = await app.server.inject({
    method: 'PUT',
    url: '/api/backoffice/payout_bank_details',
    headers: { authorization: c.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ holder_name: 'Atelier Cé', iban: IBAN, bic: 'COBADEFFXXX', current_password: c.merchant.password }),
  });
  expect(bank.statusCode, bank.body).toBe(200);
  // A day two days back, ended in every zone: what is booked in it is that day's payout.
  const day = new Date(app.services.clock.now().getTime() - 2 * 86_400_000).toISOString().slice(0, 10);
  await book(app.services.db, { accountId: c.accountId, currency: 'EUR', kind: 'validated', cents: 7_450, at: new Date(`${day}T10:00:00Z`) });
  const made = await payoutOfDay({ db: app.services.db, clock: app.services.clock, logger: SILENT }, { accountId: c.accountId, currency: 'EUR', day, timeZone: 'Europe/Paris' });
  if (made.kind !== 'created') throw new Error(`expected a payout, got ${made.kind}`);
  const house = await caller(app);
  operator = await addDashboardUser(app, house.accountId, 'operator');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe.skipIf(!hasBrowser)('the operator’s payout files page in Chromium', () => {
  it('makes, downloads and marks as sent the SEPA file of a merchant’s payout, at 390 px, in English and French', async () => {
    const page = await signedInPage(browser, app.base, operator);
    const { problems } = watchProblems(page);
    try {
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Payout files' }).click();
      await expect.poll(() => page.title()).toBe('Payout files (operator) · Chipin back office');
      const waiting = page.getByRole('region', { name: 'Payouts not yet in a file' });
      expect(
        await waiting
          .getByRole('row')
          .filter({ hasText: `acc_${c.accountId}` })
          .getByRole('cell', { name: '€74.50' })
          .count(),
      ).toBe(1);
      expect((await overflowing(page)).out).toEqual([]);
      await expectAccessible(page, 'payout files, one payout waiting');

      await page.getByRole('button', { name: 'Make the SEPA file of the euro payouts' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^File CHIPIN\w+ made: 1 transfer\./);
      const messageId = /File (CHIPIN\w+) made/.exec((await page.getByRole('status').first().textContent())!)![1]!;
      expect(await page.getByText('No payout waits for a file.').count()).toBe(1);
      const files = page.getByRole('region', { name: 'SEPA files' });
      expect(await files.getByRole('row').filter({ hasText: messageId }).getByRole('cell', { name: '1 not yet sent' }).count()).toBe(1);
      await expectAccessible(page, 'payout files, a file made');

      const [download] = await Promise.all([page.waitForEvent('download'), files.getByRole('link', { name: `Download: the file ${messageId} (pain.001)` }).click()]);
      expect(download.suggestedFilename()).toBe(`${messageId}.xml`);
      // The browser is connected, not local: the file is copied here to be read.
      const saved = join(mkdtempSync(join(tmpdir(), 'chipin-operator-')), download.suggestedFilename());
      await download.saveAs(saved);
      const xml = readFileSync(saved, 'utf8');
      expect(xml).toContain(`<MsgId>${messageId}</MsgId>`);
      expect(xml).toContain(`<IBAN>${IBAN}</IBAN>`);

      await files.getByRole('button', { name: `Mark as sent: the file ${messageId}` }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toBe(`File ${messageId}: 1 payout marked as sent; their merchants are told.`);
      expect(await files.getByRole('row').filter({ hasText: messageId }).getByRole('cell', { name: '1 sent', exact: true }).count()).toBe(1);
      expect(await files.getByRole('button', { name: /^Mark as sent/ }).count()).toBe(0);
      await expectAccessible(page, 'payout files, the file sent');

      await page.goto(`${app.base}/dashboard/operator/payouts?lang=fr`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Fichiers de versements (opérateur)');
      const fichiers = page.getByRole('region', { name: 'Fichiers SEPA' });
      expect(await fichiers.getByRole('row').filter({ hasText: messageId }).getByRole('cell', { name: '1 envoyé', exact: true }).count()).toBe(1);
      expect(await fichiers.getByRole('link', { name: `Télécharger : le fichier ${messageId} (pain.001)` }).count()).toBe(1);
      expect((await overflowing(page)).out).toEqual([]);
      await expectAccessible(page, 'payout files in French');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('is not in a merchant admin’s menu, and refuses the admin by role (403)', async () => {
    const page = await signedInPage(browser, app.base, c.merchant);
    try {
      expect(await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Payout files' }).count()).toBe(0);
      const refused = await page.goto(`${app.base}/dashboard/operator/payouts`);
      expect(refused?.status()).toBe(403);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not allowed');
      expect(await page.getByText('Your role (Admin) does not give access to this page: it is for the operator’s staff.').count()).toBe(1);
      await expectAccessible(page, 'operator page refused');
    } finally {
      await page.close();
    }
  });
});
