/**
 * bench:lifecycle's processes: the webhook receiver (in this process), the merchants and their
 * webhooks (the service's own CLI, as bench/run/servers.ts and bench/delivery/setup.ts do),
 * Chipin (`src/main.ts serve`, sandbox) and the bare baseline (bench/bare-server.ts) as child
 * processes on loopback; then the pinning (bench/pinning.ts): this process on the load
 * generator's core, the servers and every PostgreSQL process on the other(s).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { LOOPBACK, freePort, runTs, spawnTs, waitForOk } from '../children.ts';
import { PostgresServer, pin } from '../pinning.ts';
import { basicAuth, type Credentials } from '../scenarios.ts';
import { held } from './cleanup.ts';
import type { Databases } from './database.ts';
import type { Merchant } from './mix.ts';
import { Receiver } from './receiver.ts';
import { EVENTS, READY_TIMEOUT_MS, REQUEST_TIMEOUT_MS, log, pinned, settings } from './settings.ts';

export interface Servers {
  chipinUrl: string;
  chipinPid: number;
  bareUrl: string;
  barePid: number;
  receiver: Receiver;
  merchants: Merchant[];
  postgres: PostgresServer;
}

interface MerchantJson extends Credentials {
  account_id: string;
  offers: { merchant_uid: string; type: string; installments: number; secret: string }[];
}

/** An access token, fetched again when 5 minutes old (they live 10). */
function tokens(url: string, c: Credentials): () => Promise<string> {
  let token: Promise<string> | undefined;
  let at = 0;
  return () => {
    if (!token || Date.now() - at > 300_000) {
      at = Date.now();
      token = (async () => {
        const res = await fetch(`${url}/api/token`, {
          method: 'POST',
          headers: { authorization: basicAuth(c), 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const body = (await res.json()) as { access_token?: string };
        if (res.status !== 200 || !body.access_token) throw new Error(`POST /api/token answered ${res.status}: ${JSON.stringify(body)}`);
        return body.access_token;
      })();
    }
    return token;
  };
}

function offer(m: MerchantJson, type: string, installments: number) {
  const o = m.offers.find((x) => x.type === type && x.installments === installments);
  if (!o) throw new Error(`merchant ${m.account_id} has no ${type} ${installments}x offer: \`merchant create\` changed its default offers`);
  return o;
}

export async function startServers(dbs: Databases): Promise<Servers> {
  const receiver = new Receiver();
  held.receiver = receiver;
  await receiver.start();
  const hookUrl = `http://${LOOPBACK}:${receiver.port}/chipin/webhooks`;

  held.dataDir = mkdtempSync(join(tmpdir(), 'chipin-bench-lifecycle-'));
  const env = {
    CHIPIN_ENV: 'sandbox',
    DATA_DIR: held.dataDir,
    DATABASE_URL: dbs.chipinUrl,
    LOG_LEVEL: settings.logLevel,
    HOST: LOOPBACK,
    PUBLIC_URL: undefined,
  };
  // One at a time: the first also applies the migrations.
  const made: MerchantJson[] = [];
  for (let i = 0; i < settings.merchants; i++) {
    const m = JSON.parse(
      await runTs('src/main.ts', ['merchant', 'create', '--name', `Lifecycle Shop ${i + 1}`, '--email', `lifecycle-${i + 1}-${process.pid}@chipin.test`, '--json'], env),
    ) as MerchantJson;
    await runTs('src/main.ts', ['webhook', 'set', '--account', m.account_id, '--url', hookUrl, '--events', EVENTS.join(','), '--json'], env);
    made.push(m);
  }

  const [chipinPort, barePort] = await Promise.all([freePort(), freePort()]);
  const chipin = spawnTs('chipin', 'src/main.ts', ['serve'], { ...env, PORT: String(chipinPort) }, settings.serverNodeArgs);
  const bare = spawnTs('bare-server', 'bench/bare-server.ts', [], { PORT: String(barePort), HOST: LOOPBACK, BARE_DATABASE_URL: dbs.bareUrl });
  const chipinUrl = `http://${LOOPBACK}:${chipinPort}`;
  const bareUrl = `http://${LOOPBACK}:${barePort}`;
  await Promise.all([waitForOk(chipin, `${chipinUrl}/readyz`, READY_TIMEOUT_MS), waitForOk(bare, `${bareUrl}/bare`, READY_TIMEOUT_MS)]);

  const merchants: Merchant[] = made.map((m) => ({
    accountId: m.account_id,
    token: tokens(chipinUrl, m),
    offers: { shared: offer(m, 'SHARED', 1).merchant_uid, installments3: offer(m, 'INSTALLMENTS', 3).merchant_uid, deferred: offer(m, 'DEFERRED', 1).merchant_uid },
    deferredSecret: offer(m, 'DEFERRED', 1).secret,
  }));

  // The PostgreSQL server, found from one of its backends.
  const probe = new pg.Client({ connectionString: dbs.chipinUrl, connectionTimeoutMillis: 10_000 });
  await probe.connect();
  const backend = (await probe.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const postgres = new PostgresServer(backend);
  await probe.end();
  held.postgres = postgres;
  if (pinned) {
    // The servers once ready (their start uses every core), then PostgreSQL, then this process.
    pin(chipin.proc.pid!, pinned.server);
    pin(bare.proc.pid!, pinned.server);
    try {
      postgres.pin(pinned.server);
    } catch (err) {
      log(`  PostgreSQL not pinned (${(err as Error).message.split('\n')[0]}): its processes may share the load generator's core`);
    }
    pin(process.pid, pinned.load);
  }
  log(`  ${settings.merchants} merchants; chipin pid ${chipin.proc.pid}, bare pid ${bare.proc.pid}, PostgreSQL postmaster ${postgres.postmaster}`);
  return { chipinUrl, chipinPid: chipin.proc.pid!, bareUrl, barePid: bare.proc.pid!, receiver, merchants, postgres };
}
