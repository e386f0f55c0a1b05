import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopperSessions } from '../../src/http/routes/shopper-space/guard.ts';
import { collectionJobKey } from '../../src/domain/installment-rules.ts';
import { formatDate } from '../../src/i18n/format.ts';
import { LOCALE } from '../../src/i18n/lang.ts';
import { SPACE_TEXT } from '../../src/pages/shopper-space/texts.ts';
import { scheduledInstallments } from '../../src/payments/installment-repository.ts';
import { collectInstallment } from '../../src/use-cases/installments/collect-installment.ts';
import { twoMerchants, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, PHONE, startServedApp } from '../helpers/browser.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';

/**
 * The shopper's space in Chromium (docs/shopper-space.md), on a phone and a desktop, in English
 * and French: sign in by the e-mail's link, see a 4x plan, see a pot as a pledger; axe-core on
 * every page, the keyboard, and reading without script; a plan on a phone in its other four
 * languages.
 */

const CARD = '4242 4242 4242 4242';
const DESKTOP = { width: 1280, height: 900 };
const ANN = 'ann.leroy@example.com';
let app: TestApp & { base: string };
let browser: Browser;
let smtp: Awaited<ReturnType<typeof smtpListener>>;
let a: Caller;
let b: Caller;
let plan: string;
let pot: string;

const TEXT = {
  en: {
    identity: 'E-mail address or mobile number',
    send: 'Send me a sign-in link',
    sent: 'Check your e-mail',
    mine: 'My purchases',
    payments: 'Your payments',
    share: 'Your share',
    pot: 'The pot',
  },
  fr: {
    identity: 'Adresse e-mail ou numéro de mobile',
    send: 'Recevoir un lien de connexion',
    sent: 'Consultez vos e-mails',
    mine: 'Mes achats',
    payments: 'Vos paiements',
    share: 'Votre part',
    pot: 'La cagnotte',
  },
} as const;

