/**
 * HTTP benchmark: a bare Fastify baseline and the Chipin service, measured one scenario after
 * another with autocannon, in one run.
 *
 *   npm run bench
 *
 * Environment (all optional):
 *   BENCH_DURATION=10        seconds measured per scenario
 *   BENCH_CONNECTIONS=50     concurrent connections
 *   BENCH_WARMUP=2           seconds of unrecorded warm-up before each scenario (0: none)
 *   BENCH_ROUNDS=1           run the whole list this many times and keep, per scenario, the round
 *                            with the highest throughput (a filter for a shared, noisy machine)
 *   BENCH_DATABASE_URL=...   run Chipin on this PostgreSQL database instead of embedded PGlite
 *   BENCH_LOG_LEVEL=info     Chipin's LOG_LEVEL (its log goes to /dev/null either way)
 *   BENCH_ONLY=whoami,token  only the scenarios whose name contains one of these (case-insensitive)
 *   BENCH_SERVER_NODE_ARGS   extra node flags for the server processes (both), e.g.
 *                            "--cpu-prof --cpu-prof-dir=bench/results/prof"
 *   BENCH_PROCESSES          2 with BENCH_DATABASE_URL, else 1; with 2 or more: after the list, run that
 *                            many Chipin processes on the same database and the same pinned core(s)
 *                            and load them in parallel with the purchase read (one autocannon per
 *                            process, summed), compared with the one-process read of the same run
 *   BENCH_PIN=0              do not pin (default: autocannon on core 0, the servers and every
 *                            PostgreSQL process on the other cores, with taskset; bench/pinning.ts)
 *
 * Every target row (docs/performance.md#current-figures) is printed at the end with MET / NOT MET,
 * or why it was not measured (a row with a pg baseline needs BENCH_DATABASE_URL).
 *
 * Results: a table on stdout and bench/results/latest.json.
 */
import autocannon, { type Instance, type Result } from 'autocannon';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { LOOPBACK, ROOT, cpuTimeMs, freePort, machineBusyMs, killAllSync, runTs, spawnTs, stopAll, waitForOk, intEnv } from './children.ts';
import { loadRows } from './rows.ts';
import { PostgresServer, chooseCores, coreList, coresBusyMs, pin } from './pinning.ts';
import { SCENARIOS, basicAuth, type BenchContext, type Credentials, type RequestSpec, type Scenario } from './scenarios.ts';

const settings = {
  duration: intEnv('BENCH_DURATION', 10, 1, 500), // tokens live 600 s; setup fetches one per scenario
  connections: intEnv('BENCH_CONNECTIONS', 50, 1, 1000),
  warmup: intEnv('BENCH_WARMUP', 2, 0, 60),
  rounds: intEnv('BENCH_ROUNDS', 1, 1, 20),
  logLevel: process.env.BENCH_LOG_LEVEL?.trim() || 'info',
  databaseUrl: process.env.BENCH_DATABASE_URL?.trim() || undefined,
  only: (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean),
  serverNodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  // The several-processes row is part of every PostgreSQL run (it needs a shared database).
  processes: intEnv('BENCH_PROCESSES', process.env.BENCH_DATABASE_URL?.trim() ? 2 : 1, 1, 8),
  cores: chooseCores(process.env.BENCH_PIN),
};
const pinned = 'load' in settings.cores ? settings.cores : undefined;
if (settings.processes > 1 && !settings.databaseUrl) throw new Error('BENCH_PROCESSES needs BENCH_DATABASE_URL: processes share a PostgreSQL database');

const READY_TIMEOUT_MS = 120_000;
/**
 * The machine's cores. Not `availableParallelism()`: it follows this process's affinity, which
 * pinning sets to the load generator's one core.
 */
const MACHINE_CORES = cpus().length;
/**
 * CPU used by the rest of the machine above which a measurement is flagged as disturbed. On a quiet
 * machine this is kernel network work for loopback traffic, about 10 to 30 % of a core here.
 */
const DISTURBED_OTHER_CPU_PERCENT = 50;
let current: Instance | undefined;
let dataDir: string | undefined;
/** Server process ids, for their CPU time. */
const pids: Partial<Record<Scenario['server'], number>> = {};
/** The PostgreSQL server both servers use (BENCH_DATABASE_URL): its CPU counts in a request's cost. */
let postgres: PostgresServer | undefined;

/**
 * Puts a server child on the servers' cores (when pinning), once it is ready: its start (the
 * embedded database's migrations) uses every core, and every thread it has then is moved; the
 * threads it makes later inherit their creator's cores.
 */
