import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { hasBrowser, launchBrowser, startServedApp } from '../helpers/browser.ts';

/**
 * The API reference at `/docs` (Swagger UI, src/http/api-docs-page.ts) as a developer opens it:
 * real Chromium under the policy the service sends, every console error and CSP violation
 * collected while the document loads and an operation is opened.
 */
let app: TestApp & { base: string };
let browser: Browser;

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe.runIf(hasBrowser)('API reference (/docs) in Chromium', () => {
  it("loads under the service's CSP without a console error or a violation, titled Chipin, without the framework's logo", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      const problems: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && problems.push(`console: ${m.text()}`)));
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      await page.addInitScript(() =>
        document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`)),
      );
      const res = await page.goto(`${app.base}/docs`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self';/);

      await expect(page.title()).resolves.toBe('Chipin API reference');
      // The document's own title opens the page (Swagger UI renders it once its bundle has run
      // and the document is parsed: over 20 s once in CI with both cores loaded, docs/testing.md#timeouts).
      await page.getByRole('heading', { name: /^Chipin/ }).waitFor({ timeout: 60_000 });
      // An operation opens (its schemas and examples render) under the same policy.
      await page
        .getByRole('button', { name: /POST\s*\/api\/token/ })
        .first()
        .click();
      await page.getByRole('button', { name: 'Try it out' }).first().waitFor();

      // No top bar: neither the framework's logo (an image or its inline SVG) nor its "Explore" box.
      await expect(page.locator('.topbar').count()).resolves.toBe(0);
      await expect(page.locator('img').count()).resolves.toBe(0);
      const icons = await page.locator('link[rel=icon]').evaluateAll((links) => links.map((l) => (l as HTMLLinkElement).href));
      expect(icons).toEqual([`${app.base}/docs/static/theme/chipin.svg`]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
