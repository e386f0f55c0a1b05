import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { caller, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, overflowing, PHONE, signedInPage, startServedApp } from '../helpers/browser.ts';

/**
 * The back office on a phone (390×844) and in French, in Chromium:
 * nothing wider than the screen (tables scroll inside their region), the chart's labels readable,
 * the home figures saying what they count, the refund confirmation showing who gets what back,
 * and no state, purpose, status or event shown by its code or in English on the French pages.
 */
let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;
let hook: Server;
const ids: Record<'pot' | 'plan' | 'failed' | 'broke' | 'delivery', string> = { pot: '', plan: '', failed: '', broke: '', delivery: '' };

const CARD = '4242424242424242';
const DECLINED = '4000000000000002';
const NO_FUNDS = '4000000000009995';
const LEADER = 'camille.roux@example.com';
const FRIEND = 'hugo.petit@example.com';

async function purchase(offer: string, amount: number, ref: string): Promise<string> {
  const res = await a.post('/api/merchants/v1/purchases', { title: 'Week-end à Annecy', amount, ref, client: { email: LEADER }, merchant_uid: offer });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

/** A pot settled at its deadline (one friend paid, the rest charged to the leader), a 3x plan under way, a refused card; webhooks sent. */
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

  ids.pot = await purchase(a.offer('SHARED'), 30_000, 'ANN-1');
  const pledgers = [
    { email: FRIEND, amount_cents: 10_000 },
    { email: 'lina.moreau@example.com', amount_cents: 10_000 },
  ];
  expect((await a.post(`/api/sandbox/purchases/pur_${ids.pot}/pay`, { card_number: CARD, pledgers })).statusCode).toBe(200);
  const hugo = (await listPledges(app.services.db, a.accountId, ids.pot)).find((p) => p.email === FRIEND)!;
  expect((await a.post(`/api/sandbox/pledges/plg_${hugo.id}/pay`, { card_number: CARD })).statusCode).toBe(200);

  ids.plan = await purchase(a.offer('INSTALLMENTS'), 45_000, 'ANN-2');
  expect((await a.post(`/api/sandbox/purchases/pur_${ids.plan}/pay`, { card_number: CARD })).statusCode).toBe(200);

  ids.failed = await purchase(a.offer('SHARED'), 12_000, 'ANN-3');
  for (let i = 0; i < 3; i++) await a.post(`/api/sandbox/purchases/pur_${ids.failed}/pay`, { card_number: DECLINED });

  // A pot whose friend, named, is refused for insufficient funds.
  ids.broke = await purchase(a.offer('SHARED'), 20_000, 'ANN-4');
  const ines = [{ email: 'ines.garnier@example.com', name: 'Inès Garnier', amount_cents: 5_000 }];
  expect((await a.post(`/api/sandbox/purchases/pur_${ids.broke}/pay`, { card_number: CARD, pledgers: ines })).statusCode).toBe(200);
  const pledge = (await listPledges(app.services.db, a.accountId, ids.broke))[0]!;
  expect((await a.post(`/api/sandbox/pledges/plg_${pledge.id}/pay`, { card_number: NO_FUNDS })).statusCode).toBeGreaterThanOrEqual(400);

  // Past the pot's deadline: the rest is charged to the leader, the deliveries are sent.
  expect((await a.post('/api/sandbox/clock', { advance_seconds: 8 * 86_400 })).statusCode).toBe(200);
  ids.delivery = (await app.services.db.query<{ id: string }>('SELECT id FROM deliveries WHERE account_id = $1 ORDER BY created_at LIMIT 1', [a.accountId])).rows[0]!.id;
}

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  a = await caller(app, 'Atelier Lumière');
  await seed();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await new Promise((resolve) => hook?.close(resolve));
});