function pinServer(pid: number | undefined): void {
  if (pinned && pid !== undefined) pin(pid, pinned.server);
}

async function cleanup(): Promise<void> {
  current?.stop();
  await stopAll();
  // The machine's PostgreSQL is shared with everything else: give it its cores back.
  postgres?.restore();
  postgres = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the servers...\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllSync);

// --- servers -------------------------------------------------------------------------------

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
  dataDir = mkdtempSync(join(tmpdir(), 'chipin-bench-'));
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
async function startExtraChipin(i: number): Promise<{ url: string; pid: number | undefined }> {
  const port = await freePort();
  const child = spawnTs(`chipin-${i}`, 'src/main.ts', ['serve'], { ...chipinEnv(dataDir!), PORT: String(port) }, settings.serverNodeArgs);
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

// --- measuring -----------------------------------------------------------------------------

interface Measured {
  name: string;
  server: Scenario['server'];
  method: string;
  path: string;
  requestsPerSec: number;
  requestsPerSecStddev: number;
  latencyAvgMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Server process CPU (user + system) over the measured run, in % of one core; Linux only. */
  serverCpuPercent?: number;
  /** Server CPU time per answered request, in microseconds: comparable even when the client is the bottleneck. */
  serverCpuUsPerRequest?: number;
  /** PostgreSQL's CPU time per answered request (every process of the server), in microseconds; with BENCH_DATABASE_URL. */
  postgresCpuUsPerRequest?: number;
  /** Server + PostgreSQL CPU per answered request, in microseconds: what a request costs the machine. */
  cpuUsPerRequest?: number;
  /** Busy share of the servers' pinned cores over the run, in % of those cores (pinned runs only). */
  pinnedBusyPercent?: number;
  /** autocannon's own CPU over the measured run, in % of one core. */
  clientCpuPercent: number;
  /**
   * CPU used by everything else on the machine during the run (kernel softirq for loopback
   * traffic included, other processes too), in % of one core. High values mean a noisy run.
   */
  otherCpuPercent?: number;
}

async function cannon(url: string, req: RequestSpec, duration: number, extra: Scenario['autocannon']): Promise<Result> {
  const instance = autocannon({
    url: url + req.path,
    method: req.method,
    headers: req.headers,
    body: req.body,
    connections: settings.connections,
    duration,
    timeout: 10,
    ...extra,
  });
  current = instance;
  // Bounded even if autocannon never reports: stop it and fail.
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, fail) => {
    timer = setTimeout(
      () => {
        instance.stop();
        fail(new Error(`autocannon did not finish within ${duration + 30} s`));
      },
      (duration + 30) * 1000,
    );
  });
  try {
    return await Promise.race([Promise.resolve(instance), guard]);
  } finally {
    clearTimeout(timer);
    current = undefined;
  }
}

