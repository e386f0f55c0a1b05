/**
 * A bench:delivery run's result: its figures from the commits and arrivals (and, on PostgreSQL,
 * the service's records), printed and written to bench/results/delivery[-embedded][-<rate>ps].json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../children.ts';
import type { runBurst } from './burst.ts';
import { breakdown, distribution, postgresCpuBetween, r1 } from './figures.ts';
import { held } from './lifecycle.ts';
import type { Setup } from './setup.ts';
import { TRIGGER, log, settings } from './settings.ts';

type DeliveryResult = Awaited<ReturnType<typeof deliveryResult>>;

export async function deliveryResult(setup: Setup, burst: Awaited<ReturnType<typeof runBurst>>) {
  const { machine, receiver, quiet, databaseUrl, accountId, database } = setup;
  const { commits, firstArrival, counts, quietCommits, cpu0, cpu1, burstStart, burstEnd, timedOut, lastArrival, loadAvgAtEnd } = burst;
  const latencies: number[] = [];
  const upper: number[] = [];
  let firstCommit = Infinity;
  for (const [key, c] of commits) {
    firstCommit = Math.min(firstCommit, c.at);
    const at = firstArrival.get(key);
    if (at === undefined) continue;
    latencies.push(at - c.at);
    if (c.sentAt !== undefined) upper.push(at - c.sentAt);
  }
  const received = firstArrival.size;
  const lost = [...commits.keys()].filter((k) => !firstArrival.has(k)).length;
  const strangers = [...firstArrival.keys()].filter((k) => !commits.has(k)).length;
  const spanS = received > 0 ? (lastArrival - firstCommit) / 1000 : undefined;
  const latency = distribution(latencies);
  const wallMs = cpu1.at - burstStart;
  const cpuPercent = (ms: number | undefined) => (ms === undefined ? undefined : Math.round((ms / wallMs) * 1000) / 10);

  // The quiet merchant: events committed at least 1 s before the end (time to arrive), and theirs.
  const quietLatencies: number[] = [];
  let quietLost = 0;
  for (const [id, at] of quietCommits) {
    const arrived = receiver.quietArrivals.get(id);
    if (arrived !== undefined) quietLatencies.push(arrived - at);
    else if (at < cpu1.at - 1_000) quietLost++;
  }
  const quietLatency = quiet ? distribution(quietLatencies) : undefined;

  let stages: Awaited<ReturnType<typeof breakdown>> | undefined;
  if (settings.producer === 'sql' && databaseUrl) {
    stages = await breakdown(held.sqlClient!, accountId, commits, firstArrival);
  }

  const result = {
    date: new Date().toISOString(),
    machine: { ...machine, loadAvgAtEnd },
    settings: {
      events: settings.events,
      purchases: settings.purchases,
      producer: settings.producer,
      trigger: TRIGGER,
      ...(settings.producer === 'sql' ? { eventsPerTransaction: settings.batch, producerConnections: settings.producers } : { apiConcurrency: settings.apiConcurrency }),
      ratePerSecond: settings.rate || 'burst',
      database,
      timeoutS: settings.timeoutS,
      serverNodeArgs: settings.serverNodeArgs,
    },
    events: commits.size,
    received,
    duplicates: counts.duplicates,
    lost,
    unexpected: receiver.unexpected + strangers,
    timedOut,
    burstCommitSeconds: r1((burstEnd - burstStart) / 1000),
    spanSeconds: spanS === undefined ? undefined : Math.round(spanS * 1000) / 1000,
    deliveriesPerSecond: spanS ? r1(received / spanS) : undefined,
    latencyMs: latency,
    ...(quietLatency ? { quietMerchant: { ratePerSecond: settings.quietRate, events: quietCommits.size, notYetArrived: quietLost, latencyMs: quietLatency } } : {}),
    ...(upper.length ? { latencyUpperBoundMs: distribution(upper) } : {}),
    p50Under50ms: latency.p50 !== undefined && latency.p50 < 50,
    cpuPercentOfOneCore: {
      chipin: cpuPercent(cpu0.chipin === undefined || cpu1.chipin === undefined ? undefined : cpu1.chipin - cpu0.chipin),
      benchProcess: cpuPercent((cpu1.bench.user + cpu1.bench.system) / 1000),
      /** Every postgres process on the machine (other users of the server included). */
      ...(settings.embedded ? {} : { postgres: cpuPercent(postgresCpuBetween(cpu0.postgres, cpu1.postgres)) }),
      wholeMachine: cpuPercent(cpu0.machine === undefined || cpu1.machine === undefined ? undefined : cpu1.machine - cpu0.machine),
    },
    ...(stages ? { stages } : {}),
  };
  return result;
}

