/**
 * Measuring a scenario of `npm run bench`: a preflight request, a quiet machine, a warm-up, then
 * autocannon for BENCH_DURATION, with the CPU of the server, PostgreSQL, the load generator and
 * the rest of the machine read around it; the list BENCH_ROUNDS times over.
 */
import autocannon, { type Result } from 'autocannon';
import { cpuTimeMs, machineBusyMs } from '../children.ts';
import { coreList, coresBusyMs } from '../pinning.ts';
import type { BenchContext, RequestSpec, Scenario } from '../scenarios.ts';
import { held, isInterrupted, pids } from './lifecycle.ts';
import { DISTURBED_OTHER_CPU_PERCENT, MACHINE_CORES, pinned, settings } from './settings.ts';

export interface Measured {
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

export async function cannon(url: string, req: RequestSpec, duration: number, extra: Scenario['autocannon']): Promise<Result> {
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
  held.current = instance;
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
    held.current = undefined;
  }
}

export async function preflight(url: string, req: RequestSpec, expect: number): Promise<void> {
  const res = await fetch(url + req.path, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${req.method} ${req.path} answered ${res.status}, expected ${expect}: ${text.slice(0, 500)}`);
}

export const round1 = (n: number) => Math.round(n * 10) / 10;
export const disturbed = (m: Measured) => (m.otherCpuPercent ?? 0) > DISTURBED_OTHER_CPU_PERCENT;

/** Below this share of the machine busy over a second, nothing else is running: the next scenario may start. */
const QUIET_MACHINE_PERCENT = 25;
const QUIET_WAIT_MS = 30_000;

/**
 * Waits (at most {@link QUIET_WAIT_MS}) until the machine has been quiet for a second. After a
 * scenario that writes (the purchase create: thousands of rows), PostgreSQL's autovacuum and
 * Chipin's dispatch of the new events may go on for seconds, and a scenario measured meanwhile
 * would share the machine with them. Says so on the progress line when it gave up waiting.
 */
export async function untilQuiet(): Promise<void> {
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

export async function measure(s: Scenario, ctx: BenchContext): Promise<Measured> {
  const url = s.server === 'bare' ? ctx.bareUrl : ctx.chipinUrl;
  const req: RequestSpec = { method: s.method, path: s.path, headers: s.headers, body: s.body, ...(await s.setup?.(ctx)) };
  await preflight(url, req, s.expectStatus ?? 200);
  await untilQuiet();
  if (settings.warmup > 0) await cannon(url, req, settings.warmup, s.autocannon);
  const pid = pids[s.server];
  const cpu0 = cpuTimeMs(pid);
  const pg0 = held.postgres?.cpuMs();
  const busy0 = machineBusyMs();
  const pinned0 = pinned ? coresBusyMs(pinned.server) : undefined;
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await cannon(url, req, settings.duration, s.autocannon);
  const wallMs = performance.now() - t0;
  const cpu1 = cpuTimeMs(pid);
  const pg1 = held.postgres?.cpuMs();
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

/**
 * Every scenario, BENCH_ROUNDS times over, with a progress line each; undefined when interrupted.
 * Per scenario, the best round: interference from other work only ever lowers throughput.
 */
export async function measureRounds(scenarios: Scenario[], ctx: BenchContext): Promise<{ rounds: Measured[][]; results: Measured[] } | undefined> {
  const rounds: Measured[][] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const measured: Measured[] = [];
    for (const s of scenarios) {
      if (isInterrupted()) return undefined;
      process.stdout.write(`  ${settings.rounds > 1 ? `round ${round}: ` : ''}measuring ${s.name} ...`);
      const m = await measure(s, ctx);
      measured.push(m);
      process.stdout.write(` ${Math.round(m.requestsPerSec)} req/s${disturbed(m) ? ' (disturbed)' : ''}\n`);
    }
    rounds.push(measured);
  }
  const results = scenarios.map((_, i) => rounds.map((r) => r[i]!).reduce((best, m) => (m.requestsPerSec > best.requestsPerSec ? m : best)));
  return { rounds, results };
}
