/**
 * For the benches on a database whose append-only tables are partitioned by month with pg_partman
 * (docs/partitioning.md): the months of a past span made, as a database that has served that long
 * has them. The migration made this month and the next ones only; rows of earlier months would
 * all fall into the default partition, and a query over few partitions costs less than over a
 * year's worth. Does nothing without the extension.
 */
import type pg from 'pg';
import { ident } from './scale/format.ts';

export async function monthsBack(c: pg.ClientBase, days: number): Promise<number> {
  const { rows } = await c.query<{ schema: string }>("SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_partman'");
  if (rows.length === 0) return 0;
  const partman = ident(rows[0]!.schema);
  const { rows: sets } = await c.query<{ parent: string }>(`SELECT parent_table AS parent FROM ${partman}.part_config ORDER BY 1`);
  for (const { parent } of sets) {
    await c.query(
      `SELECT ${partman}.create_partition_time($1, ARRAY(
         SELECT generate_series(date_trunc('month', now() - make_interval(days => $2 + 31)), date_trunc('month', now()), interval '1 month')), false)`,
      [parent, days],
    );
  }
  return sets.length;
}
