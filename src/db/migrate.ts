import { readdirSync, readFileSync } from 'node:fs';
import type { Database, Sql } from './database.ts';
import { repoFile } from '../source-files.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const DIR = repoFile('src/db/migrations/');

/** The versioned migrations shipped with this build, oldest first (`NNN_name.sql`). */
export function bundledMigrations(): Migration[] {
  return readdirSync(DIR)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: readFileSync(new URL(file, DIR), 'utf8'),
    }));
}

// Any constant works; it only has to be the same in every Chipin process.
const MIGRATION_LOCK = 726_775_001;

async function ensureTable(sql: Sql): Promise<void> {
  await sql.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
}

/**
 * A migration of this build that the database lacks while it already has a later one: applying
 * it now would run the history out of order (an older build on a newer schema, or a number
 * reused), so nothing is applied and the operator is told which build to migrate with.
 */
export class MigrationOrderError extends Error {
  constructor(
    readonly version: number,
    readonly latestApplied: number,
  ) {
    super(
      `migration ${version} is not applied but the database already has migration ${latestApplied}: ` +
        'migrations only run forward, in order; migrate with the build that ships the newest migrations (docs/deployment.md#rolling-upgrade)',
    );
    this.name = 'MigrationOrderError';
  }
}

/**
 * Applies the migrations not yet applied, each in its own transaction with its bookkeeping row.
 * A transaction-scoped advisory lock makes concurrent starts (several processes on one
 * PostgreSQL) apply each migration exactly once. Returns the versions applied now.
 *
 * During a rolling upgrade the database may hold migrations newer than this build's (the next
 * release migrated it while this one still serves): they are left alone and this build runs on
 * that schema, which the expand/contract rule keeps compatible (docs/deployment.md#rolling-upgrade).
 * A migration of this build older than the newest applied one is refused (MigrationOrderError).
 */
export async function migrate(db: Database, migrations = bundledMigrations()): Promise<number[]> {
  const applied: number[] = [];
  // Most starts find every migration applied: one read says so, where a transaction per
  // migration took five round trips each (355 for 71), seconds through a pooler under load
  // (docs/deployment.md#start-up-under-load). Whatever is missing is applied below, under the lock, each
  // checked again there, as before.
  const have = await appliedVersions(db);
  for (const m of migrations) {
    if (have.has(m.version)) continue;
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await ensureTable(tx);
      const { rows } = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]);
      if (rows.length > 0) return false;
      const latest = await tx.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
      const latestApplied = latest.rows[0]?.version ?? null;
      if (latestApplied !== null && latestApplied > m.version) throw new MigrationOrderError(m.version, latestApplied);
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}

/** The versions in schema_migrations, none when the table does not exist yet. */
async function appliedVersions(sql: Sql): Promise<Set<number>> {
  const { rows } = await sql.query<{ exists: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS exists");
  if (!rows[0]?.exists) return new Set();
  const res = await sql.query<{ version: number }>('SELECT version FROM schema_migrations');
  return new Set(res.rows.map((r) => r.version));
}

/**
 * Versions applied to the database that are newer than every migration of this build: non-empty
 * while a newer release has migrated ahead of this process (a rolling upgrade).
 */
export async function newerMigrations(sql: Sql, migrations = bundledMigrations()): Promise<number[]> {
  const { rows } = await sql.query<{ exists: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS exists");
  if (!rows[0]?.exists) return [];
  const newest = Math.max(0, ...migrations.map((m) => m.version));
  const res = await sql.query<{ version: number }>('SELECT version FROM schema_migrations WHERE version > $1 ORDER BY version', [newest]);
  return res.rows.map((r) => r.version);
}

/** Versions the code expects but the database lacks: empty when the schema is current. */
export async function pendingMigrations(sql: Sql, migrations = bundledMigrations()): Promise<number[]> {
  const have = await appliedVersions(sql);
  return migrations.map((m) => m.version).filter((v) => !have.has(v));
}
