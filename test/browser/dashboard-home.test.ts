import { text } from 'node:stream/consumers';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { caller, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, signedInPage, startServedApp } from '../helpers/browser.ts';

/**
 * The back office's home page and CSV export in Chromium (docs/back-office.md), on a shop with
 * two weeks of realistic activity made through the API and the sandbox clock.
 */

const PHONE = { width: 390, height: 844 };
const CARD = '4242424242424242';
const DECLINED = '4000000000000002';

let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;
let hook: Server;

const TRIPS = [
  ['Weekend in Lisbon', 42_000],
  ['Surf camp, Ericeira', 68_000],
  ['Porto food tour', 15_500],
  ['Sintra day trip', 9_800],
  ['Algarve villa, 7 nights', 189_000],
  ['Douro valley cruise', 54_000],
] as const;
const CLIENTS = ['ines.costa@example.com', 'tom.baker@example.com', 'lea.martin@example.com', 'joao.silva@example.com', 'emma.schmidt@example.com'];

async function advanceDays(days: number): Promise<void> {
  const res = await a.post('/api/sandbox/clock', { advance_seconds: days * 86_400 });
  expect(res.statusCode, res.body).toBe(200);
}

/** Two weeks of a travel shop's sales: paid ones, pots (with friends paying, or left to the deadline), a refund, a refused card. */
async function seed(): Promise<void> {
  hook = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const set = await app.server.inject({
    method: 'PUT',
    url: '/api/backoffice/webhook',
    headers: { authorization: a.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ url: `http://127.0.0.1:${(hook.address() as { port: number }).port}/chipin` }),
  });
  expect(set.statusCode, set.body).toBe(200);
  let n = 0;
  for (let day = 0; day < 14; day++) {
    for (let k = 0; k < 1 + ((day * 7) % 4); k++, n++) {
      const [title, amount] = TRIPS[n % TRIPS.length]!;
      const email = CLIENTS[n % CLIENTS.length]!;
      const res = await a.post('/api/merchants/v1/purchases', { title, amount, ref: `TRV-${String(2400 + n)}`, client: { email }, merchant_uid: a.offer('SHARED') });
      expect(res.statusCode, res.body).toBe(201);
      const id = res.json().id as string;
      if (n % 9 === 4) continue; // not paid yet
      if (n % 11 === 7) {
        for (let i = 0; i < 3; i++) await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: DECLINED });
        continue;
      }
      const pot = n % 3 === 0;
      const pledgers = pot
        ? [
            { email: `friend${n}a@example.com`, amount_cents: Math.floor(amount / 3) },
            { email: `friend${n}b@example.com`, amount_cents: Math.floor(amount / 3) },
          ]
        : [];
      expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CARD, pledgers })).statusCode).toBe(200);
      if (pot && n % 2 === 0) for (const p of await listPledges(app.services.db, a.accountId, id)) await a.post(`/api/sandbox/pledges/plg_${p.id}/pay`, { card_number: CARD });
      if (n % 10 === 5) await a.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: Math.floor(amount / 4), reason: 'One night cancelled' });
    }
    await advanceDays(1);
  }
}

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  a = await caller(app, 'Atlântico Travel');
  await seed();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await new Promise((resolve) => hook?.close(resolve));
});

const signedIn = (viewport: { width: number; height: number }): Promise<Page> => signedInPage(browser, app.base, a.merchant, viewport);

describe.skipIf(!hasBrowser)('back-office home and export in Chromium', () => {
  it('lands on the home page with the figures, and the export link downloads the filtered purchases as CSV', async () => {
    const page = await signedIn(PHONE);
    try {
      const created = page.getByRole('link', { name: /^\d+$/ }).first();
      expect(Number(await created.textContent())).toBeGreaterThan(20);
      expect(await page.getByRole('heading', { name: 'Pots closed' }).count()).toBe(1);
      await page.getByText('The figures, day by day').click();
      expect(await page.getByRole('table').getByRole('row').count()).toBeGreaterThan(10);
      await expectAccessible(page, 'home');

      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Purchases' }).click();
      await page.getByLabel('State').selectOption('SUCCESSFUL');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expectAccessible(page, 'purchases with export link');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export as CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^chipin-purchases-\d{4}-\d{2}-\d{2}\.csv$/);
      // Read through the connection: the run's one browser keeps the file on its side.
      const lines = (await text(await download.createReadStream())).trim().split('\r\n');
      expect(lines[0]).toBe('id,reference,created_at,state,merchant_uid,title,amount_cents,currency,client_email,refunded_cents');
      expect(lines.length).toBeGreaterThan(5);
      expect(lines.slice(1).every((l) => l.split(',')[3] === 'SUCCESSFUL')).toBe(true);
    } finally {
      await page.close();
    }
  });
});
