import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/dates.ts';
import { toPublicId } from '../../src/domain/ids.ts';
import { DEFAULT_TIME_ZONE, formatDate, formatDateTime, formatMoney, zonedDay, zonedMidnight } from '../../src/i18n/format.ts';
import type { EnFr } from '../../src/i18n/lang.ts';
import { listDisputes } from '../../src/payments/dispute-repository.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { addDashboardUser } from '../helpers/dashboard.ts';
import { hasBrowser, launchBrowser, overflowing, signedInPage, startServedApp, watchProblems } from '../helpers/browser.ts';

/**
 * The back office's money-operation pages in Chromium (docs/money-operations.md, docs/back-office.md):
 * the daily report (chart, table and CSV equal to what was paid and refunded), reconciliation
 * (a run through the page finds the differences injected at the sandbox PSP; a mismatch marked
 * explained with a note, in English and in French), the open disputes by deadline and the purchase
 * page's evidence form (the page's own CSRF token), and a support user refused the report. Every
 * page without a console error or a failed request, on a 375 px phone without sideways scroll.
 */
let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;

const PHONE_375 = { width: 375, height: 812 };
const OK = '4242424242424242';
/** The sandbox's chargeback card: captured, then disputed as fraudulent, 7 days to answer (docs/money-operations.md#the-sandbox-psps-disputes). */
const CHARGEBACK = '4000000000000259';
/** The seeded day (the account's zone), and the purchases: paid in full, paid then part refunded, disputed. */
let today = '';
const ids = { paid: '', refunded: '', disputed: '' };
const SEEDED = { captured: 30_000 + 12_000 + 8_000, refunded: 4_500 };

async function paid(amount: number, card: string): Promise<string> {
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount }));
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as string;
  const pay = await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: card });
  expect(pay.json().state, pay.body).toBe('SUCCESSFUL');
  return id;
}

async function transactionOf(purchaseId: string): Promise<string> {
  const { rows } = await app.services.db.query<{ psp_transaction_id: string }>('SELECT psp_transaction_id FROM payments WHERE purchase_id = $1 AND captured_cents > 0', [
    purchaseId,
  ]);
  expect(rows).toHaveLength(1);
  return rows[0]!.psp_transaction_id;
}

/**
 * Three purchases on one day at 10:00 in the account's zone (the sandbox clock moved there first,
 * so the day never turns under the test), a partial refund, the chargeback's notice delivered
 * (a second on the clock runs its job); then two differences injected at the sandbox PSP as
 * test/use-cases/reconciliation.test.ts does: a cent less captured, a cent more refunded.
 */
async function seed(): Promise<void> {
  const now = app.services.clock.now();
  const tenTomorrow = zonedMidnight(addDays(zonedDay(now, DEFAULT_TIME_ZONE), 1), DEFAULT_TIME_ZONE).getTime() + 10 * 3_600_000;
  expect((await a.post('/api/sandbox/clock', { advance_seconds: Math.ceil((tenTomorrow - now.getTime()) / 1000) })).statusCode).toBe(200);
  today = zonedDay(app.services.clock.now(), DEFAULT_TIME_ZONE);

  ids.paid = await paid(30_000, OK);
  ids.refunded = await paid(12_000, OK);
  const refund = await a.post(`/api/merchants/v1/purchases/${ids.refunded}/refunds`, { amount: 4_500 });
  expect(refund.statusCode, refund.body).toBe(201);
  ids.disputed = await paid(8_000, CHARGEBACK);
  expect((await a.post('/api/sandbox/clock', { advance_seconds: 1 })).statusCode).toBe(200);

  const sql = (text: string, params: unknown[]) => app.services.db.query(text, params);
  await sql('UPDATE sandbox_psp_transactions SET captured_cents = captured_cents - 1 WHERE id = $1', [await transactionOf(ids.paid)]);
  await sql('UPDATE sandbox_psp_transactions SET refunded_cents = refunded_cents + 1 WHERE id = $1', [await transactionOf(ids.refunded)]);
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
});

