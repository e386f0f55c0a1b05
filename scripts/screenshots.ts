import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { freePort } from '../bench/children.ts';
import { createApp } from '../src/app.ts';
import { EN_FR, LANGS, type Lang } from '../src/i18n/lang.ts';
import { testConfig } from '../test/helpers/app.ts';
import { axeViolations, isBlocking } from '../test/helpers/axe-run.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/helpers/chromium.ts';
import { LOCALES, stopLangs, TOUR, VIEWPORTS, type Size } from '../test/helpers/page-tour.ts';
import { seedTourShop } from '../test/helpers/tour-shop.ts';

/**
 * `npm run screenshots` (docs/testing.md#screenshots): the sandbox service on an embedded database
 * in a temporary directory, a travel shop seeded through its APIs, and every page of the tour at a
 * phone's and a desktop's width, in English and French, saved full-page as
 * docs/screenshots/<page>-<phone|desktop>-<en|fr>.png, and the hosted pages (which speak six
 * languages) at a phone's width in German, Spanish, Italian and Dutch too
 * (`<page>-phone-<de|es|it|nl>.png`), with axe-core run on each. Prints a table;
 * exits 1 if a page answered an unexpected status or has a serious or critical violation.
 * `npm run screenshots -- <word>` takes only the pages whose name holds the word, and keeps the
 * other files.
 */
const OUT = new URL('../docs/screenshots/', import.meta.url).pathname;
const only = process.argv[2];
/** Full pages, but the top 5000 px of a longer one (the sandbox inbox lists every message sent): files stay small. */
const MAX_HEIGHT = 5000;

const started = performance.now();
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const app = await createApp(testConfig({ publicUrl: base, port, databaseUrl: undefined, dataDir: mkdtempSync(join(tmpdir(), 'chipin-screenshots-')), logLevel: 'warn' }), {
  logStream: { write: () => {} },
  processMetrics: false,
});
await app.server.listen({ port, host: '127.0.0.1' });
const shop = await seedTourShop(app, base);
const seeded = performance.now();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });

const written = new Set<string>();
const rows: string[][] = [];
let failed = false;
try {
  for (const lang of LANGS) {
    // The four languages only the hosted pages speak: at a phone's width, the width they are made for.
    const sizes: Size[] = (EN_FR as readonly Lang[]).includes(lang) ? (Object.keys(VIEWPORTS) as Size[]) : ['phone'];
    for (const size of sizes) {
      const context = await browser.newContext({ viewport: VIEWPORTS[size], locale: LOCALES[lang] });
      const page = await context.newPage();
      for (const stop of TOUR.filter((s) => stopLangs(s).includes(lang))) {
        const file = `${stop.name}-${size}-${lang}.png`;
        // Signing in happens on the way (page-tour.ts): every stop is visited, only the asked ones kept.
        const status = await stop.go(page, shop, lang).catch((err: Error) => (console.error(`${file}: ${err.message}`), 0));
        if (only && !stop.name.includes(only)) continue;
        const height = Math.min(MAX_HEIGHT, await page.evaluate(() => document.documentElement.scrollHeight));
        await page.screenshot({ path: OUT + file, fullPage: true, clip: { x: 0, y: 0, width: VIEWPORTS[size].width, height } });
        written.add(file);
        const blocking = (await axeViolations(page)).filter(isBlocking);
        const bad = status !== (stop.status ?? 200) || blocking.length > 0;
        failed ||= bad;
        rows.push([
          file,
          String(status),
          `${Math.round(statSync(OUT + file).size / 1024)} kB`,
          blocking.map((v) => `${v.impact} ${v.id}: ${JSON.stringify(v.nodes.slice(0, 3))}`).join('; ') || 'none',
        ]);
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await shop.close();
  await app.close();
}

if (!only) for (const old of readdirSync(OUT)) if (old.endsWith('.png') && !written.has(old)) rmSync(OUT + old);

const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['page', 'status', 'size', 'serious or critical (axe)'][i]!.length));
const line = (r: string[]) => r.map((c, i) => (i === 3 ? c : c.padEnd(widths[i]!))).join('  ');
console.log(line(['page', 'status', 'size', 'serious or critical (axe)']));
for (const r of rows) console.log(line(r));
console.log(
  `${rows.length} screenshots in docs/screenshots/: seeded in ${((seeded - started) / 1000).toFixed(1)} s, all in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
process.exit(failed ? 1 : 0);