export function printResult(result: DeliveryResult, elapsedS: number): void {
  const { received, timedOut, duplicates, lost, latencyMs: latency, quietMerchant, machine, stages } = result;
  const ms = (n: number | undefined) => (n === undefined ? 'n/a' : `${n} ms`);
  log('');
  log(`events                 ${result.events}`);
  log(`deliveries received    ${received}${timedOut ? ` (timed out after ${elapsedS.toFixed(1)} s)` : ''}`);
  log(`duplicates             ${duplicates}`);
  log(`lost                   ${lost}`);
  if (result.unexpected) log(`unexpected             ${result.unexpected}`);
  log(`burst committed in     ${result.burstCommitSeconds} s`);
  log(`deliveries/s           ${result.deliveriesPerSecond ?? 'n/a'}  (${received} over ${result.spanSeconds} s, first commit → last arrival)`);
  log(`latency p50            ${ms(latency.p50)}`);
  log(`latency p90            ${ms(latency.p90)}`);
  log(`latency p99            ${ms(latency.p99)}`);
  log(`latency max            ${ms(latency.max)}   (min ${ms(latency.min)}, mean ${ms(latency.mean)})`);
  if (result.latencyUpperBoundMs)
    log(`latency from request   p50 ${ms(result.latencyUpperBoundMs.p50)}, p99 ${ms(result.latencyUpperBoundMs.p99)} (upper bound: abort request start → arrival)`);
  log(`p50 < 50 ms            ${result.p50Under50ms ? 'yes' : 'NO'}`);
  if (quietMerchant) {
    const quietLatency = quietMerchant.latencyMs;
    log(`quiet merchant         ${quietMerchant.events} events at ${settings.quietRate}/s during the run, ${quietMerchant.notYetArrived} not arrived 1 s after commit by the end`);
    log(`  its latency          p50 ${ms(quietLatency.p50)}, p90 ${ms(quietLatency.p90)}, p99 ${ms(quietLatency.p99)}, max ${ms(quietLatency.max)}`);
  }
  log(
    `CPU (% of one core)    chipin ${result.cpuPercentOfOneCore.chipin}, bench ${result.cpuPercentOfOneCore.benchProcess}${'postgres' in result.cpuPercentOfOneCore ? `, postgres ${result.cpuPercentOfOneCore.postgres}` : ''}, whole machine ${result.cpuPercentOfOneCore.wholeMachine} (of ${machine.cpus * 100})`,
  );
  log(`load average           start ${machine.loadAvgAtStart.join(' ')}, end ${machine.loadAvgAtEnd.join(' ')}`);
  if (stages) {
    const d = (x: ReturnType<typeof distribution>) => `p50 ${ms(x.p50)}, p90 ${ms(x.p90)}, p99 ${ms(x.p99)}, max ${ms(x.max)}`;
    log('stages (service records, ms precision):');
    log(`  commit → dispatched        ${d(stages.commitToDispatchedMs)}  (${stages.dispatchPasses} dispatch transactions)`);
    log(`  dispatched → attempt start ${d(stages.dispatchedToAttemptStartMs)}`);
    log(`  attempt start → arrival    ${d(stages.attemptStartToArrivalMs)}`);
    log(`  attempt duration           ${d(stages.attemptDurationMs)}`);
    if (stages.retried) log(`  deliveries retried         ${stages.retried}`);
  }
}

export function writeResult(result: DeliveryResult): void {
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const out = join(ROOT, 'bench/results', `delivery${settings.embedded ? '-embedded' : ''}${settings.rate ? `-${settings.rate}ps` : ''}.json`);
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  log(`\nWrote ${out}`);
  if (result.lost > 0 || result.duplicates > 0) process.exitCode = 1;
}