const pages = () => [
  '/dashboard',
  '/dashboard/purchases',
  `/dashboard/purchases/pur_${ids.pot}`,
  `/dashboard/purchases/pur_${ids.plan}`,
  `/dashboard/purchases/pur_${ids.failed}`,
  `/dashboard/purchases/pur_${ids.broke}`,
  '/dashboard/developers',
  `/dashboard/developers/deliveries/dlv_${ids.delivery}`,
  '/dashboard/offers',
  `/dashboard/offers/${a.offer('SHARED')}`,
  '/dashboard/psp-accounts',
  '/dashboard/psp-accounts/new?psp=stripe',
];

/** Codes and English the French pages must not show: v1 states, purposes, statuses, event types, the comment's sentences. */
const RAW = [
  /\b(INITIALIZED|LEADER_PROCESSED|SUCCESSFUL|FAILED|CANCELLED|REFUNDED|CREATED|ABORTED|SHARED|INSTALLMENTS|DEFERRED)\b/,
  /\b(leader_share|first_installment|guarantee|pledge|rest|installment|captured|authorized|voided|declined|pending|succeeded|scheduled|invited|retry_scheduled|gave_up)\b/,
  /\b(purchase|payment|pledge|installment|refund)\.[a-z_]+\b/,
  // Case-sensitive: a PSP's own event names (Stripe's charge.refunded) are typed at the PSP as they are.
  /\b(friends? paid|[Tt]he leader|installments paid|Waiting for|is authori[sz]ed|Fully refunded|Leader paid|Successful|Refunded|Captured|Created)\b/,
];