/** A page signed in as `user` at 375 px, watched for console errors and failed requests. */
async function phonePage(user: { email: string; password: string }) {
  const page = await signedInPage(browser, app.base, user, PHONE_375);
  // Below the test's own limit, so that a locator that finds nothing is named in the failure.
  page.setDefaultTimeout(10_000);
  return { page, ...watchProblems(page) };
}

async function expectFitsPhone(page: Page): Promise<void> {
  const { out, scrollWidth, width } = await overflowing(page);
  expect(out, page.url()).toEqual([]);
  expect(scrollWidth, page.url()).toBeLessThanOrEqual(width);
}

/** The cells of each body row of the table in `region` (the innermost region of that name: a table's own), line breaks and spaces collapsed (no-break spaces kept, as formatMoney writes them). */
async function rows(page: Page, region: string): Promise<string[][]> {
  const out: string[][] = [];
  for (const row of await page.getByRole('region', { name: region, exact: true }).last().locator('tbody tr').all()) {
    out.push((await row.getByRole('cell').allInnerTexts()).map((c) => c.replace(/[ \t\r\n]+/g, ' ').trim()));
  }
  return out;
}

/** A CSV of one header line and rows, as objects by column (no quoted cells in these). */
function parseCsv(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trimEnd().split('\r\n');
  const columns = head!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [columns[i]!, v])));
}

