/**
 * The rolling-upgrade drill's processes and load, started by deploy/upgrade/rolling.sh (which
 * prepares N's worktree and the database, and removes both): N serves alone, N+1's `chipin
 * migrate` runs under N's load, N+1 starts beside N and both take the load, N leaves the rotation
 * and gets SIGTERM with requests in flight, N+1 serves alone; then every purchase either process
 * acknowledged (201) is read back from N+1. Prints figures and PASS or FAIL (exit status 0 or 1).
 *
 * The load is bounded by request counts, not time, so the figures compare from run to run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run deploy/upgrade/rolling.sh`);
  return v;
};
const OLD_DIR = env('OLD_DIR');
const NEW_DIR = env('NEW_DIR');
const WORK = env('DRILL_WORK');
const DATABASE_URL = env('DRILL_DATABASE_URL');
const MASTER_KEY = randomBytes(32).toString('hex');

/** Concurrent clients, as a load balancer's few busy connections. */
const CLIENTS = 6;
/** Requests per phase: N alone, both together, N+1 alone (the migration's phase lasts as long as it does). */
const PHASE_REQUESTS = { old: 150, both: 300, new: 150 };
/** The longest a CLI command (`chipin migrate`, `merchant create`) may run. */
const CLI_TIMEOUT_MS = 120_000;
/** The longest a process may take to exit after SIGTERM (systemd's TimeoutStopSec in deploy/systemd/chipin@.service). */
const STOP_TIMEOUT_MS = 30_000;
/** The longest any request of the drill may wait for its answer. */
const REQUEST_TIMEOUT_MS = 30_000;

type Version = 'N' | 'N+1';

interface Server {
  version: Version;
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  log: string;
}

/**
 * The environment of a child: nothing of the caller's Chipin settings, one database and one
 * master key for both versions (tokens are signed with a key derived from it, so a token from N
 * is good on N+1, as behind a load balancer).
 */
