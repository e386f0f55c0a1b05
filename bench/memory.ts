/**
 * Memory under a long mixed load: one Chipin process, a steady mix of the merchant API's and the
 * product pages' requests, its resident set size (RSS, from /proc) sampled every 10 s, reported
 * at 1, 10 and 30 minutes (docs/performance.md#memory).
 *
 *   npm run bench:memory                                   # embedded PGlite, 30 minutes
 *   BENCH_DATABASE_URL=postgres://… npm run bench:memory   # on PostgreSQL (the database is kept)
 *
 * Environment (all optional):
 *   BENCH_MINUTES=30     minutes of load (checkpoints at 1, 10 and the last minute)
 *   BENCH_RATE=300       requests per second in all (a steady load, not a saturation test: the
 *                        question is whether memory grows with time, not what one process can take)
 *   BENCH_CONNECTIONS=8
 *
 * The row is MET when the RSS at the end is within 10 % (and 16 MiB) of the RSS at 10 minutes:
 * after warm-up (JIT code, caches filled to their bounds, the pool's connections) a process that
 * keeps nothing per request has no reason to grow.
 */
import autocannon, { type Instance } from 'autocannon';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOOPBACK, freePort, killAllSync, runTs, spawnTs, stopAll, waitForOk, intEnv } from './children.ts';
import { saveRows } from './rows.ts';
import { basicAuth, type Credentials } from './scenarios.ts';

const settings = {
  minutes: intEnv('BENCH_MINUTES', 30, 1, 240),
  rate: intEnv('BENCH_RATE', 300, 1, 100_000),
  connections: intEnv('BENCH_CONNECTIONS', 8, 1, 1000),
  databaseUrl: process.env.BENCH_DATABASE_URL?.trim() || undefined,
};
const SAMPLE_MS = 10_000;
const GROWTH = { ratio: 1.1, slackMiB: 16 };

let dataDir: string | undefined;
let current: Instance | undefined;
process.on('exit', killAllSync);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup().finally(() => process.exit(130)));

async function cleanup(): Promise<void> {
  current?.stop();
  await stopAll();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}

/** Resident set size of a process, in MiB (VmRSS of /proc/<pid>/status). */
function rssMiB(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round((Number(kb) / 1024) * 10) / 10;
  } catch {
    return undefined;
  }
}

