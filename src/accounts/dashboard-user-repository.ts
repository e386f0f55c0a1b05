import type { Sql } from '../db/database.ts';
import type { Role } from '../domain/roles.ts';

/** Dashboard users (e-mail unique in any case across accounts) and the ending of their sessions. */

export interface DashboardUserRow {
  id: string;
  account_id: string;
  email: string;
  /** The column's CHECK: the back office's roles. */
  role: Role;
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
  const { rows } = await sql.query<DashboardUserRow>('SELECT id, account_id, email, role, password_hash FROM dashboard_users WHERE lower(email) = lower($1)', [email]);
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

/** Creates the user unless the e-mail (any case) already signs in somewhere: the unique index decides; false then. */
export async function insertDashboardUserUnlessTaken(
  tx: Sql,
  u: { id: string; accountId: string; email: string; passwordHash: string; role: DashboardUserRow['role'] },
): Promise<boolean> {
  const created = await tx.query('INSERT INTO dashboard_users (id, account_id, email, password_hash, role) VALUES ($1, $2, $3, $4, $5) ON CONFLICT ((lower(email))) DO NOTHING', [
    u.id,
    u.accountId,
    u.email,
    u.passwordHash,
    u.role,
  ]);
  return created.rowCount > 0;
}

/** The account's users with when their newest session began, admins first, then by e-mail. */
export async function dashboardUsersOf(sql: Sql, accountId: string): Promise<{ id: string; email: string; role: DashboardUserRow['role']; last_sign_in: Date | null }[]> {
  const { rows } = await sql.query<{ id: string; email: string; role: DashboardUserRow['role']; last_sign_in: Date | null }>(
    `SELECT u.id, u.email, u.role, (SELECT max(s.created_at) FROM dashboard_sessions s WHERE s.user_id = u.id) AS last_sign_in
       FROM dashboard_users u WHERE u.account_id = $1
      ORDER BY u.role = 'admin' DESC, lower(u.email)`,
    [accountId],
  );
  return rows;
}

/**
 * Locks the account's admins and the user `userId` (if theirs), in id order, until the
 * transaction ends: two admins changing each other at once serialise here.
 */
export async function lockAdminsAndUser(tx: Sql, accountId: string, userId: string): Promise<{ id: string; email: string; role: DashboardUserRow['role'] }[]> {
  const { rows } = await tx.query<{ id: string; email: string; role: DashboardUserRow['role'] }>(
    `SELECT id, email, role FROM dashboard_users WHERE account_id = $1 AND (role = 'admin' OR id = $2) ORDER BY id FOR UPDATE`,
    [accountId, userId],
  );
  return rows;
}

/** Deletes the user and their sessions (which end at once). */
export async function deleteDashboardUser(tx: Sql, accountId: string, userId: string): Promise<void> {
  await tx.query('DELETE FROM dashboard_sessions WHERE user_id = $1', [userId]);
  await tx.query('DELETE FROM dashboard_users WHERE id = $1 AND account_id = $2', [userId, accountId]);
}

export async function setDashboardUserRole(tx: Sql, accountId: string, userId: string, role: DashboardUserRow['role']): Promise<void> {
  await tx.query('UPDATE dashboard_users SET role = $3 WHERE id = $1 AND account_id = $2', [userId, accountId, role]);
}
