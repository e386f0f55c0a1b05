import type { Sql } from '../db/database.ts';
import type { RowType } from '../db/row-types.ts';

/**
 * shopper_sessions: server-side sessions of the shopper's space, found by the hash of their
 * cookie's token. Times come from the service clock (docs/jobs-and-clock.md#the-service-clock).
 */

export type ShopperSessionRow = RowType<'shopper_sessions', { id: string; identity_kind: 'email' | 'phone'; identity: string; expires_at: Date }>;

export async function insertShopperSession(sql: Sql, s: { id: string; tokenHash: Buffer; kind: 'email' | 'phone'; identity: string; now: Date; expiresAt: Date }): Promise<void> {
  await sql.query(
    `INSERT INTO shopper_sessions (id, token_hash, identity_kind, identity, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [s.id, s.tokenHash, s.kind, s.identity, s.now, s.expiresAt],
  );
}

/** The session with this token hash, unexpired at `now` and not revoked. */
export async function findLiveShopperSession(sql: Sql, tokenHash: Buffer, now: Date): Promise<ShopperSessionRow | undefined> {
  const { rows } = await sql.query<ShopperSessionRow>(
    `SELECT id, identity_kind, identity, expires_at FROM shopper_sessions
      WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2`,
    [tokenHash, now],
  );
  return rows[0];
}

/** Ends the session (idempotent: an earlier end's date stays). */
export async function revokeShopperSession(sql: Sql, id: string, now: Date): Promise<void> {
  await sql.query('UPDATE shopper_sessions SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1', [id, now]);
}

/** Deletes sessions ended more than a day before `now`, and sign-in requests expired as long; how many rows. */
export async function purgeEndedShopperRows(sql: Sql, now: Date): Promise<number> {
  const sessions = await sql.query(`DELETE FROM shopper_sessions WHERE expires_at < $1::timestamptz - interval '1 day' OR revoked_at < $1::timestamptz - interval '1 day'`, [now]);
  const requests = await sql.query(`DELETE FROM shopper_sign_in_requests WHERE expires_at < $1::timestamptz - interval '1 day'`, [now]);
  return sessions.rowCount + requests.rowCount;
}
