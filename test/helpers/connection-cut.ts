import type { Database } from '../../src/db/database.ts';

/**
 * Fails, until `heal()`, every statement of `event` on `table` whose row matches `when` (SQL on
 * NEW; on OLD for a DELETE), as a connection cut under it would: SQLSTATE 57P01, the server
 * shutting the connection down, which the service answers as a 503 (src/db/unavailable.ts), on
 * either engine. `name` is the trigger's and its function's, unique per cut.
 */
export async function cutOn(db: Database, name: string, table: string, event: 'INSERT' | 'UPDATE' | 'DELETE', when: string): Promise<{ heal(): Promise<void> }> {
  await db.exec(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01'; END $$`);
  await db.exec(`CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`);
  return {
    heal: async () => {
      await db.exec(`DROP TRIGGER ${name} ON ${table}; DROP FUNCTION ${name}();`);
    },
  };
}

/**
 * Sets the lease of the payments of a purchase or a pledge (docs/money-operations.md#payments-in-doubt):
 * `live` as a request still running them keeps it, `lapsed` as a killed one leaves it, `none` as a
 * PSP fault or an older build leaves it. Used after a cut, to put the attempt in the state a test needs.
 */
export async function setPaymentLease(db: Database, of: { purchaseId: string } | { pledgeId: string }, lease: 'live' | 'lapsed' | 'none'): Promise<void> {
  const until = { live: "now() + interval '1 hour'", lapsed: "now() - interval '1 second'", none: 'NULL' }[lease];
  const [column, id] = 'purchaseId' in of ? ['purchase_id', of.purchaseId] : ['pledge_id', of.pledgeId];
  await db.query(`UPDATE payments SET run_lease_until = ${until} WHERE ${column} = $1`, [id]);
}
