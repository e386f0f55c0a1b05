import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { PLEDGE_RESERVATION_MS } from '../../src/domain/pot.ts';
import { caller, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { axeViolations, isBlocking } from '../helpers/axe-run.ts';
import { hasBrowser, launchBrowser, PHONE, startServedApp } from '../helpers/browser.ts';
import { cutOn, setPaymentLease } from '../helpers/connection-cut.ts';
import { NO_JOB_POLL } from '../delivery/helpers.ts';

/**
 * The pledge page's wait, in Chromium (docs/hosted-payment.md#an-attempt-in-progress): a friend
 * whose payment is still running (pending, charged at the PSP, its lease live) submits the pledge
 * page again and gets "Your payment is being confirmed", which reloads itself without script; once
 * the payment is in doubt a reload resolves it and the page shows the paid share — in English on a
 * phone with JavaScript off (the lease lapses); in French on a phone, a payment without a lease
 * (in doubt once the reservation is over), each state through axe-core there and at desktop width
 * (axe-core does not run without script). One charge at the PSP.
 */

/** The payments' lease of this test's pledge: setPaymentLease. */
const setLease = (pledgeId: string, lease: 'live' | 'lapsed' | 'none') => setPaymentLease(app.services.db, { pledgeId }, lease);

let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;

beforeAll(async () => {
  if (!hasBrowser) return;
  // No job poller: the page, not the reconciliation, resolves the payment.
  [app, browser] = await Promise.all([startServedApp(NO_JOB_POLL), launchBrowser()]);
  a = await caller(app);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const DESKTOP = { width: 1280, height: 900 };
const TEXTS = {
  en: {
    holder: 'Cardholder name',
    number: 'Card number',
    expiry: 'Expiry date',
    cvc: 'CVC',
    pay: /^Pay /,
    wait: 'Your payment is being confirmed',
    upTo: 'It can take up to 15 minutes.',
    pause: 'Pause the updates',
    resume: 'Resume the updates',
    paid: 'Thank you! Your share is paid.',
  },
  fr: {
    holder: 'Nom du titulaire',
    number: 'Numéro de carte',
    expiry: 'Date d’expiration',
    cvc: 'Cryptogramme (CVC)',
    pay: /^Payer /,
    wait: 'Votre paiement est en cours de confirmation',
    upTo: 'Cela peut prendre jusqu’à 15\u00a0minutes.',
    pause: 'Suspendre les mises à jour',
    resume: 'Reprendre les mises à jour',
    paid: 'Merci\u00a0! Votre part est payée.',
  },
};

/**
 * axe-core on the wait page: nothing serious or critical. Its timed reload is the page's script,
 * which the shopper can pause (WCAG 2.2.1); the refresh that works without script sits in
 * `<noscript>` (docs/hosted-payment.md#an-attempt-in-progress).
 */
async function expectWaitAccessible(page: Page): Promise<void> {
  const blocking = (await axeViolations(page)).filter(isBlocking);
  expect(blocking.map((v) => v.id)).toEqual([]);
}

/**
 * Runs `check` on the wait page as it stands: its next reload is answered 204 No Content, which a
 * browser takes as no navigation, so that the page stays put under the check; then the page is
 * reloaded to a fresh wait, which goes on reloading by itself.
 */
async function withReloadStopped(page: Page, check: () => Promise<void>): Promise<void> {
  let stopped = 0;
  const stop = (route: Route) => {
    stopped++;
    return route.fulfill({ status: 204 });
  };
  await page.route(/\/confirming/, stop);
  try {
    // A reload already under way when the stop began lands first; the one after it is stopped.
    await expect.poll(() => stopped).toBeGreaterThan(0);
    await check();
  } finally {
    await page.unroute(/\/confirming/, stop);
  }
  await page.reload();
}

const one = async <T>(sql: string, params: unknown[] = []): Promise<T> => (await app.services.db.query<{ v: T }>(sql, params)).rows[0]!.v;

/**
 * A friend invited to a €100 pot (€40 share) whose first payment's recording was cut after the PSP
 * charged it, its lease then as `lease` says.
 */
async function friendInDoubt(lang: 'en' | 'fr', lease: 'live' | 'none'): Promise<string> {
  const res = await a.post(`/api/merchants/${a.offer('SHARED')}/purchase_link`, {
    data: { title: 'Weekend in Lisbon', amountCents: 10_000, email: 'leader@example.com', language: lang === 'fr' ? 'fr_FR' : 'en_GB' },
    purchase_link_settings: {},
  });
  expect(res.statusCode, res.body).toBe(200);
  const purchaseId = parsePublicId('pur', res.json().purchase_uid as string)!;
  const leader = await a.post(`/api/sandbox/purchases/pur_${purchaseId}/pay`, { card_number: '4242424242424242', pledgers: [{ email: 'ann@example.com', amount_cents: 4_000 }] });
  expect(leader.statusCode, leader.body).toBe(200);
  const pledgeId = parsePublicId('plg', (leader.json() as { pledges: { id: string }[] }).pledges[0]!.id)!;
  const cut = await cutOn(app.services.db, `cut_browser_pledge_${lang}`, 'payments', 'UPDATE', `NEW.pledge_id = '${pledgeId}' AND NEW.status <> 'pending'`);
  const first = await a.post(`/api/sandbox/pledges/plg_${pledgeId}/pay`, { card_number: '4242424242424242' });
  await cut.heal();
  expect(first.statusCode, first.body).toBe(503);
  await setLease(pledgeId, lease);
  return pledgeId;
}

/**
 * The friend pays again on their page, waits until `inDoubt` made the payment in doubt, and
 * reaches the paid share. `inspect`: the wait
 * page's roles and texts, and axe on both pages, are checked too — in a page running script only:
 * axe-core does not run in one without.
 */
async function waitThenPaid(page: Page, lang: 'en' | 'fr', pledgeId: string, inspect: boolean, inDoubt: () => Promise<void>): Promise<void> {
  const t = TEXTS[lang];
  await page.goto(`${app.base}/pledge/plg_${pledgeId}`);
  await page.getByLabel(t.holder).fill('Ann Lee');
  await page.getByLabel(t.number).fill('4242 4242 4242 4242');
  await page.getByLabel(t.expiry).fill('12/30');
  await page.getByLabel(t.cvc).fill('123');
  await page.getByRole('button', { name: t.pay }).click();
  // The wait: a status region with its heading, reloading its status address by itself.
  await page.waitForURL(new RegExp(`/pledge/plg_${pledgeId}/confirming\\?lang=${lang}$`));
  if (inspect)
    await withReloadStopped(page, async () => {
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(t.wait);
      await expect(page.getByRole('status').textContent()).resolves.toContain(t.upTo);
      await expect(page.title()).resolves.toBe(t.wait);
      await expectWaitAccessible(page);
      await page.setViewportSize(DESKTOP);
      await expectWaitAccessible(page);
      await page.setViewportSize(PHONE);
    });
  if (inspect) {
    // Paused, the page stays put past several reload periods; resumed, it reloads again.
    await page.getByRole('button', { name: t.pause }).click();
    let reloads = 0;
    const count = (r: { isNavigationRequest(): boolean; url(): string }) => void (r.isNavigationRequest() && r.url().includes('/confirming') && reloads++);
    page.on('request', count);
    await page.waitForTimeout(5_000);
    page.off('request', count);
    expect(reloads).toBe(0);
    await expect(page.getByRole('button', { name: t.resume }).isVisible()).resolves.toBe(true);
    await page.getByRole('button', { name: t.resume }).click();
  }
  expect(await one<string>('SELECT state AS v FROM pledges WHERE id = $1', [pledgeId])).toBe('paying');

  // Once in doubt the next reload resolves the payment and shows the pledge paid.
  await inDoubt();
  await page.waitForURL(new RegExp(`/pledge/plg_${pledgeId}\\?lang=${lang}$`), { timeout: 20_000 });
  await expect(page.getByRole('status').textContent()).resolves.toBe(t.paid);
  if (inspect) {
    await expectAccessible(page);
    await page.setViewportSize(DESKTOP);
    await expectAccessible(page);
  }
  expect(await one<string>('SELECT state AS v FROM pledges WHERE id = $1', [pledgeId])).toBe('paid');
  // One charge at the sandbox PSP: the first payment's, replayed with its own key.
  expect(await one<number>("SELECT count(*)::int AS v FROM sandbox_psp_transactions WHERE return_url LIKE '%/pledge/plg_' || $1 || '/%' AND captured_cents > 0", [pledgeId])).toBe(
    1,
  );
}

describe.skipIf(!hasBrowser)("the pledge page waits for the friend's payment in doubt (Chromium)", () => {
  it('in English on a phone, JavaScript off: the wait reloads itself and reaches the paid share', async () => {
    const pledgeId = await friendInDoubt('en', 'live');
    const context = await browser.newContext({ viewport: PHONE, locale: 'en-GB', javaScriptEnabled: false });
    try {
      // The lease lapses, as when the request running the payment dies.
      await waitThenPaid(await context.newPage(), 'en', pledgeId, false, () => setLease(pledgeId, 'lapsed'));
    } finally {
      await context.close();
    }
  });

  it('in French on a phone, a payment without a lease: the wait (its status region, heading, texts, axe-core) and the paid share', async () => {
    const pledgeId = await friendInDoubt('fr', 'none');
    const page = await browser.newPage({ viewport: PHONE, locale: 'fr-FR' });
    try {
      // Without a lease, the reservation's end.
      await waitThenPaid(page, 'fr', pledgeId, true, async () => {
        const moved = await a.post('/api/sandbox/clock', { advance_seconds: PLEDGE_RESERVATION_MS / 1000 + 1 });
        expect(moved.statusCode, moved.body).toBe(200);
      });
    } finally {
      await page.close();
    }
  });
});
