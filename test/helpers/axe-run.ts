import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let source: string | undefined;

/** One rule axe-core found broken on a page, with the elements that break it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: unknown[][];
}

/** The violations that fail a page: `serious` and `critical` (docs/testing.md). */
export const isBlocking = (v: AxeViolation): boolean => v.impact === 'serious' || v.impact === 'critical';

/**
 * Runs axe-core on the page as it is now and answers every violation it finds. Without vitest, so
 * the screenshot script (scripts/screenshots.ts) and the tests (./axe.ts) share it.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // `page.addScriptTag({ path })` injects an inline <script>, which our pages' CSP
  // (`script-src 'self'`) refuses; evaluating the source through the DevTools protocol is not
  // subject to the page's CSP, and needs no `bypassCSP` that would hide a CSP fault.
  if (!(await page.evaluate(() => 'axe' in window))) {
    source ??= readFileSync(AXE, 'utf8');
    await page.evaluate(source);
  }
  return page.evaluate(async () => {
    type Found = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: Found[] }> } }).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target) }));
  });
}
