/**
 * One level of bench:scale: the start time, the HTTP rows (one server, sequential requests, each
 * row measured BENCH_SCALE_ROUNDS times and kept at its lowest p50), the CSV export, then the SQL
 * rows with no Chipin process running.
 */
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { stop } from '../children.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import type { Sql } from '../../src/db/database.ts';
import { claimDue } from '../../src/delivery/delivery-queue-repository.ts';
import { claimDueJobs } from '../../src/jobs/job-repository.ts';
import { encodeCursor } from '../../src/http/routes/cursor.ts';
import { toPublicId } from '../../src/domain/ids.ts';
import { type ExportResult, measureExport } from './export.ts';
import { fmtMs, percentile, round1, withStatementTimeout } from './format.ts';
import { checkInterrupted, pools } from './lifecycle.ts';
import type { Merchant } from './merchant.ts';
import type { SeedInfo } from './seed.ts';
import { startServer } from './server.ts';
import { CLAIM, JOB_KINDS, SWEEP, settings } from './settings.ts';
import { accessToken, signIn } from './sign-in.ts';
import type { Target } from './target.ts';
import { type Latency, type Req, timeRequests, timeSql } from './timing.ts';

/** What a level measured: each row's figures (latency rows in ms). */
export interface LevelResult {
  level: number;
  /** Purchases in the database (seeded, plus those the create rows of earlier levels made). */
  purchases: number;
  bigMerchantPurchases: number;
  seed?: SeedInfo;
  startMs: number[];
  startMedianMs: number;
  rows: Record<string, Latency & { rowsPerCall?: number; rounds?: Latency[] }>;
  export: ExportResult;
  pendingAddSeconds?: number;
  orphans?: Record<string, number>;
  fromEarlierRun?: boolean;
}

/** The rows, in the order of the table. */
export const ROWS: { key: string; label: string; kind: 'latency' | 'home' | 'sql' }[] = [
  { key: 'v1Create', label: 'v1 create  POST /api/merchants/v1/purchases', kind: 'latency' },
  { key: 'v1Get', label: 'v1 get  GET .../purchases/{id}', kind: 'latency' },
  { key: 'v1ListFirst', label: 'v1 list, first page', kind: 'latency' },
  { key: 'v1ListNext', label: 'v1 list, page 2 (cursor of page 1)', kind: 'latency' },
  { key: 'v1ListFiltered', label: 'v1 list, state=REFUNDED + last 30 days', kind: 'latency' },
  { key: 'v1ListDeep', label: 'v1 list, cursor page 90 % deep', kind: 'latency' },
  { key: 'boSearchEmail', label: 'back office: search by e-mail', kind: 'latency' },
  { key: 'boSearchRef', label: 'back office: search by reference', kind: 'latency' },
  { key: 'boDetail', label: 'back office: purchase page', kind: 'latency' },
  { key: 'boHome', label: 'back office: home page (30-day stats)', kind: 'home' },
  { key: 'claimPending', label: 'delivery claim, backlog pending (SQL)', kind: 'sql' },
  { key: 'claimIdle', label: 'delivery claim, none pending (SQL)', kind: 'sql' },
  { key: 'sweepDue', label: 'due-job sweep, jobs due (SQL)', kind: 'sql' },
  { key: 'sweepIdle', label: 'due-job sweep, none due (SQL)', kind: 'sql' },
];

type RowFigures = LevelResult['rows'][string];

/** The big merchant's rows the HTTP rows read: a sample of its purchases and clients, and two list cursors. */
interface LevelData {
  purchases: string;
  bigCount: string;
  sample: { id: string; ref: string }[];
  emails: string[];
  deepCursor: string;
  nextCursor: string;
}

