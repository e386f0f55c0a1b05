import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noticeEmail } from '../../src/messaging/notice-templates.ts';
import { pledgeEmail, purchaseLinkEmail } from '../../src/messaging/templates.ts';
import { expectAccessible } from '../helpers/axe.ts';
import { hasBrowser, launchBrowser } from '../helpers/browser.ts';
import { DEFERRED_30, INSTALLMENTS_3X, link, notices } from '../messaging/shopper-fixtures.ts';

/**
 * axe-core on the HTML part of every shopper e-mail (purchase links by offer, pledge invitation
 * and reminder, refund, receipts and notices), rendered in Chromium, in French and English, at a
 * phone's and a desktop's width: no serious or critical violation.
 * */

const WIDTHS = [
  { name: 'phone', width: 375, height: 812 },
  { name: 'desktop', width: 1280, height: 800 },
];

function emails(language: string): { name: string; html: string }[] {
  const pledge = {
    ...link(language),
    kind: 'invitation' as const,
    inviterName: 'Alice <Martin>',
    shareCents: 2_500,
    deadline: new Date('2026-08-03T12:00:00Z'),
    pledgerName: 'Bob',
  };
  return [
    { name: 'link (pot)', html: purchaseLinkEmail(link(language, { type: 'SHARED' })).html },
    { name: 'link (3x)', html: purchaseLinkEmail(link(language, INSTALLMENTS_3X)).html },
    { name: 'link (deferred)', html: purchaseLinkEmail(link(language, DEFERRED_30)).html },
    { name: 'pledge invitation', html: pledgeEmail(pledge).html },
    { name: 'pledge reminder', html: pledgeEmail({ ...pledge, kind: 'reminder' }).html },
    ...notices(language).map((n, i) => ({ name: `${n.kind} #${i}`, html: noticeEmail(n).html })),
  ];
}

let browser: Browser;
beforeAll(async () => {
  if (hasBrowser) browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!hasBrowser)('shopper e-mails pass axe-core (no serious or critical violation)', () => {
  for (const language of ['fr_FR', 'en_GB']) {
    for (const size of WIDTHS) {
      it(`${language}, ${size.name} (${size.width}px)`, async () => {
        const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
        try {
          const overflows: string[] = [];
          for (const mail of emails(language)) {
            await page.setContent(mail.html, { waitUntil: 'load' });
            await expectAccessible(page, `${language} ${size.name}: ${mail.name}`);
            // Nothing scrolls sideways on a phone.
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
            if (overflow > 0) overflows.push(`${mail.name}: ${overflow}px of horizontal scrolling`);
          }
          expect(overflows).toEqual([]);
        } finally {
          await page.close();
        }
      });
    }
  }
});
