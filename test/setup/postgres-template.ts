import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { runDatabasePrefix, testConnection } from '../helpers/postgres-url.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated database every test database on PostgreSQL is cloned from. */
    postgresTemplate: string;
  }
}

/**
 * Global setup of the `postgres` project, once per run: migrate one database of DATABASE_URL's
 * server; every test database is a `CREATE DATABASE … TEMPLATE` of it (about 0.1 s, against
 * 0.8 s for the migrations in a new schema). docs/testing.md.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const base = process.env.DATABASE_URL!;
  const template = `chipin_tpl_${randomBytes(6).toString('hex')}`;
  const admin = openPostgres(base, { max: 1 });
  await admin.query(`CREATE DATABASE ${template}`);
  // Through the pooler when the run uses one: the migrations must pass through it too.
  const { url, options } = testConnection(base, template);
  const db = openPostgres(url, { ...options, max: 1 });
  try {
    // With pg_partman on the server, the template is migrated as a database with the extension
    // is: the append-only tables partitioned (docs/partitioning.md). CI installs it and sets
    // CHIPIN_REQUIRE_PARTMAN=1, so a run there never falls back to plain tables unnoticed.
    const { rows } = await db.query("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_partman'");
    if (rows.length > 0) await db.exec('CREATE SCHEMA partman; CREATE EXTENSION pg_partman SCHEMA partman');
    else if (process.env.CHIPIN_REQUIRE_PARTMAN === '1')
      throw new Error('CHIPIN_REQUIRE_PARTMAN=1 but pg_partman is not available on this server (apt-get install postgresql-15-partman)');
    await migrate(db);
  } finally {
    // A template is cloned only while nobody is connected to it: a pooler keeps its server
    // connections open after the client leaves, so they are ended here.
    await db.close();
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [template]);
  }
  project.provide('postgresTemplate', template);
  return async () => {
    // The test databases whose drop a worker's end cut short (test/helpers/database.ts): this run's only.
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [runDatabasePrefix(template)]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.close();
  };
}
