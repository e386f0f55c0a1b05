import type { Config } from '../config.ts';
import { verifyConfiguredKey } from '../crypto/master-key-check.ts';
import { migrate, newerMigrations } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { partitionAppendOnlyTables } from '../db/partitions.ts';
import { CliError } from './command.ts';

/** `chipin migrate`: applies the pending migrations and says which, or that there were none. */
export async function migrateCommand(config: Config): Promise<void> {
  const db = await openDatabase(config);
  try {
    const applied = await migrate(db);
    await verifyConfiguredKey(db, config);
    const newer = await newerMigrations(db);
    // An older build's `chipin migrate` on a newer schema changes nothing and says so.
    if (newer.length > 0) process.stdout.write(`database schema is newer than this build (migrations ${newer.join(', ')}): nothing to apply\n`);
    else process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'database schema is up to date\n');
  } finally {
    await db.close();
  }
}

/** `chipin partition`: partitions the append-only tables a database migrated without pg_partman left plain. */
export async function partitionCommand(config: Config): Promise<void> {
  const db = await openDatabase(config);
  try {
    await migrate(db);
    const outcome = await partitionAppendOnlyTables(db);
    if (outcome.kind === 'pglite') throw new CliError('the embedded database (PGlite) keeps plain tables: partitioning is for PostgreSQL (docs/partitioning.md)');
    if (outcome.kind === 'no-partman')
      throw new CliError('pg_partman is not installed in this database: as a superuser, CREATE SCHEMA partman; CREATE EXTENSION pg_partman SCHEMA partman; (docs/partitioning.md)');
    process.stdout.write(outcome.partitioned.length ? `partitioned ${outcome.partitioned.join(', ')}\n` : 'every append-only table is partitioned already\n');
  } finally {
    await db.close();
  }
}
