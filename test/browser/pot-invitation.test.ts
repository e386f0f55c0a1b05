import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { TEXT } from '../../src/pages/texts.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, PHONE, startServedApp } from '../helpers/browser.ts';

/**
 * What a friend invited to a pot meets (issue 78, item 4), in Chromium, in English and French, at a
 * phone's 390 px, axe-core on each state: who invites them is a name, never the leader's e-mail
 * address (the shop's client name, else the one the checkout asks the leader for); once the share
 * is paid the heading says so; a failed 3-D Secure keeps the name the friend typed on the card;
 * the Amex test card's refusal says why (no 3-D Secure) and to use another card, not to retry.
 * And the French words of item 5 a shopper reads on these pages (docs/hosted-payment.md#words).
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

const W = {
  en: {
    yourName: 'Your name',
    holder: 'Cardholder name',
    number: 'Card number',
    expiry: 'Expiry date',
    cvc: 'CVC',
    friend: 'Friend 1',
    email: 'E-mail',
    share: 'Share',
    fail: 'Fail authentication',
    invites: (who: string) => `${who} invites you to chip in`,
    chippedIn: (who: string) => `You chipped in to ${who}’s pot`,
    subject: (who: string) => `${who} invites you to chip in`,
    retry: /try again/i,
  },
  fr: {
    yourName: 'Votre nom',
    holder: 'Nom du titulaire',
    number: 'Numéro de carte',
    expiry: 'Date d’expiration',
    cvc: 'Cryptogramme (CVC)',
    friend: 'Ami 1',
    email: 'E-mail',
    share: 'Part',
    fail: 'Faire échouer l’authentification',
    invites: (who: string) => `${who} vous invite à participer`,
    chippedIn: (who: string) => `Vous avez participé à la cagnotte lancée par ${who}`,
    subject: (who: string) => `${who} vous invite à verser`,
    retry: /réessayez/i,
  },
};

async function open(url: string, lang: Lang): Promise<Page> {
  const page = await browser.newPage({ viewport: PHONE, locale: lang === 'fr' ? 'fr-FR' : 'en-GB' });
  await page.goto(url);
  return page;
}

async function fillCard(page: Page, lang: Lang, number: string, holder: string) {
  const w = W[lang];
  await page.getByLabel(w.holder).fill(holder);
  await page.getByLabel(w.number).fill(number);
  await page.getByLabel(w.expiry).fill('12/30');
  await page.getByLabel(w.cvc).fill('123');
}

async function purchase(lang: Lang, client: Record<string, string> = { email: 'leader@example.com' }): Promise<{ id: string; payment_url: string }> {
  const res = await a.post(
    '/api/merchants/v1/purchases',
    minimalPurchase({ amount: 30_000, client, language: lang === 'fr' ? 'fr_FR' : 'en_GB', callback_url: `${app.base}/healthz`, merchant_uid: a.offer('SHARED') }),
  );
  expect(res.statusCode).toBe(201);
  return res.json();
}

/** A pot whose leader paid through the sandbox helper, with one friend ("Ann", as the leader named her). */
async function potWithFriend(lang: Lang): Promise<{ id: string; pledgeUrl: string }> {
  const p = await purchase(lang, { email: 'lea.martin@example.com', first_name: 'Léa', last_name: 'Martin' });
  const paid = await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, {
    card_number: '4242 4242 4242 4242',
    pledgers: [{ email: 'ann@example.com', name: 'Ann', amount_cents: 10_000 }],
  });
  expect(paid.statusCode).toBe(200);
  const [pledge] = await listPledges(app.services.db, a.accountId, p.id);
  return { id: p.id, pledgeUrl: `${app.base}/pledge/plg_${pledge!.id}?lang=${lang}` };
}

