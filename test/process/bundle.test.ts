/**
 * The bundle production runs (`npm run build`: dist/main.mjs, docs/deployment.md#the-bundle; the
 * run's copy, built by the same script into a file of its own, test/setup/cli-children.ts): it
 * starts, applies every migration and serves the files the service reads beside its code (found
 * from the repository's root, src/source-files.ts), byte for byte as the sources hold them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, killAll, onPostgres, PROCESS_TEST_MS, ROOT, startServe, stopServe, tempDataDir, type Served } from './harness.ts';

afterAll(cleanUp);

describe.skipIf(onPostgres)('the bundle', () => {
  let served: Served;
  afterAll(killAll);

  it(
    'starts on a new embedded database (every migration applied), serves the pages’ scripts, the demo shop’s and the SDK, and stops on SIGTERM',
    async () => {
      served = await startServe(tempDataDir({ empty: true }), {}, PROCESS_TEST_MS, 'bundle');
      for (const [path, file] of [
        ['/assets/checkout.js', 'src/pages/assets/checkout.js'],
        ['/sandbox/demo-shop/shop.js', 'src/sandbox/assets/demo-shop.js'],
      ] as const) {
        const res = await fetch(`${served.url}${path}`);
        expect(res.status, path).toBe(200);
        expect(await res.text(), path).toBe(readFileSync(join(ROOT, file), 'utf8'));
      }
      // Built at run time by esbuild from src/sdk/, found from the root as well.
      const sdk = await fetch(`${served.url}/sdk/v1/chipin.js`);
      expect(sdk.status).toBe(200);
      expect((await sdk.text()).length).toBeGreaterThan(1_000);
      expect((await stopServe(served)).code).toBe(0);
    },
    PROCESS_TEST_MS,
  );
});
