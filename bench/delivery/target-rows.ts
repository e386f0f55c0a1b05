/**
 * The target rows of docs/performance.md#delivery-rows (bench:delivery with no run variable set):
 * the producers' highest commit rate, paced at it, then a burst, each a fresh child run of
 * bench/delivery.ts, printed with their targets and MET / NOT MET and saved for `npm run bench`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../children.ts';
import { saveRows } from '../rows.ts';
import { log } from './settings.ts';

interface RunResult {
  events: number;
  received: number;
  duplicates: number;
  lost: number;
  timedOut: boolean;
  burstCommitSeconds: number;
  deliveriesPerSecond?: number;
  latencyMs: { p50?: number; p99?: number };
  cpuPercentOfOneCore: { chipin?: number; postgres?: number; wholeMachine?: number };
}

/** One run of this script in a child process, with `vars`; answers what it wrote. */
function childRun(vars: Record<string, string>, resultFile: string): RunResult | undefined {
  const out = join(ROOT, 'bench/results', resultFile);
  rmSync(out, { force: true });
  // Each run has its own server and database; a child run keeps this script's cleanup on Ctrl-C.
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/delivery.ts')], { cwd: ROOT, env: { ...process.env, ...vars }, stdio: 'inherit' });
  try {
    return JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  } catch {
    return undefined;
  }
}

/**
 * The paced row runs at the highest rate this host's producers commit (measured first, in the
 * same shape: one event per transaction on four connections, Chipin delivering meanwhile), at
 * most `maxRate`: on 2 cores the producers, PostgreSQL and the delivery share the machine, and a
 * pace the producers cannot keep would measure the producers, not the delivery.
 */
const PACED = { maxRate: 2_000, seconds: 30, p50Ms: 50, p99Ms: 500, calibrationEvents: 15_000 };
const BURST = { events: 20_000, drainPerSecond: 2_000 };

export function issueMain(): void {
  log(`Delivery benchmark, the issue's rows: the producers' highest commit rate, paced at it for ${PACED.seconds} s, then a burst of ${BURST.events}.\n`);
  const calibration = childRun({ BENCH_RATE: '0', BENCH_BATCH: '1', BENCH_PRODUCERS: '4', BENCH_EVENTS: String(PACED.calibrationEvents) }, 'delivery.json');
  const producersRate = calibration ? calibration.events / calibration.burstCommitSeconds : undefined;
  log('');
  if (!producersRate) {
    log('the calibration run failed: no paced row');
    saveRows('delivery', [{ row: 'webhook delivery, paced', target: '', measured: 'the calibration run failed', verdict: 'NOT MEASURED' }]);
    return;
  }
  const rate = Math.max(50, Math.min(PACED.maxRate, Math.floor(producersRate / 50) * 50));
  log(`producers committed ${Math.round(producersRate)} events/s (one per transaction, 4 connections): pacing at ${rate}/s\n`);
  const paced = childRun({ BENCH_RATE: String(rate), BENCH_EVENTS: String(rate * PACED.seconds) }, `delivery-${rate}ps.json`);
  log('');
  const burst = childRun({ BENCH_EVENTS: String(BURST.events) }, 'delivery.json');
  const exact = (r: RunResult) => r.lost === 0 && r.duplicates === 0 && r.received === r.events && !r.timedOut;
  const verdict = (met: boolean) => (met ? 'MET' : 'NOT MET');
  const rows: string[][] = [['scenario', 'target', 'measured', 'result']];
  if (paced) {
    // The producer must have kept the pace for the row to be the one asked for (5 % slack).
    const pace = paced.events / paced.burstCommitSeconds;
    const met = exact(paced) && pace >= rate * 0.95 && (paced.latencyMs.p50 ?? Infinity) < PACED.p50Ms && (paced.latencyMs.p99 ?? Infinity) < PACED.p99Ms;
    rows.push([
      `webhook delivery, paced at ${rate}/s (producers' highest: ${Math.round(producersRate)}/s) for ${PACED.seconds} s`,
      `p50 < ${PACED.p50Ms} ms, p99 < ${PACED.p99Ms} ms, none lost, none twice`,
      `p50 ${paced.latencyMs.p50} ms, p99 ${paced.latencyMs.p99} ms, committed at ${Math.round(pace)}/s, lost ${paced.lost}, twice ${paced.duplicates}` +
        `, CPU chipin ${paced.cpuPercentOfOneCore.chipin} % postgres ${paced.cpuPercentOfOneCore.postgres} %`,
      verdict(met),
    ]);
  } else rows.push([`webhook delivery, paced at ${rate}/s for ${PACED.seconds} s`, '', 'the run failed', 'NOT MET']);
  if (burst) {
    const met = exact(burst) && (burst.deliveriesPerSecond ?? 0) >= BURST.drainPerSecond;
    rows.push([
      `burst of ${BURST.events} events`,
      `drained at ≥ ${BURST.drainPerSecond} deliveries/s, none lost, none twice`,
      `${burst.deliveriesPerSecond} deliveries/s, lost ${burst.lost}, twice ${burst.duplicates}` +
        `, CPU chipin ${burst.cpuPercentOfOneCore.chipin} % postgres ${burst.cpuPercentOfOneCore.postgres} %`,
      verdict(met),
    ]);
  } else rows.push([`burst of ${BURST.events} events`, '', 'the run failed', 'NOT MET']);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  log('');
  for (const r of rows) log(r.map((c, i) => c.padEnd(widths[i]!)).join(' | '));
  saveRows(
    'delivery',
    rows.slice(1).map(([row, target, measured, verdict]) => ({ row: row!, target: target!, measured: measured!, verdict: verdict === 'MET' ? 'MET' : 'NOT MET' })),
  );
}