function childEnv(version: Version, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dataDir = join(WORK, version === 'N' ? 'data-n' : 'data-n1');
  mkdirSync(dataDir, { recursive: true });
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CHIPIN_ENV: 'sandbox',
    DATABASE_URL,
    DATA_DIR: dataDir,
    MASTER_KEY,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Every child still running: killed if the drill fails half-way, so that rolling.sh can drop the database. */
const children = new Set<ChildProcess>();

function run(version: Version, args: string[], extra: Record<string, string> = {}): { child: ChildProcess; exited: Promise<number | null>; out: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: version === 'N' ? OLD_DIR : NEW_DIR,
    env: childEnv(version, extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('close', () => children.delete(child));
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, out: () => out };
}

/** `promise`, or a rejection naming `what` if it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function cli(version: Version, args: string[]): Promise<string> {
  const p = run(version, args);
  // On a timeout the child is killed by main's finally, with every other one.
  const code = await within(p.exited, CLI_TIMEOUT_MS, `chipin ${args.join(' ')} (${version})`);
  if (code !== 0) throw new Error(`chipin ${args.join(' ')} (${version}) exited ${code}\n${p.out()}`);
  return p.out();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function serve(version: Version): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const p = run(version, ['serve'], { PORT: String(port), PUBLIC_URL: url });
  const server: Server = { version, url, child: p.child, exited: p.exited, log: '' };
  let gone = false;
  void p.exited.then(() => (gone = true));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (gone) throw new Error(`chipin serve (${version}) exited before it was ready\n${p.out()}`);
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`chipin serve (${version}) not ready within 120 s\n${p.out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  Object.defineProperty(server, 'log', { get: p.out });
  return server;
}

interface Acknowledged {
  id: string;
  amount: number;
  by: Version;
}

interface Tally {
  requests: number;
  byVersion: Record<Version, number>;
  failures: string[];
}

const acknowledged: Acknowledged[] = [];
const phases: { name: string; tally: Tally }[] = [];
let token = '';

/** Where the load balancer sends requests now: round robin over the servers in rotation. */
let rotation: Server[] = [];
let turn = 0;

/** One request of the mix: a creation (every other one, and while nothing is acknowledged yet) or a read of an acknowledged purchase. */
async function oneRequest(tally: Tally, n: number): Promise<void> {
  const server = rotation[turn++ % rotation.length]!;
  tally.requests++;
  tally.byVersion[server.version]++;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  try {
    if (n % 2 === 0 || acknowledged.length === 0) {
      const amount = 1_000 + Math.floor(Math.random() * 100_000);
      const res = await fetch(`${server.url}/api/merchants/v1/purchases`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ title: 'Rolling upgrade', amount, client: { email: 'leader@example.com' } }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const body = (await res.json()) as { id?: string; amount?: number };
      if (res.status !== 201 || typeof body.id !== 'string' || body.amount !== amount) {
        tally.failures.push(`create on ${server.version}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      } else acknowledged.push({ id: body.id, amount, by: server.version });
    } else {
      const p = acknowledged[Math.floor(Math.random() * acknowledged.length)]!;
      const res = await fetch(`${server.url}/api/merchants/v1/purchases/${p.id}`, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const body = (await res.json()) as { amount?: number };
      if (res.status !== 200 || body.amount !== p.amount) tally.failures.push(`read on ${server.version}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    }
  } catch (err) {
    tally.failures.push(`${server.version}: ${(err as Error).message}`);
  }
}

/** Runs the mix with CLIENTS concurrent clients until `count` requests are done or, without a count, until `until` settles. */
async function load(name: string, opts: { count?: number; until?: Promise<unknown> }): Promise<Tally> {
  const tally: Tally = { requests: 0, byVersion: { N: 0, 'N+1': 0 }, failures: [] };
  phases.push({ name, tally });
  let done = false;
  void opts.until?.finally(() => (done = true));
  let issued = 0;
  const client = async () => {
    while (!done && (opts.count === undefined || issued < opts.count)) await oneRequest(tally, issued++);
  };
  await Promise.all([...Array(CLIENTS)].map(client));
  await opts.until;
  return tally;
}

async function main(): Promise<void> {
  const started = Date.now();
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stdout.write(line + '\n');
  };
  say(
    `rolling upgrade drill: N = ${process.env.OLD_COMMIT!.slice(0, 10)}, N+1 = ${process.env.NEW_COMMIT!.slice(0, 10)}${process.env.NEW_COMMIT!.includes('+') ? ' (+ uncommitted)' : ''}`,
  );

  const oldServer = await serve('N');
  const merchant = JSON.parse(await cli('N', ['merchant', 'create', '--name', 'Upgrade Drill Shop', '--email', `drill-${randomUUID()}@shop.test`, '--json'])) as {
    api_key: string;
    api_secret: string;
  };
  const res = await fetch(`${oldServer.url}/api/token`, {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(`${merchant.api_key}:${merchant.api_secret}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  token = ((await res.json()) as { access_token: string }).access_token;
  rotation = [oldServer];

  await load('N alone', { count: PHASE_REQUESTS.old });

  // N+1 migrates the database while N serves.
  let migrateOutput = '';
  const migrating = cli('N+1', ['migrate']).then((out) => (migrateOutput = out.trim()));
  await load('N+1 migrates, N serves', { until: migrating });
  say(`N+1's chipin migrate: ${migrateOutput}`);

  // N+1 starts (its start-up migration finds nothing to do) while N serves, then joins the rotation.
  const starting = serve('N+1');
  await load('N+1 starts, N serves', { until: starting });
  const newServer = await starting;
  rotation = [oldServer, newServer];
  await load('N and N+1', { count: PHASE_REQUESTS.both });

  // A process of N restarted (a crash, a node replaced) starts on N+1's schema and serves.
  const restarting = serve('N');
  await load('a second N starts on the newer schema', { until: restarting });
  const oldAgain = await restarting;
  say("a second N process started on N+1's schema: ready");
  rotation = [oldServer, newServer, oldAgain];
  await load('N, N+1 and the second N', { count: PHASE_REQUESTS.both });

  // N leaves the rotation and is stopped while requests sent to it are in flight.
  const draining = load('N stopped, N+1 serves', { count: PHASE_REQUESTS.new });
  rotation = [newServer];
  oldServer.child.kill('SIGTERM');
  oldAgain.child.kill('SIGTERM');
  const oldExit = Math.max(
    (await within(oldServer.exited, STOP_TIMEOUT_MS, "N's exit after SIGTERM")) ?? 1,
    (await within(oldAgain.exited, STOP_TIMEOUT_MS, "the second N's exit after SIGTERM")) ?? 1,
  );
  await draining;
  const oldLog = oldServer.log + oldAgain.log;

  // Every acknowledged purchase, read back from N+1 alone.
  let missing = 0;
  const ids = [...acknowledged];
  await Promise.all(
    [...Array(CLIENTS)].map(async () => {
      for (let p = ids.pop(); p; p = ids.pop()) {
        const r = await fetch(`${newServer.url}/api/merchants/v1/purchases/${p.id}`, {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const body = (await r.json()) as { amount?: number };
        if (r.status !== 200 || body.amount !== p.amount) missing++;
      }
    }),
  );
  newServer.child.kill('SIGTERM');
  const newExit = await within(newServer.exited, STOP_TIMEOUT_MS, "N+1's exit after SIGTERM");

  say('');
  say('| phase | requests | to N | to N+1 | failed |');
  say('|---|---:|---:|---:|---:|');
  for (const { name, tally } of phases) say(`| ${name} | ${tally.requests} | ${tally.byVersion.N} | ${tally.byVersion['N+1']} | ${tally.failures.length} |`);
  const failures = phases.flatMap((p) => p.tally.failures);
  const byN = acknowledged.filter((a) => a.by === 'N').length;
  say('');
  say(
    `purchases acknowledged: ${acknowledged.length} (by N ${byN}, by N+1 ${acknowledged.length - byN}); read back on N+1 after N stopped: ${acknowledged.length - missing}, missing or different: ${missing}`,
  );
  say(`N's exits on SIGTERM: ${oldExit === 0 ? 'both 0' : oldExit}; N+1's: ${newExit}; ${Math.round((Date.now() - started) / 1000)} s in all`);
  for (const f of failures.slice(0, 10)) say(`failure: ${f}`);
  const pass = failures.length === 0 && missing === 0 && oldExit === 0 && newExit === 0 && /applied migrations/.test(migrateOutput);
  say(pass ? 'PASS' : 'FAIL');
  if (!pass) process.stdout.write(`\nN's output:\n${oldLog.slice(-4000)}\nN+1's output:\n${newServer.log.slice(-4000)}\n`);
  process.exitCode = pass ? 0 : 1;
}

main()
  .catch((err: unknown) => {
    process.stdout.write(`FAIL: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) child.kill('SIGKILL');
  });
