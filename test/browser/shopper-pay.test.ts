import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopperSessions } from '../../src/http/routes/shopper-space/guard.ts';
import { scheduledInstallments } from '../../src/payments/installment-repository.ts';
import { collectInstallment } from '../../src/use-cases/installments/collect-installment.ts';
import { caller, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser, PHONE, startServedApp } from '../helpers/browser.ts';

/**
 * Paying from the shopper's space in Chromium (docs/shopper-space.md#paying-from-the-space), on a
 * phone in French and a desktop in English: a refused installment paid now, the rest repaid early,
 * the card changed; each checked at the sandbox PSP (the amount, charged once, customer-initiated;
 * the card change a hold voided, the next collection merchant-initiated on the new card).
 */
const DESKTOP = { width: 1280, height: 900 };
const REFUSES_OFF_SESSION = '4000000000000341';
let app: TestApp & { base: string };
let browser: Browser;
let shop: Caller;

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  shop = await caller(app);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** A 3x plan of 300.00 of `email`'s, paid at checkout with `card`. */
async function plan(email: string, card: string, language: string): Promise<{ id: string; toCollect: string[] }> {
  const res = await shop.post('/api/merchants/v1/purchases', { title: 'Reading lamp', amount: 30_000, merchant_uid: shop.offer('INSTALLMENTS', 3), client: { email }, language });
  const id = res.json().id as string;
  expect((await shop.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: card })).statusCode).toBe(200);
  return { id, toCollect: (await scheduledInstallments(app.services.db, shop.accountId, id)).map((i) => i.id) };
}

/** A page of this shopper's, signed in (the session made as the sign-in makes it). */
async function spacePage(email: string, viewport: { width: number; height: number }): Promise<Page> {
  const { token } = await shopperSessions(app.services).create({ kind: 'email', value: email });
  const context = await browser.newContext({ viewport });
  await context.addCookies([{ name: 'chipin_space', value: token, url: `${app.base}/space` }]);
  return context.newPage();
}

/** The sandbox PSP's transactions of the purchase, oldest first. */
/** On a purchase's page of the space: opens the card change and gives it the test card that goes through. */
async function submitNewCard(page: Page, t: { change: string; use: string }): Promise<void> {
  await page.getByText(t.change).click();
  await page.locator('#holder_name').fill('Ann Leroy');
  await page.locator('#card_number').fill('4242 4242 4242 4242');
  await page.locator('#card_expiry').fill('12/39');
  await page.locator('#card_cvc').fill('123');
  await page.getByRole('button', { name: t.use }).click();
}

async function atPsp(purchaseId: string) {
  const { rows } = await app.services.db.query<{ off_session: boolean; capture_mode: string; status: string; captured_cents: number; payment_method_id: string }>(
    `SELECT off_session, capture_mode, status, captured_cents::int, payment_method_id FROM sandbox_psp_transactions
     WHERE id IN (SELECT psp_transaction_id FROM payments WHERE purchase_id = $1) ORDER BY created_at, id`,
    [purchaseId],
  );
  return rows;
}

const TEXT = {
  fr: {
    payNow: /Payer l’échéance 2 maintenant/,
    paid: 'Paiement effectué. Merci.',
    repay: /Rembourser le reste maintenant/,
    repaid: 'Le reste est remboursé',
    change: 'Changer la carte des prochains paiements',
    use: 'Utiliser cette carte désormais',
    changed: 'Votre nouvelle carte sera débitée désormais.',
  },
  en: {
    payNow: /Pay installment 2 now/,
    paid: 'Paid. Thank you.',
    repay: /Repay the rest now/,
    repaid: 'The rest is repaid',
    change: 'Change the card for the next payments',
    use: 'Use this card from now on',
    changed: 'Your new card will be charged from now on.',
  },
} as const;

