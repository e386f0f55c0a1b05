/**
 * `npm run bench`'s servers: the bare Fastify baseline (bench/bare-server.ts) and Chipin, child
 * processes on free loopback ports, put on the servers' cores when pinning (bench/pinning.ts);
 * and the PostgreSQL server of BENCH_DATABASE_URL.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { LOOPBACK, freePort, runTs, spawnTs, waitForOk } from '../children.ts';
import { PostgresServer, pin } from '../pinning.ts';
import { basicAuth, type BenchContext, type Credentials } from '../scenarios.ts';
import { held, pids } from './lifecycle.ts';
import { READY_TIMEOUT_MS, pinned, settings } from './settings.ts';

/**
 * Puts a server child on the servers' cores (when pinning), once it is ready: its start (the
 * embedded database's migrations) uses every core, and every thread it has then is moved; the
 * threads it makes later inherit their creator's cores.
 */
function pinServer(pid: number | undefined): void {
  if (pinned && pid !== undefined) pin(pid, pinned.server);
}

async function startBare(): Promise<string> {
  const port = await freePort();
  const child = spawnTs('bare-server', 'bench/bare-server.ts', [], { PORT: String(port), HOST: LOOPBACK, BARE_DATABASE_URL: settings.databaseUrl }, settings.serverNodeArgs);
  const url = `http://${LOOPBACK}:${port}`;
  pids.bare = child.proc.pid;
  await waitForOk(child, `${url}/bare`, READY_TIMEOUT_MS);
  pinServer(child.proc.pid);
  return url;
}

/** Chipin's environment; every process of a run shares its DATA_DIR (and so its master key). */
function chipinEnv(dir: string) {
  return {
    CHIPIN_ENV: 'sandbox',
    DATA_DIR: dir,
    DATABASE_URL: settings.databaseUrl, // undefined: embedded PGlite in DATA_DIR
    LOG_LEVEL: settings.logLevel,
    HOST: LOOPBACK,
    PUBLIC_URL: undefined,
    // One load generator on one address: the public simulation's per-address limit would turn
    // the benchmark into a measure of 429s.
    SIMULATION_RATE_LIMIT: '1000000',
  };
}

async function startChipin(): Promise<{ url: string; credentials: Credentials }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chipin-bench-'));
  held.dataDir = dataDir;
  const env = chipinEnv(dataDir);

  let credentials: Credentials | undefined;
  if (settings.databaseUrl) {
    // No demo merchant on PostgreSQL: create one (this also applies the migrations).
    const email = `bench-${Date.now()}-${process.pid}@chipin.test`;
    const out = await runTs('src/main.ts', ['merchant', 'create', '--name', 'Bench Shop', '--email', email, '--json'], env);
    credentials = JSON.parse(out) as Credentials;
  }

  const port = await freePort();
  const child = spawnTs('chipin', 'src/main.ts', ['serve'], { ...env, PORT: String(port) }, settings.serverNodeArgs);
  const url = `http://${LOOPBACK}:${port}`;
  pids.chipin = child.proc.pid;
  await waitForOk(child, `${url}/readyz`, READY_TIMEOUT_MS);
  pinServer(child.proc.pid);
  credentials ??= JSON.parse(readFileSync(join(dataDir, 'demo-merchant.json'), 'utf8')) as Credentials;
  return { url, credentials };
}

/** One more Chipin process on the run's database and DATA_DIR (BENCH_PROCESSES). */
export async function startExtraChipin(i: number): Promise<{ url: string; pid: number | undefined }> {
  const port = await freePort();
  const child = spawnTs(`chipin-${i}`, 'src/main.ts', ['serve'], { ...chipinEnv(held.dataDir!), PORT: String(port) }, settings.serverNodeArgs);
  const url = `http://${LOOPBACK}:${port}`;
  await waitForOk(child, `${url}/readyz`, READY_TIMEOUT_MS);
  pinServer(child.proc.pid);
  return { url, pid: child.proc.pid };
}

/** The PostgreSQL server of the run's database, found from one of its backends (it must run on this machine). */
async function postgresServer(url: string): Promise<PostgresServer> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return new PostgresServer(rows[0]!.pid);
  } finally {
    await client.end();
  }
}

async function accessToken(chipinUrl: string, credentials: Credentials): Promise<string> {
  const res = await fetch(`${chipinUrl}/api/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(credentials), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`POST /api/token answered ${res.status}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/**
 * Starts the servers the scenarios need, pins PostgreSQL's processes and then this process (the
 * load generator) when pinning, and answers the scenarios' context.
 */
export async function startServers(needsBare: boolean, needsChipin: boolean): Promise<BenchContext> {
  const [bareUrl, chipin] = await Promise.all([
    needsBare ? startBare() : Promise.resolve(''),
    needsChipin ? startChipin() : Promise.resolve({ url: '', credentials: { api_key: '', api_secret: '' } }),
  ]);
  if (settings.databaseUrl) {
    const postgres = await postgresServer(settings.databaseUrl);
    held.postgres = postgres;
    if (pinned) {
      try {
        postgres.pin(pinned.server);
      } catch (err) {
        // Another user's server (not root): measured, but sharing every core.
        process.stdout.write(`  PostgreSQL not pinned (${(err as Error).message.split('\n')[0]}): its processes may share autocannon's core\n`);
      }
    }
  }
  // The load generator is this process (autocannon runs in it): its core, every thread. After the
  // servers' start, which it would otherwise confine to that core (children inherit it).
  if (pinned) pin(process.pid, pinned.load);
  process.stdout.write(
    `  servers: ${Object.entries(pids)
      .map(([k, v]) => `${k} pid ${v}`)
      .join(', ')}\n`,
  );
  return {
    bareUrl,
    chipinUrl: chipin.url,
    credentials: chipin.credentials,
    accessToken: () => accessToken(chipin.url, chipin.credentials),
  };
}
