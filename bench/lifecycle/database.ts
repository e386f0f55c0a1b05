/**
 * bench:lifecycle's databases on the machine's PostgreSQL: one for Chipin and one for the bare
 * baseline (`chipin_lifecycle_<random>` and `…_bare`, dropped at the end, bench/lifecycle/cleanup.ts),
 * a temporary replication slot that keeps the run's WAL until it is decoded, and the counters read
 * around a measured window: the WAL position, `pg_stat_wal`, and each table's written rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { walDirectory } from '../wal-decode.ts';
import { held } from './cleanup.ts';
import { settings, sleep } from './settings.ts';
import { UNDISPATCHED_SQL, untilNoneUndispatched } from '../undispatched.ts';

export interface Databases {
  chipin: string;
  bare: string;
  chipinUrl: string;
  bareUrl: string;
  walDir: string;
}

const urlOf = (name: string) => Object.assign(new URL(settings.adminUrl), { pathname: `/${name}` }).toString();

export async function createDatabases(): Promise<Databases> {
  const name = `chipin_lifecycle_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: settings.adminUrl, connectionTimeoutMillis: 10_000 });
  held.admin = admin;
  await admin.connect();
  const slot = new pg.Client({ connectionString: settings.adminUrl, connectionTimeoutMillis: 10_000 });
  held.slot = slot;
  await slot.connect();
  await slot.query('SELECT pg_create_physical_replication_slot($1, true, true)', [name]);
  const walDir = await walDirectory((sql, params) => admin.query(sql, params));
  held.database = name;
  await admin.query(`CREATE DATABASE ${name}`);
  if (settings.partman) {
    // Before Chipin migrates it: the append-only tables are partitioned (docs/partitioning.md).
    const c = new pg.Client({ connectionString: urlOf(name), connectionTimeoutMillis: 10_000 });
    await c.connect();
    try {
      await c.query('CREATE SCHEMA partman; CREATE EXTENSION pg_partman SCHEMA partman');
    } finally {
      await c.end();
    }
  }
  held.bareDatabase = `${name}_bare`;
  await admin.query(`CREATE DATABASE ${name}_bare`);
  return { chipin: name, bare: `${name}_bare`, chipinUrl: urlOf(name), bareUrl: urlOf(`${name}_bare`), walDir };
}

export interface TableRows {
  ins: number;
  upd: number;
  hot: number;
  del: number;
}

export interface Counters {
  lsn: string;
  walRecords: number;
  walBytes: number;
  tables: Map<string, TableRows>;
}

export async function counters(client: pg.Client): Promise<Counters> {
  await client.query('SELECT pg_stat_clear_snapshot()');
  const wal = await client.query<{ lsn: string; records: string; bytes: string }>(
    'SELECT pg_current_wal_lsn()::text AS lsn, wal_records::text AS records, wal_bytes::text AS bytes FROM pg_stat_wal',
  );
  const t = await client.query<{ name: string; ins: string; upd: string; hot: string; del: string }>(
    // A partition's rows are counted under its partitioned table's name (docs/partitioning.md).
    `SELECT coalesce(p.relname, s.relname) AS name, sum(s.n_tup_ins)::text AS ins, sum(s.n_tup_upd)::text AS upd,
            sum(s.n_tup_hot_upd)::text AS hot, sum(s.n_tup_del)::text AS del
       FROM pg_stat_user_tables s LEFT JOIN pg_inherits h ON h.inhrelid = s.relid LEFT JOIN pg_class p ON p.oid = h.inhparent
      GROUP BY 1`,
  );
  return {
    lsn: wal.rows[0]!.lsn,
    walRecords: Number(wal.rows[0]!.records),
    walBytes: Number(wal.rows[0]!.bytes),
    tables: new Map(t.rows.map((r) => [r.name, { ins: Number(r.ins), upd: Number(r.upd), hot: Number(r.hot), del: Number(r.del) }])),
  };
}

/** Rows written per table between two readings, tables with none left out. */
export function tableDeltas(a: Counters, b: Counters): Map<string, TableRows> {
  const out = new Map<string, TableRows>();
  for (const [name, r1] of b.tables) {
    const r0 = a.tables.get(name) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    const d = { ins: r1.ins - r0.ins, upd: r1.upd - r0.upd, hot: r1.hot - r0.hot, del: r1.del - r0.del };
    if (d.ins || d.upd || d.del) out.set(name, d);
  }
  return out;
}

const rowSum = (c: Counters) => [...c.tables.values()].reduce((s, r) => s + r.ins + r.upd + r.del, 0);

/**
 * Waits (at most 15 s) until the database's table statistics stop moving: a backend reports its
 * counts when it goes idle, up to a second or more later, so a reading taken at once would put
 * part of a window's writes in the next one.
 */
export async function untilStatsSettle(client: pg.Client): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last = rowSum(await counters(client));
  while (Date.now() < deadline) {
    await sleep(1_200);
    const now = rowSum(await counters(client));
    if (now === last) return;
    last = now;
  }
}

/** Waits (at most 60 s) until every purchase event of Chipin's database was dispatched. */
export async function untilDispatched(client: pg.Client): Promise<void> {
  await untilNoneUndispatched(async () => (await client.query<{ n: number }>(UNDISPATCHED_SQL)).rows[0]!.n, 60_000, 100);
}
