import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, cliEnv, getToken, PROCESS_TEST_MS, runCli, startServe, tempDataDir, uniqueEmail, type CreatedMerchant } from '../process/harness.ts';
import { isolatedDatabase, onPostgres, type IsolatedDatabase } from '../helpers/database.ts';
import { Receiver } from './helpers.ts';

/**
 * The process named in the embedded database's pid file, gone: a killed process may still await
 * reaping for a moment, and would look alive to anyone checking its pid.
 */
async function pidGone(file: string): Promise<void> {
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').trim());
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`process ${pid} still exists 10 s after SIGKILL`);
}

let receiver: Receiver | undefined;
let db: IsolatedDatabase | undefined;

/**
 * The two describes run at once (`describe.concurrent`): the crash test spends most of its time
 * waiting for its leases to run out, the CLI test runs its children meanwhile, each on a DATA_DIR
 * of its own (on PostgreSQL, a database of its own for the crash test). Children still running at the end are killed by
 * `cleanUp`.
 */
afterAll(async () => {
  await cleanUp();
  await receiver?.close();
  await db?.dispose();
});

describe.concurrent(`a killed server loses no event (${onPostgres ? 'PostgreSQL' : 'embedded database'})`, () => {
  it('SIGKILL with deliveries in flight and pending, then a restart: every event is delivered', { timeout: PROCESS_TEST_MS }, async () => {
    receiver = await Receiver.start();
    db = await isolatedDatabase();
    const dataDir = tempDataDir();
    const extra = db.env;

    const created = await runCli(['merchant', 'create', '--name', 'Crash Shop', '--email', uniqueEmail('crash'), '--json'], cliEnv(dataDir, extra));
    expect(created.code, created.stderr).toBe(0);
    const m = JSON.parse(created.stdout) as CreatedMerchant;
    const set = await runCli(['webhook', 'set', '--account', m.account_id, '--url', receiver.url(), '--events', 'purchaseAborted', '--json'], cliEnv(dataDir, extra));
    expect(set.code, set.stderr).toBe(0);
    const hook = JSON.parse(set.stdout) as { account_id: string; url: string; token: string; secret: string; events: string[] };
    expect(hook).toEqual({
      account_id: m.account_id,
      url: receiver.url(),
      token: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
      events: ['purchaseAborted'],
      new_secret: true,
    });

    // The receiver holds every request open: attempts stay in flight until the kill.
    receiver.answer = { kind: 'hang' };
    const first = await startServe(dataDir, extra);
    const token = await getToken(first.url, m.api_key, m.api_secret);
    const call = async (path: string, body?: unknown) => {
      const res = await fetch(`${first.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(10_000),
      });
      expect(res.status, path).toBeLessThan(300);
      return (await res.json()) as Record<string, unknown>;
    };
    const purchases: string[] = [];
    for (let i = 0; i < 24; i++) {
      const p = await call('/api/merchants/v1/purchases', { title: `Crash ${i}`, amount: 10_000, client: { email: 'leader@example.com' } });
      purchases.push(p.id as string);
      await call(`/api/purchases/pur_${p.id as string}/abort`);
    }
    await receiver.waitFor((r) => r.length >= 1, 'a delivery in flight');
    first.proc.kill(); // SIGKILL: no shutdown, leases left behind
    await first.proc.exited;
    await pidGone(join(dataDir, 'chipin.pid'));
    receiver.releaseHeld();
    receiver.received.length = 0;
    receiver.answer = { kind: 'status', code: 204 };

    await startServe(dataDir, extra);
    const delivered = () => new Set(receiver!.received.map((r) => (JSON.parse(r.body) as { objects: { purchaseId: string } }).objects.purchaseId));
    // In-flight deliveries come back once their lease (10 s timeout + 5 s) has run out.
    await receiver.waitFor(() => delivered().size === purchases.length, `all ${purchases.length} webhooks`, 60_000);
    expect([...delivered()].sort()).toEqual([...purchases].sort());
    for (const r of receiver.received) {
      const body = new Webhook(hook.secret).verify(r.body, r.headers as Record<string, string>) as { triggerName: string; token: string };
      expect(body).toMatchObject({ triggerName: 'purchaseAborted', token: hook.token });
    }
  });
});

describe.concurrent('chipin webhook set', () => {
  it('prints the settings for a person, and refuses an unknown account or an unusable URL with a one-line message', { timeout: PROCESS_TEST_MS }, async () => {
    const dataDir = tempDataDir();
    // On PostgreSQL the suite's database (cliEnv), as test/process/cli.test.ts: not the crash test's, which runs meanwhile.
    const extra = {};
    const created = await runCli(['merchant', 'create', '--name', 'CLI Shop', '--email', uniqueEmail('cli'), '--json'], cliEnv(dataDir, extra));
    const m = JSON.parse(created.stdout) as CreatedMerchant;
    const human = await runCli(['webhook', 'set', '--account', m.account_id, '--url', 'https://shop.example/hooks'], cliEnv(dataDir, extra));
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^url {5}https:\/\/shop\.example\/hooks\nevents {2}paymentProcessed, paymentFailed, pledgerContributes\ntoken {3}\S{43}\nsecret {2}whsec_\S+\n/);

    const unknown = await runCli(['webhook', 'set', '--account', 'acc_00000000-0000-4000-8000-000000000000', '--url', 'https://shop.example/'], cliEnv(dataDir, extra));
    expect(unknown).toMatchObject({ code: 1, stderr: 'chipin: no account acc_00000000-0000-4000-8000-000000000000\n' });
    const badUrl = await runCli(['webhook', 'set', '--account', m.account_id, '--url', 'ftp://shop.example/'], cliEnv(dataDir, extra));
    expect(badUrl).toMatchObject({ code: 1, stderr: 'chipin: field url must be an http(s) URL\n' });
    const badEvent = await runCli(['webhook', 'set', '--account', m.account_id, '--url', 'https://shop.example/', '--events', 'paymentProcessed,nope'], cliEnv(dataDir, extra));
    expect(badEvent).toMatchObject({ code: 1, stderr: 'chipin: field events has an unknown trigger name "nope"\n' });
    const missing = await runCli(['webhook', 'set', '--account', m.account_id], cliEnv(dataDir, extra));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^chipin: --url is required/);
  });
});
