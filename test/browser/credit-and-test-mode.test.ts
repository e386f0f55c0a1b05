import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, startServedApp } from '../helpers/browser.ts';
import { languageTag, LOCALE, type Lang } from '../../src/i18n/lang.ts';

/** The shop sends its client's name: the pot's checkout then asks the leader for none (docs/hosted-payment.md#the-leaders-name). */
const LEADER = { email: 'leader@example.com', first_name: 'Léa', last_name: 'Martin' };

/**
 * What a hosted page must say for the shopper to trust it, in real Chromium by roles and labels:
 * the credit mentions on a 3x/4x page (docs/schedules.md#credit-mentions), and the "test mode"
 * banner wherever the payment runs on a test PSP (docs/hosted-payment.md#test-mode).
 */
const LENDER = 'Chipin Crédit SAS, 10 rue de la Banque, 75002 Paris';

let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp({ creditLender: LENDER }), launchBrowser()]);
  a = await caller(app, 'Vélos Martin');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function purchase(lang: Lang, offer: string): Promise<{ id: string; payment_url: string }> {
  const res = await a.post(
    '/api/merchants/v1/purchases',
    minimalPurchase({ amount: 30_000, client: LEADER, language: languageTag(lang), callback_url: `${app.base}/healthz`, merchant_uid: offer }),
  );
  expect(res.statusCode).toBe(201);
  return res.json();
}

async function open(url: string, lang: Lang): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: LOCALE[lang] });
  await page.goto(url);
  return page;
}

const backoffice = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
  app.server.inject({ method, url, headers: { authorization: a.dashboard, 'content-type': 'application/json' }, payload: JSON.stringify(body) });

const CREDIT = {
  fr: {
    box: 'Ceci est un crédit : ce qu’il coûte',
    warning: 'Un crédit vous engage et doit être remboursé. Vérifiez vos capacités de remboursement avant de vous engager.',
    lender: `Prêteur\u00a0: ${LENDER}`,
    withdrawal: /^Droit de rétractation\u00a0: vous pouvez vous rétracter de ce crédit dans un délai de 14 jours calendaires révolus/,
  },
  en: {
    box: 'This is a credit: what it costs',
    warning: 'Taking out a credit is a commitment and it must be repaid. Check your ability to repay before committing.',
    lender: `Lender: ${LENDER}`,
    withdrawal: /^Right of withdrawal: you may withdraw from this credit within 14 calendar days/,
  },
  de: {
    box: 'Dies ist ein Kredit: was er kostet',
    warning: 'Ein Kredit verpflichtet Sie zur Rückzahlung. Prüfen Sie vor Vertragsschluss, ob Sie die Raten bezahlen können.',
    lender: `Darlehensgeber: ${LENDER}`,
    withdrawal: /^Widerrufsrecht: Sie können Ihre Zustimmung zu diesem Kredit innerhalb von 14 Tagen/,
  },
  es: {
    box: 'Esto es un crédito: lo que cuesta',
    warning: 'Un crédito es un compromiso y debe devolverse. Compruebe su capacidad de reembolso antes de comprometerse.',
    lender: `Prestamista: ${LENDER}`,
    withdrawal: /^Derecho de desistimiento: puede desistir de este crédito en un plazo de 14 días naturales/,
  },
  it: {
    box: 'Questo è un credito: quanto costa',
    warning: 'Un credito è un impegno e deve essere rimborsato. Verifica la tua capacità di rimborso prima di impegnarti.',
    lender: `Finanziatore: ${LENDER}`,
    withdrawal: /^Diritto di recesso: puoi recedere da questo credito entro 14 giorni di calendario/,
  },
  nl: {
    box: 'Dit is een krediet: wat het kost',
    // The Dutch regulator's warning, word for word (docs/schedules.md#credit-mentions).
    warning: 'Let op! Geld lenen kost geld',
    lender: `Kredietgever: ${LENDER}`,
    withdrawal: /^Herroepingsrecht: u kunt dit krediet binnen 14 kalenderdagen/,
  },
};

