import type { Database, Sql } from './database.ts';

/**
 * The append-only tables' monthly partitions on PostgreSQL with pg_partman (docs/partitioning.md):
 * the months ahead are created by pg_partman's own maintenance, and a table with a retention loses
 * its months wholly past it by DROP TABLE, not by DELETE. Does nothing where no table is
 * partitioned (PGlite, PostgreSQL without the extension).
 */

/** A table's retention: its partitions whose every row is older than `before` are dropped. */
export interface PartitionRetention {
  table: string;
  before: Date;
}

export interface PartitionMaintenance {
  /** The partitioned tables pg_partman was asked to keep ahead (none where nothing is partitioned). */
  maintained: string[];
  /** The partitions dropped by retention. */
  dropped: string[];
}

/** One maintenance at a time across the processes; the others skip theirs (any value, fixed). */
const MAINTENANCE_LOCK = 7_067_001;

/**
 * Long enough for a partition's DROP to wait for the reads in flight, short enough that the
 * statements queued behind its lock on the parent are not held up for long when one does not end:
 * the drop is then tried again at the next run.
 */
const DROP_LOCK_TIMEOUT = '2s';
const LOCK_NOT_AVAILABLE = '55P03';

export async function maintainPartitions(db: Database, retention: readonly PartitionRetention[]): Promise<PartitionMaintenance> {
  const none = { maintained: [], dropped: [] };
  if (db.kind !== 'postgres') return none;
  const maintained = await db.transaction(async (tx) => {
    if (!(await tookMaintenanceLock(tx))) return null;
    const partman = await partmanSchema(tx);
    if (partman === null) return [];
    const { rows: sets } = await tx.query<{ parent: string }>(
      `SELECT parent_table AS parent FROM ${quoteIdent(partman)}.part_config WHERE split_part(parent_table, '.', 1) = current_schema() ORDER BY 1`,
    );
    // p_analyze: the partitioned table itself is analyzed when a month is made (monthly, then).
    // Autovacuum analyzes partitions only, never their parent, whose statistics the planner uses
    // to estimate joins with the whole table (a sample of the rows: a ShareUpdateExclusive lock,
    // which blocks neither reads nor writes).
    for (const { parent } of sets) {
      await tx.query(`SELECT ${quoteIdent(partman)}.run_maintenance(p_parent_table := $1, p_analyze := true)`, [parent], { prepare: false });
    }
    return sets.map((s) => s.parent.split('.')[1]!);
  });
  if (maintained === null) return none;
  const dropped: string[] = [];
  for (const r of retention) {
    if (!maintained.includes(r.table)) continue;
    for (const name of await partitionsEndedBy(db, r.table, r.before)) {
      // One transaction per partition: a drop that waits too long for its lock is given up
      // (SQLSTATE 55P03, lock_not_available) and tried again at the next run; the others go on.
      const done = await db
        .transaction(async (tx) => {
          if (!(await tookMaintenanceLock(tx))) return false;
          await tx.query(`SET LOCAL lock_timeout = '${DROP_LOCK_TIMEOUT}'`);
          await tx.query(`DROP TABLE IF EXISTS ${quoteIdent(name)}`);
          return true;
        })
        .catch((err: unknown) => {
          if ((err as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return false;
          throw err;
        });
      if (done) dropped.push(name);
    }
  }
  return { maintained, dropped };
}

async function tookMaintenanceLock(tx: Sql): Promise<boolean> {
  const { rows } = await tx.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [MAINTENANCE_LOCK]);
  return rows[0]!.ok;
}

/** The schema pg_partman is installed in, null when it is not installed in this database. */
async function partmanSchema(sql: Sql): Promise<string | null> {
  const { rows } = await sql.query<{ schema: string }>(
    "SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_partman'",
  );
  return rows[0]?.schema ?? null;
}

/**
 * The partitions of `table` whose range ends at or before `before`. The default partition has no
 * range and is never among them; the partition that was the table before it was partitioned ends
 * where its rows do (migration 067), so it goes once all of them are past.
 */
async function partitionsEndedBy(sql: Sql, table: string, before: Date): Promise<string[]> {
  const { rows } = await sql.query<{ name: string }>(
    `SELECT c.relname AS name
       FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid
      WHERE h.inhparent = to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1))
        AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
        AND (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz <= $2
      ORDER BY 1`,
    [table, before],
    { prepare: false },
  );
  return rows.map((r) => r.name);
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** What `chipin partition` found and did. */
export type PartitionOutcome = { kind: 'pglite' } | { kind: 'no-partman' } | { kind: 'done'; partitioned: string[] };

/**
 * Partitions the append-only tables that are not yet (migration 067's function, which a database
 * migrated before pg_partman was installed in it left plain). Each table is converted in its own
 * transaction, holding its lock until it is done (docs/partitioning.md#converting-a-live-database).
 */
export async function partitionAppendOnlyTables(db: Database): Promise<PartitionOutcome> {
  if (db.kind !== 'postgres') return { kind: 'pglite' };
  if ((await partmanSchema(db)) === null) return { kind: 'no-partman' };
  const partitioned: string[] = [];
  // The list migration 067 converts, from the database itself, in its order.
  const { rows: tables } = await db.query<{ table: string; column: string }>('SELECT name AS table, col AS column FROM chipin_append_only_tables()');
  for (const { table, column } of tables) {
    const { rows } = await db.query<{ done: boolean }>('SELECT chipin_partition_monthly($1, $2) AS done', [table, column], { prepare: false });
    if (!rows[0]!.done) continue;
    partitioned.push(table);
    // The new partitioned table's own statistics (autovacuum never gathers them), after its lock is released.
    await db.query(`ANALYZE ${quoteIdent(table)}`);
  }
  return { kind: 'done', partitioned };
}
