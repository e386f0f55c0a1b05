import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lang } from '../../src/i18n/lang.ts';
import type { TestApp } from '../helpers/app.ts';
import { axeViolations, isBlocking } from '../helpers/axe-run.ts';
import { hasBrowser, launchBrowser, startServedApp } from '../helpers/browser.ts';
import { LOCALES, TOUR, VIEWPORTS, type Size } from '../helpers/page-tour.ts';
import { seedTourShop, type TourShop } from '../helpers/tour-shop.ts';

/**
 * Every hosted and back-office page of the screenshot tour (test/helpers/page-tour.ts, `npm run
 * screenshots`) answers its status and has no serious or critical axe-core violation. Two of the
 * four variants the screenshots take, so that every page is checked at both widths and in both
 * languages within CI's time (docs/testing.md#the-page-tour).
 */
let app: TestApp & { base: string };
let browser: Browser;
let shop: TourShop;

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  shop = await seedTourShop(app, app.base, 3);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await app?.close();
});

// One test per stop, in the tour's order on one window per variant (a stop may rely on the one
// before it, such as the back office's sign-in): each stop has the whole hang guard to itself and a
// failure names its page.
for (const [size, lang] of [
  ['desktop', 'en'],
  ['phone', 'fr'],
] as [Size, Lang][]) {
  describe.skipIf(!hasBrowser)(`the page tour through axe-core, ${size}, ${lang}`, () => {
    let context: BrowserContext;
    let page: Page;
    beforeAll(async () => {
      context = await browser.newContext({ viewport: VIEWPORTS[size], locale: LOCALES[lang] });
      page = await context.newPage();
    });
    afterAll(async () => {
      await context?.close();
    });

    for (const stop of TOUR) {
      it(`${stop.name}: its status and nothing serious`, async () => {
        const status = await stop.go(page, shop, lang);
        const problems = (await axeViolations(page)).filter(isBlocking).map((v) => `${v.impact} ${v.id} (${v.help}) on ${JSON.stringify(v.nodes)}`);
        expect({ status, problems }).toEqual({ status: stop.status ?? 200, problems: [] });
      });
    }
  });
}
