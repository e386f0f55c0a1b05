import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type Compilable } from 'kysely';
import type { QueryOptions, QueryResult, Sql } from './database.ts';
import type { Tables } from './row-types.ts';

/**
 * Kysely as a query compiler only: it builds and type-checks statements against `schema.ts`,
 * and {@link run} sends the compiled text and parameters through our own `Sql` handle, so the
 * PGlite and pg adapters, transactions, `notify` and prepared-statement options stay ours
 * (docs/dependencies.md#kysely). Its driver is a dummy that never connects.
 */
export const q = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Runs a built statement on the database or a transaction; its rows typed as Kysely inferred them. */
export function run<R>(sql: Sql, query: Compilable<R>, options?: QueryOptions): Promise<QueryResult<R>> {
  const compiled = query.compile();
  return sql.query<R>(compiled.sql, compiled.parameters, options);
}
