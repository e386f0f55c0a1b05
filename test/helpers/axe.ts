import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let source: string | undefined;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core on the page as it is now and fails on any `serious` or `critical` violation, naming the rule and the
 * elements. For the hosted pages and the e-mails shown in Chromium alike.
 */
export async function expectAccessible(page: Page, label = page.url()): Promise<void> {
  // `page.addScriptTag({ path })` injects an inline <script>, which our pages' CSP
  // (`script-src 'self'`) refuses; evaluating the source through the DevTools protocol is not
  // subject to the page's CSP, and needs no `bypassCSP` that would hide a CSP fault.
  if (!(await page.evaluate(() => 'axe' in window))) {
    source ??= readFileSync(AXE, 'utf8');
    await page.evaluate(source);
  }
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target) }));
  });
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(blocking, `${label}: ${JSON.stringify(blocking, null, 1)}`).toEqual([]);
}