async function levelData(db: pg.Pool, big: string): Promise<LevelData> {
  const q1 = async <R extends pg.QueryResultRow>(text: string, params: unknown[] = []) => (await db.query<R>(text, params)).rows;
  const one = async <R extends pg.QueryResultRow>(text: string, params: unknown[] = []) => (await q1<R>(text, params))[0]!;

  // Jobs of the seed still to run are due 12 hours or more after it; on a database reused later,
  // push any due within the hour out of the way, so that no job runs during the measures.
  const postponed = (await db.query("UPDATE jobs SET run_at = now() + interval '6 hours' WHERE done_at IS NULL AND run_at < now() + interval '1 hour'")).rowCount ?? 0;
  if (postponed > 0) process.stdout.write(`  ${postponed} pending jobs due within the hour postponed by 6 hours (none runs while measuring)\n`);

  const { n: purchases } = await one<{ n: string }>('SELECT count(*) AS n FROM purchases');
  const { n: bigCount } = await one<{ n: string }>('SELECT count(*) AS n FROM purchases WHERE account_id = $1', [big]);
  const sample = await q1<{ id: string; ref: string }>("SELECT id, ref FROM purchases WHERE account_id = $1 AND ref >= 'ORD-' AND ref < 'ORD.' ORDER BY random() LIMIT 500", [big]);
  const emails = (
    await q1<{ email: string }>("SELECT email FROM clients WHERE account_id = $1 AND ref IS NULL AND email LIKE 'c%@shoppers.example' ORDER BY random() LIMIT 500", [big])
  ).map((r) => r.email);
  if (sample.length === 0 || emails.length === 0) throw new Error('the big merchant has no seeded purchase');
  const deep = (
    await q1<{ created_at: Date; id: string }>('SELECT created_at, id FROM purchases WHERE account_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1', [
      big,
      Math.floor(Number(bigCount) * 0.9),
    ])
  )[0]!;
  const deepCursor = encodeCursor(deep.created_at, deep.id);
  // Page 2 of the list: the cursor after the first 20 of the big merchant's seeded purchases.
  const second = await one<{ created_at: Date; id: string }>('SELECT created_at, id FROM purchases WHERE account_id = $1 ORDER BY created_at DESC, id DESC OFFSET 19 LIMIT 1', [
    big,
  ]);
  const nextCursor = encodeCursor(second.created_at, second.id);
  return { purchases, bigCount, sample, emails, deepCursor, nextCursor };
}

const pick = <T>(list: T[], i: number) => list[((i % list.length) + list.length) % list.length]!;

/** Measures one row, with its progress line. */
async function row(key: string, run: () => Promise<Latency & { rowsPerCall?: number }>, round?: number) {
  const label = ROWS.find((r) => r.key === key)!.label;
  process.stdout.write(`  ${round === undefined ? '' : `round ${round}: `}${label} ...`);
  const m = await run();
  process.stdout.write(
    ` p50 ${fmtMs(m.p50)} ms, p99 ${fmtMs(m.p99)} ms (${m.count}${m.rowsPerCall === undefined ? '' : `, ${m.rowsPerCall} rows/call`}${m.errors ? `, ${m.errors} ERRORS: ${m.firstError}` : ''})\n`,
  );
  return m;
}

/** BENCH_SCALE_STARTS starts timed; the last server is kept for the HTTP rows. */
async function timedStarts(target: Target): Promise<{ startMs: number[]; srv: Awaited<ReturnType<typeof startServer>> }> {
  const startMs: number[] = [];
  let srv: Awaited<ReturnType<typeof startServer>> | undefined;
  for (let i = 0; i < settings.starts; i++) {
    checkInterrupted();
    if (srv) await stop(srv.child);
    srv = await startServer(target);
    startMs.push(Math.round(srv.startMs));
    process.stdout.write(`  start to /readyz: ${Math.round(srv.startMs)} ms\n`);
  }
  return { startMs, srv: srv! };
}

/**
 * The HTTP rows, BENCH_SCALE_ROUNDS times over, each kept at its round with the lowest p50;
 * answers them and the back-office session cookie they used (the export's too).
 */