describe.each([
  ['phone', 'fr', PHONE, 'fr_FR'],
  ['desktop', 'en', DESKTOP, 'en_GB'],
] as const)('paying from the space on a %s, in %s', (device, lang, viewport, language) => {
  const t = TEXT[lang];

  it.skipIf(!hasBrowser)('pays a refused installment now: charged once, with the shopper present', async () => {
    const email = `pay-${device}@example.com`;
    const { id, toCollect } = await plan(email, REFUSES_OFF_SESSION, language);
    expect(await collectInstallment(app.services.payments, shop.accountId, toCollect[0]!, 0)).toBe('retry_scheduled');
    const page = await spacePage(email, viewport);
    await page.goto(`${app.base}/space/purchases/pur_${id}?lang=${lang}`);
    await page.getByRole('button', { name: t.payNow }).click();
    await expect.poll(() => page.locator('#pay-result').textContent()).toContain(t.paid);
    const charged = (await atPsp(id)).slice(1);
    expect(charged.map((x) => [x.off_session, x.status, x.captured_cents])).toEqual([
      [true, 'failed', 0],
      [false, 'settled', 10_000],
    ]);
    await page.context().close();
  });

  it.skipIf(!hasBrowser)('repays the rest early: the principal once, and the purchase is paid', async () => {
    const email = `repay-${device}@example.com`;
    const { id } = await plan(email, '4242424242424242', language);
    const page = await spacePage(email, viewport);
    await page.goto(`${app.base}/space/purchases/pur_${id}?lang=${lang}`);
    await page.getByRole('button', { name: t.repay }).click();
    await expect.poll(() => page.locator('#pay-result').textContent()).toContain(t.repaid);
    expect((await atPsp(id)).slice(1).map((x) => [x.off_session, x.captured_cents])).toEqual([[false, 20_000]]);
    expect((await shop.get(`/api/merchants/v1/purchases/${id}`)).json().state).toBe('SUCCESSFUL');
    await page.context().close();
  });

  it.skipIf(!hasBrowser)('changes the card: a hold voided on the new card, the next installment charged to it merchant-initiated', async () => {
    const email = `card-${device}@example.com`;
    const { id, toCollect } = await plan(email, REFUSES_OFF_SESSION, language);
    const page = await spacePage(email, viewport);
    await page.goto(`${app.base}/space/purchases/pur_${id}?lang=${lang}`);
    await submitNewCard(page, t);
    await expect.poll(() => page.locator('#pay-result').textContent()).toContain(t.changed);
    expect(await collectInstallment(app.services.payments, shop.accountId, toCollect[0]!, 0)).toBe('paid');
    const [, check, mit] = await atPsp(id);
    expect(check).toMatchObject({ off_session: false, capture_mode: 'manual', status: 'cancelled', captured_cents: 0 });
    expect(mit).toMatchObject({ off_session: true, status: 'settled', captured_cents: 10_000, payment_method_id: check!.payment_method_id });
    await page.context().close();
  });
});

describe.each(['en', 'fr'] as const)('what an action did, on a phone (%s)', (lang) => {
  const t = TEXT[lang];
  const CARD_LINE = { en: 'Charged to your Visa card ending 4242.', fr: 'Débité sur votre carte Visa se terminant par 4242.' }[lang];

  /** The confirmation has the focus and is in the screen, as the shopper lands back on the page. */
  async function focusedInView(page: Page, text: string) {
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('pay-result');
    await expect(page.locator('#pay-result').textContent()).resolves.toContain(text);
    // The box is measured from the top of the window, as scrolled: in view.
    const box = (await page.locator('#pay-result').boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height);
  }

  it.skipIf(!hasBrowser)('after "pay now" and after a card change the confirmation is focused and in the first screen, and the card named is the new one', async () => {
    const email = `focus-${lang}@example.com`;
    const { id, toCollect } = await plan(email, REFUSES_OFF_SESSION, lang === 'fr' ? 'fr_FR' : 'en_GB');
    expect(await collectInstallment(app.services.payments, shop.accountId, toCollect[0]!, 0)).toBe('retry_scheduled');
    const page = await spacePage(email, PHONE);
    await page.goto(`${app.base}/space/purchases/pur_${id}?lang=${lang}`);
    await page.getByRole('button', { name: t.payNow }).click();
    await focusedInView(page, t.paid);
    await expectAccessible(page, `paid ${lang}`);

    await page.goto(`${app.base}/space/purchases/pur_${id}?lang=${lang}`);
    await submitNewCard(page, t);
    await focusedInView(page, t.changed);
    // The card the rest is charged to now: the new one, not the checkout's (0341).
    await expect(page.locator('#card').textContent()).resolves.toBe(CARD_LINE);
    await expectAccessible(page, `card changed ${lang}`);
    await page.context().close();
  });
});
