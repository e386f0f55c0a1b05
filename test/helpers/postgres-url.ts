import type { PostgresOptions } from '../../src/db/postgres.ts';

/** The prefix of a run's test databases on PostgreSQL: `chipin_t_<the suffix of the run's template>_`. */
export function runDatabasePrefix(template: string): string {
  return `chipin_t_${template.slice('chipin_tpl_'.length)}_`;
}

/** `url` pointing at database `name` on the same server, with the same user and options. */
export function databaseUrlNamed(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * `CHIPIN_TEST_POOLER_URL`: the suite's test databases are reached through this transaction
 * pooler (PgBouncer, `npm run test:pgbouncer`, docs/testing.md#through-pgbouncer) while
 * DATABASE_URL stays the direct server, for creating and dropping databases and for LISTEN.
 */
const poolerBase = process.env.CHIPIN_TEST_POOLER_URL?.trim() || undefined;

/** How the suite reaches a database of DATABASE_URL's server: `url` and `options` in this process, `env` for a child. */
export interface TestConnection {
  url: string;
  options: PostgresOptions;
  env: Record<string, string>;
}

export function testConnection(directBase: string, name: string): TestConnection {
  const direct = databaseUrlNamed(directBase, name);
  if (!poolerBase) return { url: direct, options: {}, env: { DATABASE_URL: direct } };
  const url = databaseUrlNamed(poolerBase, name);
  return {
    url,
    options: { pooler: 'transaction', listenUrl: direct },
    env: { DATABASE_URL: url, DATABASE_POOLER: 'transaction', DATABASE_LISTEN_URL: direct },
  };
}
