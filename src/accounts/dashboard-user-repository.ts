import type { Sql } from '../db/database.ts';

/** Dashboard users (e-mail unique in any case across accounts) and the ending of their sessions. */

export interface DashboardUserRow {
  id: string;
  account_id: string;
  email: string;
  /** The column's CHECK: the back office's roles (`Role` of dashboard/roles.ts, above this layer). */
  role: 'admin' | 'support';
  password_hash: string;
}

export async function dashboardEmailTaken(sql: Sql, email: string): Promise<boolean> {
  const taken = await sql.query('SELECT 1 FROM dashboard_users WHERE lower(email) = lower($1)', [email]);
  return taken.rows.length > 0;
}

export async function insertDashboardUser(tx: Sql, u: { id: string; accountId: string; email: string; passwordHash: string }): Promise<void> {
  await tx.query('INSERT INTO dashboard_users (id, account_id, email, password_hash) VALUES ($1, $2, $3, $4)', [u.id, u.accountId, u.email, u.passwordHash]);
}

/** The user with this e-mail (any case), with the hash to check a password against. */
export async function findDashboardUserByEmail(sql: Sql, email: string): Promise<DashboardUserRow | undefined> {
  const { rows } = await sql.query<DashboardUserRow>('SELECT id, account_id, email, role, password_hash FROM dashboard_users WHERE lower(email) = lower($1)', [
    email,
  ]);
  return rows[0];
}

/** The account of the dashboard user with this e-mail (any case). */
export async function accountIdOfUserEmail(sql: Sql, email: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ account_id: string }>('SELECT account_id FROM dashboard_users WHERE lower(email) = lower($1)', [email]);
  return rows[0]?.account_id;
}

export async function setPasswordHash(tx: Sql, accountId: string, userId: string, hash: string): Promise<void> {
  await tx.query('UPDATE dashboard_users SET password_hash = $3 WHERE id = $1 AND account_id = $2', [userId, accountId, hash]);
}

/** Replaces the password hash of the user with this e-mail (any case, any account: the operator's reset). */
export async function setPasswordHashByEmail(tx: Sql, email: string, hash: string): Promise<{ id: string; account_id: string; email: string } | undefined> {
  const { rows } = await tx.query<{ id: string; account_id: string; email: string }>(
    'UPDATE dashboard_users SET password_hash = $2 WHERE lower(email) = lower($1) RETURNING id, account_id, email',
    [email, hash],
  );
  return rows[0];
}

/** Ends every open session of the user but this one. */
export async function endOtherSessions(tx: Sql, userId: string, keepSessionId: string): Promise<void> {
  await tx.query('UPDATE dashboard_sessions SET revoked_at = now() WHERE user_id = $1 AND id <> $2 AND revoked_at IS NULL', [userId, keepSessionId]);
}

/** Ends every live session of the user; how many there were. */
export async function endLiveSessions(tx: Sql, userId: string): Promise<number> {
  const revoked = await tx.query('UPDATE dashboard_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()', [userId]);
  return revoked.rowCount;
}
