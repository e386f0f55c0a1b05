import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import type { Config } from '../../src/config.ts';
import { startTestApp, type TestApp } from './app.ts';
import { CHROMIUM } from './chromium.ts';
import { timed } from './timing.ts';

export { CHROMIUM };

/**
 * Browser suites run where Chromium is installed. On a machine without it they are skipped with
 * a notice, so `npm test` works anywhere; CI sets CHIPIN_REQUIRE_BROWSER=1 so they can never be
 * skipped there silently.
 */
export const hasBrowser = existsSync(CHROMIUM) || process.env.CHIPIN_REQUIRE_BROWSER === '1';
if (!hasBrowser) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

/**
 * A connection to the run's one Chromium (test/setup/browser-server.ts); `close()` ends this
 * connection and every page opened through it, not the browser.
 */
export function launchBrowser(): Promise<Browser> {
  const endpoint = inject('browserEndpoint');
  if (!endpoint) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);
  return timed('browser connected', () => chromium.connect(endpoint));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An app listening on loopback whose PUBLIC_URL is its real address, so every link works in the browser. */
export async function startServedApp(overrides: Partial<Config> = {}): Promise<TestApp & { base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = await startTestApp({ ...overrides, publicUrl: base, port });
  await app.server.listen({ port, host: '127.0.0.1' });
  return Object.assign(app, { base });
}

/** A phone-sized window, the back office's first target. */
export const PHONE = { width: 390, height: 844 };

/**
 * A new page signed in to the back office as `user`, through the sign-in form by its labels as
 * staff do, once it has landed on the home page.
 */
export async function signedInPage(browser: Browser, base: string, user: { email: string; password: string }, viewport = PHONE): Promise<Page> {
  const page = await browser.newPage({ viewport, locale: 'en-GB', acceptDownloads: true });
  await page.goto(`${base}/dashboard`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.title()).toBe('Home · Chipin back office');
  return page;
}
