import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMoney } from '../../src/i18n/format.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { payPledge } from '../../src/use-cases/pot/pay-pledge.ts';
import { settlePotDeadline } from '../../src/use-cases/pot/settle-pot-deadline.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, PHONE, signedInPage, startServedApp } from '../helpers/browser.ts';
import { card, CARDS } from '../use-cases/support.ts';

/**
 * After a partial refund the shopper's pages still show the money that moved: what each payment
 * charged, what was refunded of it, and the net (docs/hosted-payment.md#after-a-refund). A
 * partly refunded payment is reported by the PSP as `refunded`; it was charged all the same.
 */

let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  a = await caller(app);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

type Lang = 'en' | 'fr';
const T = {
  en: { heading: 'Your payment', charged: 'Charged to your card', refunded: 'Refunded to your card', net: 'Net charged, after refunds', table: 'Payments on your card' },
  fr: {
    heading: 'Votre paiement',
    charged: 'Débité sur votre carte',
    refunded: 'Remboursé sur votre carte',
    net: 'Net débité, après remboursements',
    table: 'Paiements sur votre carte',
  },
};

async function open(url: string, lang: Lang): Promise<Page> {
  const page = await browser.newPage({ viewport: PHONE, locale: lang === 'fr' ? 'fr-FR' : 'en-GB' });
  await page.goto(url);
  return page;
}

/** Term → definition of the figures in `scope` (a region, or the whole page). */
async function figures(scope: Page | ReturnType<Page['getByRole']>): Promise<Record<string, string>> {
  const [terms, values] = await Promise.all([scope.getByRole('term').allTextContents(), scope.getByRole('definition').allTextContents()]);
  return Object.fromEntries(terms.map((t, i) => [t, values[i]!]));
}

/** The rows of the result page's payments table, cells joined by " | ", the date left out. */
async function paymentRows(page: Page, lang: Lang): Promise<string[]> {
  const rows = page.getByRole('table', { name: T[lang].table }).getByRole('row');
  const out: string[] = [];
  for (const row of await rows.all()) {
    const cells = await row.getByRole('cell').allTextContents();
    if (cells.length) out.push([cells[0], ...cells.slice(2)].join(' | '));
  }
  return out;
}

async function refund(id: string, amount: number): Promise<void> {
  const res = await a.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount });
  expect(res.statusCode).toBe(201);
}

