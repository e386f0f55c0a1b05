import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIsoDate } from '../../src/domain/dates.ts';
import { formatDate, formatDateTime, formatMoney, formatPercent } from '../../src/i18n/format.ts';
import { planLines } from '../../src/payments/installment-repository.ts';
import { loadPayState } from '../../src/payments/pay-state-repository.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { payPledge } from '../../src/use-cases/pot/pay-pledge.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, startServedApp } from '../helpers/browser.ts';

/** The shop sends its client's name: the pot's checkout then asks the leader for none (docs/hosted-payment.md#the-leaders-name). */
const LEADER = { email: 'leader@example.com', first_name: 'Léa', last_name: 'Martin' };

/**
 * The shopper's pages as a demanding front-end engineer tries them: real Chromium, by labels and
 * roles, fr and en, phone and desktop widths, axe-core on every state (docs/hosted-payment.md).
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
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

async function open(url: string, lang: Lang = 'en', viewport = PHONE): Promise<Page> {
  const page = await browser.newPage({ viewport, locale: lang === 'fr' ? 'fr-FR' : 'en-GB' });
  await page.goto(url);
  return page;
}

async function purchase(lang: Lang, over: Record<string, unknown> = {}, offer: string = a.offer('SHARED')): Promise<{ id: string; payment_url: string }> {
  const res = await a.post(
    '/api/merchants/v1/purchases',
    minimalPurchase({
      amount: 30_000,
      title: 'Weekend in Lisbon',
      client: LEADER,
      language: lang === 'fr' ? 'fr_FR' : 'en_GB',
      callback_url: `${app.base}/healthz`,
      merchant_uid: offer,
      ...over,
    }),
  );
  expect(res.statusCode).toBe(201);
  return res.json();
}

const LABELS = {
  en: { holder: 'Cardholder name', number: 'Card number', expiry: 'Expiry date', cvc: 'CVC', pay: /^Pay / },
  fr: { holder: 'Nom du titulaire', number: 'Numéro de carte', expiry: 'Date d’expiration', cvc: 'Cryptogramme (CVC)', pay: /^Payer / },
};

async function fillCard(page: Page, lang: Lang, number: string, expiry = '12/30') {
  const l = LABELS[lang];
  await page.getByLabel(l.holder).fill('Léa Martin');
  await page.getByLabel(l.number).fill(number);
  await page.getByLabel(l.expiry).fill(expiry);
  await page.getByLabel(l.cvc).fill('123');
}

const atPsp = async (purchaseId: string) =>
  (
    await app.services.db.query<{ purpose: string; status: string; amount_cents: number; off_session: boolean }>(
      `SELECT p.purpose, t.status, t.amount_cents, t.off_session FROM payments p JOIN sandbox_psp_transactions t ON t.id = p.psp_transaction_id
        WHERE p.purchase_id = $1 ORDER BY p.created_at`,
      [purchaseId],
    )
  ).rows;

// The tests of a describe run at once (`concurrent`): each works on purchases of its own, in pages
// of their own browser context, and moves no clock; Chromium renders in its own processes while
// the app answers. Tests at once share the cores, so each gets a longer hang guard than the
// default 30 s (a loaded machine took the pot tests past it): not a timing assertion.
const CONCURRENT_TEST_MS = 120_000;
describe.runIf(hasBrowser)('shopper pages: money wording, credit disclosure, errors, friends, language (Chromium)', { concurrent: true, timeout: CONCURRENT_TEST_MS }, () => {
  it('a €300 pot with a €100 friend says "€200.00 charged now · €100.00 held", and the sandbox PSP holds exactly €100', async ({ expect }) => {
    const p = await purchase('en');
    const page = await open(p.payment_url);
    try {
      await page.getByRole('group', { name: 'Friend 1' }).getByLabel('E-mail').fill('ann@example.com');
      await page.getByRole('group', { name: 'Friend 1' }).getByLabel('Share').fill('100');
      await page.keyboard.press('Tab');
      const summary = page.locator('#money-summary');
      await expect(summary.textContent()).resolves.toMatch(/^€200\.00 charged now · €100\.00 held, not charged, until \d+ \w+ \d{4}, \d\d:\d\d \(UTC\+[12]\)$/);
      await fillCard(page, 'en', '4242 4242 4242 4242');
      await expect(page.getByRole('button', { name: 'Pay €200.00' }).isVisible()).resolves.toBe(true);
      await page.getByRole('button', { name: 'Pay €200.00' }).click();
      await page.waitForURL(/state=LEADER_PROCESSED/);
      expect(await atPsp(p.id)).toEqual([
        { purpose: 'guarantee', status: 'held', amount_cents: 10_000, off_session: false },
        { purpose: 'leader_share', status: 'settled', amount_cents: 20_000, off_session: true },
      ]);
    } finally {
      await page.close();
    }
  });

  it('the friend pays, the pot is covered and the €100 hold is released (nothing more captured)', async ({ expect }) => {
    const p = await purchase('en');
    const page = await open(p.payment_url);
    try {
      await page.locator('#pledger_email_0').fill('ann@example.com');
      await page.locator('#pledger_amount_0').fill('100');
      await fillCard(page, 'en', '4242 4242 4242 4242');
      await page.getByRole('button', { name: 'Pay €200.00' }).click();
      await page.waitForURL(/state=LEADER_PROCESSED/);
      const [{ id }] = (await app.services.db.query<{ id: string }>('SELECT id FROM pledges WHERE purchase_id = $1', [p.id])).rows as [{ id: string }];
      await page.goto(`${app.base}/pledge/plg_${id}`);
      await fillCard(page, 'en', '4242 4242 4242 4242');
      await page.getByRole('button', { name: 'Pay €100.00' }).click();
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Your share is paid');
      const rows = await atPsp(p.id);
      expect(rows.find((r) => r.purpose === 'guarantee')).toMatchObject({ status: 'cancelled', amount_cents: 10_000 });
    } finally {
      await page.close();
    }
  });

  for (const lang of ['en', 'fr'] as const) {
    it(`${lang}: the installment page discloses amount financed, fees, total due and the fixed APR, equal to the simulation`, async ({ expect }) => {
      const offer = a.offer('INSTALLMENTS', 3);
      const p = await purchase(lang, {}, offer);
      const sim = (await a.post(`/api/merchants/${offer}/simulate_payment_schedule`, { amount_cents: 30_000, created: formatIsoDate(app.services.clock.now()) })).json() as {
        INSTALLMENT: { amount_cents: number; fees: number }[];
        taeg: number;
      };
      const fees = sim.INSTALLMENT.reduce((s, l) => s + l.fees, 0);
      const page = await open(p.payment_url, lang);
      try {
        await expect(page.locator('#credit-financed').textContent()).resolves.toBe(formatMoney(30_000 - sim.INSTALLMENT[0]!.amount_cents, 'EUR', lang));
        await expect(page.locator('#credit-fees').textContent()).resolves.toBe(formatMoney(fees, 'EUR', lang));
        await expect(page.locator('#credit-total').textContent()).resolves.toBe(formatMoney(30_000 + fees, 'EUR', lang));
        await expect(page.locator('#credit-taeg').textContent()).resolves.toBe(formatPercent(sim.taeg, lang));
        if (lang === 'fr') expect(formatPercent(20, 'fr')).toMatch(/^20,00\s%$/);
        // As prominent as the total: the APR is no smaller than the amount due.
        const size = (sel: string) => page.locator(sel).evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
        expect(await size('#credit-taeg')).toBe(await size('#credit-total'));
        // Above the card form, and the schedule says fees are included.
        const [credit, card] = await Promise.all([page.locator('.credit').boundingBox(), page.getByLabel(LABELS[lang].number).boundingBox()]);
        expect(credit!.y).toBeLessThan(card!.y);
        await expect(page.getByRole('columnheader', { name: lang === 'fr' ? 'Montant (frais inclus)' : 'Amount (fees included)' }).count()).resolves.toBe(1);
        await expectAccessible(page);
      } finally {
        await page.close();
      }
    });
  }

  it('a deferred offer\'s button says "Authorise … — charged on <date>", never "Pay"', async ({ expect }) => {
    const p = await purchase('en', {}, a.offer('DEFERRED'));
    const page = await open(p.payment_url);
    try {
      const label = await page.locator('#pay-button').textContent();
      expect(label).toMatch(/^Authorise €\d+\.\d\d — charged on \d+ \w+ \d{4}$/);
      expect(label).not.toMatch(/Pay/);
    } finally {
      await page.close();
    }
  });

  for (const lang of ['en', 'fr'] as const) {
    it(`${lang}: an invalid expiry moves focus to the error summary, marks the field and keeps the name and the friends`, async ({ expect }) => {
      const p = await purchase(lang);
      const page = await open(p.payment_url, lang);
      try {
        await page.locator('#pledger_email_0').fill('ann@example.com');
        await page.locator('#pledger_amount_0').fill(lang === 'fr' ? '100,00' : '100.00');
        await fillCard(page, lang, '4242 4242 4242 4242', '13/30');
        // Sent past the page's script, which names a bad expiry before sending (test/browser/hosted-payment.test.ts):
        // the server's answer, as a browser without the script gets it (form.submit() fires no submit event).
        await Promise.all([page.waitForNavigation(), page.evaluate(() => (document.getElementById('checkout') as HTMLFormElement).submit())]);
        await expect(page.title()).resolves.toMatch(lang === 'fr' ? /^Erreur\u00a0: / : /^Error: /);
        await expect.poll(() => page.evaluate(() => document.activeElement?.id), { timeout: 10_000 }).toBe('error-summary'); // the page's script moves focus once it runs
        await expect(page.getByRole('alert').first().getByRole('heading').textContent()).resolves.toBe(lang === 'fr' ? 'Il y a un problème' : 'There is a problem');
        const expiry = page.getByLabel(LABELS[lang].expiry);
        await expect(expiry.getAttribute('aria-invalid')).resolves.toBe('true');
        await expect(page.getByLabel(LABELS[lang].number).getAttribute('aria-invalid')).resolves.toBeNull(); // not "card refused": only the expiry
        const describedBy = (await expiry.getAttribute('aria-describedby'))!.split(' ');
        expect(describedBy).toContain('card_expiry_error');
        await expect(page.locator('#card_expiry_error').textContent()).resolves.toMatch(/MM\/(YY|AA)/);
        // The summary links to the field.
        await expect(page.locator('#error-summary a[href="#card_expiry"]').count()).resolves.toBe(1);
        await expect(page.getByLabel(LABELS[lang].holder).inputValue()).resolves.toBe('Léa Martin');
        await expect(page.locator('#pledger_email_0').inputValue()).resolves.toBe('ann@example.com');
        await expectAccessible(page);
      } finally {
        await page.close();
      }
    });
  }

  it('an expired card refused by the PSP is the expiry field\'s error, not "card refused"; a disabled button looks disabled', async ({ expect }) => {
    const p = await purchase('en');
    const page = await open(p.payment_url);
    try {
      await fillCard(page, 'en', '4242 4242 4242 4242', '01/20');
      await page.getByRole('button', { name: /^Pay / }).click();
      await page.waitForLoadState('load');
      await expect.poll(() => page.evaluate(() => document.activeElement?.id), { timeout: 10_000 }).toBe('error-summary'); // the page's script moves focus once it runs
      await expect(page.getByLabel('Expiry date').getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(page.locator('#card_expiry_error').textContent()).resolves.toBe('Your card has expired.');
      await expect(page.getByLabel('Cardholder name').inputValue()).resolves.toBe('Léa Martin');
      const enabledBg = await page.locator('#pay-button').evaluate((el) => getComputedStyle(el).backgroundColor);
      await page.locator('#pledger_email_0').fill('ann@example.com');
      await page.locator('#pledger_amount_0').fill('300');
      await page.keyboard.press('Tab');
      await expect(page.locator('#pay-button').isDisabled()).resolves.toBe(true);
      expect(await page.locator('#pay-button').evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(enabledBg);
    } finally {
      await page.close();
    }
  });

  it('French friend rows: one fieldset per friend, a national phone number and "30,00 €" accepted, split evenly in French, rows stacked on a phone', async ({ expect }) => {
    const p = await purchase('fr', { amount: 9_000 });
    const page = await open(p.payment_url, 'fr');
    try {
      const ami1 = page.getByRole('group', { name: 'Ami 1' });
      const ami2 = page.getByRole('group', { name: 'Ami 2' });
      await ami1.getByLabel('Téléphone').fill('06 12 34 56 78');
      await ami2.getByLabel('E-mail').fill('bob@example.com');
      await page.getByRole('button', { name: 'Partager à parts égales' }).click();
      await expect(ami1.getByLabel('Part').inputValue()).resolves.toBe('30,00');
      await ami2.getByLabel('Part').fill('30 €');
      await page.keyboard.press('Tab');
      await expect(page.locator('#leader-share').textContent()).resolves.toMatch(/^30,00\s€$/);
      // Below 480 px the fields of a row stack.
      const [name, share] = await Promise.all([ami1.getByLabel('Nom').boundingBox(), ami1.getByLabel('Part').boundingBox()]);
      expect(share!.y).toBeGreaterThan(name!.y + name!.height - 1);
      await fillCard(page, 'fr', '4242 4242 4242 4242');
      await expectAccessible(page);
      await page.getByRole('button', { name: /^Payer / }).click();
      await page.waitForURL(/state=LEADER_PROCESSED/);
      const pledges = await app.services.db.query<{ phone_number: string | null; amount_cents: number }>(
        'SELECT phone_number, amount_cents FROM pledges WHERE purchase_id = $1 ORDER BY position',
        [p.id],
      );
      expect(pledges.rows).toEqual([
        { phone_number: '+33612345678', amount_cents: 3_000 },
        { phone_number: null, amount_cents: 3_000 },
      ]);
    } finally {
      await page.close();
    }
  });

  it("on an en_GB purchase of a French shop, a friend's 06 12 34 56 78 is the French +33612345678, not a British +44 number", async ({ expect }) => {
    const p = await purchase('en', { amount: 9_000 });
    const page = await open(p.payment_url, 'en');
    try {
      const friend = page.getByRole('group', { name: 'Friend 1' });
      await friend.getByLabel('Phone').fill('06 12 34 56 78');
      await friend.getByLabel('Share').fill('30.00');
      await fillCard(page, 'en', '4242 4242 4242 4242');
      await page.getByRole('button', { name: /^Pay / }).click();
      await page.waitForURL(/state=LEADER_PROCESSED/);
      const pledges = await app.services.db.query<{ phone_number: string | null }>('SELECT phone_number FROM pledges WHERE purchase_id = $1', [p.id]);
      expect(pledges.rows).toEqual([{ phone_number: '+33612345678' }]);
    } finally {
      await page.close();
    }
  });

  it('the page follows the purchase language, has a switcher, a title per state, and the sandbox 3-D Secure page follows it', async ({ expect }) => {
    const p = await purchase('fr');
    const page = await open(p.payment_url, 'en');
    try {
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('fr-FR');
      await expect(page.title()).resolves.toBe('Payer · Weekend in Lisbon · Test Shop');
      await page.getByRole('navigation', { name: 'Langue' }).getByRole('link', { name: 'English' }).click();
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en-GB');
      await expect(page.title()).resolves.toBe('Pay · Weekend in Lisbon · Test Shop');
      await page.getByRole('navigation', { name: 'Language' }).getByRole('link', { name: 'Français' }).click();
      await fillCard(page, 'fr', '4000 0000 0000 3220');
      await page.getByRole('button', { name: /^Payer / }).click();
      await expect(page.getByRole('heading', { name: 'Confirmez votre paiement' }).isVisible()).resolves.toBe(true);
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('fr');
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Valider l’authentification' }).click();
      await page.waitForURL(/state=SUCCESSFUL/);
      await page.goto(p.payment_url);
      await expect(page.title()).resolves.toBe('Payé · Weekend in Lisbon · Test Shop');
      await expect(page.getByRole('heading', { name: 'Paiement', exact: true }).count()).resolves.toBe(0); // the status page has no payment form
    } finally {
      await page.close();
    }
  });

  it('the payment section is reachable by heading, the pot table has column headers, focus and input borders contrast ≥ 3:1', async ({ expect }) => {
    const p = await purchase('en');
    const page = await open(p.payment_url);
    try {
      await expect(page.getByRole('heading', { name: 'Payment', level: 2 }).isVisible()).resolves.toBe(true);
      const border = await page.getByLabel('Card number').evaluate((el) => getComputedStyle(el).borderTopColor);
      expect(contrast(border, 'rgb(255, 255, 255)')).toBeGreaterThanOrEqual(3);
      await page.getByLabel('Card number').focus();
      const outline = await page.getByLabel('Card number').evaluate((el) => ({ color: getComputedStyle(el).outlineColor, width: getComputedStyle(el).outlineWidth }));
      expect(outline.width).toBe('3px');
      expect(contrast(outline.color, 'rgb(255, 255, 255)')).toBeGreaterThanOrEqual(3);
      await page.locator('#pledger_email_0').fill('ann@example.com');
      await page.locator('#pledger_amount_0').fill('100');
      await fillCard(page, 'en', '4242 4242 4242 4242');
      await page.getByRole('button', { name: /^Pay / }).click();
      await page.waitForURL(/state=LEADER_PROCESSED/);
      await page.goto(p.payment_url);
      for (const name of ['Friend', 'Share', 'Status']) await expect(page.getByRole('columnheader', { name }).count()).resolves.toBe(1);
    } finally {
      await page.close();
    }
  });

  it('expectAccessible fails on a serious violation (the helper is not a no-op)', async ({ expect }) => {
    const page = await browser.newPage();
    try {
      await page.setContent('<!doctype html><html lang="en"><title>t</title><main><img src="data:,"><input></main></html>');
      await expect(expectAccessible(page)).rejects.toThrow(/image-alt|label/);
    } finally {
      await page.close();
    }
  });

  it('axe-core: every shopper page state in fr and en, at phone and desktop widths, has no serious or critical violation', async ({ expect }) => {
    // The two languages at once: each walks purchases and pages of its own.
    const walk = async (lang: Lang) => {
      // Leader: the form (SHARED, installments, deferred), the status after paying with a friend invited.
      const shared = await purchase(lang);
      const urls = [shared.payment_url, (await purchase(lang, {}, a.offer('INSTALLMENTS', 3))).payment_url, (await purchase(lang, {}, a.offer('DEFERRED'))).payment_url];
      for (const viewport of [PHONE, DESKTOP]) {
        for (const url of urls) {
          const page = await open(url, lang, viewport);
          await expectAccessible(page);
          await page.close();
        }
      }
      const page = await open(shared.payment_url, lang);
      await page.locator('#pledger_email_0').fill('ann@example.com');
      await page.locator('#pledger_amount_0').fill('100');
      await fillCard(page, lang, '4242 4242 4242 4242');
      await page.getByRole('button', { name: LABELS[lang].pay }).click();
      await page.waitForURL(/state=LEADER_PROCESSED/);
      await page.goto(shared.payment_url);
      await expectAccessible(page);
      // Pledger: the form, a refusal, then paid.
      const [{ id }] = (await app.services.db.query<{ id: string }>('SELECT id FROM pledges WHERE purchase_id = $1', [shared.id])).rows as [{ id: string }];
      for (const viewport of [PHONE, DESKTOP]) {
        const pledge = await open(`${app.base}/pledge/plg_${id}`, lang, viewport);
        await expectAccessible(pledge);
        await pledge.close();
      }
      await page.goto(`${app.base}/pledge/plg_${id}`);
      await fillCard(page, lang, '4000 0000 0000 0002');
      await page.getByRole('button', { name: LABELS[lang].pay }).click();
      await page.waitForLoadState('load');
      await expect.poll(() => page.evaluate(() => document.activeElement?.id), { timeout: 10_000 }).toBe('error-summary'); // the page's script moves focus once it runs
      await expectAccessible(page);
      await fillCard(page, lang, '4242 4242 4242 4242');
      await page.getByRole('button', { name: LABELS[lang].pay }).click();
      await page.waitForLoadState('load');
      await expectAccessible(page);
      await page.setViewportSize(DESKTOP);
      await expectAccessible(page);
      await page.close();
      // Not found.
      const missing = await open(`${app.base}/pay/pur_00000000-0000-4000-8000-000000000000`, lang);
      await expectAccessible(missing);
      await missing.close();
    };
    await Promise.all((['en', 'fr'] as const).map(walk));
  }, 180_000); // some twenty page states, two languages, two widths: room on a loaded CI machine
});

const RESULT = {
  en: {
    heading: 'Your payment',
    charged: 'Charged to your card',
    rest: 'Still to collect from your friends',
    closes: 'The pot closes on',
    next: 'Next payments',
    back: 'Back to the shop',
    nothing: 'Nothing more will be charged.',
  },
  fr: {
    heading: 'Votre paiement',
    charged: 'Débité sur votre carte',
    rest: 'Reste à réunir auprès de vos amis',
    closes: 'Fin de la cagnotte',
    next: 'Prochains paiements',
    back: 'Retour à la boutique',
    nothing: 'Rien d’autre ne sera débité.',
  },
};

/** The result page's figures, term → definition, read through their roles inside the "Your payment" region. */
async function resultFigures(page: Page, lang: Lang): Promise<Record<string, string>> {
  const region = page.getByRole('region', { name: RESULT[lang].heading });
  const [terms, values] = await Promise.all([region.getByRole('term').allTextContents(), region.getByRole('definition').allTextContents()]);
  return Object.fromEntries(terms.map((t, i) => [t, values[i]!]));
}

