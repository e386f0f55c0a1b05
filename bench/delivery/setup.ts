/**
 * A bench:delivery run up to its burst: the database, the receiver, the merchants and their
 * webhooks (the service's own CLI), the server, the purchases, and every setup event dispatched.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { LOOPBACK, freePort, runTs, spawnTs, waitForOk, type Child } from '../children.ts';
import { accessToken, createPurchases, prepareDatabase, type Credentials } from './chipin.ts';
import { r1 } from './figures.ts';
import { held } from './lifecycle.ts';
import { Receiver } from './receiver.ts';
import { QUIET_PATH, QUIET_PURCHASES, READY_TIMEOUT_MS, TRIGGER, log, now, settings, sleep } from './settings.ts';
import { UNDISPATCHED_SQL, untilNoneUndispatched } from '../undispatched.ts';

export interface Setup {
  machine: { cpus: number; cpuModel: string; memTotalGiB: number | undefined; node: string; loadAvgAtStart: number[] };
  databaseUrl: string | undefined;
  /** The database, as the first line and the results name it. */
  database: string;
  receiver: Receiver;
  child: Child;
  url: string;
  token: string;
  accountId: string;
  quiet: Credentials | undefined;
  purchases: string[];
  quietPurchases: string[];
}

export async function setUp(): Promise<Setup> {
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memTotalGiB: r1(totalmem() / 2 ** 30),
    node: process.version,
    loadAvgAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
  };
  const databaseUrl = await prepareDatabase();
  const database = settings.embedded
    ? 'embedded PGlite (fresh temp DATA_DIR)'
    : settings.givenDatabaseUrl
      ? 'PostgreSQL (BENCH_DATABASE_URL)'
      : `PostgreSQL (fresh database ${held.createdDb})`;
  log(
    `Delivery benchmark: ${settings.events} events (${settings.producer === 'sql' ? `payment.failed rows, ${settings.batch} per transaction` : `aborts, ${settings.apiConcurrency} at once`}` +
      `${settings.rate ? `, paced at ${settings.rate}/s` : ', all at once'}) ` +
      `over ${settings.purchases} purchases, ${database}.\n` +
      `Machine: ${machine.cpus} × ${machine.cpuModel}, node ${machine.node}, load average ${machine.loadAvgAtStart.join(' ')}.`,
  );

  const receiver = new Receiver((b) => (settings.producer === 'sql' ? String(b.triggerID) : String(b.objects?.purchaseId ?? '')));
  held.receiver = receiver;
  await receiver.start();
  const hookUrl = `http://${LOOPBACK}:${receiver.port}/chipin/webhooks`;

  held.dataDir = mkdtempSync(join(tmpdir(), 'chipin-bench-delivery-'));
  const env = {
    CHIPIN_ENV: 'sandbox',
    DATA_DIR: held.dataDir,
    DATABASE_URL: databaseUrl,
    MASTER_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    HOST: LOOPBACK,
    PUBLIC_URL: undefined,
  };
  // Before the server: the embedded database takes one process at a time. This also migrates.
  const email = `bench-delivery-${Date.now()}-${process.pid}@chipin.test`;
  const credentials = JSON.parse(await runTs('src/main.ts', ['merchant', 'create', '--name', 'Delivery Bench', '--email', email, '--json'], env)) as Credentials;
  await runTs('src/main.ts', ['webhook', 'set', '--account', credentials.account_id, '--url', hookUrl, '--events', TRIGGER, '--json'], env);
  const accountId = credentials.account_id.replace(/^acc_/, '');
  let quiet: Credentials | undefined;
  if (settings.quietRate > 0) {
    quiet = JSON.parse(await runTs('src/main.ts', ['merchant', 'create', '--name', 'Quiet Bench', '--email', `quiet-${email}`, '--json'], env)) as Credentials;
    await runTs('src/main.ts', ['webhook', 'set', '--account', quiet.account_id, '--url', `http://${LOOPBACK}:${receiver.port}${QUIET_PATH}`, '--events', TRIGGER, '--json'], env);
  }

  const port = await freePort();
  const child = spawnTs('chipin', 'src/main.ts', ['serve'], { ...env, PORT: String(port) }, settings.serverNodeArgs);
  const url = `http://${LOOPBACK}:${port}`;
  await waitForOk(child, `${url}/readyz`, READY_TIMEOUT_MS);
  const token = await accessToken(url, credentials);

  const t0 = now();
  const purchases = await createPurchases(url, token, settings.purchases);
  log(`Created ${purchases.length} purchases in ${((now() - t0) / 1000).toFixed(1)} s.`);
  const quietPurchases = quiet ? await createPurchases(url, await accessToken(url, quiet), QUIET_PURCHASES) : [];

  if (databaseUrl) {
    const sqlClient = new pg.Client({ connectionString: databaseUrl });
    held.sqlClient = sqlClient;
    await sqlClient.connect();
    // Quiet before the burst: every purchase.created event dispatched (none is subscribed).
    await untilNoneUndispatched(async () => (await sqlClient.query<{ n: number }>(UNDISPATCHED_SQL)).rows[0]!.n, 30_000, 100);
  } else {
    await sleep(2_000);
  }
  if (receiver.arrivals.length + receiver.unexpected > 0) throw new Error('the receiver got webhooks before the burst');
  await sleep(500); // let the worker's wake-ups from the setup settle
  return { machine, databaseUrl, database, receiver, child, url, token, accountId, quiet, purchases, quietPurchases };
}