describe.runIf(hasBrowser)('after a partial refund, the shopper pages show charged, refunded and net per payment (Chromium)', () => {
  for (const lang of ['en', 'fr'] as const) {
    it(`a purchase paid alone then partly refunded keeps its payment section: charged €300, refunded €100, net €200 (${lang})`, async () => {
      const m = (cents: number) => formatMoney(cents, 'EUR', lang);
      const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ language: lang === 'fr' ? 'fr_FR' : 'en_GB', merchant_uid: a.offer('SHARED') }));
      const p = res.json<{ id: string; payment_url: string }>();
      expect(await payAsLeader(app.services.payments, { id: p.id, accountId: a.accountId }, card(CARDS.ok), [], () => `${app.base}/return`)).toMatchObject({
        kind: 'processed',
      });
      await refund(p.id, 10_000);
      const page = await open(p.payment_url, lang);
      try {
        const region = page.getByRole('region', { name: T[lang].heading });
        expect(await figures(region)).toEqual({ [T[lang].charged]: m(30_000), [T[lang].refunded]: m(10_000), [T[lang].net]: m(20_000) });
        expect(await paymentRows(page, lang)).toEqual([[lang === 'fr' ? 'Votre paiement' : 'Your payment', m(30_000), m(10_000), m(20_000)].join(' | ')]);
        await expectAccessible(page);
      } finally {
        await page.close();
      }
    });
  }

  it("a pot paid €100 by the leader, €150 by a friend and its €50 rest charged at the deadline, then €60 refunded: each leader payment with its refund and net, and the friend's page its own", async () => {
    const m = (cents: number) => formatMoney(cents, 'EUR', 'en');
    const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ language: 'en_GB', merchant_uid: a.offer('SHARED') }));
    const p = res.json<{ id: string; payment_url: string }>();
    const led = await payAsLeader(
      app.services.payments,
      { id: p.id, accountId: a.accountId },
      card(CARDS.ok),
      [
        { email: 'ann@example.com', amountCents: 15_000, name: 'Ann' },
        { email: 'bob@example.com', amountCents: 5_000, name: 'Bob' },
      ],
      () => `${app.base}/return`,
    );
    expect(led).toMatchObject({ kind: 'processed' });
    const [ann] = await listPledges(app.services.db, a.accountId, p.id);
    expect(await payPledge(app.services.payments, ann!, card(CARDS.ok), () => `${app.base}/return`)).toEqual({ kind: 'paid' });
    expect(await settlePotDeadline(app.services.payments, a.accountId, p.id)).toEqual({ kind: 'rest_charged', restCents: 5_000 });
    // Split in proportion to what each paid (leader €150, Ann €150): €30 each. The leader's rows in
    // the order they were made: the guarantee (the hold the rest was captured from), then the share.
    await refund(p.id, 6_000);

    const page = await open(p.payment_url, 'en');
    try {
      const region = page.getByRole('region', { name: T.en.heading });
      expect(await figures(region)).toEqual({ [T.en.charged]: m(15_000), [T.en.refunded]: m(3_000), [T.en.net]: m(12_000) });
      expect(await paymentRows(page, 'en')).toEqual([
        ["The pot's uncovered rest", m(5_000), m(0), m(5_000)].join(' | '),
        ['Your payment', m(10_000), m(3_000), m(7_000)].join(' | '),
      ]);
      await expectAccessible(page);

      await page.goto(`${app.base}/pledge/plg_${ann!.id}`);
      expect(await figures(page)).toEqual({ [T.en.charged]: m(15_000), [T.en.refunded]: m(3_000), [T.en.net]: m(12_000) });
      await expectAccessible(page);
    } finally {
      await page.close();
    }
  });

  it('the back office says "partly refunded" with the net, per payment, on the purchase page and in the list; "refunded" once all of it is', async () => {
    const m = (cents: number) => formatMoney(cents, 'EUR', 'en');
    const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ ref: `PART-${Date.now()}`, merchant_uid: a.offer('SHARED') }));
    const p = res.json<{ id: string; ref: string }>();
    expect(await payAsLeader(app.services.payments, { id: p.id, accountId: a.accountId }, card(CARDS.ok), [], () => `${app.base}/return`)).toMatchObject({ kind: 'processed' });
    await refund(p.id, 10_000);
    const page = await signedInPage(browser, app.base, a.merchant);
    try {
      await page.goto(`${app.base}/dashboard/purchases?q=${p.ref}`);
      const list = page.getByRole('region', { name: 'Purchases' });
      const stateColumn = (await list.getByRole('columnheader').allTextContents()).indexOf('State');
      await expect(list.getByRole('row').nth(1).getByRole('cell').nth(stateColumn).textContent()).resolves.toBe(`Successful partly refunded: ${m(10_000)}`);

      await page.getByRole('link', { name: p.ref }).click();
      const payments = page.getByRole('region', { name: 'Payments' });
      const header = await payments.getByRole('columnheader').allTextContents();
      const row = await payments.getByRole('row').nth(1).getByRole('cell').allTextContents();
      const cell = (name: string) => row[header.indexOf(name)];
      expect([cell('Status'), cell('Captured'), cell('Refunded'), cell('Net')]).toEqual(['Partly refunded', m(30_000), m(10_000), m(20_000)]);
      await expectAccessible(page);

      await refund(p.id, 20_000);
      await page.reload();
      const after = await payments.getByRole('row').nth(1).getByRole('cell').allTextContents();
      expect([after[header.indexOf('Status')], after[header.indexOf('Net')]]).toEqual(['Refunded', m(0)]);
    } finally {
      await page.close();
    }
  });
});
