import type { Page } from 'playwright-core';
import { EN_FR, LANGS, LOCALE, type Lang } from '../../src/i18n/lang.ts';
import type { TourShop } from './tour-shop.ts';

/**
 * Every page a shopper or a merchant's staff can see, in the order one browser window visits them
 * (docs/testing.md#the-page-tour): the hosted pages first, then the shopper's space (signed in by
 * the sandbox inbox's link), then the back office (signed in by its form). `go` leaves the page
 * loaded and answers its HTTP status. Used by `npm run screenshots` (scripts/screenshots.ts) and by
 * test/helpers/page-tour-walk.ts (test/browser/page-tour-*.test.ts).
 */
export interface TourStop {
  /** The screenshot's name: `docs/screenshots/<name>-<phone|desktop>-<lang>.png`. */
  name: string;
  /** The languages the page is taken in: the hosted pages' six; English and French when left out (the areas that speak those two). */
  langs?: readonly Lang[];
  /** The status the page answers on purpose (200 unless an error page). */
  status?: number;
  go(page: Page, shop: TourShop, lang: Lang): Promise<number>;
}

export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;
export type Size = keyof typeof VIEWPORTS;
/**
 * The browser's locale: its Accept-Language decides the language of the pages the tour opens
 * fresh. A purchase or pledge the walks of several languages share keeps the language its shopper
 * last used before the browser's (docs/hosted-payment.md#language), so those are opened with the
 * shopper's pick in the address (`?lang=`, {@link inLang}).
 */
export const LOCALES: Readonly<Record<Lang, string>> = LOCALE;

/** The languages a stop is taken in. */
export function stopLangs(stop: TourStop): readonly Lang[] {
  return stop.langs ?? EN_FR;
}

async function open(page: Page, url: string): Promise<number> {
  const res = await page.goto(url);
  await page.waitForLoadState('load');
  return res?.status() ?? 0;
}

/** `url` with the shopper's pick of language, as the page's switcher links it. */
const inLang = (url: string, lang: Lang) => `${url}${url.includes('?') ? '&' : '?'}lang=${lang}`;

const at = (path: string) => (page: Page, shop: TourShop) => open(page, `${shop.base}${path}`);
const pay = (id: (shop: TourShop) => string) => (page: Page, shop: TourShop, lang: Lang) => open(page, inLang(`${shop.base}/pay/pur_${id(shop)}`, lang));

async function fillCard(page: Page, number: string, expiry = '12/30'): Promise<void> {
  await page.locator('#holder_name').fill('Léa Martin');
  await page.locator('#card_number').fill(number);
  await page.locator('#card_expiry').fill(expiry);
  await page.locator('#card_cvc').fill('123');
}

/** The page after a submit: the next document, or the script's message on this one. */
async function submitted(page: Page, submit: () => Promise<unknown>): Promise<number> {
  // Every stop that submits navigates: a missed navigation fails the stop rather than reading as a
  // 200 (with a 5 s bound and a fallback to 200, a loaded run's slow answer read as the wrong status).
  const [res] = await Promise.all([page.waitForNavigation({ timeout: 30_000 }), submit()]);
  await page.waitForLoadState('networkidle');
  return res?.status() ?? 200;
}

