import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lang } from '../../src/i18n/lang.ts';
import type { TestApp } from './app.ts';
import { axeViolations, isBlocking } from './axe-run.ts';
import { hasBrowser, launchBrowser, startServedApp } from './browser.ts';
import { LOCALES, stopLangs, TOUR, VIEWPORTS, type Size } from './page-tour.ts';
import { seedTourShop, type TourShop } from './tour-shop.ts';

/**
 * Every hosted and back-office page of the screenshot tour (./page-tour.ts, `npm run screenshots`)
 * in one of its variants: it answers its status and has no serious or critical axe-core violation.
 * One file per variant (test/browser/page-tour-*.test.ts), each with its app and shop, so the two
 * run side by side and each stays within the per-file budget (docs/testing.md#the-page-tour).
 *
 * One test per stop, in the tour's order on one window (a stop may rely on the one before it, such
 * as the back office's sign-in): each stop has the whole hang guard to itself and a failure names
 * its page. `alsoIn`: languages whose pages (the hosted pages, which speak six) are walked after,
 * each in a window of its own locale, so that every language is walked by one of the files.
 */
export function walkPageTour(size: Size, lang: Lang, alsoIn: readonly Lang[] = []): void {
  let app: TestApp & { base: string };
  let browser: Browser;
  let shop: TourShop;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    if (!hasBrowser) return;
    [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
    shop = await seedTourShop(app, app.base, 3);
    context = await browser.newContext({ viewport: VIEWPORTS[size], locale: LOCALES[lang] });
    page = await context.newPage();
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await shop?.close();
    await app?.close();
  });

  describe.skipIf(!hasBrowser)(`the page tour through axe-core, ${size}, ${lang}`, () => {
    for (const stop of TOUR.filter((s) => stopLangs(s).includes(lang))) {
      it(`${stop.name}: its status and nothing serious`, async () => {
        const status = await stop.go(page, shop, lang);
        const problems = (await axeViolations(page)).filter(isBlocking).map((v) => `${v.impact} ${v.id} (${v.help}) on ${JSON.stringify(v.nodes)}`);
        expect({ status, problems }).toEqual({ status: stop.status ?? 200, problems: [] });
      });
    }
  });

  for (const other of alsoIn) {
    describe.skipIf(!hasBrowser)(`the hosted pages through axe-core, ${size}, ${other}`, () => {
      let window: BrowserContext;
      let otherPage: Page;
      beforeAll(async () => {
        window = await browser.newContext({ viewport: VIEWPORTS[size], locale: LOCALES[other] });
        otherPage = await window.newPage();
      });
      afterAll(() => window?.close());
      for (const stop of TOUR.filter((s) => stopLangs(s).includes(other))) {
        it(`${stop.name}: its status, its language and nothing serious`, async () => {
          const status = await stop.go(otherPage, shop, other);
          const pageLang = await otherPage.evaluate(() => document.documentElement.lang);
          const problems = (await axeViolations(otherPage)).filter(isBlocking).map((v) => `${v.impact} ${v.id} (${v.help}) on ${JSON.stringify(v.nodes)}`);
          expect({ status, lang: pageLang.slice(0, 2), problems }).toEqual({ status: stop.status ?? 200, lang: other, problems: [] });
        });
      }
    });
  }
}
