import { join } from 'node:path';
import type { Database } from './database.ts';
import { lockDataDir } from './lock.ts';
import { openPglite } from './pglite.ts';
import { openPostgres, PRIMARY_WAIT_MS } from './postgres.ts';

export interface DatabaseTarget {
  databaseUrl: string | undefined;
  databasePooler?: 'transaction';
  databaseListenUrl?: string;
  dataDir: string;
}

/**
 * Opens the configured database: PostgreSQL when a URL is given, else the embedded database,
 * locked for this process. `close()` releases the lock too.
 */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if (target.databaseUrl) {
    return openPostgres(target.databaseUrl, {
      // A request waits this long at most for a connection (its pool busy, a server or pooler
      // that does not answer), then answers 503 with Retry-After (docs/deployment.md#draining).
      connectTimeoutMs: PRIMARY_WAIT_MS,
      keepAlive: true,
      ...(target.databasePooler ? { pooler: target.databasePooler } : {}),
      ...(target.databaseListenUrl ? { listenUrl: target.databaseListenUrl } : {}),
    });
  }
  const release = await lockDataDir(target.dataDir);
  try {
    const db = await openPglite(join(target.dataDir, 'pg'));
    return {
      ...db,
      async close() {
        try {
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
