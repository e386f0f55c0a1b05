/**
 * Seeding a level in SQL (bench/scale-seed.sql): batches of purchases added to the previous
 * level's, without the secondary indexes for a large step (recreated after, checked against the
 * dropped ones), then VACUUM (ANALYZE); and the orphan check of BENCH_SCALE_CHECK=1.
 */
import pg from 'pg';
import { fmtLevel, ident, round1 } from './format.ts';
import { monthsBack } from '../partitions.ts';
import { checkInterrupted } from './lifecycle.ts';
import { SEEDED_TABLES, settings } from './settings.ts';

interface Meta {
  big_email: string;
  accounts: number;
  big_share_pct: number;
  span_days: number;
  seeded: string;
  seed_log: unknown[];
  dropped_indexes: { name: string; def: string }[] | null;
}

export async function readMeta(db: pg.Pool): Promise<Meta | undefined> {
  return (await db.query<Meta>('SELECT * FROM bench_scale_meta')).rows[0];
}

export interface SeedInfo {
  level: number;
  added: number;
  batches: number;
  /** Inserting the rows (with or without the secondary indexes). */
  insertSeconds: number;
  /** Recreating the secondary indexes (when they were dropped). */
  indexSeconds?: number;
  droppedIndexes?: number;
  vacuumAnalyzeSeconds: number;
  totalSeconds: number;
  /** Estimated rows per table after the seed (pg_class.reltuples, just analyzed). */
  rows: Record<string, number>;
  databaseSize: string;
}

const SECONDARY_INDEXES = `
  SELECT i.indexrelid::regclass::text AS name, replace(pg_get_indexdef(i.indexrelid), ' ON ONLY ', ' ON ') AS def
    FROM pg_index i
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
   WHERE n.nspname = 'public' AND t.relname = ANY($1::text[])
     AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid)
   ORDER BY 1`;

async function dropSecondaryIndexes(c: pg.PoolClient): Promise<{ name: string; def: string }[]> {
  const defs = (await c.query<{ name: string; def: string }>(SECONDARY_INDEXES, [SEEDED_TABLES])).rows;
  await c.query('BEGIN');
  try {
    // Written first, in the same transaction: an interrupted seed leaves the way back.
    await c.query('UPDATE bench_scale_meta SET dropped_indexes = $1::jsonb', [JSON.stringify(defs)]);
    for (const d of defs) await c.query(`DROP INDEX ${d.name}`);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  }
  return defs;
}

export async function recreateIndexes(c: pg.PoolClient, defs: { name: string; def: string }[]): Promise<void> {
  const present = new Set((await c.query<{ name: string }>(SECONDARY_INDEXES, [SEEDED_TABLES])).rows.map((r) => r.name));
  for (const d of defs) {
    checkInterrupted();
    if (!present.has(d.name)) await c.query(d.def);
  }
  const now = (await c.query<{ name: string; def: string }>(SECONDARY_INDEXES, [SEEDED_TABLES])).rows;
  const key = (rows: { name: string; def: string }[]) => rows.map((r) => `${r.name}\t${r.def}`).join('\n');
  if (key(now) !== key(defs)) throw new Error(`the recreated secondary indexes differ from the dropped ones:\n${key(now)}\n---\n${key(defs)}`);
  await c.query('UPDATE bench_scale_meta SET dropped_indexes = NULL');
}

