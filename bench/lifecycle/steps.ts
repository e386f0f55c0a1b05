/**
 * bench:lifecycle's WAL budget per step: after the measured windows, BENCH_LIFECYCLE_STEP_SAMPLES
 * lifecycles (9 by default: three rounds, so each kind once refunded) run one at a time, the WAL
 * position read after each step once its webhooks arrived and its events were dispatched; the
 * range is decoded once (bench/wal-decode.ts) and each record counted in the step whose range
 * holds it. Chipin's background work in those ranges (job polls) counts in the step it fell in.
 */
import type pg from 'pg';
import { table } from '../table.ts';
import { currentLsn, lsnNumber, relationNames, tally, walRecords } from '../wal-decode.ts';
import { untilDispatched } from './database.ts';
import { KINDS, STEPS, runLifecycle, type Step } from './mix.ts';
import type { Servers } from './servers.ts';
import { settings, sleep } from './settings.ts';

export interface StepWal {
  step: Step;
  /** How many times the step ran in the sample. */
  count: number;
  records: number;
  bytes: number;
  bytesWithFpi: number;
  /** The relations that took the most bytes (with full-page images) per run of the step. */
  top: { relation: string; bytes: number }[];
}

export async function measureSteps(servers: Servers, db: pg.Client, walDir: string, first: number): Promise<{ json: StepWal[]; print: () => void }> {
  const query = (sql: string, params?: unknown[]) => db.query(sql, params);
  const marks: { step: Step; from: number; to: number }[] = [];
  await untilDispatched(db);
  await sleep(500);
  const start = await currentLsn(query);
  let prev = lsnNumber(start);
  for (let n = first; n < first + settings.stepSamples; n++) {
    const m = servers.merchants[Math.floor(n / KINDS.length) % servers.merchants.length]!;
    await runLifecycle(servers.chipinUrl, m, servers.receiver, n, async (step) => {
      await untilDispatched(db);
      await sleep(300); // the delivery's own marks after the receiver answered
      const at = lsnNumber(await currentLsn(query));
      marks.push({ step, from: prev, to: at });
      prev = at;
    });
  }
  const end = await currentLsn(query);
  const { dbOid, names } = await relationNames(query);
  const { records } = walRecords(walDir, start, end, dbOid, names);
  const json: StepWal[] = [];
  for (const step of STEPS) {
    const ranges = marks.filter((x) => x.step === step);
    if (ranges.length === 0) continue;
    const mine = records.filter((r) => ranges.some((x) => r.lsn >= x.from && r.lsn < x.to));
    const t = tally(mine);
    const per = (v: number) => Math.round((v / ranges.length) * 10) / 10;
    json.push({
      step,
      count: ranges.length,
      records: per(t.total.records),
      bytes: Math.round(per(t.total.bytes)),
      bytesWithFpi: Math.round(per(t.total.bytesWithFpi)),
      top: [...t.byRelation]
        .sort((a, b) => b[1].bytesWithFpi - a[1].bytesWithFpi)
        .slice(0, 4)
        .map(([relation, v]) => ({ relation, bytes: Math.round(per(v.bytesWithFpi)) })),
    });
  }
  const print = () => {
    process.stdout.write(`\nChipin WAL per step (${settings.stepSamples} lifecycles one at a time; per run of the step)\n`);
    process.stdout.write(
      table([
        ['step', 'runs', 'records', 'bytes', 'with FPI', 'most bytes (with FPI)'],
        ...json.map((s) => [s.step, String(s.count), String(s.records), String(s.bytes), String(s.bytesWithFpi), s.top.map((x) => `${x.relation} ${x.bytes}`).join(', ')]),
      ]) + '\n',
    );
  };
  return { json, print };
}
