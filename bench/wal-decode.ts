/**
 * Decoding a range of PostgreSQL's WAL with pg_waldump and keeping one database's part of it: the
 * records on its relations' blocks and the commit records of the transactions that wrote them.
 * Other databases of the server write WAL meanwhile (a shared machine); they are left out and
 * counted. Used by `npm run bench:wal` (bench/wal-per-create.ts), `npm run bench:lifecycle`
 * (bench/lifecycle.ts) and `npm run bench:create-cost` (bench/create-cost.ts). The process must
 * be able to read the server's pg_wal directory (root or the postgres user).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const WALDUMP = process.env.PG_WALDUMP?.trim() || '/usr/lib/postgresql/15/bin/pg_waldump';

export interface Tally {
  records: number;
  bytes: number;
  /** With full-page images: depends on when the last checkpoint was. */
  bytesWithFpi: number;
}

/** What a query on the database answers: pg.Client, pg.Pool and src/db's Database all fit. */
type Query = (sql: string, params?: unknown[]) => Promise<{ rows: unknown[] }>;

/**
 * Turns autovacuum off on every table of a database: a vacuum started mid-window would be counted
 * in its WAL and CPU. Pruning on access still happens.
 */
export async function autovacuumOff(query: Query): Promise<void> {
  // Not a partitioned table (it has no storage of its own): its partitions are among the others.
  const { rows } = await query("SELECT quote_ident(relname) AS t FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'");
  for (const { t } of rows as { t: string }[]) await query(`ALTER TABLE ${t} SET (autovacuum_enabled = false)`);
}

/** The server's WAL directory: PG_WAL_DIR, else `<data_directory>/pg_wal` as the server says. */
export async function walDirectory(query: Query): Promise<string> {
  const given = process.env.PG_WAL_DIR?.trim();
  if (given) return given;
  const { rows } = await query('SELECT current_setting($1) AS d', ['data_directory']);
  return join((rows as { d: string }[])[0]!.d, 'pg_wal');
}

/** The current WAL insert position, as pg_waldump takes it. */
export async function currentLsn(query: Query): Promise<string> {
  return ((await query('SELECT pg_current_wal_lsn()::text AS lsn')).rows as { lsn: string }[])[0]!.lsn;
}

/** This database's oid and its relations' names by file node (tables, indexes, TOAST), to name what WAL records touch. */
export async function relationNames(query: Query): Promise<{ dbOid: number; names: Map<number, string> }> {
  const dbOid = ((await query('SELECT oid::int AS oid FROM pg_database WHERE datname = current_database()')).rows as { oid: number }[])[0]!.oid;
  const { rows } = await query("SELECT pg_relation_filenode(c.oid)::int AS f, c.relname AS name FROM pg_class c WHERE c.relkind IN ('r', 'i', 't')");
  return { dbOid, names: new Map((rows as { f: number | null; name: string }[]).filter((r) => r.f !== null).map((r) => [r.f!, r.name])) };
}

export interface Decoded {
  /** By `rmgr/TYPE` (`Heap/INSERT`, `Btree/INSERT_LEAF`, `Transaction/COMMIT`...). */
  byType: Map<string, Tally>;
  /** By relation name (a table, an index, a TOAST table); records naming no relation (commits) under `(no relation)`. */
  byRelation: Map<string, Tally>;
  /** By relation and record type (`accounts Heap/LOCK`). */
  byRelationType: Map<string, Tally>;
  /** B-tree index entries by index: INSERT_LEAF (a new leaf tuple) and INSERT_POST (a duplicate added to a posting list). */
  entries: Map<string, { leaf: number; post: number }>;
  total: Tally;
  /** Records of other databases or of the server as a whole in the range, left out. */
  others: number;
}

const NO_RELATION = '(no relation)';

/** A WAL position (`16/B374D848`) as a number: exact up to 2^53 bytes of WAL. */
export function lsnNumber(lsn: string): number {
  const [hi, lo] = lsn.split('/');
  return parseInt(hi!, 16) * 2 ** 32 + parseInt(lo!, 16);
}

