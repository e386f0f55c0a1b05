import { dashboardUsersOf, deleteDashboardUser, findDashboardUserByEmail, lockAdminsAndUser, setDashboardUserRole } from '../accounts/dashboard-user-repository.ts';
import type { Actor } from '../audit/audit-log.ts';
import { recordAudit } from '../audit/audit-repository.ts';
import type { Database, Sql } from '../db/database.ts';
import { isUuid } from '../domain/ids.ts';
import type { Role } from '../domain/roles.ts';

export interface TeamMember {
  id: string;
  email: string;
  role: Role;
  /** When their newest session began, if they ever signed in to the pages. */
  lastSignIn: Date | null;
}

/** The account's dashboard users, admins first, then by e-mail. */
export async function listMembers(sql: Sql, accountId: string): Promise<TeamMember[]> {
  const rows = await dashboardUsersOf(sql, accountId);
  return rows.map((r) => ({ id: r.id, email: r.email, role: r.role, lastSignIn: r.last_sign_in }));
}

export type MemberChange = { ok: true } | { ok: false; reason: 'not_found' | 'last_admin' };

/**
 * Sets a member's role, or removes the member (their sessions deleted with them, so they end at
 * once), with the audit entry, in one transaction. The account's admins are locked first, so two
 * admins demoting each other at once cannot leave the account without one.
 */
export async function changeMember(db: Database, accountId: string, actor: Actor, memberId: string, change: { role: Role } | { remove: true }): Promise<MemberChange> {
  if (!isUuid(memberId)) return { ok: false, reason: 'not_found' };
  return db.transaction(async (tx) => {
    const rows = await lockAdminsAndUser(tx, accountId, memberId);
    const member = rows.find((r) => r.id === memberId);
    if (!member) return { ok: false, reason: 'not_found' };
    const leavesAdmin = 'remove' in change || change.role !== 'admin';
    if (member.role === 'admin' && leavesAdmin && rows.filter((r) => r.role === 'admin').length === 1) return { ok: false, reason: 'last_admin' };
    if ('remove' in change) {
      await deleteDashboardUser(tx, accountId, memberId);
      await recordAudit(tx, { accountId, actor, action: 'member_remove', subject: member.email });
    } else {
      await setDashboardUserRole(tx, accountId, memberId, change.role);
      await recordAudit(tx, { accountId, actor, action: 'role_change', subject: member.email, details: { from: member.role, to: change.role } });
    }
    return { ok: true };
  });
}

/**
 * The operator's command line (`chipin dashboard set-role`): sets the role of the dashboard user
 * with this e-mail, `operator` included (the operator's staff, docs/back-office.md#the-operators-pages,
 * which no merchant's Team page can give), by {@link changeMember}'s rule (never an account without
 * an admin) and with its audit entry on the user's account. A role change applies at the user's
 * next request.
 */
export async function setRoleByEmail(
  db: Database,
  email: string,
  role: Role,
  actor: Actor,
): Promise<{ ok: true; accountId: string; email: string; from: Role } | { ok: false; reason: 'not_found' | 'last_admin' }> {
  const user = await findDashboardUserByEmail(db, email);
  if (!user) return { ok: false, reason: 'not_found' };
  const changed = await changeMember(db, user.account_id, actor, user.id, { role });
  return changed.ok ? { ok: true, accountId: user.account_id, email: user.email, from: user.role } : changed;
}
