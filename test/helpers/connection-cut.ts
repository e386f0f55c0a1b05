import type { Database } from '../../src/db/database.ts';

/**
 * Fails, until `heal()`, every statement of `event` on `table` whose row matches `when` (SQL on
 * NEW), as a connection cut under it would: SQLSTATE 57P01, the server shutting the connection
 * down, which the service answers as a 503 (src/db/unavailable.ts), on either engine. `name` is
 * the trigger's and its function's, unique per cut.
 */
export async function cutOn(db: Database, name: string, table: string, event: 'INSERT' | 'UPDATE', when: string): Promise<{ heal(): Promise<void> }> {
  await db.exec(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01'; END $$`);
  await db.exec(`CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`);
  return {
    heal: async () => {
      await db.exec(`DROP TRIGGER ${name} ON ${table}; DROP FUNCTION ${name}();`);
    },
  };
}
