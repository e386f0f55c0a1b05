/**
 * bench:lifecycle's figures from the two measured windows, the tables it prints (bench/table.ts)
 * and what bench/results/lifecycle.json holds.
 */
import type { Tally } from '../wal-decode.ts';
import { table } from '../table.ts';
import type { BarePlan } from './bare.ts';
import type { TableRows } from './database.ts';
import { STEPS, type Step, type Timing } from './mix.ts';
import type { Window } from './window.ts';

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;

export interface SideFigures {
  lifecycles: number;
  seconds: number;
  lifecyclesPerSec: number;
  /** Lifecycles per CPU-second of the server and PostgreSQL: lifecycles/s per core they keep busy. */
  perCore: number;
  serverCpuMsPerLifecycle: number;
  /** This side's database's backends and the server's shared writers. */
  postgresCpuMsPerLifecycle: number;
  /** The whole PostgreSQL server, other databases' backends included (a busy machine shows here). */
  postgresServerCpuMsPerLifecycle: number;
  /** Decoded WAL of the side's database (its relations and its commits), per lifecycle. */
  walBytesPerLifecycle: number;
  walBytesWithFpiPerLifecycle: number;
  walRecordsPerLifecycle: number;
  /** pg_stat_wal's deltas per lifecycle: the whole server, other databases included (a cross-check). */
  statWalBytesPerLifecycle: number;
  statWalRecordsPerLifecycle: number;
  lifecycleP50Ms: number;
  lifecycleP99Ms: number;
  /** Rows written per lifecycle, by table (pg_stat_user_tables). */
  rowsPerLifecycle: Record<string, TableRows>;
}

export function figures(w: Window): SideFigures {
  const per = (n: number) => n / Math.max(1, w.lifecycles);
  const cpuS = (w.serverCpuMs + w.postgresCpuMs) / 1000;
  return {
    lifecycles: w.lifecycles,
    seconds: r2(w.seconds),
    lifecyclesPerSec: r1(w.lifecycles / w.seconds),
    perCore: r1(w.lifecycles / cpuS),
    serverCpuMsPerLifecycle: r2(per(w.serverCpuMs)),
    postgresCpuMsPerLifecycle: r2(per(w.postgresCpuMs)),
    postgresServerCpuMsPerLifecycle: r2(per(w.postgresServerCpuMs)),
    walBytesPerLifecycle: Math.round(per(w.wal.total.bytes)),
    walBytesWithFpiPerLifecycle: Math.round(per(w.wal.total.bytesWithFpi)),
    walRecordsPerLifecycle: r1(per(w.wal.total.records)),
    statWalBytesPerLifecycle: Math.round(per(w.after.walBytes - w.before.walBytes)),
    statWalRecordsPerLifecycle: r1(per(w.after.walRecords - w.before.walRecords)),
    lifecycleP50Ms: r1(percentile(w.latencies, 50)),
    lifecycleP99Ms: r1(percentile(w.latencies, 99)),
    rowsPerLifecycle: Object.fromEntries(
      [...w.tables]
        .sort((a, b) => b[1].ins + b[1].upd + b[1].del - (a[1].ins + a[1].upd + a[1].del))
        .map(([k, v]) => [k, { ins: r2(per(v.ins)), upd: r2(per(v.upd)), hot: r2(per(v.hot)), del: r2(per(v.del)) }]),
    ),
  };
}

export interface StepFigures {
  step: Step;
  count: number;
  p50Ms: number;
  p99Ms: number;
  webhookP50Ms?: number;
  webhookP99Ms?: number;
}

export function stepFigures(timings: Timing[]): StepFigures[] {
  return STEPS.map((step) => {
    const t = timings.filter((x) => x.step === step);
    const hooks = t.filter((x) => x.webhookMs !== undefined).map((x) => x.webhookMs!);
    return {
      step,
      count: t.length,
      p50Ms: r1(
        percentile(
          t.map((x) => x.ms),
          50,
        ),
      ),
      p99Ms: r1(
        percentile(
          t.map((x) => x.ms),
          99,
        ),
      ),
      ...(hooks.length > 0 ? { webhookP50Ms: r1(percentile(hooks, 50)), webhookP99Ms: r1(percentile(hooks, 99)) } : {}),
    };
  });
}

/** Per lifecycle, sorted by bytes with full-page images, the first `limit`. */
export function walBy(map: Map<string, Tally>, lifecycles: number, limit: number): { name: string; records: number; bytes: number; bytesWithFpi: number }[] {
  const per = (n: number) => n / Math.max(1, lifecycles);
  return [...map]
    .sort((a, b) => b[1].bytesWithFpi - a[1].bytesWithFpi)
    .slice(0, limit)
    .map(([name, t]) => ({ name, records: r1(per(t.records)), bytes: Math.round(per(t.bytes)), bytesWithFpi: Math.round(per(t.bytesWithFpi)) }));
}

