import type { Browser } from 'playwright-core';
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

describe.skipIf(!hasBrowser)('the page tour through axe-core', () => {
  for (const [size, lang] of [
    ['desktop', 'en'],
    ['phone', 'fr'],
  ] as [Size, Lang][]) {
    it(`every page, ${size}, ${lang}: its status and nothing serious`, async () => {
      const context = await browser.newContext({ viewport: VIEWPORTS[size], locale: LOCALES[lang] });
      const page = await context.newPage();
      const problems: string[] = [];
      try {
        for (const stop of TOUR) {
          const status = await stop.go(page, shop, lang);
          if (status !== (stop.status ?? 200)) problems.push(`${stop.name}: answered ${status}`);
          for (const v of (await axeViolations(page)).filter(isBlocking)) problems.push(`${stop.name}: ${v.impact} ${v.id} (${v.help}) on ${JSON.stringify(v.nodes)}`);
        }
      } finally {
        await context.close();
      }
      expect(problems).toEqual([]);
    });
  }
});
