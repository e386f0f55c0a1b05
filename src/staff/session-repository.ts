import type { Sql } from '../db/database.ts';

/** dashboard_sessions: server-side back-office sessions, found by the hash of their cookie's token. */

export async function insertSession(sql: Sql, s: { id: string; tokenHash: Buffer; accountId: string; userId: string; seconds: number }): Promise<void> {
  await sql.query(
    `INSERT INTO dashboard_sessions (id, token_hash, account_id, user_id, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    [s.id, s.tokenHash, s.accountId, s.userId, s.seconds],
  );
}

/** The session with this token hash, unexpired and not revoked, with its user's e-mail and role as they are now. */
export async function findLiveSession(
  sql: Sql,
  tokenHash: Buffer,
): Promise<{ id: string; account_id: string; user_id: string; email: string; role: 'admin' | 'support' } | undefined> {
  const { rows } = await sql.query<{ id: string; account_id: string; user_id: string; email: string; role: 'admin' | 'support' }>(
    `SELECT s.id, s.account_id, s.user_id, u.email, u.role
       FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id AND u.account_id = s.account_id
      WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}

/** Ends the session (idempotent: an earlier end's date stays). */
export async function revokeSession(sql: Sql, id: string): Promise<void> {
  await sql.query('UPDATE dashboard_sessions SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1', [id]);
}

/** Deletes sessions ended (expired or signed out) more than a day ago; how many. */
export async function purgeEndedSessions(sql: Sql): Promise<number> {
  const sessions = await sql.query(
    `DELETE FROM dashboard_sessions
      WHERE expires_at < now() - interval '1 day' OR revoked_at < now() - interval '1 day'`,
  );
  return sessions.rowCount;
}
