import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTemplate, expectOneLine } from './cli-template.ts';
import {
  cleanUp,
  cliEnv,
  createMerchant,
  expectCreatedMerchant,
  onPostgres,
  runCli,
  startServe,
  stopServe,
  uniqueEmail,
  type CreatedMerchant,
  type Result,
  PROCESS_TEST_MS,
} from './harness.ts';

/**
 * The CLI's commands as a process: migrate, accounts, keys, offers, passwords. Its checks of
 * configuration, keys and locks are in cli-checks.test.ts (the two were one file of 120-170 s,
 * over the suite's budget: docs/testing.md#the-budget), the transfer commands in
 * transfer-cli.test.ts (this file took 100 s in a full run with them).
 *
 * The describes below run at once (`describe.concurrent`), each on a DATA_DIR of its own, so the
 * file lasts about as long as its longest chain of children instead of their sum; the tests of one
 * describe run in order (`it.sequential`) where they share a DATA_DIR, which the embedded
 * database lets one process hold at a time. Children still running when the file ends (a failed
 * test's server) are killed by `cleanUp`; none outlives its own hard timeout (harness.ts).
 */
afterAll(cleanUp);

const template = cliTemplate();
const freshDataDir = template.fresh;

// First and alone: the second `migrate` opens the template DATA_DIR, which the describes below copy.
describe('migrate', { timeout: PROCESS_TEST_MS }, () => {
  it(
    'applies the migrations on an empty DATA_DIR; a second run says the schema is up to date',
    async () => {
      const firstMigrate = template.firstMigrate();
      expect(firstMigrate.code, firstMigrate.stderr).toBe(0);
      expect(firstMigrate.stderr).toBe('');
      // A shared PostgreSQL server may have been migrated by an earlier run.
      expect(firstMigrate.stdout).toMatch(onPostgres ? /^(applied migrations \d+(, \d+)*|database schema is up to date)\n$/ : /^applied migrations \d+(, \d+)*\n$/);

      const second = await runCli(['migrate'], cliEnv(template.dir()));
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toBe('database schema is up to date\n');
      expect(second.stderr).toBe('');
    },
    PROCESS_TEST_MS,
  );
});

describe.concurrent('merchant create and key commands', { timeout: PROCESS_TEST_MS }, () => {
  let dataDir: string;
  const email = uniqueEmail('cli');
  let created: Result;
  let merchant: CreatedMerchant;

  beforeAll(async () => {
    dataDir = freshDataDir();
    created = await runCli(['merchant', 'create', '--name', 'Boulangerie Test', '--email', email, '--json'], cliEnv(dataDir));
    if (created.code !== 0) throw new Error(`merchant create failed (${created.code}): ${created.stderr}`);
    merchant = JSON.parse(created.stdout) as CreatedMerchant;
  }, PROCESS_TEST_MS);

  it.sequential('merchant create --json prints exactly account_id, dashboard login, first API key and the five default offers', () => {
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toBe('');
    const printed: unknown = JSON.parse(created.stdout);
    expectCreatedMerchant(printed, email);
  });

  it.sequential('key create --account --json prints a new API key and secret for that account', async () => {
    const r = await runCli(['key', 'create', '--account', merchant.account_id, '--json'], cliEnv(dataDir));
    expect(r.code, r.stderr).toBe(0);
    const key = JSON.parse(r.stdout) as Record<string, string>;
    expect(key).toEqual({ account_id: merchant.account_id, api_key: expect.stringMatching(/^key_[0-9a-f-]{36}$/), api_secret: expect.any(String) });
    expect(key.api_key).not.toBe(merchant.api_key);
    expect(key.api_secret).not.toBe(merchant.api_secret);
  });

  it.sequential('offer create --type DOWN_PAYMENT adds a down payment to an existing account, with its own secret; an option of another type is refused in one line', async () => {
    const args = ['offer', 'create', '--account', merchant.account_id, '--type', 'DOWN_PAYMENT', '--deposit-percent', '40', '--max-balance-delay-days', '90', '--json'];
    const r = await runCli(args, cliEnv(dataDir));
    expect(r.code, r.stderr).toBe(0);
    const offer = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(offer).toEqual({
      merchant_uid: expect.stringMatching(/^mer_[0-9a-f-]{36}$/),
      type: 'DOWN_PAYMENT',
      installments: 2,
      deferred_days: 0,
      deposit_percent: 40,
      max_balance_delay_days: 90,
      secret: expect.any(String),
    });
    expect(merchant.offers.map((o) => o.secret)).not.toContain(offer.secret);
    const refused = await runCli(['offer', 'create', '--account', merchant.account_id, '--type', 'DEFERRED', '--deposit-percent', '40'], cliEnv(dataDir));
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expectOneLine(refused.stderr);
    expect(refused.stderr).toContain('--deposit-percent is for a DOWN_PAYMENT offer only');
  });

  it.sequential('key revoke --key revokes an existing key, says so on stdout and exits 0', async () => {
    const r = await runCli(['key', 'revoke', '--key', merchant.api_key], cliEnv(dataDir));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`revoked ${merchant.api_key}; its access tokens stop working within 5 s\n`);
  });

  it.sequential('key create for an unknown account exits non-zero with one line naming the account', async () => {
    const unknown = `acc_${randomUUID()}`;
    const r = await runCli(['key', 'create', '--account', unknown, '--json'], cliEnv(dataDir));
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr);
    expect(r.stderr).toContain(unknown);
    expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
  });

  it.sequential('key revoke of an unknown key exits non-zero with one line naming the key', async () => {
    const unknown = `key_${randomUUID()}`;
    const r = await runCli(['key', 'revoke', '--key', unknown], cliEnv(dataDir));
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr);
    expect(r.stderr).toContain(unknown);
    expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
  });
});

