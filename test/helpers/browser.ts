import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
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

/** The apps this file serves, with the requests each has received and not yet answered (by start time). */
const served = new Map<TestApp & { base: string }, Map<IncomingMessage, number>>();

/** An app listening on loopback whose PUBLIC_URL is its real address, so every link works in the browser. */
export async function startServedApp(overrides: Partial<Config> = {}): Promise<TestApp & { base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = Object.assign(await startTestApp({ ...overrides, publicUrl: base, port }), { base });
  const open = new Map<IncomingMessage, number>();
  app.server.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    open.set(req, Date.now());
    res.once('close', () => open.delete(req));
  });
  served.set(app, open);
  const close = app.close;
  app.close = () => {
    served.delete(app);
    return close();
  };
  await app.server.listen({ port, host: '127.0.0.1' });
  return app;
}

/**
 * What each app this file serves is doing (test/setup/served-app-diagnostics.ts prints it when a
 * page test fails): the requests it has not answered and for how long, whether its database
 * answers `SELECT 1` within 2 s, and its last log lines.
 */
export async function describeServedApps(): Promise<string> {
  const out: string[] = [];
  for (const [app, open] of served) {
    const probe = await Promise.race([
      app.services.db.query('SELECT 1').then(
        () => 'answers',
        (err: unknown) => `fails: ${String(err)}`,
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('gave no answer within 2 s'), 2_000).unref()),
    ]);
    const now = Date.now();
    const pending = [...open].map(([req, at]) => `  ${req.method} ${req.url?.slice(0, 120)} (${now - at} ms)`);
    out.push(
      `app ${app.base}: the database ${probe}; ${pending.length} request(s) unanswered`,
      ...pending,
      '  last log lines:',
      ...app.logs.slice(-30).map((l) => `  ${l.slice(0, 400)}`),
    );
  }
  return out.join('\n');
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

/** Every element wider than the screen, except inside a region that scrolls sideways (a table's). */
export const overflowing = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('.scroll') && !el.matches('.scroll')) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && (r.right > width + 0.5 || r.left < -0.5))
        out.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    return { out, scrollWidth: document.documentElement.scrollWidth, width };
  });

/**
 * What goes wrong on a page while a test drives it: console errors, script errors, requests that
 * fail, and answers of 400 or more except those the test expects (`allow(path, status)`: a refusal
 * the test provokes on purpose). Chromium also logs a refused answer to the console; that line is
 * left out with it.
 */
export function watchProblems(page: Page): { problems: string[]; allow: (path: string, status: number) => void } {
  const problems: string[] = [];
  const allowed = new Set<string>();
  const expected = (url: string, status: number) => allowed.has(`${status} ${new URL(url).pathname}`);
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(m.text())?.[1];
    if (status && expected(m.location().url, Number(status))) return;
    problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('requestfailed', (r) => problems.push(`failed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => {
    if (r.status() >= 400 && !expected(r.url(), r.status())) problems.push(`answered ${r.status()}: ${r.request().method()} ${r.url()}`);
  });
  return { problems, allow: (path, status) => void allowed.add(`${status} ${path}`) };
}
