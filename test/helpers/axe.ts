import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { axeViolations, isBlocking } from './axe-run.ts';

/**
 * Runs axe-core on the page as it is now and fails on any `serious` or `critical` violation, naming the rule and the
 * elements. For the hosted pages and the e-mails shown in Chromium alike.
 */
export async function expectAccessible(page: Page, label = page.url()): Promise<void> {
  const blocking = (await axeViolations(page)).filter(isBlocking);
  expect(blocking, `${label}: ${JSON.stringify(blocking, null, 1)}`).toEqual([]);
}
