import { createApp, type ChipinApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { testConfig } from '../helpers/app.ts';
export { isolatedDatabase, type IsolatedDatabase } from '../helpers/database.ts';

/** An app on `db` that does not close it (several apps may share one PGlite database). */
export async function appOn(db: Database, overrides: Partial<Config> = {}): Promise<ChipinApp> {
  const shared: Database = { ...db, close: async () => {} };
  return createApp(testConfig({ logLevel: 'silent', ...overrides }), { db: shared, processMetrics: false });
}
