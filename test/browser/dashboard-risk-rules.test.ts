import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, signedInPage, startServedApp } from '../helpers/browser.ts';

/**
 * Editing an offer's risk rules on its back-office page, in French, in Chromium
 * (docs/risk.md#editing-the-rules): a refused value is named beside its input and nothing is
 * saved; once corrected the rule is saved, shown as the offer's own, and the eligibility call
 * applies it at once. The page passes axe with the refusal shown and after saving, as does the
 * account's Risk rules page it links to.
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

const eligibility = async (uid: string, amount: number) => {
  const res = await a.post('/api/merchants/v1/eligibility', { amount, offers: [uid], created: '2026-01-31' });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { offers: { eligible: boolean; reasons: { code: string }[] }[] }).offers[0]!;
};

describe.skipIf(!hasBrowser)("an offer's risk rules edited on its page, in French, in Chromium", () => {
  it('refuses a bad value beside its input, then saves the rule, which the eligibility call applies at once', async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    expect((await eligibility(uid, 20_000)).eligible).toBe(true);
    const page = await signedInPage(browser, app.base, a.merchant);
    try {
      await page.goto(`${app.base}/dashboard/offers/${uid}?lang=fr`);
      // The form is folded under its heading until opened (docs/back-office.md#risk-rules).
      const form = page.getByRole('button', { name: 'Enregistrer les règles de cette offre' });
      expect(await form.isVisible()).toBe(false);
      await page.getByText('Modifier les règles de cette offre').click();
      await expect.poll(() => form.isVisible()).toBe(true);
      const largest = page.getByRole('group', { name: /Montant maximal/ });
      // A rule's value box shows once "Set" is chosen, not before; no code name beside the rule.
      expect(await largest.getByLabel('Valeur (EUR)').isVisible()).toBe(false);
      expect(await largest.locator('legend').textContent()).not.toMatch(/_cents|max_/);
      await largest.getByLabel('Fixer une valeur').check();
      expect(await largest.getByLabel('Valeur (EUR)').isVisible()).toBe(true);
      await largest.getByLabel('Valeur (EUR)').fill('150,00');
      const perDay = page.getByRole('group', { name: /Plans par client en un jour/ });
      await perDay.getByLabel('Fixer une valeur').check();
      await perDay.getByLabel('Valeur', { exact: true }).fill('0');
      await page.getByRole('button', { name: 'Enregistrer les règles de cette offre' }).click();

      // Refused: named beside the input (its description), what was typed kept, nothing saved;
      // the form comes back open on the refusal.
      const refused = page.getByRole('group', { name: /Plans par client en un jour/ }).getByLabel('Valeur', { exact: true });
      await expect.poll(() => refused.getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#error-max_plans_per_day').textContent()).toBe('Plans par client en un jour\u00a0: doit être un nombre entier entre 1 et 1000');
      expect(
        await page
          .getByRole('group', { name: /Montant maximal/ })
          .getByLabel('Valeur (EUR)')
          .inputValue(),
      ).toBe('150,00');
      await expectAccessible(page, 'offer page, risk rule refused');
      expect((await eligibility(uid, 20_000)).eligible).toBe(true);

      await refused.fill('2');
      await page.getByRole('button', { name: 'Enregistrer les règles de cette offre' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Les règles de risque de cette offre ont été enregistrées.');
      const row = page.getByRole('row', { name: /Montant maximal/ });
      expect(await row.textContent()).toMatch(/150,00\u00a0€.*cette offre/);
      await expectAccessible(page, 'offer page, risk rules saved');
      // The account's defaults: the same form, reached from the offer's (folded again after a save).
      await page.getByText('Modifier les règles de cette offre').click();
      await page.getByRole('link', { name: 'Les valeurs par défaut du compte' }).click();
      await expect.poll(() => page.title()).toBe('Règles de risque · Back-office Chipin');
      await expectAccessible(page, 'Risk rules page');
    } finally {
      await page.close();
    }
    const answer = await eligibility(uid, 20_000);
    expect(answer.eligible).toBe(false);
    expect(answer.reasons.map((r) => r.code)).toContain('AMOUNT_TOO_HIGH');
    expect((await eligibility(uid, 10_000)).eligible).toBe(true);
  });
});
