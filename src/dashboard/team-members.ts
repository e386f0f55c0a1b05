import type { Sql } from '../db/database.ts';
import type { Role } from './roles.ts';

export interface TeamMember {
  id: string;
  email: string;
  role: Role;
  /** When their newest session began, if they ever signed in to the pages. */
  lastSignIn: Date | null;
}

/** The account's dashboard users, admins first, then by e-mail. */
export async function listMembers(sql: Sql, accountId: string): Promise<TeamMember[]> {
  const { rows } = await sql.query<{ id: string; email: string; role: Role; last_sign_in: Date | null }>(
    `SELECT u.id, u.email, u.role, (SELECT max(s.created_at) FROM dashboard_sessions s WHERE s.user_id = u.id) AS last_sign_in
       FROM dashboard_users u WHERE u.account_id = $1
      ORDER BY u.role = 'admin' DESC, lower(u.email)`,
    [accountId],
  );
  return rows.map((r) => ({ id: r.id, email: r.email, role: r.role, lastSignIn: r.last_sign_in }));
}