const fmt = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : String(n));
const ratio = (a: number, b: number) => (b > 0 ? `${r1(a / b)}x` : '-');

export function printReport(chipin: SideFigures, bare: SideFigures, steps: StepFigures[], walByRelation: ReturnType<typeof walBy>, plan: BarePlan): void {
  const row = (label: string, f: SideFigures) => [
    label,
    fmt(f.lifecycles),
    fmt(f.lifecyclesPerSec),
    fmt(f.perCore),
    fmt(f.serverCpuMsPerLifecycle),
    fmt(f.postgresCpuMsPerLifecycle),
    fmt(f.postgresServerCpuMsPerLifecycle),
    fmt(f.walBytesPerLifecycle),
    fmt(f.walBytesWithFpiPerLifecycle),
    fmt(f.walRecordsPerLifecycle),
    fmt(f.statWalBytesPerLifecycle),
    fmt(f.statWalRecordsPerLifecycle),
    fmt(f.lifecycleP50Ms),
    fmt(f.lifecycleP99Ms),
  ];
  const head = ['', 'lifecycles', '/s', '/CPU-s', 'server ms', 'PG ms', 'all PG ms', 'WAL B', 'WAL B+FPI', 'WAL rec', 'stat_wal B', 'stat_wal rec', 'p50 ms', 'p99 ms'];
  const ratios = [
    'Chipin / bare',
    '',
    ratio(chipin.lifecyclesPerSec, bare.lifecyclesPerSec),
    ratio(chipin.perCore, bare.perCore),
    ratio(chipin.serverCpuMsPerLifecycle, bare.serverCpuMsPerLifecycle),
    ratio(chipin.postgresCpuMsPerLifecycle, bare.postgresCpuMsPerLifecycle),
    ratio(chipin.postgresServerCpuMsPerLifecycle, bare.postgresServerCpuMsPerLifecycle),
    ratio(chipin.walBytesPerLifecycle, bare.walBytesPerLifecycle),
    ratio(chipin.walBytesWithFpiPerLifecycle, bare.walBytesWithFpiPerLifecycle),
    ratio(chipin.walRecordsPerLifecycle, bare.walRecordsPerLifecycle),
    ratio(chipin.statWalBytesPerLifecycle, bare.statWalBytesPerLifecycle),
    ratio(chipin.statWalRecordsPerLifecycle, bare.statWalRecordsPerLifecycle),
    ratio(chipin.lifecycleP50Ms, bare.lifecycleP50Ms),
    ratio(chipin.lifecycleP99Ms, bare.lifecycleP99Ms),
  ];
  process.stdout.write(`\nPer lifecycle (CPU, WAL: per lifecycle; bare: ${r2(plan.movementsPerLifecycle)} movements + ${r2(plan.eventsPerLifecycle)} events each)\n`);
  process.stdout.write(table([head, row('Chipin', chipin), row('bare', bare), ratios]) + '\n');
  process.stdout.write(
    "/CPU-s: lifecycles per CPU-second of the server and PG (lifecycles/s per core they keep busy); PG ms: the side database's backends and the shared writers; " +
      "all PG ms: every backend of the server, other databases' included; WAL: this database's records and commits (pg_waldump), without and with full-page images; " +
      'stat_wal: pg_stat_wal, the whole server (a cross-check); p50/p99: a whole lifecycle.\n',
  );

  process.stdout.write('\nChipin steps (ms; webhook: from the answer to the last webhook the step causes)\n');
  process.stdout.write(
    table([
      ['step', 'count', 'p50', 'p99', 'webhook p50', 'webhook p99'],
      ...steps.map((s) => [s.step, fmt(s.count), fmt(s.p50Ms), fmt(s.p99Ms), fmt(s.webhookP50Ms), fmt(s.webhookP99Ms)]),
    ]) + '\n',
  );

  process.stdout.write('\nChipin rows written per lifecycle (pg_stat_user_tables)\n');
  process.stdout.write(
    table([
      ['table', 'inserted', 'updated', 'of which HOT', 'deleted'],
      ...Object.entries(chipin.rowsPerLifecycle).map(([k, v]) => [k, fmt(v.ins), fmt(v.upd), fmt(v.hot), fmt(v.del)]),
    ]) + '\n',
  );

  process.stdout.write('\nChipin WAL per lifecycle by relation (pg_waldump; the first 20 by bytes with full-page images)\n');
  process.stdout.write(table([['relation', 'records', 'bytes', 'with FPI'], ...walByRelation.map((r) => [r.name, fmt(r.records), fmt(r.bytes), fmt(r.bytesWithFpi)])]) + '\n');
}
