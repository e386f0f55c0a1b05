import type { Config } from '../config.ts';
import { verifyConfiguredKey } from '../crypto/master-key-check.ts';
import { migrate, newerMigrations } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';

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