const CONCURRENT_TEST_MS = 120_000;
describe.runIf(hasBrowser)('a pot as the invited friend meets it (Chromium, 390 px)', { concurrent: true, timeout: CONCURRENT_TEST_MS }, () => {
  for (const lang of ['en', 'fr'] as const) {
    const w = W[lang];
    const t = TEXT[lang];

    it(`${lang}: a leader the shop gave no name is asked for one before inviting; the friend's invitation and page name them, never their e-mail; once paid the heading says the friend chipped in`, async ({
      expect,
    }) => {
      const p = await purchase(lang);
      const page = await open(p.payment_url, lang);
      try {
        const friend = page.getByRole('group', { name: w.friend });
        await friend.getByLabel(w.email).fill('ann@example.com');
        await friend.getByLabel(w.share).fill('100');
        await fillCard(page, lang, '4242 4242 4242 4242', 'Léa Martin');
        // Sent without the name: the page comes back asking for it, the friends kept.
        await page.locator('#pay-button').click();
        await page.waitForLoadState('load');
        const name = page.getByLabel(w.yourName);
        await expect(name.getAttribute('aria-invalid')).resolves.toBe('true');
        await expect(page.locator('#leader_name_error').textContent()).resolves.toBe(t.leaderNameError);
        await expect(friend.getByLabel(w.email).inputValue()).resolves.toBe('ann@example.com');
        await expectAccessible(page);
        await name.fill('Léa');
        await fillCard(page, lang, '4242 4242 4242 4242', 'Léa Martin');
        await page.locator('#pay-button').click();
        await page.waitForURL(/state=LEADER_PROCESSED/);

        // The invitation e-mail names the leader.
        const subject = await vi.waitFor(
          async () => {
            const res = await a.get(`/api/sandbox/messages?purchase_uid=pur_${p.id}`);
            const mail = (res.json() as { messages: { channel: string; recipient: string; subject?: string }[] }).messages.find(
              (m) => m.channel === 'email' && m.recipient === 'ann@example.com',
            );
            if (!mail) throw new Error('no invitation yet');
            return mail.subject!;
          },
          { timeout: 10_000 },
        );
        expect(subject.startsWith(w.subject('Léa'))).toBe(true);
        expect(subject).not.toContain('leader@example.com');

        // The friend's page: invited by Léa; then paid, it says so.
        const [pledge] = await listPledges(app.services.db, a.accountId, p.id);
        await page.goto(`${app.base}/pledge/plg_${pledge!.id}?lang=${lang}`);
        await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(w.invites('Léa'));
        await expect(page.locator('body').textContent()).resolves.not.toContain('leader@example.com');
        await expectAccessible(page);
        await fillCard(page, lang, '4242 4242 4242 4242', 'Ann Smith');
        await page.getByRole('button', { name: lang === 'fr' ? /^Payer / : /^Pay / }).click();
        await page.waitForLoadState('load');
        await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(w.chippedIn('Léa'));
        await expectAccessible(page);
      } finally {
        await page.close();
      }
    });

    it(`${lang}: after a failed 3-D Secure the friend's page keeps the cardholder name the friend typed, not the name the leader gave`, async ({ expect }) => {
      const { pledgeUrl } = await potWithFriend(lang);
      const page = await open(pledgeUrl, lang);
      try {
        await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(w.invites('Léa Martin'));
        await fillCard(page, lang, '4000 0000 0000 3220', 'Ann Smith');
        await page.getByRole('button', { name: lang === 'fr' ? /^Payer / : /^Pay / }).click();
        await page.getByRole('button', { name: w.fail }).click();
        await page.waitForURL(/\/pledge\/plg_[^/]+\/return/);
        await expect(page.getByRole('alert').first().textContent()).resolves.toContain(t.errors.authentication_failed);
        await expect(page.getByLabel(w.holder).inputValue()).resolves.toBe('Ann Smith');
        await expectAccessible(page);
      } finally {
        await page.close();
      }
    });

    it(`${lang}: the Amex test card (no 3-D Secure) is refused with its reason and a pointer to another card, no retry offered`, async ({ expect }) => {
      const { pledgeUrl } = await potWithFriend(lang);
      const page = await open(pledgeUrl, lang);
      try {
        await fillCard(page, lang, '3782 822463 10005', 'Ann Smith');
        await page.getByRole('button', { name: lang === 'fr' ? /^Payer / : /^Pay / }).click();
        await page.waitForLoadState('load');
        const alert = (await page.getByRole('alert').first().textContent())!;
        expect(alert).toContain(t.errors.authentication_unsupported);
        expect(alert).toContain('3-D Secure');
        expect(alert).not.toMatch(w.retry);
        expect(alert).not.toContain(t.errors.authentication_failed);
        await expect(page.getByLabel(w.holder).inputValue()).resolves.toBe('Ann Smith');
        await expectAccessible(page);
      } finally {
        await page.close();
      }
    });
  }

  it('fr: the result page says what the deadline takes with a referent ("ce qui manque"), and the demo shop says « bac à sable », not "Sandbox"', async ({ expect }) => {
    const { id } = await potWithFriend('fr');
    const page = await open(`${app.base}/pay/pur_${id}`, 'fr');
    try {
      const explain = (await page.getByRole('region', { name: 'Votre paiement' }).locator('p').first().textContent())!;
      expect(explain).toMatch(/^Si vos amis n’ont pas tous payé leur part d’ici le .+, ce qui manque \(100,00\s€ à ce jour\) sera débité sur votre carte/);
      expect(explain).not.toContain('ne l’ont pas réglé');
      await expectAccessible(page);
      await page.goto(`${app.base}/sandbox/demo-shop?lang=fr`);
      const text = (await page.locator('body').textContent())!;
      expect(text).toContain('Bac à sable Chipin');
      expect(text).not.toMatch(/Sandbox Chipin|sandbox Chipin/);
      await expect(page.title()).resolves.toBe('Boutique de démonstration · bac à sable Chipin');
      await expectAccessible(page);
    } finally {
      await page.close();
    }
  });
});
