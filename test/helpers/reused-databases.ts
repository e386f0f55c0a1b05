import type { Sql } from '../../src/db/database.ts';

/**
 * What it takes to empty a test database on PGlite back to the run's migrated template, read once
 * per worker from a database nobody has written to yet
 * (docs/testing.md#fixed-costs-and-how-they-are-kept-down):
 *
 * - `empty`: one transaction that deletes every row of every table but `schema_migrations`, puts
 *   back the rows the migrations wrote (the sandbox clock's) and sets every sequence where the
 *   template has it. DELETE, not TRUNCATE: 10-40 ms against 160 ms (TRUNCATE makes a new file for
 *   every table); with `session_replication_role = replica` no trigger fires, foreign keys
 *   included, so the order does not matter;
 * - `fingerprint`: a query whose answer names the database's schema (relations, columns, defaults,
 *   constraints, triggers, functions, settings, the migrations applied). A database whose
 *   fingerprint moved (a test left a trigger, changed a setting) is not reused: it is closed.
 */
export interface EmptyingPlan {
  empty: string;
  fingerprintQuery: string;
  fingerprint: string;
  /** The rows of every emptied table, counted after emptying: the template's (the sandbox clock's one) or the database is not reused. */
  rowsQuery: string;
  rows: number;
}

const USER_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'`;

const SCHEMA_ITEMS = `
  SELECT 'rel ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text AS item
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMAS}
  UNION ALL
  SELECT 'col ' || n.nspname || '.' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE a.attnum > 0 AND NOT a.attisdropped AND ${USER_SCHEMAS}
  UNION ALL
  SELECT 'con ' || n.nspname || '.' || c.conname || ' ' || pg_get_constraintdef(c.oid)
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE ${USER_SCHEMAS}
  UNION ALL
  SELECT 'trg ' || t.tgrelid::regclass || '.' || t.tgname || ' ' || t.tgenabled::text FROM pg_trigger t WHERE NOT t.tgisinternal
  UNION ALL
  SELECT 'fn ' || n.nspname || '.' || p.proname || ' ' || md5(p.prosrc)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${USER_SCHEMAS}
  UNION ALL
  SELECT 'set ' || array_to_string(s.setconfig, ',') FROM pg_db_role_setting s
   WHERE s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
  UNION ALL
  SELECT 'migrations ' || count(*) FROM schema_migrations`;

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** Reads the plan from `db`, which must be as the template left it. */
export async function readEmptyingPlan(db: Sql): Promise<EmptyingPlan> {
  const tables = await db.query<{ name: string }>(
    `SELECT quote_ident(c.relname) AS name FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> 'schema_migrations'
      ORDER BY 1`,
  );
  const emptied = tables.rows.map((t) => t.name);
  const statements = ['SET LOCAL session_replication_role = replica', ...emptied.map((name) => `DELETE FROM ${name}`)];
  const rowsQuery = `SELECT (${emptied.map((name) => `(SELECT count(*) FROM ${name})`).join(' + ')})::int AS n`;
  let seeded = 0;
  for (const name of emptied) {
    const { rows } = await db.query<{ rows: string | null; n: number }>(`SELECT json_agg(t)::text AS rows, count(*)::int AS n FROM ${name} t`);
    if (rows[0]?.rows) statements.push(`INSERT INTO ${name} SELECT * FROM json_populate_recordset(NULL::${name}, ${literal(rows[0].rows)})`);
    seeded += rows[0]?.n ?? 0;
  }
  const sequences = await db.query<{ name: string }>(
    "SELECT quote_ident(c.relname) AS name FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S' ORDER BY 1",
  );
  for (const { name } of sequences.rows) {
    const { rows } = await db.query<{ last: string; called: boolean }>(`SELECT last_value::text AS last, is_called AS called FROM ${name}`);
    statements.push(`SELECT setval(${literal(name)}, ${rows[0]!.last}, ${rows[0]!.called})`);
  }
  const fingerprintQuery = `SELECT md5(string_agg(item, E'\\n' ORDER BY item)) AS fingerprint FROM (${SCHEMA_ITEMS}) items`;
  return {
    empty: `BEGIN;\n${statements.join(';\n')};\nCOMMIT;`,
    fingerprintQuery,
    fingerprint: await fingerprintOf(db, fingerprintQuery),
    rowsQuery,
    rows: seeded,
  };
}

async function fingerprintOf(db: Sql, query: string): Promise<string> {
  const { rows } = await db.query<{ fingerprint: string }>(query);
  return rows[0]!.fingerprint;
}

/**
 * Empties `db` for the next test when its schema is still the template's; false (and nothing
 * emptied) when it is not. Throws when a statement fails (a transaction a test left open, say):
 * the caller then does not reuse the database either.
 */
export async function emptyForReuse(db: Sql, plan: EmptyingPlan): Promise<boolean> {
  if ((await fingerprintOf(db, plan.fingerprintQuery)) !== plan.fingerprint) return false;
  await db.exec(plan.empty);
  // Whatever wrote beside the emptying (nothing should) shows here: such a database is not reused.
  const { rows } = await db.query<{ n: number }>(plan.rowsQuery);
  return rows[0]!.n === plan.rows;
}

/** Rejects when `work` has not settled within `ms` (a database a test left waiting is not waited for). */
export function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
