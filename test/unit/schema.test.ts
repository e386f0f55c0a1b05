import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { TABLES } from '../../src/db/schema.ts';
import { onPostgres, openTestDatabase } from '../helpers/app.ts';

/**
 * src/db/schema.ts is the one typed description of the tables (the Kysely builder and the
 * repositories' row types read it): it must say what the migrations made, column by column.
 */
let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

/** Each table's columns as schema.ts spells them, read from the migrated database. */
async function migratedTables(): Promise<Record<string, Record<string, string>>> {
  const { rows } = await db.query<{ table_name: string; column_name: string; udt_name: string; is_nullable: string; column_default: string | null; is_identity: string }>(
    `SELECT c.table_name, c.column_name, c.udt_name, c.is_nullable, c.column_default, c.is_identity
     FROM information_schema.columns c JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     JOIN pg_class k ON k.oid = (quote_ident(t.table_schema) || '.' || quote_ident(t.table_name))::regclass
     -- A partitioned table's partitions (docs/partitioning.md) are not tables of their own.
     WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND NOT k.relispartition
     ORDER BY c.table_name, c.ordinal_position`,
  );
  const tables: Record<string, Record<string, string>> = {};
  for (const r of rows) {
    const identity = r.is_identity === 'YES';
    const spec = `${r.udt_name}${r.is_nullable === 'YES' && !identity ? ' null' : ''}${r.column_default !== null || identity ? ' default' : ''}`;
    (tables[r.table_name] ??= {})[r.column_name] = spec;
  }
  return tables;
}

describe(`src/db/schema.ts against the migrated database (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('names every table the migrations create, and no other', async () => {
    expect(Object.keys(TABLES).sort()).toEqual(Object.keys(await migratedTables()).sort());
  });

  it("gives every column its type, NULL and default as migrated (the message shows the table's lines to paste)", async () => {
    const migrated = await migratedTables();
    for (const [table, columns] of Object.entries(migrated)) {
      const declared: Record<string, string> = { ...(TABLES as Record<string, Record<string, string>>)[table] };
      expect(
        declared,
        `${table}: {\n${Object.entries(columns)
          .map(([c, s]) => `  ${c}: '${s}',`)
          .join('\n')}\n}`,
      ).toEqual(columns);
    }
  });
});