export const TOUR: readonly TourStop[] = [
  // Hosted payment pages (docs/hosted-payment.md).
  { name: 'pay-shared', langs: LANGS, go: (page, shop, lang) => open(page, inLang(shop.unpaid.shared, lang)) },
  { name: 'pay-installments', langs: LANGS, go: (page, shop, lang) => open(page, inLang(shop.unpaid.installments, lang)) },
  { name: 'pay-deferred', langs: LANGS, go: (page, shop, lang) => open(page, inLang(shop.unpaid.deferred, lang)) },
  { name: 'pay-down-payment', langs: LANGS, go: (page, shop, lang) => open(page, inLang(shop.unpaid.downPayment, lang)) },
  {
    // The server's answer to a refused form, as a browser without the script gets it.
    name: 'pay-form-error',
    langs: LANGS,
    status: 422,
    async go(page, shop) {
      await open(page, (await shop.fresh(shop.a.offer('INSTALLMENTS', 3))).payment_url);
      await fillCard(page, '4242 4242 4242 4242', '13/30');
      return submitted(page, () => page.evaluate(() => (document.getElementById('checkout') as HTMLFormElement).submit()));
    },
  },
  {
    name: 'pay-declined',
    langs: LANGS,
    status: 402,
    async go(page, shop) {
      await open(page, (await shop.fresh(shop.a.offer('INSTALLMENTS', 3))).payment_url);
      await fillCard(page, '4000 0000 0000 0002');
      return submitted(page, () => page.locator('#pay-button').click());
    },
  },
  {
    // A prepaid card the 4x offer's risk rules refuse, and the offer to pay in full instead (docs/risk.md).
    name: 'pay-risk-fallback',
    langs: LANGS,
    async go(page, shop) {
      await open(page, (await shop.fresh(shop.a.offer('INSTALLMENTS', 4))).payment_url);
      await fillCard(page, '5105 1051 0510 5100');
      await page.locator('#pay-button').click();
      await page.locator('#form-error:not(:empty)').waitFor();
      return 200;
    },
  },
  {
    name: 'challenge',
    langs: LANGS,
    async go(page, shop) {
      const { id } = await shop.fresh();
      const res = await shop.a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4000 0000 0000 3220' });
      if (res.statusCode !== 202) throw new Error(`no challenge: ${res.statusCode} ${res.body}`);
      return open(page, res.json().challenge_url as string);
    },
  },
  { name: 'pay-pot-in-progress', langs: LANGS, go: pay((s) => s.potInProgress) },
  { name: 'pay-pot-paid', langs: LANGS, go: pay((s) => s.potPaid) },
  { name: 'pay-plan-paid', langs: LANGS, go: pay((s) => s.plan) },
  { name: 'pledge', langs: LANGS, go: (page, shop, lang) => open(page, inLang(`${shop.base}/pledge/plg_${shop.pledgeOpen}`, lang)) },
  { name: 'pledge-paid', langs: LANGS, go: (page, shop, lang) => open(page, inLang(`${shop.base}/pledge/plg_${shop.pledgePaid}`, lang)) },
  { name: 'pay-not-found', langs: LANGS, status: 404, go: at('/pay/pur_00000000-0000-4000-8000-000000000000') },
  { name: 'direct-call-refused', langs: LANGS, status: 400, go: at('/purchase') },
  { name: 'sandbox-demo-shop', go: at('/sandbox/demo-shop') },

  // The shopper's space (docs/shopper-space.md).
  { name: 'space-sign-in', go: at('/space/sign-in') },
  {
    name: 'space-sign-in-sent',
    async go(page, shop) {
      await open(page, `${shop.base}/space/sign-in`);
      await page.locator('#identity').fill(shop.shopper);
      return submitted(page, () => page.locator('#identity').press('Enter'));
    },
  },
  { name: 'space-sign-in-code', go: at('/space/sign-in/code') },
  { name: 'space-link-invalid', status: 410, go: at(`/space/sign-in/link/${'x'.repeat(43)}`) },
  {
    name: 'space-list',
    async go(page, shop) {
      const { messages } = (await shop.a.get('/api/sandbox/messages?limit=20')).json() as { messages: { body: string; recipient: string }[] };
      const link = messages.map((m) => /https?:\/\/\S+\/space\/sign-in\/link\/[A-Za-z0-9_-]{43}/.exec(m.body)?.[0]).find(Boolean);
      if (!link) throw new Error('no sign-in link in the sandbox inbox');
      return open(page, link);
    },
  },
  { name: 'space-plan', go: (page, shop) => open(page, `${shop.base}/space/purchases/pur_${shop.plan}`) },
  { name: 'space-pot', go: (page, shop) => open(page, `${shop.base}/space/purchases/pur_${shop.potInProgress}`) },

  // The back office (docs/back-office.md).
  { name: 'dashboard-sign-in', go: at('/dashboard/sign-in') },
  { name: 'dashboard-invitation', go: (page, shop) => open(page, `${shop.base}/dashboard/invitation?token=${shop.invitationToken}`) },
  {
    name: 'dashboard-home',
    async go(page, shop) {
      await open(page, `${shop.base}/dashboard/sign-in`);
      await page.locator('#email').fill(shop.a.merchant.email);
      await page.locator('#password').fill(shop.a.merchant.password);
      await submitted(page, () => page.locator('#password').press('Enter'));
      return open(page, `${shop.base}/dashboard`);
    },
  },
  { name: 'dashboard-purchases', go: at('/dashboard/purchases') },
  { name: 'dashboard-purchase', go: (page, shop) => open(page, `${shop.base}/dashboard/purchases/pur_${shop.potPaid}`) },
  { name: 'dashboard-purchase-plan', go: (page, shop) => open(page, `${shop.base}/dashboard/purchases/pur_${shop.plan}`) },
  { name: 'dashboard-developers', go: at('/dashboard/developers') },
  { name: 'dashboard-delivery', go: (page, shop) => open(page, `${shop.base}/dashboard/developers/deliveries/dlv_${shop.delivery}`) },
  { name: 'dashboard-offers', go: at('/dashboard/offers') },
  { name: 'dashboard-offer', go: (page, shop) => open(page, `${shop.base}/dashboard/offers/${shop.a.offer('INSTALLMENTS', 3)}`) },
  { name: 'dashboard-risk-rules', go: at('/dashboard/settings/risk-rules') },
  { name: 'dashboard-psp-accounts', go: at('/dashboard/psp-accounts') },
  { name: 'dashboard-psp-account-new', go: at('/dashboard/psp-accounts/new?psp=stripe') },
  { name: 'dashboard-psp-account', go: (page, shop) => open(page, `${shop.base}/dashboard/psp-accounts/${shop.pspAccount ?? 'none'}`) },
  { name: 'dashboard-team', go: at('/dashboard/team') },
  { name: 'dashboard-password', go: at('/dashboard/account/password') },
  { name: 'dashboard-settings', go: at('/dashboard/settings') },
  { name: 'dashboard-reconciliation', go: at('/dashboard/reconciliation') },
  { name: 'dashboard-disputes', go: at('/dashboard/disputes') },
  { name: 'dashboard-reports', go: at('/dashboard/reports') },
  { name: 'dashboard-payouts', go: at('/dashboard/payouts') },
  { name: 'dashboard-inbox', go: at('/sandbox/inbox') },
  // The operator's pages, last: the merchant's session ends (the sign-in page sends a signed-in user
  // home), and the operator's staff member signs in.
  {
    name: 'dashboard-operator-payouts',
    async go(page, shop) {
      await page.context().clearCookies();
      await open(page, `${shop.base}/dashboard/sign-in`);
      await page.locator('#email').fill(shop.operator.email);
      await page.locator('#password').fill(shop.operator.password);
      await submitted(page, () => page.locator('#password').press('Enter'));
      return open(page, `${shop.base}/dashboard/operator/payouts`);
    },
  },
];
