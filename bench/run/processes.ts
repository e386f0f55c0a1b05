/** The several-processes row of `npm run bench` (BENCH_PROCESSES): Chipin processes sharing one database and the pinned cores. */
import { cpuTimeMs } from '../children.ts';
import { SCENARIOS, type BenchContext, type RequestSpec } from '../scenarios.ts';
import { held, pids } from './lifecycle.ts';
import { type Measured, cannon, preflight, round1, untilQuiet } from './measure.ts';
import { startExtraChipin } from './servers.ts';
import { pinned, settings } from './settings.ts';

/**
 * The several-processes row: N processes (BENCH_PROCESSES, 2 by default) on the same pinned
 * core(s) must not collapse: together they hold at least 90 % of one process's read throughput.
 * On a fixed number of cores more processes cannot add throughput; what they may not do is lose it
 * to contention (locks, connections, cache misses). Throughput beyond one machine's cores is the
 * deployment's question (docs/deployment.md).
 */
export const PROCESSES_TARGET = { ratio: 0.9 };
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
export async function measureProcesses(ctx: BenchContext, results: Measured[]) {
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
  const pg0 = held.postgres?.cpuMs();
  const t0 = performance.now();
  const runs = await Promise.all(servers.map((s) => cannon(s.url, req, settings.duration, extra)));
  const wallMs = performance.now() - t0;
  const cpuMs = servers.reduce((sum, s, i) => sum + ((cpuTimeMs(s.pid) ?? 0) - (cpu0[i] ?? 0)), 0);
  const pgMs = pg0 === undefined ? 0 : (held.postgres?.cpuMs() ?? pg0) - pg0;
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
