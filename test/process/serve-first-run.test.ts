import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { basic, cleanUp, expectCreatedMerchant, getToken, killAll, onPostgres, PROCESS_TEST_MS, startServe, stopServe, tempDataDir, whoami } from './harness.ts';

/**
 * The sandbox's first run, from the sources as `npm start` runs them, on an empty embedded
 * database: the demo merchant, its file and the banner. A file of its own beside serve.test.ts
 * (the two were one of 129 s, over the suite's budget: docs/testing.md#the-budget), so the two run
 * in two workers at once.
 */
afterAll(cleanUp);

describe.skipIf(onPostgres)('sandbox first run on an empty embedded database', () => {
  afterEach(killAll);

  it(
    'writes DATA_DIR/demo-merchant.json and prints a curl line whose credentials obtain a token; a restart makes no second demo merchant and says which file has its credentials, without them',
    async () => {
      // From the sources, as `npm start` runs them: the one child of the suite that does.
      const dataDir = tempDataDir({ empty: true });
      const first = await startServe(dataDir, {}, PROCESS_TEST_MS, 'sources');
      const file = join(dataDir, 'demo-merchant.json');
      const saved = readFileSync(file, 'utf8');
      const demo: unknown = JSON.parse(saved);
      expectCreatedMerchant(demo, 'demo@chipin.test');
      expect(statSync(file).mode & 0o777).toBe(0o600);

      // The banner's curl line, run with fetch exactly as curl would send it (-u: Basic, -d: form body).
      const curl = /^\s*curl -s -u '([^':]+):([^']+)' -d grant_type=client_credentials (\S+)\/api\/token$/m.exec(first.proc.stdout);
      expect(curl, first.proc.stdout).not.toBeNull();
      const [, user, password, base] = curl!;
      expect(user).toBe(demo.api_key);
      expect(password).toBe(demo.api_secret);
      expect(base).toBe(first.url);
      const res = await fetch(`${base}/api/token`, {
        method: 'POST',
        headers: { authorization: basic(user!, password!), 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status, JSON.stringify(body)).toBe(200);
      const me = await whoami(first.url, body.access_token as string);
      expect(me.body).toMatchObject({ account_id: demo.account_id, api_key: demo.api_key });
      // The dashboard line: the back office's sign-in e-mail, password and address.
      const dashboard = /^\s*dashboard\s+(\S+) \/ (\S+)\s+\(back office: (\S+)\)$/m.exec(first.proc.stdout);
      expect(dashboard, first.proc.stdout).not.toBeNull();
      expect(dashboard!.slice(1)).toEqual([demo.email, demo.password, `${first.url}/dashboard`]);
      const signInPage = await fetch(dashboard![3]!);
      expect(signInPage.status).toBe(200);
      expect(await signInPage.text()).toContain('name="password"');
      expect((await stopServe(first)).code, first.proc.output).toBe(0);

      const second = await startServe(dataDir);
      expect(readFileSync(file, 'utf8')).toBe(saved);
      expect(second.proc.stdout).not.toMatch(/curl /i);
      expect(second.proc.stdout).toContain(`Sandbox demo merchant: its API key and secret, dashboard login and offers are in ${file}`);
      expect(second.proc.stdout).not.toContain(demo.api_secret);
      // The one demo merchant is still the one in the file.
      await getToken(second.url, demo.api_key, demo.api_secret);
      expect((await stopServe(second)).code, second.proc.output).toBe(0);
    },
    PROCESS_TEST_MS,
  );
});