async function token(url: string, c: Credentials): Promise<string> {
  const res = await fetch(`${url}/api/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(c), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`POST /api/token answered ${res.status}`);
  return body.access_token;
}

async function main(): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'chipin-bench-memory-'));
  const env = {
    CHIPIN_ENV: 'sandbox',
    DATA_DIR: dataDir,
    DATABASE_URL: settings.databaseUrl,
    LOG_LEVEL: 'warn',
    HOST: LOOPBACK,
    PUBLIC_URL: undefined,
    SIMULATION_RATE_LIMIT: '1000000',
  };
  let credentials: Credentials | undefined;
  if (settings.databaseUrl) {
    const out = await runTs('src/main.ts', ['merchant', 'create', '--name', 'Memory Shop', '--email', `memory-${Date.now()}@chipin.test`, '--json'], env);
    credentials = JSON.parse(out) as Credentials;
  }
  const port = await freePort();
  const url = `http://${LOOPBACK}:${port}`;
  const child = spawnTs('chipin', 'src/main.ts', ['serve'], { ...env, PORT: String(port) });
  const pid = child.proc.pid!;
  await waitForOk(child, `${url}/readyz`, 60_000);
  credentials ??= JSON.parse(readFileSync(join(dataDir, 'demo-merchant.json'), 'utf8')) as Credentials;
  const offer = (credentials.offers as { merchant_uid: string; type: string; installments: number }[]).find((o) => o.type === 'INSTALLMENTS')!;

  // A purchase to read, then the mix: what a shop's back end and its product pages send. Access
  // tokens live 10 minutes: a fresh one every 5, set on each request as it is sent.
  let bearer = `Bearer ${await token(url, credentials)}`;
  const refresher = setInterval(() => {
    token(url, credentials!)
      .then((t) => (bearer = `Bearer ${t}`))
      .catch((err: unknown) => process.stderr.write(`token refresh failed: ${(err as Error).message}\n`));
  }, 300_000);
  refresher.unref();
  const withBearer = (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...req.headers, authorization: bearer } });
  const created = await fetch(`${url}/api/merchants/v1/purchases`, {
    method: 'POST',
    headers: { authorization: bearer, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Memory', amount: 30000, client: { email: 'leader@example.com' } }),
    signal: AbortSignal.timeout(10_000),
  });
  const { id } = (await created.json()) as { id: string };
  const json = { 'content-type': 'application/json' };
  const requests = [
    {
      method: 'POST' as const,
      path: '/api/merchants/v1/purchases',
      headers: json,
      body: JSON.stringify({ title: 'Bike', amount: 45000, client: { email: 'leader@example.com' } }),
      setupRequest: withBearer,
    },
    { method: 'GET' as const, path: `/api/merchants/v1/purchases/${id}`, setupRequest: withBearer },
    { method: 'GET' as const, path: '/api/merchants/v1/purchases?limit=20', setupRequest: withBearer },
    { method: 'GET' as const, path: '/api/whoami', setupRequest: withBearer },
    {
      method: 'POST' as const,
      path: `/api/users/me/merchants/${offer.merchant_uid}/simulate_payment_schedule`,
      headers: json,
      body: JSON.stringify({ amount_cents: 30000, created: '2026-01-31' }),
    },
    { method: 'POST' as const, path: `/api/users/me/merchants/${offer.merchant_uid}/eligibility`, headers: json, body: JSON.stringify({ amount: 30000, created: '2026-01-31' }) },
  ];
  // Every request of the mix must be answered as a success: a 4xx would measure a refusal's path.
  for (const r of requests) {
    const req = 'setupRequest' in r && r.setupRequest ? r.setupRequest(r) : r;
    const res = await fetch(url + r.path, { method: r.method, headers: req.headers, body: 'body' in r ? r.body : undefined, signal: AbortSignal.timeout(10_000) });
    if (res.status >= 300) throw new Error(`${r.method} ${r.path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer().catch(() => undefined);
  }
  process.stdout.write(
    `Memory: one Chipin process on ${settings.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}, ${settings.rate} req/s of a ${requests.length}-request mix for ${settings.minutes} min; RSS every ${SAMPLE_MS / 1000} s.\n`,
  );

  const samples: { minute: number; rssMiB: number }[] = [];
  const t0 = performance.now();
  const sampler = setInterval(() => {
    const rss = rssMiB(pid);
    if (rss !== undefined) samples.push({ minute: (performance.now() - t0) / 60_000, rssMiB: rss });
  }, SAMPLE_MS);
  const start = rssMiB(pid);
  try {
    current = autocannon({ url, requests, connections: settings.connections, overallRate: settings.rate, duration: settings.minutes * 60, timeout: 10 });
    const progress = setInterval(() => {
      const last = samples.at(-1);
      if (last) process.stdout.write(`  ${last.minute.toFixed(1)} min: RSS ${last.rssMiB} MiB\n`);
    }, 60_000);
    const result = await current;
    clearInterval(progress);
    const at = (minute: number) =>
      samples.reduce<{ minute: number; rssMiB: number } | undefined>((best, s) => (!best || Math.abs(s.minute - minute) < Math.abs(best.minute - minute) ? s : best), undefined);
    const one = at(1);
    const ten = at(10);
    const end = samples.at(-1);
    const statuses = Object.entries(result.statusCodeStats)
      .map(([k, v]) => `${k}: ${v.count}`)
      .join(', ');
    process.stdout.write(
      `\nrequests ${result.requests.total} (${statuses}), errors ${result.errors}, timeouts ${result.timeouts}\n` +
        `RSS at start ${start} MiB, 1 min ${one?.rssMiB} MiB, 10 min ${ten?.rssMiB} MiB, ${end?.minute.toFixed(1)} min ${end?.rssMiB} MiB; peak ${Math.max(...samples.map((s) => s.rssMiB))} MiB\n`,
    );
    const target = `RSS at the end within ${Math.round((GROWTH.ratio - 1) * 100)} % (or ${GROWTH.slackMiB} MiB) of 10 min`;
    const row = `memory, one process under ${settings.rate} req/s of mixed load for ${settings.minutes} min (${settings.databaseUrl ? 'PostgreSQL' : 'PGlite'})`;
    if (settings.minutes >= 20 && ten && end) {
      const met = end.rssMiB <= Math.max(ten.rssMiB * GROWTH.ratio, ten.rssMiB + GROWTH.slackMiB);
      process.stdout.write(`target: ${target}: ${met ? 'MET' : 'NOT MET'}\n`);
      const measured = `RSS ${ten.rssMiB} MiB at 10 min, ${end.rssMiB} MiB at ${end.minute.toFixed(0)} min; ${result.errors + result.timeouts} errors`;
      const clean = result.errors + result.timeouts + result.non2xx === 0;
      saveRows('memory', [{ row, target, measured: `${measured}, ${result.non2xx} non-2xx`, verdict: met && clean ? 'MET' : 'NOT MET' }]);
    } else process.stdout.write('target: needs BENCH_MINUTES ≥ 20 (a 10-minute point and a later one)\n');
  } finally {
    clearInterval(sampler);
    clearInterval(refresher);
  }
}

try {
  await main();
} catch (err) {
  process.stderr.write(`bench/memory.ts: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
