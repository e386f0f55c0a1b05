/**
 * `npm run bench`'s report: each scenario against its baseline, the table, every target row of
 * docs/performance.md#current-figures with its verdict (and the rows the longer benchmarks saved),
 * and the machine the JSON states.
 */
import { readFileSync } from 'node:fs';
import { cpus, freemem, totalmem } from 'node:os';
import { loadRows } from '../rows.ts';
import { SCENARIOS, type Scenario } from '../scenarios.ts';
import { table } from '../table.ts';
import { type Measured, disturbed, round1 } from './measure.ts';
import { PROCESSES_TARGET } from './processes.ts';
import { DISTURBED_OTHER_CPU_PERCENT, MACHINE_CORES, pinned, settings } from './settings.ts';

export function machine() {
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

/** Each scenario that has a baseline, compared with it: by throughput and by CPU per request. */
export function compare(scenarios: Scenario[], results: Measured[]) {
  return scenarios.flatMap((s) => {
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
}

type Comparison = ReturnType<typeof compare>[number];

export function printTable(results: Measured[], comparisons: Comparison[]): void {
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
}

/** Every target row, in its order, measured or with why not. */
export function printTargets(results: Measured[], comparisons: Comparison[], processes: { summary: string; verdict: string } | undefined): void {
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
}