/** Pays on the checkout page with a good card (and friends for a pot), then opens the result page. */
async function payAndOpenResult(lang: Lang, offer: string, friends: { email: string; share: string }[] = []): Promise<{ id: string; page: Page }> {
  const p = await purchase(lang, {}, offer);
  const page = await open(p.payment_url, lang);
  for (const [i, f] of friends.entries()) {
    if (i > 1) await page.getByRole('button', { name: lang === 'fr' ? 'Ajouter un ami' : 'Add a friend' }).click();
    await page.locator(`#pledger_email_${i}`).fill(f.email);
    await page.locator(`#pledger_amount_${i}`).fill(f.share);
  }
  await fillCard(page, lang, '4242 4242 4242 4242');
  await page.locator('#pay-button').click();
  await page.waitForURL(/state=LEADER_PROCESSED/);
  await page.goto(p.payment_url);
  return { id: p.id, page };
}

describe.runIf(hasBrowser)(
  'the result page says what was charged, what is held, what comes next, and leads back to the shop (Chromium)',
  { concurrent: true, timeout: CONCURRENT_TEST_MS },
  () => {
    for (const lang of ['en', 'fr'] as const) {
      it(`a pot (${lang}): charged, held until the deadline, the uncovered rest lowered by each share paid; then nothing more`, async ({ expect }) => {
        const m = (cents: number) => formatMoney(cents, 'EUR', lang);
        const r = RESULT[lang];
        const { id, page } = await payAndOpenResult(lang, a.offer('SHARED'), [
          { email: 'ann@example.com', share: lang === 'fr' ? '50,00' : '50' },
          { email: 'bob@example.com', share: lang === 'fr' ? '50,00' : '50' },
        ]);
        try {
          const deadline = formatDateTime((await loadPayState(app.services.db, a.accountId, id))!.potDeadlineAt!, lang, 'Europe/Paris');
          const held = lang === 'fr' ? `Bloqué sur votre carte, non débité, jusqu’au ${deadline}` : `Held on your card, not charged, until ${deadline}`;
          expect(await resultFigures(page, lang)).toEqual({ [r.charged]: m(20_000), [held]: m(10_000), [r.rest]: m(10_000), [r.closes]: deadline });
          // Back to the shop with the outcome, as the redirect after paying carries it (docs/plugin-integration.md#the-return-to-the-shop).
          const back = new URL((await page.getByRole('link', { name: r.back }).getAttribute('href'))!);
          expect(`${back.origin}${back.pathname}`).toBe(`${app.base}/healthz`);
          expect(back.searchParams.get('purchase_uid')).toBe(`pur_${id}`);
          expect(JSON.parse(back.searchParams.get('pledg_result')!)).toMatchObject({ purchase: { uid: `pur_${id}` } });
          await expectAccessible(page);

          // Ann pays: the hold stays on the card (a card authorisation is not lowered), but what the deadline will take is now €50.
          const [ann] = await listPledges(app.services.db, a.accountId, id);
          expect(
            await payPledge(app.services.payments, ann!, { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ann' }, () => `${app.base}/return`),
          ).toEqual({ kind: 'paid' });
          await page.reload();
          expect(await resultFigures(page, lang)).toEqual({ [r.charged]: m(20_000), [held]: m(10_000), [r.rest]: m(5_000), [r.closes]: deadline });
          await expect(page.getByRole('region', { name: r.heading }).textContent()).resolves.toContain(m(5_000));

          // Bob pays: the pot is complete, the hold released.
          const bob = (await listPledges(app.services.db, a.accountId, id))[1]!;
          expect(
            await payPledge(app.services.payments, bob, { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Bob' }, () => `${app.base}/return`),
          ).toEqual({ kind: 'paid' });
          await page.reload();
          expect(await resultFigures(page, lang)).toEqual({ [r.charged]: m(20_000) });
          await expect(page.getByRole('region', { name: r.heading }).textContent()).resolves.toContain(r.nothing);

          // Bob's own page: what he was charged.
          await page.goto(`${app.base}/pledge/plg_${bob.id}`);
          const charged = page.getByRole('definition');
          await expect(charged.textContent()).resolves.toBe(m(5_000));
          await expect(page.getByRole('term').textContent()).resolves.toBe(r.charged);
          await expectAccessible(page);
        } finally {
          await page.close();
        }
      });

      it(`3x (${lang}): the first installment charged, the next dates and amounts`, async ({ expect }) => {
        const m = (cents: number) => formatMoney(cents, 'EUR', lang);
        const r = RESULT[lang];
        const { id, page } = await payAndOpenResult(lang, a.offer('INSTALLMENTS', 3));
        try {
          const lines = await planLines(app.services.db, a.accountId, id);
          expect(await resultFigures(page, lang)).toEqual({ [r.charged]: m(lines[0]!.amountCents) });
          const table = page.getByRole('table', { name: r.next });
          const rows = await table.getByRole('row').allTextContents();
          expect(rows.slice(1)).toEqual(lines.slice(1).map((l) => `${formatDate(l.dueDate, lang)}${m(l.amountCents)}`));
          await expect(page.getByRole('link', { name: r.back }).count()).resolves.toBe(1);
          await expectAccessible(page);
        } finally {
          await page.close();
        }
      });

      it(`deferred (${lang}): nothing charged, the amount held until the capture date`, async ({ expect }) => {
        const m = (cents: number) => formatMoney(cents, 'EUR', lang);
        const r = RESULT[lang];
        const { id, page } = await payAndOpenResult(lang, a.offer('DEFERRED'));
        try {
          const [line] = await planLines(app.services.db, a.accountId, id);
          const date = formatDate(line!.dueDate, lang);
          expect(await resultFigures(page, lang)).toEqual({
            [r.charged]: m(0),
            [lang === 'fr' ? `Bloqué sur votre carte, non débité, jusqu’au ${date}` : `Held on your card, not charged, until ${date}`]: m(line!.amountCents),
            [lang === 'fr' ? `À débiter le ${date}` : `To be charged on ${date}`]: m(line!.amountCents),
          });
          await expectAccessible(page);
        } finally {
          await page.close();
        }
      });
    }
  },
);

/** WCAG contrast ratio of two `rgb(…)` colours. */
function contrast(c1: string, c2: string): number {
  const lum = (c: string) => {
    const [r, g, b] = (c.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((x) => {
      const v = Number(x) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [lum(c1), lum(c2)].sort((x, y) => y - x) as [number, number];
  return (a + 0.05) / (b + 0.05);
}
