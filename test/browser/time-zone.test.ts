import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '../../src/i18n/format.ts';
import { loadPayState } from '../../src/payments/pay-state-repository.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, signedInPage, startServedApp } from '../helpers/browser.ts';

/**
 * The account's time zone (docs/back-office.md#time-zone) in real Chromium, by labels and roles:
 * an admin sets it in the back office's settings, and the shopper's hosted page then states the
 * pot's deadline in it.
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

describe.skipIf(!hasBrowser)('times carry the account zone (Chromium)', () => {
  it('an admin sets São Paulo time in Settings; a refused name is said on the field; the pledge page states the deadline in UTC-3', async () => {
    const staff = await signedInPage(browser, app.base, a.merchant);
    try {
      await staff.getByRole('link', { name: 'Settings' }).click();
      const zone = staff.getByLabel('Time zone');
      await expect.poll(() => zone.inputValue()).toBe('Europe/Paris');
      await expectAccessible(staff, 'settings');

      await zone.fill('Sao Paulo');
      await staff.getByRole('button', { name: 'Save the settings' }).click();
      await expect.poll(() => staff.getByRole('alert').textContent()).toBe('Time zone: "Sao Paulo" is not a time zone name such as Europe/Paris. Nothing was changed.');
      await expect.poll(() => staff.getByLabel('Time zone').getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(staff, 'settings refused');

      await staff.getByLabel('Time zone').fill('America/Sao_Paulo');
      await staff.getByRole('button', { name: 'Save the settings' }).click();
      await expect.poll(() => staff.getByRole('status').textContent()).toBe('Settings saved.');
      await expect.poll(() => staff.getByLabel('Time zone').inputValue()).toBe('America/Sao_Paulo');
      expect(await staff.getByText(/^Every date and time is shown in this zone/).textContent()).toMatch(/Now in this zone: .+ \(UTC-3\)\./);
    } finally {
      await staff.close();
    }

    const created = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }));
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const paid = await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242', pledgers: [{ email: 'ana@example.com', amount_cents: 4_000 }] });
    expect(paid.statusCode, paid.body).toBe(200);
    const deadline = formatDateTime((await loadPayState(app.services.db, a.accountId, id))!.potDeadlineAt!, 'en', 'America/Sao_Paulo');
    expect(deadline).toMatch(/ \(UTC-3\)$/);

    const shopper = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'en-GB' });
    try {
      await shopper.goto((paid.json() as { pledges: { url: string }[] }).pledges[0]!.url.replace(/^https?:\/\/[^/]+/, app.base));
      await expect.poll(() => shopper.getByText(deadline, { exact: false }).count()).toBeGreaterThan(0);
      await expectAccessible(shopper, 'pledge page');
    } finally {
      await shopper.close();
    }
  });
});