describe.skipIf(!hasBrowser)('the back office on a phone and in French, in Chromium', () => {
  it('fits a 390 px wide screen on every main page: tables scroll inside their region, nothing else is cut off', async () => {
    const page = await signedInPage(browser, app.base, a.merchant, PHONE);
    try {
      for (const path of pages()) {
        for (const lang of ['en', 'fr']) {
          await page.goto(`${app.base}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
          const { out, scrollWidth, width } = await overflowing(page);
          expect(out, `${path} (${lang})`).toEqual([]);
          expect(scrollWidth, `${path} (${lang})`).toBeLessThanOrEqual(width);
        }
      }
      // The purchase's tables are wider than the phone: each scrolls inside its own region.
      await page.goto(`${app.base}/dashboard/purchases/pur_${ids.pot}?lang=en`);
      const payments = page.getByRole('region', { name: 'Payments' }).and(page.locator('.scroll'));
      const sizes = await payments.evaluate((el) => ({ overflow: getComputedStyle(el).overflowX, inner: el.scrollWidth, shown: el.clientWidth }));
      expect(sizes.overflow).toBe('auto');
      expect(sizes.inner).toBeGreaterThan(sizes.shown);
    } finally {
      await page.close();
    }
  });

  it('shows the home figures by what they count and the chart labels at a readable size, apart', async () => {
    const page = await signedInPage(browser, app.base, a.merchant, PHONE);
    try {
      const figures = await page.locator('dl.figures dt').allTextContents();
      expect(figures).toEqual(expect.arrayContaining(['Purchases created', 'Of these, paid in full', 'Collected on them (EUR)', 'Refunded on them (EUR)']));
      expect(await page.getByRole('heading', { name: 'Purchases created per day' }).count()).toBe(1);
      const labels = await page.locator('.chart-top, .chart-axis span').evaluateAll((els) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          return { size: parseFloat(getComputedStyle(el).fontSize), left: r.left, right: r.right, top: r.top, bottom: r.bottom };
        }),
      );
      expect(labels).toHaveLength(3);
      for (const l of labels) expect(l.size).toBeGreaterThanOrEqual(11);
      const [, first, last] = labels;
      expect(first!.right).toBeLessThanOrEqual(last!.left);
      await page.goto(`${app.base}/dashboard?lang=fr`);
      expect(await page.locator('dl.figures dt').allTextContents()).toEqual(expect.arrayContaining(['Achats créés', 'Montant encaissé (EUR)']));
    } finally {
      await page.close();
    }
  });

  it('shows how a refund is split across the payers before it is confirmed, by the refund rule', async () => {
    const page = await signedInPage(browser, app.base, a.merchant, PHONE);
    try {
      await page.goto(`${app.base}/dashboard/purchases/pur_${ids.pot}?lang=en`);
      await page.getByLabel('Amount').fill('60.00');
      await page.getByRole('button', { name: 'Refund…' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm the refund');
      const split = page.getByRole('region', { name: 'How it is split' });
      const lines = (await split.getByRole('listitem').allTextContents()).map((l) => l.replace(/\s+/g, ' '));
      // €300 paid as €200 by the leader (share and rest) and €100 by Hugo: €60 goes back 2:1.
      expect(lines).toEqual([`The leader, ${LEADER}€40.00 paid back to their card`, `A friend who paid a share, ${FRIEND}€20.00 paid back to their card`]);
      await expectAccessible(page, 'refund confirmation with its split');
      await page.getByRole('button', { name: 'Confirm the refund' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Refund recorded.');
    } finally {
      await page.close();
    }
  });

  it('speaks French throughout: no state, purpose, status or event by its code, no English comment', async () => {
    const page = await signedInPage(browser, app.base, a.merchant, PHONE);
    try {
      for (const path of pages()) {
        await page.goto(`${app.base}${path}${path.includes('?') ? '&' : '?'}lang=fr`);
        // The language link ("English") is the page's only English, marked as such.
        const shown = await page.locator('main').innerText();
        for (const pattern of RAW) expect(shown, `${path}: ${String(pattern.exec(shown)?.[0])}`).not.toMatch(pattern);
      }
      await page.goto(`${app.base}/dashboard/purchases/pur_${ids.pot}?lang=fr`);
      const details = await page.getByRole('region', { name: 'Détails' }).innerText();
      expect(details).toContain('1 ami sur 2 a payé ; l’organisateur a payé le reste, 100,00\u00a0€, à l’échéance.');
      expect(
        await page
          .getByRole('region', { name: 'Paiements' })
          .first()
          .getByRole('cell', { name: `Part d’un ami, ${FRIEND}`, exact: true })
          .count(),
      ).toBe(1);
      expect(await page.getByRole('region', { name: 'Historique' }).getByText('Paiement de l’organisateur autorisé (Pas encore payé → En cours)').count()).toBe(1);
    } finally {
      await page.close();
    }
  });

  it('on a 1280 px screen keeps the purchases filters on one line and names each purchase’s offer in its own column, in English and French', async () => {
    const page = await signedInPage(browser, app.base, a.merchant, { width: 1280, height: 800 });
    const want = {
      en: { offer: 'Offer', pot: 'Shared pot', plan: /^\d+ installments$/ },
      fr: { offer: 'Offre', pot: 'Cagnotte partagée', plan: /^\d+ échéances$/ },
    };
    try {
      for (const lang of ['en', 'fr'] as const) {
        const w = want[lang];
        await page.goto(`${app.base}/dashboard/purchases?lang=${lang}`);
        // Every filter (search, state, offer, both dates) and the button: one row.
        const cells = await page.locator('form[role="search"] .filters > div').evaluateAll((divs) =>
          divs.map((c) => {
            const r = c.getBoundingClientRect();
            return { top: r.top, bottom: r.bottom };
          }),
        );
        expect(cells.length, lang).toBe(6);
        // One row: every cell overlaps every other vertically (a wrapped one starts below the first row's end).
        expect(Math.max(...cells.map((c) => c.top)), `${lang}: ${JSON.stringify(cells)}`).toBeLessThan(Math.min(...cells.map((c) => c.bottom)));
        const { out } = await overflowing(page);
        expect(out, lang).toEqual([]);
        const table = page.locator('table.list');
        const headers = await table.locator('thead th').allTextContents();
        const column = headers.indexOf(w.offer) + 1;
        expect(column, `${lang}: ${headers.join(', ')}`).toBeGreaterThan(0);
        const offerOf = (ref: string) => table.locator(`tbody tr:has(a:text-is("${ref}")) td:nth-child(${column})`).textContent();
        expect(await offerOf('ANN-1'), lang).toBe(w.pot);
        expect(await offerOf('ANN-2'), lang).toMatch(w.plan);
        await expectAccessible(page, `purchases at 1280 px (${lang})`);
      }
    } finally {
      await page.close();
    }
  });

  it('keeps every state chip of a phone table on one line, in English and French', async () => {
    const page = await signedInPage(browser, app.base, a.merchant, PHONE);
    try {
      for (const lang of ['en', 'fr'] as const) {
        await page.goto(`${app.base}/dashboard/purchases?lang=${lang}`);
        const lines = await page.locator('table.list .state').evaluateAll((chips) =>
          chips.map((chip) => {
            const range = document.createRange();
            range.selectNodeContents(chip);
            return [chip.textContent, new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size] as const;
          }),
        );
        expect(lines.length, lang).toBeGreaterThan(0);
        for (const [text, count] of lines) expect(count, `${lang}: ${text}`).toBe(1);
      }
    } finally {
      await page.close();
    }
  });

  it('puts each Reconciliation heading in its card, at 390 px in English and French', async () => {
    const page = await signedInPage(browser, app.base, a.merchant, PHONE);
    try {
      for (const lang of ['en', 'fr'] as const) {
        await page.goto(`${app.base}/dashboard/reconciliation?lang=${lang}`);
        const outside = await page.locator('main h2').evaluateAll((hs) => hs.filter((h) => !h.closest('.card')).map((h) => h.textContent));
        expect(outside, lang).toEqual([]);
        expect(await page.locator('main h2').count(), lang).toBe(3);
        const { out } = await overflowing(page);
        expect(out, lang).toEqual([]);
        await expectAccessible(page, `reconciliation (${lang})`);
      }
    } finally {
      await page.close();
    }
  });

  it('says why a payment was declined, from the refusal code it recorded, and whose share a friend’s payment is, in English and French', async () => {
    const page = await signedInPage(browser, app.base, a.merchant, PHONE);
    const want = {
      en: {
        region: 'Payments',
        noFunds: 'Declined: insufficient funds',
        declined: 'Declined: card declined by the bank',
        ines: 'A friend’s share, Inès Garnier',
        hugo: `A friend’s share, ${FRIEND}`,
      },
      fr: {
        region: 'Paiements',
        noFunds: 'Refusé\u00a0: provision insuffisante',
        declined: 'Refusé\u00a0: carte refusée par la banque',
        ines: 'Part d’un ami, Inès Garnier',
        hugo: `Part d’un ami, ${FRIEND}`,
      },
    };
    try {
      for (const lang of ['en', 'fr'] as const) {
        const w = want[lang];
        const rows = async (id: string) => {
          await page.goto(`${app.base}/dashboard/purchases/pur_${id}?lang=${lang}`);
          return page
            .getByRole('region', { name: w.region })
            .and(page.locator('.scroll'))
            .locator('tbody tr')
            .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)));
        };
        // The friend refused for insufficient funds, named; the leader's card refused (do not honour) on the failed purchase.
        expect(await rows(ids.broke), lang).toContainEqual([w.ines, w.noFunds]);
        await expectAccessible(page, `declined friend's share (${lang})`);
        expect(
          (await rows(ids.failed)).map((r) => r[1]),
          lang,
        ).toContain(w.declined);
        // A friend without a name is shown by the e-mail.
        expect(
          (await rows(ids.pot)).map((r) => r[0]),
          lang,
        ).toContain(w.hugo);
      }
    } finally {
      await page.close();
    }
  });
});