async function preflight(url: string, req: RequestSpec, expect: number): Promise<void> {
  const res = await fetch(url + req.path, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${req.method} ${req.path} answered ${res.status}, expected ${expect}: ${text.slice(0, 500)}`);
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const disturbed = (m: Measured) => (m.otherCpuPercent ?? 0) > DISTURBED_OTHER_CPU_PERCENT;

/** Below this share of the machine busy over a second, nothing else is running: the next scenario may start. */
const QUIET_MACHINE_PERCENT = 25;
const QUIET_WAIT_MS = 30_000;

/**
 * Waits (at most {@link QUIET_WAIT_MS}) until the machine has been quiet for a second. After a
 * scenario that writes (the purchase create: thousands of rows), PostgreSQL's autovacuum and
 * Chipin's dispatch of the new events may go on for seconds, and a scenario measured meanwhile
 * would share the machine with them. Says so on the progress line when it gave up waiting.
 */
async function untilQuiet(): Promise<void> {
  const t0 = performance.now();
  for (;;) {
    const b0 = machineBusyMs();
    const w0 = performance.now();
    await new Promise((r) => setTimeout(r, 1_000));
    const b1 = machineBusyMs();
    if (b0 === undefined || b1 === undefined) return; // not Linux: no reading
    const percent = ((b1 - b0) / (performance.now() - w0) / MACHINE_CORES) * 100;
    if (percent < QUIET_MACHINE_PERCENT) return;
    if (performance.now() - t0 > QUIET_WAIT_MS) {
      process.stdout.write(` (machine still ${Math.round(percent)} % busy after ${QUIET_WAIT_MS / 1000} s)`);
      return;
    }
  }
}

async function measure(s: Scenario, ctx: BenchContext): Promise<Measured> {
  const url = s.server === 'bare' ? ctx.bareUrl : ctx.chipinUrl;
  const req: RequestSpec = { method: s.method, path: s.path, headers: s.headers, body: s.body, ...(await s.setup?.(ctx)) };
  await preflight(url, req, s.expectStatus ?? 200);
  await untilQuiet();
  if (settings.warmup > 0) await cannon(url, req, settings.warmup, s.autocannon);
  const pid = pids[s.server];
  const cpu0 = cpuTimeMs(pid);
  const pg0 = postgres?.cpuMs();
  const busy0 = machineBusyMs();
  const pinned0 = pinned ? coresBusyMs(pinned.server) : undefined;
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await cannon(url, req, settings.duration, s.autocannon);
  const wallMs = performance.now() - t0;
  const cpu1 = cpuTimeMs(pid);
  const pg1 = postgres?.cpuMs();
  const busy1 = machineBusyMs();
  const pinned1 = pinned ? coresBusyMs(pinned.server) : undefined;
  const client = process.cpuUsage(client0);
  const clientMs = (client.user + client.system) / 1000;
  const serverCpuMs = cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined;
  const pgCpuMs = pg0 !== undefined && pg1 !== undefined ? pg1 - pg0 : undefined;
  const perRequest = (ms: number) => round1((ms * 1000) / Math.max(1, r.latency.totalCount));
  return {
    name: s.name,
    server: s.server,
    method: req.method,
    path: req.path,
    requestsPerSec: r.requests.average,
    requestsPerSecStddev: r.requests.stddev,
    latencyAvgMs: r.latency.average,
    latencyP50Ms: r.latency.p50,
    latencyP99Ms: r.latency.p99,
    latencyMaxMs: r.latency.max,
    requests: r.latency.totalCount,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([k, v]) => [k, v.count])),
    serverCpuPercent: serverCpuMs === undefined ? undefined : round1((serverCpuMs / wallMs) * 100),
    serverCpuUsPerRequest: serverCpuMs === undefined ? undefined : perRequest(serverCpuMs),
    postgresCpuUsPerRequest: pgCpuMs === undefined ? undefined : perRequest(pgCpuMs),
    cpuUsPerRequest: serverCpuMs === undefined ? undefined : perRequest(serverCpuMs + (pgCpuMs ?? 0)),
    pinnedBusyPercent: pinned && pinned0 !== undefined && pinned1 !== undefined ? round1(((pinned1 - pinned0) / wallMs / coreList(pinned.server).length) * 100) : undefined,
    clientCpuPercent: round1((clientMs / wallMs) * 100),
    otherCpuPercent:
      serverCpuMs === undefined || busy0 === undefined || busy1 === undefined
        ? undefined
        : round1((Math.max(0, busy1 - busy0 - serverCpuMs - (pgCpuMs ?? 0) - clientMs) / wallMs) * 100),
  };
}

// --- report --------------------------------------------------------------------------------

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

function machine() {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    /* not Linux */
  }
  return {
    cpus: MACHINE_CORES,
    cpuModel,
    cpuMHz: cpus()[0]?.speed,
    memTotalGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    memFreeGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

/**
 * The several-processes row: N processes (BENCH_PROCESSES, 2 by default) on the same pinned
 * core(s) must not collapse: together they hold at least 90 % of one process's read throughput.
 * On a fixed number of cores more processes cannot add throughput; what they may not do is lose it
 * to contention (locks, connections, cache misses). Throughput beyond one machine's cores is the
 * deployment's question (docs/deployment.md).
 */
const PROCESSES_TARGET = { ratio: 0.9 };
/**
 * Seconds of load on the processes together before the measured run, whatever BENCH_WARMUP says:
 * the processes started for this row are cold (their code not yet optimised by V8, which also
 * compiles on threads of their own), while the one-process figure comes from a process warmed by
 * the whole list. With 2 s, three processes used 15–18 % more CPU per read than after 25 s
 * (docs/performance.md).
 */
const PROCESSES_WARMUP_S = 20;
const READ_SCENARIO = 'GET /api/merchants/v1/purchases/{id}';

/**
 * BENCH_PROCESSES: the purchase read on that many Chipin processes sharing the database (and the
 * pinned cores), one autocannon per process in parallel (Node 20's net has no SO_REUSEPORT to
 * share one port), the same total connections as the one-process run, throughputs and CPU summed.
 * Compared with the one-process read of this run.
 */
async function measureProcesses(ctx: BenchContext, results: Measured[]) {
  const single = results.find((r) => r.name === READ_SCENARIO);
  const scenario = SCENARIOS.find((x) => x.name === READ_SCENARIO)!;
  if (!single) return { summary: `needs the one-process ${READ_SCENARIO} in the same run`, verdict: 'NOT MEASURED' };
  process.stdout.write(`\n  starting ${settings.processes - 1} more Chipin process(es) on the same database ...\n`);
  const servers = [{ url: ctx.chipinUrl, pid: pids.chipin }];
  for (let i = 2; i <= settings.processes; i++) servers.push(await startExtraChipin(i));
  const req: RequestSpec = { method: scenario.method, path: scenario.path, headers: scenario.headers, ...(await scenario.setup?.(ctx)) };
  for (const s of servers) await preflight(s.url, req, 200);
  await untilQuiet(); // the new processes' start (and the scenarios before) settled
  const connections = Math.max(1, Math.round(settings.connections / servers.length));
  const extra = { connections };
  await Promise.all(servers.map((s) => cannon(s.url, req, Math.max(settings.warmup, PROCESSES_WARMUP_S), extra)));
  const cpu0 = servers.map((s) => cpuTimeMs(s.pid));
  const pg0 = postgres?.cpuMs();
  const t0 = performance.now();
  const runs = await Promise.all(servers.map((s) => cannon(s.url, req, settings.duration, extra)));
  const wallMs = performance.now() - t0;
  const cpuMs = servers.reduce((sum, s, i) => sum + ((cpuTimeMs(s.pid) ?? 0) - (cpu0[i] ?? 0)), 0);
  const pgMs = pg0 === undefined ? 0 : (postgres?.cpuMs() ?? pg0) - pg0;
  const requestsPerSec = runs.reduce((sum, r) => sum + r.requests.average, 0);
  const requests = runs.reduce((sum, r) => sum + r.latency.totalCount, 0);
  const non2xx = runs.reduce((sum, r) => sum + r.non2xx, 0);
  const cpuUsPerRequest = round1(((cpuMs + pgMs) * 1000) / Math.max(1, requests));
  const ratio = requestsPerSec / single.requestsPerSec;
  const verdict = non2xx > 0 ? 'NOT MET (non-2xx answers)' : ratio >= PROCESSES_TARGET.ratio ? 'MET' : 'NOT MET';
  const summary =
    `${servers.length} processes ${Math.round(requestsPerSec)} req/s vs one ${Math.round(single.requestsPerSec)} req/s = ${ratio.toFixed(2)} ×; ` +
    `CPU (server + PostgreSQL) ${cpuUsPerRequest} µs/req vs ${single.cpuUsPerRequest ?? '-'}; ${Math.round(wallMs / 1000)} s` +
    (pinned ? `, on core(s) ${pinned.server}` : ', not pinned');
  process.stdout.write(`  ${summary}\n\n`);
  return {
    processes: servers.length,
    connectionsEach: connections,
    requestsPerSec: round1(requestsPerSec),
    ratio: round1(ratio * 100) / 100,
    cpuUsPerRequest,
    non2xx,
    summary,
    verdict,
  };
}

async function main(): Promise<void> {
  const scenarios = SCENARIOS.filter(
    (s) => (settings.only.length === 0 || settings.only.some((o) => s.name.toLowerCase().includes(o))) && (!s.needsDatabase || settings.databaseUrl),
  );
  if (scenarios.length === 0) throw new Error(`BENCH_ONLY matches no scenario (${SCENARIOS.map((s) => s.name).join('; ')})`);
  const needsBare = scenarios.some((s) => s.server === 'bare');
  const needsChipin = scenarios.some((s) => s.server === 'chipin');

  const db = settings.databaseUrl ? 'PostgreSQL (BENCH_DATABASE_URL)' : 'embedded PGlite (fresh temp DATA_DIR)';
  process.stdout.write(
    `Chipin benchmark: ${settings.rounds > 1 ? `best of ${settings.rounds} rounds, ` : ''}${settings.duration} s per scenario after ${settings.warmup} s warm-up, ${settings.connections} connections, ` +
      `LOG_LEVEL=${settings.logLevel} (log to /dev/null), ${db}.\n` +
      (pinned
        ? `Pinned: autocannon on core ${pinned.load}; the servers and PostgreSQL on core(s) ${pinned.server} of ${MACHINE_CORES}.\n\n`
        : `Not pinned (${'none' in settings.cores ? settings.cores.none : ''}): autocannon shares the ${MACHINE_CORES} CPU(s) with the servers, so figures are relative, not capacity.\n\n`),
  );

  const [bareUrl, chipin] = await Promise.all([
    needsBare ? startBare() : Promise.resolve(''),
    needsChipin ? startChipin() : Promise.resolve({ url: '', credentials: { api_key: '', api_secret: '' } }),
  ]);
  if (settings.databaseUrl) {
    postgres = await postgresServer(settings.databaseUrl);
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
  const ctx: BenchContext = {
    bareUrl,
    chipinUrl: chipin.url,
    credentials: chipin.credentials,
    accessToken: () => accessToken(chipin.url, chipin.credentials),
  };

  const rounds: Measured[][] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const measured: Measured[] = [];
    for (const s of scenarios) {
      if (interrupted) return;
      process.stdout.write(`  ${settings.rounds > 1 ? `round ${round}: ` : ''}measuring ${s.name} ...`);
      const m = await measure(s, ctx);
      measured.push(m);
      process.stdout.write(` ${Math.round(m.requestsPerSec)} req/s${disturbed(m) ? ' (disturbed)' : ''}\n`);
    }
    rounds.push(measured);
  }
  // Per scenario, the best round: interference from other work only ever lowers throughput.
  const results = scenarios.map((_, i) => rounds.map((r) => r[i]!).reduce((best, m) => (m.requestsPerSec > best.requestsPerSec ? m : best)));

  const comparisons = scenarios.flatMap((s) => {
    if (!s.baseline) return [];
    const a = results.find((r) => r.name === s.baseline!.scenario);
    const b = results.find((r) => r.name === s.name);
    if (!a || !b) return [];
    const percent = (b.requestsPerSec / a.requestsPerSec) * 100;
    // The same comparison from CPU per request (server + PostgreSQL): the baseline's cost over
    // Chipin's. It must tell the same story as the throughput: Chipin's cost at most 1/target of
    // the baseline's.
    const cpuPercent = a.cpuUsPerRequest && b.cpuUsPerRequest ? round1((a.cpuUsPerRequest / b.cpuUsPerRequest) * 100) : undefined;
    return [
      {
        scenario: s.name,
        baseline: a.name,
        percent: round1(percent),
        targetPercent: s.baseline.targetPercent,
        meetsThroughput: percent >= s.baseline.targetPercent,
        meetsTarget: percent >= s.baseline.targetPercent && (cpuPercent === undefined || cpuPercent >= s.baseline.targetPercent),
        cpuPerRequestPercent: cpuPercent,
        /** A disturbed run on either side makes the throughput ratio meaningless. */
        reliable: !disturbed(a) && !disturbed(b),
      },
    ];
  });

  const rows = [
    [
      'scenario',
      'req/s (avg)',
      'p50 ms',
      'p99 ms',
      'non-2xx',
      'errors',
      'vs baseline',
      'server CPU',
      'µs server/req',
      'µs pg/req',
      'µs CPU/req',
      'by CPU',
      'pinned busy',
      'client CPU',
      'other CPU',
    ],
    ...results.map((r) => {
      const c = comparisons.find((x) => x.scenario === r.name);
      return [
        r.name,
        r.requestsPerSec.toFixed(0),
        r.latencyP50Ms.toFixed(0),
        r.latencyP99Ms.toFixed(0),
        String(r.non2xx),
        String(r.errors + r.timeouts),
        c ? `${c.percent.toFixed(1)} %` : '',
        r.serverCpuPercent === undefined ? '-' : `${r.serverCpuPercent.toFixed(0)} %`,
        r.serverCpuUsPerRequest === undefined ? '-' : r.serverCpuUsPerRequest.toFixed(1),
        r.postgresCpuUsPerRequest === undefined ? '-' : r.postgresCpuUsPerRequest.toFixed(1),
        r.cpuUsPerRequest === undefined ? '-' : r.cpuUsPerRequest.toFixed(1),
        c?.cpuPerRequestPercent === undefined ? '' : `${c.cpuPerRequestPercent.toFixed(1)} %`,
        r.pinnedBusyPercent === undefined ? '-' : `${r.pinnedBusyPercent.toFixed(0)} %`,
        `${r.clientCpuPercent.toFixed(0)} %`,
        r.otherCpuPercent === undefined ? '-' : `${r.otherCpuPercent.toFixed(0)} %${disturbed(r) ? ' !' : ''}`,
      ];
    }),
  ];
  process.stdout.write('\n' + table(rows) + '\n');
  process.stdout.write(
    '(CPU columns: % of one core during the measured run. µs server/req, µs pg/req: CPU time per request of the server\n' +
      " process and of every PostgreSQL process; µs CPU/req: both. by CPU: the baseline's µs CPU/req over this row's.\n" +
      ` pinned busy: the servers' core(s) (${pinned ? pinned.server : 'not pinned'}). other CPU: the rest of the machine: kernel network work and\n` +
      ` other processes; "!" above ${DISTURBED_OTHER_CPU_PERCENT} %: the run was disturbed.)\n\n`,
  );
  const processes = settings.processes > 1 ? await measureProcesses(ctx, results) : undefined;

  // Every target row, in its order, measured or with why not.
  process.stdout.write('targets:\n');
  for (const s of SCENARIOS.filter((x) => x.baseline)) {
    const c = comparisons.find((x) => x.scenario === s.name);
    const base = SCENARIOS.find((x) => x.name === s.baseline!.scenario);
    const label = `  ${s.name} vs ${s.baseline!.scenario}, target ≥ ${s.baseline!.targetPercent} %: `;
    if (!c) {
      const why = (s.needsDatabase || base?.needsDatabase) && !settings.databaseUrl ? 'needs BENCH_DATABASE_URL' : 'not run (BENCH_ONLY)';
      process.stdout.write(`${label}${why}\n`);
      continue;
    }
    process.stdout.write(
      `${label}${c.percent.toFixed(1)} % of baseline throughput` +
        (c.cpuPerRequestPercent === undefined ? '' : `, ${c.cpuPerRequestPercent.toFixed(1)} % by CPU per request (server + PostgreSQL)`) +
        `: ${c.meetsTarget ? 'MET' : 'NOT MET'}` +
        (c.reliable ? '' : ' [UNRELIABLE: a run was disturbed by other load, see "other CPU"]') +
        (pinned ? '' : ` [not pinned: ${'none' in settings.cores ? settings.cores.none : ''}]`) +
        '\n',
    );
  }
  // Informative: what a route 25 µs slower than the bare GET costs beyond those 25 µs.
  const bare = results.find((r) => r.name === 'bare GET /bare');
  const spin = results.find((r) => r.name === 'bare GET /bare/spin (+25 µs of work)');
  if (bare?.cpuUsPerRequest !== undefined && spin?.cpuUsPerRequest !== undefined) {
    const cost = spin.cpuUsPerRequest - bare.cpuUsPerRequest;
    process.stdout.write(
      `  (informative) 25 µs more work per request cost ${round1(cost)} µs of CPU per request: ${round1(cost - 25)} µs more, ` +
        'the kernel waking the less busy load generator (docs/performance.md#what-limits-each-row)\n',
    );
  }
  const processesLabel = `  ${Math.max(2, settings.processes)} processes on the same core(s) and PostgreSQL, reads, target ≥ ${PROCESSES_TARGET.ratio} × one process: `;
  if (!processes) process.stdout.write(`${processesLabel}not run (needs BENCH_DATABASE_URL and BENCH_PROCESSES ≥ 2)\n`);
  else process.stdout.write(`${processesLabel}${processes.summary}: ${processes.verdict}\n`);
  // The rows the longer benchmarks measure, as they last ran on this machine.
  for (const [name, command] of [
    ['delivery', 'npm run bench:delivery'],
    ['memory', 'npm run bench:memory'],
    ['start', 'npm run bench:start'],
    ['scale', 'npm run bench:scale'],
  ] as const) {
    const saved = loadRows(name);
    if (!saved) process.stdout.write(`  ${name}: not measured here yet (${command})\n`);
    else for (const r of saved.rows) process.stdout.write(`  ${r.row}, target ${r.target}: ${r.measured}: ${r.verdict} (${command}, ${saved.date.slice(0, 16)}Z)\n`);
  }

  const outDir = join(ROOT, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, 'latest.json');
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    settings: { ...settings, databaseUrl: settings.databaseUrl ? '(set)' : undefined, database: db },
    results,
    comparisons,
    processes,
    rounds: settings.rounds > 1 ? rounds : undefined,
  };
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(`\nresults written to ${file}\n`);
}

try {
  await main();
} catch (err) {
  process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