export interface WalRecord {
  lsn: number;
  /** `rmgr/TYPE`. */
  type: string;
  /** The first relation of this database the record touches, or `(no relation)` (a commit). */
  relation: string;
  rec: number;
  tot: number;
}

/** Decodes [start, end) of `walDir`: this database's records (see the file's header), and how many others were left out. */
export function walRecords(walDir: string, start: string, end: string, dbOid: number, names: Map<number, string>): { records: WalRecord[]; others: number } {
  const out = execFileSync(WALDUMP, ['-p', walDir, '-s', start, '-e', end], { maxBuffer: 1 << 30, encoding: 'utf8' });
  const line = /^rmgr: (\S+)\s+len \(rec\/tot\):\s*(\d+)\/\s*(\d+), tx:\s*(\d+), lsn: (\S+), prev \S+, desc: (\S+)(.*)$/;
  const parsed: { rmgr: string; rec: number; tot: number; tx: number; lsn: string; type: string; rels: { db: number; rel: number }[] }[] = [];
  for (const text of out.split('\n')) {
    const m = line.exec(text);
    if (!m) continue;
    const rels = [...m[7]!.matchAll(/rel \d+\/(\d+)\/(\d+)/g)].map((r) => ({ db: Number(r[1]), rel: Number(r[2]) }));
    parsed.push({ rmgr: m[1]!, rec: Number(m[2]), tot: Number(m[3]), tx: Number(m[4]), lsn: m[5]!.replace(/,$/, ''), type: m[6]!.replace(/[,:]$/, ''), rels });
  }
  // Ours: a record on a block of this database, and every record of a transaction that wrote one (its commit).
  const ourTx = new Set(parsed.filter((r) => r.tx !== 0 && r.rels.some((x) => x.db === dbOid)).map((r) => r.tx));
  const records: WalRecord[] = [];
  let others = 0;
  for (const r of parsed) {
    const ours = r.rels.some((x) => x.db === dbOid) || (r.tx !== 0 && ourTx.has(r.tx) && r.rels.length === 0);
    if (!ours) {
      others++;
      continue;
    }
    const first = r.rels.find((x) => x.db === dbOid);
    records.push({
      lsn: lsnNumber(r.lsn),
      type: `${r.rmgr}/${r.type}`,
      relation: first ? (names.get(first.rel) ?? `relfilenode ${first.rel}`) : NO_RELATION,
      rec: r.rec,
      tot: r.tot,
    });
  }
  return { records, others };
}

/** Tallies decoded records by type, by relation, and B-tree index entries by index. */
export function tally(records: WalRecord[], others = 0): Decoded {
  const byType = new Map<string, Tally>();
  const byRelation = new Map<string, Tally>();
  const byRelationType = new Map<string, Tally>();
  const entries = new Map<string, { leaf: number; post: number }>();
  const total: Tally = { records: 0, bytes: 0, bytesWithFpi: 0 };
  const add = (map: Map<string, Tally>, key: string) => {
    const t = map.get(key) ?? { records: 0, bytes: 0, bytesWithFpi: 0 };
    map.set(key, t);
    return t;
  };
  for (const r of records) {
    for (const x of [add(byType, r.type), add(byRelation, r.relation), add(byRelationType, `${r.relation} ${r.type}`), total]) {
      x.records++;
      x.bytes += r.rec;
      x.bytesWithFpi += r.tot;
    }
    if (r.type === 'Btree/INSERT_LEAF' || r.type === 'Btree/INSERT_POST') {
      const e = entries.get(r.relation) ?? { leaf: 0, post: 0 };
      if (r.type === 'Btree/INSERT_LEAF') e.leaf++;
      else e.post++;
      entries.set(r.relation, e);
    }
  }
  return { byType, byRelation, byRelationType, entries, total, others };
}

/** Decodes [start, end) of `walDir` and tallies this database's records (see the file's header). */
export function decodeWal(walDir: string, start: string, end: string, dbOid: number, names: Map<number, string>): Decoded {
  const { records, others } = walRecords(walDir, start, end, dbOid, names);
  return tally(records, others);
}