describe.runIf(hasBrowser)('credit mentions on the 3x/4x page (Chromium)', () => {
  for (const lang of ['fr', 'en', 'de', 'es', 'it', 'nl'] as const) {
    it(`(${lang}) the credit box carries the warning in the country's words, the lender and the 14-day right of withdrawal; axe finds nothing serious`, async () => {
      const c = CREDIT[lang];
      const page = await open((await purchase(lang, a.offer('INSTALLMENTS', 3))).payment_url, lang);
      try {
        const box = page.getByRole('region', { name: c.box });
        await expect(box.getByText(c.warning, { exact: true }).isVisible()).resolves.toBe(true);
        await expect(box.getByText(c.lender, { exact: true }).isVisible()).resolves.toBe(true);
        await expect(box.getByText(c.withdrawal).isVisible()).resolves.toBe(true);
        // The warning stands out: bold, as the figures are.
        expect(Number(await box.getByText(c.warning).evaluate((el) => getComputedStyle(el).fontWeight))).toBeGreaterThanOrEqual(700);
        await expectAccessible(page);
      } finally {
        await page.close();
      }
    });
  }

  it("an offer's own lender, and no right of withdrawal where the offer sets none", async () => {
    const offer = a.offer('INSTALLMENTS', 4);
    expect((await backoffice('PATCH', `/api/backoffice/offers/${offer}`, { credit_lender: 'Banque Exemple SA', withdrawal_days: 0 })).statusCode).toBe(200);
    const page = await open((await purchase('en', offer)).payment_url, 'en');
    try {
      const box = page.getByRole('region', { name: CREDIT.en.box });
      await expect(box.getByText('Lender: Banque Exemple SA', { exact: true }).isVisible()).resolves.toBe(true);
      await expect(box.getByText(/withdraw/).count()).resolves.toBe(0);
      await expect(box.getByText(CREDIT.en.warning).isVisible()).resolves.toBe(true);
    } finally {
      await page.close();
      await backoffice('PATCH', `/api/backoffice/offers/${offer}`, { credit_lender: null, withdrawal_days: null });
    }
  });

  it('a pot and a free pay-later page show no credit mention', async () => {
    for (const offer of [a.offer('SHARED'), a.offer('DEFERRED')]) {
      const page = await open((await purchase('fr', offer)).payment_url, 'fr');
      try {
        await expect(page.getByText(CREDIT.fr.warning).count()).resolves.toBe(0);
        await expect(page.getByText(/^Prêteur/).count()).resolves.toBe(0);
        await expect(page.getByRole('region', { name: CREDIT.fr.box }).count()).resolves.toBe(0);
      } finally {
        await page.close();
      }
    }
  });
});

describe.runIf(hasBrowser)('what a 3x result page and a down payment checkout say was charged (Chromium, a phone)', () => {
  const SAID = {
    en: {
      card: 'Card number',
      holder: 'Cardholder name',
      expiry: 'Expiry date',
      cvc: 'CVC',
      state: 'Installments under way',
      done: 'Your payment is done:',
      authorised: /authorised/i,
      fees: 'with the fees',
      deposit: 'Pay a deposit of €90.00 now; the balance of €210.00',
    },
    fr: {
      card: 'Numéro de carte',
      holder: 'Nom du titulaire',
      expiry: 'Date d’expiration',
      cvc: 'Cryptogramme (CVC)',
      state: 'Échéances en cours',
      done: 'Votre paiement est effectué',
      authorised: /autoris/i,
      fees: 'avec les frais',
      deposit: 'Payez un acompte de 90,00\u00a0€ maintenant\u00a0; le solde de 210,00\u00a0€',
    },
  } as const;

  for (const lang of ['en', 'fr'] as const) {
    it(`(${lang}) the 3x result page says the first installment was charged, with its amount, never "authorised"; a free deposit is not "with the fees"`, async () => {
      const t = SAID[lang];
      const p = await purchase(lang, a.offer('INSTALLMENTS', 3));
      const page = await open(p.payment_url, lang);
      try {
        await page.getByLabel(t.holder).fill('Léa Martin');
        await page.getByLabel(t.card).fill('4242 4242 4242 4242');
        await page.getByLabel(t.expiry).fill('12/30');
        await page.getByLabel(t.cvc).fill('123');
        await page.locator('#pay-button').click();
        await page.waitForURL(/state=LEADER_PROCESSED/);
        await page.goto(p.payment_url);
        const charged = (await page.locator('#result-charged').textContent())!;
        expect(charged).toMatch(/104[.,]50/);
        await expect(page.locator('.ok[role="status"]').textContent()).resolves.toContain(`${t.done}`);
        await expect(page.locator('.ok[role="status"]').textContent()).resolves.toContain(charged);
        await expect(page.locator('.state').textContent()).resolves.toBe(t.state);
        expect(await page.locator('main').textContent()).not.toMatch(t.authorised);
        await expectAccessible(page, `3x result ${lang}`);

        await page.goto((await purchase(lang, a.offer('DOWN_PAYMENT'))).payment_url);
        const intro = (await page.locator('#pay-title + p').textContent())!;
        expect(intro).toContain(t.deposit);
        expect(intro).not.toContain(t.fees);
        await expectAccessible(page, `down payment ${lang}`);
      } finally {
        await page.close();
      }
    });
  }
});