async function measureHttpRows(base: string, merchant: Merchant, creator: Merchant, data: LevelData): Promise<{ rows: Record<string, RowFigures>; cookie: string }> {
  const { sample, emails, nextCursor, deepCursor } = data;
  const bearer = async (as = merchant) => ({ authorization: `Bearer ${await accessToken(base, as)}` });
  const run = `${Date.now().toString(36)}`;
  const now = new Date();
  const filtered = new URLSearchParams({ state: 'REFUNDED', created_from: new Date(now.getTime() - 30 * 86_400_000).toISOString(), created_to: now.toISOString() });
  const cookie = await signIn(base, merchant);
  const page = (path: string): Req => ({ path, headers: { cookie }, expect: 200 });
  // Each HTTP row: how to make its i-th request with a fresh access token (they live 600 s), as
  // the big merchant unless the row names another.
  const httpRows: { key: string; as?: Merchant; make: (auth: Record<string, string>) => (i: number) => Req }[] = [
    {
      key: 'v1Create',
      as: creator,
      make: (auth) => (i) => ({
        path: '/api/merchants/v1/purchases',
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Scale bench', amount: 12_000, ref: `SCALE-CREATE-${run}-${created++}`, client: { email: `scale-${run}-${i}@shoppers.example` } }),
        expect: 201,
      }),
    },
    { key: 'v1Get', make: (auth) => (i) => ({ path: `/api/merchants/v1/purchases/${toPublicId('pur', pick(sample, i).id)}`, headers: auth, expect: 200 }) },
    { key: 'v1ListFirst', make: (auth) => () => ({ path: '/api/merchants/v1/purchases', headers: auth, expect: 200 }) },
    { key: 'v1ListNext', make: (auth) => () => ({ path: `/api/merchants/v1/purchases?cursor=${nextCursor}`, headers: auth, expect: 200 }) },
    { key: 'v1ListFiltered', make: (auth) => () => ({ path: `/api/merchants/v1/purchases?${filtered.toString()}`, headers: auth, expect: 200 }) },
    { key: 'v1ListDeep', make: (auth) => () => ({ path: `/api/merchants/v1/purchases?cursor=${deepCursor}`, headers: auth, expect: 200 }) },
    { key: 'boSearchEmail', make: () => (i) => page(`/dashboard/purchases?q=${encodeURIComponent(pick(emails, i))}`) },
    { key: 'boSearchRef', make: () => (i) => page(`/dashboard/purchases?q=${encodeURIComponent(pick(sample, i).ref)}`) },
    { key: 'boDetail', make: () => (i) => page(`/dashboard/purchases/${toPublicId('pur', pick(sample, i).id)}`) },
    { key: 'boHome', make: () => () => page('/dashboard') },
  ];
  let created = 0;
  const rounds: Record<string, Latency[]> = {};
  for (let round = 1; round <= settings.rounds; round++) {
    for (const r of httpRows) {
      const auth = await bearer(r.as);
      const m = await row(r.key, () => timeRequests(base, r.make(auth)), settings.rounds > 1 ? round : undefined);
      (rounds[r.key] ??= []).push(m);
    }
  }
  const rows: Record<string, RowFigures> = {};
  // Per row, the round with the lowest p50: other jobs on the machine only ever slow a round down.
  for (const [key, list] of Object.entries(rounds)) rows[key] = { ...list.reduce((best, m) => (m.p50 < best.p50 ? m : best)), ...(list.length > 1 ? { rounds: list } : {}) };
  return { rows, cookie };
}

/**
 * The SQL rows, with no Chipin process running: the service's functions on its own driver, with
 * BENCH_SCALE_PENDING deliveries pending and none, BENCH_SCALE_DUE_JOBS jobs due and none.
 */
