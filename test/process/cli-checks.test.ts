import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FULL_RUN } from '../helpers/full-run.ts';
import { cliTemplate, expectOneLine } from './cli-template.ts';
import {
  cleanUp,
  cliEnv,
  createMerchant,
  expectCreatedMerchant,
  freePort,
  getToken,
  onPostgres,
  PROCESS_TEST_MS,
  runCli,
  startServe,
  stopServe,
  tempDataDir,
  uniqueEmail,
  whoami,
} from './harness.ts';

/**
 * The CLI as a process, its checks: a configuration refused at start, a master key that is not
 * the database's, an embedded database held by a running server, credentials and PSP hosts as a
 * served instance sees them. Split from cli.test.ts (one file of 120-170 s, over the suite's
 * budget: docs/testing.md#the-budget); the describes run at once, each on a DATA_DIR of its own.
 */
afterAll(cleanUp);

const freshDataDir = cliTemplate().fresh;

describe.concurrent('configuration errors', { timeout: PROCESS_TEST_MS }, () => {
  const cases: { name: string; env: Record<string, string>; variable: string }[] = [
    { name: 'PORT=abc', env: { PORT: 'abc' }, variable: 'PORT' },
    { name: 'CHIPIN_ENV=staging', env: { CHIPIN_ENV: 'staging' }, variable: 'CHIPIN_ENV' },
    {
      name: 'CHIPIN_ENV=production without MASTER_KEY',
      env: { CHIPIN_ENV: 'production', PUBLIC_URL: 'https://pay.example.test' },
      variable: 'MASTER_KEY',
    },
    { name: 'MASTER_KEY=short', env: { MASTER_KEY: 'short' }, variable: 'MASTER_KEY' },
    { name: 'LOG_LEVEL=loud', env: { LOG_LEVEL: 'loud' }, variable: 'LOG_LEVEL' },
    { name: 'DATABASE_URL=mysql://...', env: { DATABASE_URL: 'mysql://root@127.0.0.1/chipin' }, variable: 'DATABASE_URL' },
  ];

  // What a child adds to test/unit/config.test.ts (every variable's refusal, in this process) is
  // the path from a refusal to the exit status and the one stderr line, the same for every
  // variable: one case here, each of them in the full run (docs/testing.md#the-full-run).
  // At once: each case has a DATA_DIR and a port of its own.
  it.for(FULL_RUN ? cases : cases.filter((c) => c.variable === 'MASTER_KEY').slice(0, 1))(
    '$name: serve exits non-zero at once with one stderr line naming the variable',
    async ({ env, variable }) => {
      const port = String(await freePort());
      // Refused before any database opens: no copy of the migrated one on PGlite.
      const r = await runCli(['serve'], cliEnv(tempDataDir({ empty: !onPostgres }), { PORT: port, ...env }));
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expectOneLine(r.stderr);
      expect(r.stderr).toMatch(new RegExp(`^chipin: ${variable}\\b`));
    },
  );

  it('a refused configuration leaves an empty DATA_DIR untouched (no master.key generated)', async () => {
    const dataDir = tempDataDir({ empty: true });
    const r = await runCli(['serve'], cliEnv(dataDir, { PORT: 'abc' }));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^chipin: PORT\b/);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe.concurrent('the master key check', { timeout: PROCESS_TEST_MS }, () => {
  it(
    "a command or a start with another master key than the database's is refused in one line naming MASTER_KEY, the first key still works",
    async () => {
      const dataDir = freshDataDir(); // migrated with DATA_DIR/master.key
      const other = { MASTER_KEY: 'ab'.repeat(32) };
      for (const args of [['merchant', 'create', '--name', 'Other Key', '--email', uniqueEmail('kcv')], ['serve']]) {
        const r = await runCli(args, cliEnv(dataDir, { ...other, PORT: String(await freePort()) }));
        expect(r.code, r.stderr).toBe(1);
        expectOneLine(r.stderr);
        expect(r.stderr).toMatch(/^chipin: the master key from the MASTER_KEY environment variable is not the key this database was set up with/);
        expect(r.stderr).not.toContain(other.MASTER_KEY);
      }
      const sameKey = await runCli(['merchant', 'create', '--name', 'Same Key', '--email', uniqueEmail('kcv')], cliEnv(dataDir));
      expect(sameKey.code, sameKey.stderr).toBe(0);
    },
    PROCESS_TEST_MS,
  );
});

describe.skipIf(onPostgres)('embedded database held by a running server', { concurrent: true }, () => {
  it(
    'merchant create refuses with "in use by a running process", changes nothing, and works once the server stopped',
    async () => {
      const dataDir = freshDataDir();
      const served = await startServe(dataDir);
      const serverPid = readFileSync(join(dataDir, 'chipin.pid'), 'utf8').trim();
      const email = uniqueEmail('busy');

      const refused = await runCli(['merchant', 'create', '--name', 'Too Early', '--email', email, '--json'], cliEnv(dataDir));
      expect(refused.code).not.toBe(0);
      expect(refused.stdout).toBe('');
      expectOneLine(refused.stderr);
      expect(refused.stderr).toMatch(/in use by a running Chipin process/);
      expect(refused.stderr).toContain(`(pid ${serverPid})`);
      expect(refused.stderr).toContain(dataDir);

      // The refused command did not disturb the server.
      expect((await fetch(`${served.url}/readyz`)).status).toBe(200);
      const stopped = await stopServe(served);
      expect(stopped.code, served.proc.output).toBe(0);
      expect(existsSync(join(dataDir, 'chipin.pid'))).toBe(false);

      // The refused command left nothing behind: its e-mail is still free; the server's demo merchant is there.
      expect(existsSync(join(dataDir, 'demo-merchant.json'))).toBe(true);
      const now = await runCli(['merchant', 'create', '--name', 'Now It Works', '--email', email, '--json'], cliEnv(dataDir));
      expect(now.code, now.stderr).toBe(0);
      expectCreatedMerchant(JSON.parse(now.stdout), email);
    },
    PROCESS_TEST_MS,
  );
});

describe.concurrent('credentials from merchant create on a served instance', { timeout: PROCESS_TEST_MS }, () => {
  it(
    'the api_key and api_secret printed by merchant create obtain a token at POST /api/token of serve on the same data',
    async () => {
      const dataDir = freshDataDir();
      const m = await createMerchant(dataDir);
      const served = await startServe(dataDir);
      // An account exists, so the sandbox server made no demo merchant.
      expect(served.proc.stdout).not.toContain('demo merchant');
      expect(existsSync(join(dataDir, 'demo-merchant.json'))).toBe(false);

      const token = await getToken(served.url, m.api_key, m.api_secret);
      const me = await whoami(served.url, token);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ account_id: m.account_id, api_key: m.api_key });

      const stopped = await stopServe(served);
      expect(stopped.code, served.proc.output).toBe(0);
    },
    PROCESS_TEST_MS,
  );
});

describe.concurrent('psp-account create in production', { timeout: PROCESS_TEST_MS }, () => {
  it(
    "refuses an endpoint_url off the PSP's own hosts, --no-verify or not, unless the operator lists its host",
    async () => {
      const dataDir = freshDataDir();
      const merchant = await createMerchant(dataDir);
      const credentials = join(dataDir, 'stripe.json');
      writeFileSync(credentials, JSON.stringify({ secret_key: 'sk_test_51CliEndpointTest000000', webhook_secret: 'whsec_CliEndpointTest0000000000000' }));
      const production = (extra: Record<string, string> = {}) =>
        cliEnv(dataDir, { CHIPIN_ENV: 'production', MASTER_KEY: readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), PUBLIC_URL: 'https://pay.example.test', ...extra });
      const args = ['psp-account', 'create', '--account', merchant.account_id, '--psp', 'stripe', '--environment', 'test', '--label', 'Main'];
      const create = [...args, '--credentials-file', credentials, '--endpoint-url', 'https://collector.example/x', '--no-verify', '--json'];

      const refused = await runCli(create, production());
      expect(refused.code, refused.stderr).not.toBe(0);
      expect(refused.stderr).toContain("field endpoint_url must be an https:// URL on one of stripe's own hosts for test in production");
      expectOneLine(refused.stderr);

      const allowed = await runCli(create, production({ PSP_ENDPOINT_ALLOWLIST: 'collector.example' }));
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(JSON.parse(allowed.stdout)).toMatchObject({ psp: 'stripe', endpoint_url: 'https://collector.example/x', verified_at: null });
    },
    PROCESS_TEST_MS,
  );
});
