import type { Sql } from '../db/database.ts';

/** The sandbox_clock table: its one row holds how far the service's clock runs ahead of the wall clock. */

/** The stored offset in ms (0 before any move). */
export async function readClockOffset(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ offset_ms: number }>('SELECT offset_ms FROM sandbox_clock WHERE id');
  return rows[0]?.offset_ms ?? 0;
}

/**
 * Adds `byMs` to the offset in one atomic update (concurrent moves add up) unless the result
 * would exceed `maxMs`; the new offset, or undefined when refused.
 */
export async function addClockOffset(sql: Sql, byMs: number, maxMs: number): Promise<number | undefined> {
  const { rows } = await sql.query<{ offset_ms: number }>(
    `UPDATE sandbox_clock SET offset_ms = offset_ms + $1, updated_at = now()
     WHERE id AND offset_ms + $1 <= $2 RETURNING offset_ms`,
    [byMs, maxMs],
  );
  return rows[0]?.offset_ms;
}