beforeAll(async () => {
  if (!hasBrowser) return;
  smtp = await smtpListener();
  [app, browser] = await Promise.all([startServedApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` }), launchBrowser()]);
  [a, b] = await twoMerchants(app, ['Atelier Lumière', 'Vélo Cité']);
  const created = await a.post('/api/merchants/v1/purchases', {
    title: 'Reading lamp',
    amount: 48_000,
    merchant_uid: a.offer('INSTALLMENTS', 4),
    client: { email: ANN },
    language: 'en_GB',
  });
  plan = created.json().id as string;
  expect((await a.post(`/api/sandbox/purchases/pur_${plan}/pay`, { card_number: CARD })).statusCode).toBe(200);
  const shared = await b.post('/api/merchants/v1/purchases', { title: 'Vélo cargo', amount: 120_000, client: { email: 'hugo.petit@example.com' }, language: 'fr_FR' });
  pot = shared.json().id as string;
  const pledgers = [
    { email: ANN, name: 'Ann', amount_cents: 30_000 },
    { email: 'lina.moreau@example.com', amount_cents: 30_000 },
  ];
  expect((await b.post(`/api/sandbox/purchases/pur_${pot}/pay`, { card_number: CARD, pledgers })).statusCode).toBe(200);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await smtp?.close();
});

/** Signs in through the form and the e-mail's link, as a shopper does; answers the page on the list. */
async function signIn(lang: 'en' | 'fr', viewport: { width: number; height: number }, javaScriptEnabled = true): Promise<Page> {
  const t = TEXT[lang];
  const page = await browser.newPage({ viewport, locale: lang === 'fr' ? 'fr-FR' : 'en-GB', javaScriptEnabled });
  await page.goto(`${app.base}/space`);
  expect(new URL(page.url()).pathname).toBe('/space/sign-in');
  // axe runs in the page's own script world, which a page without script does not have.
  if (javaScriptEnabled) await expectAccessible(page, `sign-in ${lang}`);
  const before = smtp.received.length;
  await page.getByLabel(t.identity).fill(ANN);
  await page.getByRole('button', { name: t.send }).click();
  await expect.poll(() => page.getByRole('heading', { name: t.sent }).count()).toBe(1);
  if (javaScriptEnabled) await expectAccessible(page, `sent ${lang}`);
  await expect.poll(() => smtp.received.length).toBeGreaterThan(before);
  const link = /http:\/\/\S+\/space\/sign-in\/link\/[A-Za-z0-9_-]{43}/.exec(decoded(smtp.received.at(-1)!.raw))![0];
  await page.goto(link);
  await expect.poll(() => page.getByRole('heading', { name: t.mine }).count()).toBe(1);
  return page;
}

describe.skipIf(!hasBrowser)("the shopper's space in Chromium", () => {
  for (const [lang, viewport, size] of [
    ['en', PHONE, 'phone'],
    ['fr', DESKTOP, 'desktop'],
    ['fr', PHONE, 'phone'],
    ['en', DESKTOP, 'desktop'],
  ] as const) {
    it(`signs in by link, shows a 4x plan and a pot seen by a pledger (${lang}, ${size})`, async () => {
      const t = TEXT[lang];
      const page = await signIn(lang, viewport);
      await expectAccessible(page, `list ${lang} ${size}`);

      await page.getByRole('link', { name: /Reading lamp/ }).click();
      await page.goto(`${page.url()}?lang=${lang}`);
      await expect.poll(() => page.getByRole('heading', { name: t.payments }).count()).toBe(1);
      expect(await page.locator('#plan tbody tr').count()).toBe(4);
      expect(await page.locator('#card').textContent()).toMatch(/4242/);
      expect(await page.locator('#taeg').textContent()).toMatch(/%/);
      await expectAccessible(page, `plan ${lang} ${size}`);

      await page.goto(`${app.base}/space/purchases/pur_${pot}?lang=${lang}`);
      await expect.poll(() => page.getByRole('heading', { name: t.share }).count()).toBe(1);
      expect(await page.getByRole('heading', { name: t.pot }).count()).toBe(1);
      expect(await page.locator('#pot-deadline').count()).toBe(1);
      expect(await page.locator('progress').count()).toBe(1);
      await expectAccessible(page, `pot ${lang} ${size}`);
      if (viewport === PHONE) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await page.close();
    });
  }

  it('speaks German, Spanish, Italian and Dutch: a plan in each, picked as the switcher does, with its <html lang> and nothing serious for axe-core (phone)', async () => {
    const { token } = await shopperSessions(app.services).create({ kind: 'email', value: ANN });
    const context = await browser.newContext({ viewport: PHONE });
    await context.addCookies([{ name: 'chipin_space', value: token, url: `${app.base}/space` }]);
    const page = await context.newPage();
    try {
      // One page a language (the file's budget, docs/testing.md#the-budget): the plan, the richest
      // (its table, the credit's disclosure, the leader's forms). Every page in the six, and the
      // browser's language followed, are test/http/shopper-space-purchases.test.ts's.
      for (const lang of ['de', 'es', 'it', 'nl'] as const) {
        await page.goto(`${app.base}/space/purchases/pur_${plan}?lang=${lang}`);
        await expect.poll(() => page.getByRole('heading', { name: SPACE_TEXT[lang].planTitle }).count()).toBe(1);
        expect(await page.evaluate(() => document.documentElement.lang), lang).toBe(LOCALE[lang]);
        await expectAccessible(page, `plan ${lang}`);
      }
    } finally {
      await context.close();
    }
  });

  it('is read without script, and walked with the keyboard', async () => {
    const page = await signIn('en', PHONE, false);
    await page.keyboard.press('Tab');
    // First the sign-out button, then the language switcher, then the purchases.
    for (let i = 0; i < 10; i++) {
      const focused = (await page.locator(':focus').textContent()) ?? '';
      if (/Reading lamp/.test(focused)) break;
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { name: 'Your payments' }).count()).toBe(1);
    expect(await page.locator('#plan tbody tr').count()).toBe(4);
    await page.close();
  });
});

describe.skipIf(!hasBrowser)('a refused installment in the space (Chromium, a phone)', () => {
  const OVERDUE = {
    en: {
      list: 'Payment overdue',
      authorised: 'Payment authorised',
      title: 'Payment 2 of 4 was refused',
      refused: 'Refused',
      toCome: 'To come',
      next: 'next try on',
      again: 'We will try your card again on',
      pay: /^Pay installment 2 now/,
    },
    fr: {
      list: 'Paiement en retard',
      authorised: 'Paiement autorisé',
      title: 'Le paiement 2 sur 4 a été refusé',
      refused: 'Refusé',
      toCome: 'À venir',
      next: 'nouvel essai le',
      again: 'Nous réessaierons votre carte le',
      pay: /^Payer l’échéance 2 maintenant/,
    },
  } as const;

  for (const lang of ['en', 'fr'] as const) {
    it(`(${lang}) a 4x plan whose 2nd installment was refused twice says so at the top: refused, the next try as the collection job has it, and "pay now" in the first screen; the list says "payment overdue"`, async () => {
      const t = OVERDUE[lang];
      const email = `overdue-${lang}@example.com`;
      const created = await a.post('/api/merchants/v1/purchases', {
        title: 'Desk lamp',
        amount: 48_000,
        merchant_uid: a.offer('INSTALLMENTS', 4),
        client: { email },
        language: 'en_GB',
      });
      const id = created.json().id as string;
      expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4000 0000 0000 0341' })).statusCode).toBe(200);
      const [second] = await scheduledInstallments(app.services.db, a.accountId, id);
      expect(await collectInstallment(app.services.payments, a.accountId, second!.id, 0)).toBe('retry_scheduled');
      expect(await collectInstallment(app.services.payments, a.accountId, second!.id, 1)).toBe('retry_scheduled');
      // The recorded schedule is what the page tells: the third try's job, moved as a reschedule would move it.
      const { rows } = await app.services.db.query<{ run_at: Date }>(
        "UPDATE jobs SET run_at = run_at + interval '2 days' WHERE dedupe_key = $1 AND done_at IS NULL RETURNING run_at",
        [collectionJobKey(second!.id, 2)],
      );
      const retryOn = formatDate(new Date(rows[0]!.run_at).toISOString().slice(0, 10), lang);

      const { token } = await shopperSessions(app.services).create({ kind: 'email', value: email });
      const context = await browser.newContext({ viewport: PHONE, locale: lang === 'fr' ? 'fr-FR' : 'en-GB' });
      await context.addCookies([{ name: 'chipin_space', value: token, url: `${app.base}/space` }]);
      const page = await context.newPage();
      try {
        await page.goto(`${app.base}/space?lang=${lang}`);
        const item = page.getByRole('listitem').filter({ hasText: 'Desk lamp' });
        await expect(item.locator('.state').textContent()).resolves.toBe(t.list);
        await expectAccessible(page, `list overdue ${lang}`);

        await page.goto(`${app.base}/space/purchases/pur_${id}?lang=${lang}`);
        const notice = page.getByRole('region', { name: t.title });
        await expect(notice.textContent()).resolves.toContain(`${t.again} ${retryOn}`);
        const pay = notice.getByRole('button', { name: t.pay });
        // In the first screen of a phone, the notice and its action, without scrolling.
        for (const box of [await notice.boundingBox(), await pay.boundingBox()]) expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height);
        await expect(page.locator('.card .state').first().textContent()).resolves.toBe(t.list);
        const row = page.locator('#plan tbody tr').nth(1);
        await expect(row.textContent()).resolves.toContain(`${t.refused}${t.next} ${retryOn}`);
        await expect(row.textContent()).resolves.not.toContain(t.toCome);
        await expect(page.getByText(t.authorised).count()).resolves.toBe(0);
        await expectAccessible(page, `plan overdue ${lang}`);
      } finally {
        await context.close();
      }
    });
  }
});
