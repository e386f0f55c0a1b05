import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, PHONE, startServedApp } from '../helpers/browser.ts';

/**
 * The fallback after a risk refusal, in Chromium, in French (docs/risk.md#the-fallback): a 4x
 * offer refusing prepaid cards falls back on the pot offer; the leader's prepaid card is refused
 * with the non-accusing message and a "Payer … maintenant" button; the button moves the purchase
 * to the pot offer, whose checkout takes a credit card. The refused attempt authorised and held
 * nothing at the sandbox PSP; the refusal page passes axe.
 */

let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  a = await caller(app, 'Atelier Lumière');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function fillCard(p: Page, number: string) {
  await p.getByLabel('Nom du titulaire').fill('Léa Martin');
  await p.getByLabel('Numéro de carte').fill(number);
  await p.getByLabel('Date d’expiration').fill('12/30');
  await p.getByLabel('Cryptogramme (CVC)').fill('123');
}

describe.skipIf(!hasBrowser)('the fallback after a risk refusal, in French, in Chromium', () => {
  it('a prepaid card refused for 4x is offered to pay in full now, and the pot offer takes a credit card', async () => {
    const four = a.offer('INSTALLMENTS', 4);
    const rules = await app.server.inject({
      method: 'PUT',
      url: `/api/backoffice/risk_rules/offers/${four}`,
      headers: { authorization: a.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ refuse_prepaid_cards: true, fallback_offers: [a.offer('SHARED')] }),
    });
    expect(rules.statusCode, rules.body).toBe(200);
    const created = await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: four, language: 'fr_FR', title: 'Lampe Arco' }));
    expect(created.statusCode).toBe(201);
    const p = created.json() as { id: string; payment_url: string };

    const page = await browser.newPage({ viewport: PHONE, locale: 'fr-FR' });
    try {
      await page.goto(p.payment_url);
      await fillCard(page, '5105 1051 0510 5100');
      await page.locator('#pay-button').click();
      const message = page.locator('#form-error');
      await expect.poll(() => message.textContent()).toContain('Ce mode de paiement n’est pas disponible pour cet achat avec cette carte. Rien n’a été débité.');
      // The error summary takes the focus, so that a screen reader reads it first.
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('error-summary');
      const fallback = page.getByRole('button', { name: /^Payer 300,00\s€ maintenant$/ });
      expect(await fallback.isVisible()).toBe(true);
      await expectAccessible(page, 'checkout refused by the risk rules, with a fallback');

      // Nothing authorised or held at the PSP for the refused card: only its tokenisation.
      const sandbox = async (last4: string) =>
        (
          await app.services.db.query<{ n: number; cents: string | null }>(
            `SELECT count(t.id)::int AS n, sum(t.captured_cents)::text AS cents FROM sandbox_psp_payment_methods m
             LEFT JOIN sandbox_psp_transactions t ON t.payment_method_id = m.id WHERE m.last4 = $1`,
            [last4],
          )
        ).rows[0]!;
      expect(await sandbox('5100')).toEqual({ n: 0, cents: null });

      await fallback.click();
      await expect.poll(() => page.url()).toBe(p.payment_url);
      // The pot offer's checkout: no refusal, the friends' editor, the whole amount payable now.
      await expect.poll(() => page.locator('#friends').count()).toBe(1);
      expect(await page.locator('#error-summary').count()).toBe(0);
      await fillCard(page, '4242 4242 4242 4242');
      await page.locator('#pay-button').click();
      await expect.poll(async () => (await a.get(`/api/merchants/v1/purchases/${p.id}`)).json().state, { timeout: 15_000 }).toBe('SUCCESSFUL');
      expect(await sandbox('4242')).toEqual({ n: 1, cents: '30000' });
      expect(await sandbox('5100')).toEqual({ n: 0, cents: null });
    } finally {
      await page.close();
    }
  });
});