export async function seedTo(db: pg.Pool, level: number): Promise<SeedInfo | undefined> {
  const meta = (await readMeta(db))!;
  const from = Number(meta.seeded);
  if (from >= level) return undefined;
  const added = level - from;
  const drop = settings.dropIndexesFrom > 0 && added >= settings.dropIndexesFrom;
  const c = await db.connect();
  try {
    await c.query("SET maintenance_work_mem = '1GB'");
    const t0 = performance.now();
    // Partitioned tables (docs/partitioning.md): the months the seed writes into, made first.
    await monthsBack(c, Number(meta.span_days));
    const defs = drop ? await dropSecondaryIndexes(c) : undefined;
    let batches = 0;
    for (let lo = from; lo < level; lo += settings.batch) {
      checkInterrupted();
      const hi = Math.min(level, lo + settings.batch);
      await c.query('CALL bench_scale_seed_batch($1, $2)', [lo, hi]);
      batches++;
      process.stdout.write(`\r  seeding ${fmtLevel(level)}: ${hi.toLocaleString('en')} purchases, ${((performance.now() - t0) / 1000).toFixed(0)} s   `);
    }
    const t1 = performance.now();
    process.stdout.write('\n');
    if (defs) {
      process.stdout.write(`  recreating ${defs.length} secondary indexes ...\n`);
      await recreateIndexes(c, defs);
    }
    // The seed writes with triggers off (session_replication_role = replica): the home page's
    // running sums (migration 044) are recounted from the rows, as the migration does.
    const tSums = performance.now();
    await c.query('SELECT chipin_home_stats_rebuild()');
    process.stdout.write(`  home page sums recounted in ${((performance.now() - tSums) / 1000).toFixed(1)} s\n`);
    const t2 = performance.now();
    process.stdout.write('  VACUUM (ANALYZE) ...\n');
    await c.query('VACUUM (ANALYZE)');
    const t3 = performance.now();
    const rows = Object.fromEntries(
      (
        await c.query<{ relname: string; n: string }>(
          // A partitioned table's estimate is its partitions' sum.
          `SELECT t.relname, coalesce(sum(p.reltuples) FILTER (WHERE p.reltuples > 0), greatest(t.reltuples, 0))::bigint AS n
             FROM pg_class t LEFT JOIN pg_inherits h ON h.inhparent = t.oid LEFT JOIN pg_class p ON p.oid = h.inhrelid
            WHERE t.relkind IN ('r', 'p') AND t.relnamespace = 'public'::regnamespace AND t.relname = ANY($1::text[])
            GROUP BY t.relname, t.reltuples ORDER BY t.relname`,
          [SEEDED_TABLES],
        )
      ).rows.map((r) => [r.relname, Number(r.n)]),
    );
    const databaseSize = (await c.query<{ s: string }>('SELECT pg_size_pretty(pg_database_size(current_database())) AS s')).rows[0]!.s;
    const info: SeedInfo = {
      level,
      added,
      batches,
      insertSeconds: round1((t1 - t0) / 1000),
      ...(defs ? { indexSeconds: round1((tSums - t1) / 1000), droppedIndexes: defs.length } : {}),
      vacuumAnalyzeSeconds: round1((t3 - t2) / 1000),
      totalSeconds: round1((t3 - t0) / 1000),
      rows,
      databaseSize,
    };
    await c.query('UPDATE bench_scale_meta SET seed_log = seed_log || jsonb_build_array($1::jsonb)', [JSON.stringify({ ...info, at: new Date().toISOString() })]);
    return info;
  } finally {
    c.release();
  }
}

/** Rows whose foreign key points nowhere, per constraint (the seed skips the checks). */
export async function countOrphans(db: pg.Pool): Promise<Record<string, number>> {
  const fks = (
    await db.query<{ name: string; child: string; parent: string; ccols: string[]; pcols: string[] }>(
      `SELECT c.conname AS name, c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS ccols,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS pcols
         FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
        WHERE c.contype = 'f' AND t.relname = ANY($1::text[])`,
      [SEEDED_TABLES],
    )
  ).rows;
  const out: Record<string, number> = {};
  for (const fk of fks) {
    const notNull = fk.ccols.map((col) => `x.${ident(col)} IS NOT NULL`).join(' AND ');
    const match = fk.ccols.map((col, i) => `y.${ident(fk.pcols[i]!)} = x.${ident(col)}`).join(' AND ');
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${fk.child} x WHERE ${notNull} AND NOT EXISTS (SELECT 1 FROM ${fk.parent} y WHERE ${match})`);
    out[fk.name] = Number(rows[0]!.n);
  }
  return out;
}