describe.runIf(hasBrowser)('the money-operation pages in Chromium, on a 375 px phone', () => {
  it("reports: the chart and the day's row (gross, commission and payout included) equal the seeded payments and refund, in English and French, and the CSV link downloads the same figures", async () => {
    const { page, problems } = await phonePage(a.merchant);
    try {
      const net = SEEDED.captured - SEEDED.refunded;
      for (const lang of ['en', 'fr'] as const) {
        const m = (cents: number) => formatMoney(cents, 'EUR', lang);
        const T = {
          en: { title: 'Daily report', table: 'The figures, day by day', chart: /^Net per day in EUR,/ },
          fr: { title: 'Rapport quotidien', table: 'Les chiffres, jour par jour', chart: /^Net par jour en EUR,/ },
        }[lang];
        await page.goto(`${app.base}/dashboard/reports?lang=${lang}`);
        await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(T.title);
        // One day with a net over the last 30: one bar, as high as the chart, its top labelled with the net.
        const chart = page.getByRole('img', { name: T.chart });
        expect(await chart.count()).toBe(1);
        const bars = await chart.locator('rect').evaluateAll((els) => els.map((el) => Number(el.getAttribute('height'))).filter((h) => h > 0));
        expect(bars).toEqual([160]);
        expect(await page.locator('.chart-top').allTextContents()).toEqual([m(net)]);
        const psp = lang === 'fr' ? 'sandbox (PSP de test intégré)' : 'sandbox (built-in sandbox PSP)';
        expect(await rows(page, T.table)).toEqual([
          [formatDate(today, lang), psp, 'EUR', m(SEEDED.captured), m(SEEDED.refunded), m(0), m(0), m(net), m(net), m(0), m(net), '3 · 0 · 0 · 0'],
        ]);
        await expectFitsPhone(page);
      }
      await expectAccessible(page, 'reports (fr)');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Télécharger en CSV' }).click()]);
      // The page's period: the last 30 days, today included.
      expect(download.suggestedFilename()).toBe(`chipin-daily-report-${addDays(today, -29)}-${today}.csv`);
      const chunks: Buffer[] = [];
      for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
      const csv = parseCsv(Buffer.concat(chunks).toString('utf8'));
      expect(csv).toHaveLength(1);
      expect(csv[0]).toMatchObject({
        day: today,
        time_zone: DEFAULT_TIME_ZONE,
        psp: 'sandbox',
        currency: 'EUR',
        captured_cents: String(SEEDED.captured),
        refunded_cents: String(SEEDED.refunded),
        charged_back_cents: '0',
        net_cents: String(net),
        purchases_successful: '3',
        // Back mode: the money is the merchant's at its PSP, gross and payout are the net, no commission.
        gross_cents: String(net),
        commission_cents: '0',
        payout_cents: String(net),
      });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('reconciliation: a run from the page lists the two injected differences; each marked explained with a note (English, then French) leaves the open list for good', async () => {
    const { page, problems } = await phonePage(a.merchant);
    try {
      await page.goto(`${app.base}/dashboard/reconciliation?lang=en`);
      await page.getByLabel('From (day)').fill(today);
      await page.getByLabel('To (day, inclusive)').fill(today);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('The period was checked: its run is listed below.');
      // The runs' cells are spaced, not run together ("sandboxcompleted16").
      const cell = page.getByRole('region', { name: 'Runs' }).getByRole('cell').nth(1);
      expect(await cell.evaluate((td) => getComputedStyle(td).paddingLeft)).not.toBe('0px');
      const [paidTx, refundedTx] = [await transactionOf(ids.paid), await transactionOf(ids.refunded)];
      const shown = (await rows(page, 'Open mismatches')).map((r) => r.slice(1, 6).join(' | '));
      const en = (c: number) => formatMoney(c, 'EUR', 'en');
      expect(shown.sort()).toEqual(
        [`pur_${ids.paid} | amount differs | capture | ${en(30_000)} | ${en(29_999)}`, `pur_${ids.refunded} | amount differs | refund | ${en(4_500)} | ${en(4_501)}`].sort(),
      );
      expect((await rows(page, 'Runs'))[0]).toEqual([expect.any(String), 'sandbox', 'completed', expect.any(String), '2', '']);
      await expectFitsPhone(page);
      await expectAccessible(page, 'reconciliation with mismatches');

      const mark = async (lang: EnFr, tx: string, note: string) => {
        const T = {
          en: { region: 'Open mismatches', note: 'Note', explain: 'Mark explained', saved: 'Saved.' },
          fr: { region: 'Écarts ouverts', note: 'Commentaire', explain: 'Marquer expliqué', saved: 'Enregistré.' },
        }[lang];
        await page.goto(`${app.base}/dashboard/reconciliation?lang=${lang}`);
        const row = page.getByRole('region', { name: T.region }).getByRole('row').filter({ hasText: tx });
        await row.getByLabel(T.note).fill(note);
        await row.getByRole('button', { name: T.explain }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toBe(T.saved);
        await expectFitsPhone(page);
        // Read again (not the form's answer): the mismatch is no longer open.
        await page.goto(`${app.base}/dashboard/reconciliation`);
        expect(await page.getByRole('row').filter({ hasText: tx }).count()).toBe(0);
      };
      await mark('en', paidTx, 'PSP fee rounding, agreed with the PSP');
      await mark('fr', refundedTx, 'Remboursement manuel chez le PSP');
      expect(await page.getByText('Aucun écart ouvert.').count()).toBe(1);

      // The notes are kept, with the state, as the API shows them to the same session.
      const api = await page.request.get(`${app.base}/api/backoffice/reconciliation_mismatches?state=explained`);
      expect(api.status()).toBe(200);
      const explained = ((await api.json()) as { data: { transaction_id: string; note: string }[] }).data.map((x) => [x.transaction_id, x.note]);
      expect(explained.sort()).toEqual(
        [
          [paidTx, 'PSP fee rounding, agreed with the PSP'],
          [refundedTx, 'Remboursement manuel chez le PSP'],
        ].sort(),
      );
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("disputes: the open chargeback is listed with its 7-day deadline, and the purchase page's form marks its evidence as sent", async () => {
    const [dispute] = await listDisputes(app.services.db, a.accountId, ['open'], null, 10);
    expect(dispute).toMatchObject({ purchase_id: ids.disputed, kind: 'chargeback', state: 'open' });
    // Seven days from the sandbox's notice, which Chipin recorded when its job ran (a second of the clock later).
    const due = dispute!.evidence_due_at!.getTime() - dispute!.opened_at.getTime();
    expect(due).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(due).toBeLessThanOrEqual(7 * 86_400_000);
    const uid = toPublicId('pur', ids.disputed);
    const { page, problems } = await phonePage(a.merchant);
    try {
      for (const lang of ['fr', 'en'] as const) {
        await page.goto(`${app.base}/dashboard/disputes?lang=${lang}`);
        const kind = lang === 'fr' ? 'Impayé (chargeback)' : 'Chargeback';
        const state = lang === 'fr' ? 'Ouvert' : 'Open';
        const region = lang === 'fr' ? 'Litiges ouverts' : 'Open disputes';
        expect(await rows(page, region)).toEqual([
          [
            formatDateTime(dispute!.evidence_due_at!, lang, DEFAULT_TIME_ZONE),
            kind,
            state,
            'fraudulent',
            formatMoney(8_000, 'EUR', lang),
            `${uid} leader@example.com`,
            formatDateTime(dispute!.opened_at, lang, DEFAULT_TIME_ZONE),
          ],
        ]);
        await expectFitsPhone(page);
      }
      await expectAccessible(page, 'open disputes');

      await page.getByRole('link', { name: uid }).click();
      await page.getByLabel(/^Evidence sent/).fill('Delivery signed by the customer on the 12th; tracking attached at the PSP.');
      const csrf = await page.locator('form[action$="/evidence"] input[name="csrf"]').inputValue();
      const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/dashboard/disputes/${toPublicId('dsp', dispute!.id)}/evidence`));
      await page.getByRole('button', { name: 'Mark evidence as sent' }).click();
      // The form sent the token the page holds, taken from no other place.
      expect(new URLSearchParams((await sent).postData() ?? '').get('csrf')).toBe(csrf);
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Evidence marked as sent.');
      const disputes = await rows(page, 'Disputes');
      expect(disputes.map((r) => r[1])).toEqual(['Evidence sent']);
      expect(await page.getByRole('button', { name: 'Mark evidence as sent' }).count()).toBe(0);
      await expectFitsPhone(page);
      await expectAccessible(page, 'purchase with its dispute');
      // Still listed among the open ones (the bank has not decided), now as evidence sent.
      await page.goto(`${app.base}/dashboard/disputes`);
      expect((await rows(page, 'Open disputes')).map((r) => r[2])).toEqual(['Evidence sent']);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('a support user has no Reports in the menu and is refused the page (403) and its CSV, while reconciliation and disputes stay readable', async () => {
    const support = await addDashboardUser(app, a.accountId, 'support');
    const { page, problems, allow } = await phonePage(support);
    try {
      const menu = page.getByRole('navigation', { name: 'Main menu' });
      expect(await menu.getByRole('link', { name: 'Reports' }).count()).toBe(0);
      allow('/dashboard/reports', 403);
      const res = await page.goto(`${app.base}/dashboard/reports?lang=en`);
      expect(res?.status()).toBe(403);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not allowed');
      expect(await page.getByText('Your role (support) does not give access to this page.', { exact: false }).count()).toBe(1);
      await expectFitsPhone(page);
      const csv = await page.request.get(`${app.base}/api/backoffice/reports/daily.csv?from=${today}&to=${today}`);
      expect(csv.status()).toBe(403);

      // Reading reconciliation is every user's, without the admin's forms.
      await page.goto(`${app.base}/dashboard/reconciliation`);
      expect(await page.getByRole('button', { name: 'Run', exact: true }).count()).toBe(0);
      await page.goto(`${app.base}/dashboard/disputes`);
      expect(await page.getByRole('region', { name: 'Open disputes' }).count()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