/** A merchant of its own (another DATA_DIR): these run while the key commands above run. */
describe.concurrent('dashboard reset-password and merchant create options', { timeout: PROCESS_TEST_MS }, () => {
  let dataDir: string;
  const email = uniqueEmail('cli');
  let merchant: CreatedMerchant;

  beforeAll(async () => {
    dataDir = freshDataDir();
    merchant = await createMerchant(dataDir, email);
  }, PROCESS_TEST_MS);

  it.sequential('dashboard reset-password prints a new password once; the old one stops working, the new one signs in', async () => {
    const r = await runCli(['dashboard', 'reset-password', '--email', email.toUpperCase(), '--json'], cliEnv(dataDir));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const reset = JSON.parse(r.stdout) as { email: string; password: string; revoked_sessions: number };
    expect(reset).toEqual({ email, password: expect.any(String), revoked_sessions: 0 });
    expect(reset.password).not.toBe(merchant.password);
    const served = await startServe(dataDir);
    const offers = (password: string) =>
      fetch(`${served.url}/api/backoffice/offers`, { headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` } });
    expect((await offers(merchant.password)).status).toBe(401);
    expect((await offers(reset.password)).status).toBe(200);
    await stopServe(served);
  });

  it.sequential(
    'merchant create --time-zone sets the zone the account shows times in; an unknown zone exits non-zero naming it',
    async () => {
      const zoned = uniqueEmail('zoned');
      const r = await runCli(['merchant', 'create', '--name', 'Padaria', '--email', zoned, '--time-zone', 'America/Sao_Paulo', '--json'], cliEnv(dataDir));
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as CreatedMerchant).time_zone).toBe('America/Sao_Paulo');

      const refused = uniqueEmail('unzoned');
      const bad = await runCli(['merchant', 'create', '--name', 'Padaria', '--email', refused, '--time-zone', 'Sao Paulo'], cliEnv(dataDir));
      expect(bad.code).not.toBe(0);
      expect(bad.stdout).toBe('');
      expectOneLine(bad.stderr);
      expect(bad.stderr).toContain('time zone "Sao Paulo" is not an IANA time zone such as Europe/Paris');
    },
    PROCESS_TEST_MS,
  );

  it.sequential('dashboard reset-password of an unknown e-mail exits non-zero with one line naming it', async () => {
    const unknown = uniqueEmail('nobody');
    const r = await runCli(['dashboard', 'reset-password', '--email', unknown], cliEnv(dataDir));
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expectOneLine(r.stderr);
    expect(r.stderr).toContain(unknown);
  });

  it.sequential('merchant create without --name exits non-zero and prints the usage', async () => {
    const r = await runCli(['merchant', 'create', '--email', uniqueEmail('noname')], cliEnv(dataDir));
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^chipin: --name is required\n/);
    expect(r.stderr).toContain('Usage: chipin <command>');
    expect(r.stderr).toContain('merchant create --name N --email E');
  });
});