describe.runIf(hasBrowser)('the "test mode" banner (Chromium)', () => {
  const banner = (page: Page, lang: Lang) => page.getByRole('region', { name: lang === 'fr' ? 'Mode test' : 'Test mode' });

  it('on the sandbox PSP: the checkout, the status page after paying and the pledge page say "test mode", translated', async () => {
    const p = await purchase('fr', a.offer('SHARED'));
    const page = await open(p.payment_url, 'fr');
    try {
      await expect(banner(page, 'fr').textContent()).resolves.toContain('aucune carte réelle n’est débitée');
      await page.getByRole('group', { name: 'Ami 1' }).getByLabel('E-mail').fill('ann@example.com');
      await page.getByRole('group', { name: 'Ami 1' }).getByLabel('Part').fill('100');
      await page.getByLabel('Nom du titulaire').fill('Léa Martin');
      await page.getByLabel('Numéro de carte').fill('4242 4242 4242 4242');
      await page.getByLabel('Date d’expiration').fill('12/30');
      await page.getByLabel('Cryptogramme (CVC)').fill('123');
      await page.locator('#pay-button').click();
      await page.waitForURL(/state=LEADER_PROCESSED/);
      await page.goto(`${p.payment_url}?lang=en`);
      await expect(banner(page, 'en').isVisible()).resolves.toBe(true);
      await expect(banner(page, 'en').textContent()).resolves.toContain('no real card is charged');
      await expectAccessible(page);
      const [{ id }] = (await app.services.db.query<{ id: string }>('SELECT id FROM pledges WHERE purchase_id = $1', [p.id])).rows as [{ id: string }];
      await page.goto(`${app.base}/pledge/plg_${id}`);
      await expect(banner(page, 'fr').isVisible()).resolves.toBe(true);
      await expectAccessible(page);
    } finally {
      await page.close();
    }
  });

  it('on a PSP account in its live environment: no banner', async () => {
    const created = await backoffice('POST', '/api/backoffice/psp_accounts?verify=false', {
      psp: 'stripe',
      environment: 'live',
      label: 'Live Stripe',
      credentials: { secret_key: `sk_live_${'a1B2c3D4e5'.repeat(3)}`, webhook_secret: `whsec_${'Q9w8E7r6T5y4U3i2'.repeat(2)}` },
    });
    expect(created.statusCode).toBe(201);
    const live = a.offer('INSTALLMENTS', 3);
    expect((await backoffice('PATCH', `/api/backoffice/offers/${live}`, { psp_account_id: created.json().id })).statusCode).toBe(200);
    try {
      const page = await open((await purchase('en', live)).payment_url, 'en');
      try {
        await expect(page.getByRole('heading', { level: 1 }).isVisible()).resolves.toBe(true);
        await expect(banner(page, 'en').count()).resolves.toBe(0);
      } finally {
        await page.close();
      }
    } finally {
      await backoffice('PATCH', `/api/backoffice/offers/${live}`, { psp_account_id: null });
    }
  });
});