async function measureSqlRows(target: Target, db: pg.Pool, big: string): Promise<{ rows: Record<string, RowFigures>; pendingAddSeconds?: number }> {
  const one = async <R extends pg.QueryResultRow>(text: string, params: unknown[]) => (await db.query<R>(text, params)).rows[0]!;
  const rows: Record<string, RowFigures> = {};
  const sdb = openPostgres(withStatementTimeout(target.url), { max: 1 });
  const closer = { end: () => sdb.close() };
  pools.add(closer);
  const claim = (tx: Sql) => claimDue(tx, { now: new Date(), wallNow: new Date(), ...CLAIM }).then((r) => r.length);
  const sweep = (tx: Sql) => {
    const wall = new Date();
    return claimDueJobs(tx, { now: new Date(), kinds: JOB_KINDS, wall, limit: SWEEP.limit, lockedUntil: new Date(wall.getTime() + SWEEP.leaseMs), leaseId: randomUUID() }).then(
      (r) => r.length,
    );
  };
  let pendingAddSeconds: number | undefined;
  try {
    rows.claimIdle = await row('claimIdle', () => timeSql(sdb, claim));
    const t0 = performance.now();
    await db.query('CALL bench_scale_pending_add($1)', [settings.pending]);
    pendingAddSeconds = round1((performance.now() - t0) / 1000);
    try {
      rows.claimPending = await row('claimPending', () => timeSql(sdb, claim));
    } finally {
      await db.query('CALL bench_scale_pending_remove()');
      await db.query('VACUUM (ANALYZE) deliveries, purchase_events, purchases, clients');
    }
    rows.sweepIdle = await row('sweepIdle', () => timeSql(sdb, sweep));
    const { first } = await one<{ first: string }>(
      `WITH i AS (
         INSERT INTO jobs (account_id, kind, dedupe_key, run_at, payload, created_at)
         SELECT $1::uuid, 'purchase.expire', 'scale-bench-due:' || gen_random_uuid(), now() - random() * interval '10 minutes',
                jsonb_build_object('purchaseId', gen_random_uuid()), now() - interval '1 day'
           FROM generate_series(1, $2::integer)
         RETURNING id)
       SELECT min(id) AS first FROM i`,
      [big, settings.dueJobs],
    );
    try {
      rows.sweepDue = await row('sweepDue', () => timeSql(sdb, sweep));
    } finally {
      await db.query("DELETE FROM jobs WHERE id >= $1 AND dedupe_key LIKE 'scale-bench-due:%'", [first]);
      await db.query('VACUUM (ANALYZE) jobs');
    }
  } finally {
    pools.delete(closer);
    await sdb.close();
  }
  return { rows, ...(pendingAddSeconds === undefined ? {} : { pendingAddSeconds }) };
}

export async function measureLevel(target: Target, db: pg.Pool, merchant: Merchant, creator: Merchant, level: number, seed: SeedInfo | undefined): Promise<LevelResult> {
  const big = merchant.accountId;
  const data = await levelData(db, big);

  // Start time, then one server for every HTTP row.
  const { startMs, srv } = await timedStarts(target);
  const base = srv.url;
  const pid = srv.child.proc.pid;
  const { rows: httpRows, cookie } = await measureHttpRows(base, merchant, creator, data);

  const { n: exportExpected } = (await db.query<{ n: string }>('SELECT count(*) AS n FROM purchases WHERE account_id = $1', [big])).rows[0]!;
  process.stdout.write(`  CSV export of the big merchant (${Number(exportExpected).toLocaleString('en')} rows) ...`);
  const exp = await measureExport(base, cookie, pid, Number(exportExpected));
  process.stdout.write(
    ` ${exp.rows.toLocaleString('en')} rows in ${exp.seconds} s = ${exp.rowsPerSecond.toLocaleString('en')} rows/s, RSS ${exp.rssBeforeMb} → peak ${exp.rssPeakMb} MB` +
      `${exp.error ? ` (STOPPED: ${exp.error})` : ''}\n`,
  );
  await stop(srv.child);

  const sql = await measureSqlRows(target, db, big);
  const sortedStarts = [...startMs].sort((a, b) => a - b);
  return {
    level,
    purchases: Number(data.purchases),
    bigMerchantPurchases: Number(data.bigCount),
    ...(seed ? { seed } : {}),
    startMs,
    startMedianMs: percentile(sortedStarts, 0.5),
    rows: { ...httpRows, ...sql.rows },
    export: exp,
    ...(sql.pendingAddSeconds === undefined ? {} : { pendingAddSeconds: sql.pendingAddSeconds }),
  };
}
