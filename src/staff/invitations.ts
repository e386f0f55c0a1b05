import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../audit/audit-log.ts';
import { lockAccount } from '../accounts/account-repository.ts';
import { accountIdOfUserEmail, insertDashboardUserUnlessTaken } from '../accounts/dashboard-user-repository.ts';
import { recordAudit } from '../audit/audit-repository.ts';
import { hashPassword } from '../crypto/passwords.ts';
import type { Database, Sql } from '../db/database.ts';
import { isEmailAddress } from '../domain/email.ts';
import { isUuid, newUuid } from '../domain/ids.ts';
import {
  insertInvitation,
  lockPendingInvitation,
  markInvitationAccepted,
  pendingInvitationByToken,
  pendingInvitations,
  revokePendingInvitation,
  revokePendingInvitationsOf,
  type InvitationRow,
} from './invitation-repository.ts';
import type { MerchantRole, Role } from '../domain/roles.ts';

/** How long an invitation link works: a week, long enough for a colleague back from holiday. */
const INVITATION_DAYS = 7;

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
}

/** A pending invitation as its link shows it, before a password is chosen. */
export interface OpenInvitation extends Invitation {
  accountId: string;
  accountName: string;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest();

export type InviteOutcome = { ok: true; invitation: Invitation; token: string } | { ok: false; field: 'email'; reason: 'invalid' | 'member' | 'taken' };

/**
 * Invites `email` to the account with `role`: answers the new invitation and its token (for the
 * e-mailed link; only its hash is kept). Inviting an e-mail with a pending invitation replaces
 * it (the old link stops working). An e-mail that already signs in to a back office (this
 * account's or another's: dashboard e-mails identify one user) cannot be invited. The
 * invitation and its audit entry are written in one transaction.
 */
export async function inviteMember(db: Database, accountId: string, actor: Actor, input: { email: string; role: MerchantRole }): Promise<InviteOutcome> {
  const email = input.email.trim();
  if (!isEmailAddress(email)) return { ok: false, field: 'email', reason: 'invalid' };
  const token = randomBytes(32).toString('base64url');
  return db.transaction(async (tx) => {
    // One invitation at a time per account: two admins inviting the same e-mail at once make one pending invitation.
    await lockAccount(tx, accountId);
    const userAccount = await accountIdOfUserEmail(tx, email);
    if (userAccount) return { ok: false, field: 'email', reason: userAccount === accountId ? 'member' : 'taken' } as const;
    await revokePendingInvitationsOf(tx, accountId, email);
    const row = await insertInvitation(tx, { id: newUuid(), accountId, email, role: input.role, tokenHash: hashOf(token), invitedBy: actor.label, days: INVITATION_DAYS });
    const invitation = toInvitation(row);
    await recordAudit(tx, { accountId, actor, action: 'member_invite', subject: email, details: { role: input.role } });
    return { ok: true, invitation, token } as const;
  });
}

function toInvitation(r: InvitationRow): Invitation {
  return { id: r.id, email: r.email, role: r.role, invitedBy: r.invited_by, createdAt: r.created_at, expiresAt: r.expires_at };
}

/** The account's invitations still waiting for an answer, newest first. */
export async function listInvitations(sql: Sql, accountId: string): Promise<Invitation[]> {
  return (await pendingInvitations(sql, accountId)).map(toInvitation);
}

/** The pending invitation a link's token opens, or undefined (unknown, used, revoked or expired: all alike). */
export async function openInvitation(sql: Sql, token: string): Promise<OpenInvitation | undefined> {
  if (!token || token.length > 100) return undefined;
  const r = await pendingInvitationByToken(sql, hashOf(token));
  return r && { ...toInvitation(r), accountId: r.account_id, accountName: r.account_name };
}

export type AcceptOutcome = { ok: true; user: { userId: string; accountId: string; email: string; role: Role } } | { ok: false; reason: 'not_found' | 'taken' };

/**
 * Accepts the invitation a token opens: the member is created with the invitation's e-mail and
 * role and `password` (already checked against the password rules), the invitation is used up
 * and the join audited, in one transaction. The row is locked first, so a link sent twice at
 * once makes one member.
 */
export async function acceptInvitation(db: Database, token: string, password: string): Promise<AcceptOutcome> {
  if (!token || token.length > 100) return { ok: false, reason: 'not_found' };
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const inv = await lockPendingInvitation(tx, hashOf(token));
    if (!inv) return { ok: false, reason: 'not_found' } as const;
    // Someone may have been given this e-mail's login since the invitation (another account's
    // invitation, the CLI), even at this very moment: the unique index decides.
    const userId = newUuid();
    const created = await insertDashboardUserUnlessTaken(tx, { id: userId, accountId: inv.account_id, email: inv.email, passwordHash, role: inv.role });
    if (!created) return { ok: false, reason: 'taken' } as const;
    await markInvitationAccepted(tx, inv.id);
    await recordAudit(tx, { accountId: inv.account_id, actor: { userId, label: inv.email }, action: 'member_join', subject: inv.email, details: { role: inv.role } });
    return { ok: true, user: { userId, accountId: inv.account_id, email: inv.email, role: inv.role } } as const;
  });
}

/** Revokes a pending invitation of the account (its link stops working); another account's is not found. */
export async function revokeInvitation(db: Database, accountId: string, actor: Actor, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  return db.transaction(async (tx) => {
    const email = await revokePendingInvitation(tx, accountId, id);
    if (email === undefined) return false;
    await recordAudit(tx, { accountId, actor, action: 'member_invite_revoke', subject: email });
    return true;
  });
}
