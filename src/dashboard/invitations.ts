import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../audit/audit-log.ts';
import { recordAudit } from '../audit/audit-repository.ts';
import { hashPassword } from '../crypto/passwords.ts';
import type { Database, Sql } from '../db/database.ts';
import { isEmailAddress } from '../domain/email.ts';
import { isUuid, newUuid } from '../domain/ids.ts';
import type { Role } from './roles.ts';

/** How long an invitation link works: a week, long enough for a colleague back from holiday. */
export const INVITATION_DAYS = 7;

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

export type InviteOutcome =
  | { ok: true; invitation: Invitation; token: string }
  | { ok: false; field: 'email'; reason: 'invalid' | 'member' | 'taken' };

/**
 * Invites `email` to the account with `role`: answers the new invitation and its token (for the
 * e-mailed link; only its hash is kept). Inviting an e-mail with a pending invitation replaces
 * it (the old link stops working). An e-mail that already signs in to a back office (this
 * account's or another's: dashboard e-mails identify one user) cannot be invited. The
 * invitation and its audit entry are written in one transaction.
 */
export async function inviteMember(db: Database, accountId: string, actor: Actor, input: { email: string; role: Role }): Promise<InviteOutcome> {
  const email = input.email.trim();
  if (!isEmailAddress(email)) return { ok: false, field: 'email', reason: 'invalid' };
  const token = randomBytes(32).toString('base64url');
  return db.transaction(async (tx) => {
    // One invitation at a time per account: two admins inviting the same e-mail at once make one pending invitation.
    await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
    const { rows: users } = await tx.query<{ account_id: string }>('SELECT account_id FROM dashboard_users WHERE lower(email) = lower($1)', [email]);
    if (users[0]) return { ok: false, field: 'email', reason: users[0].account_id === accountId ? 'member' : 'taken' } as const;
    await tx.query(
      `UPDATE dashboard_invitations SET revoked_at = now()
        WHERE account_id = $1 AND lower(email) = lower($2) AND accepted_at IS NULL AND revoked_at IS NULL`,
      [accountId, email],
    );
    const { rows } = await tx.query<InvitationRow>(
      `INSERT INTO dashboard_invitations (id, account_id, email, role, token_hash, invited_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(days => $7))
       RETURNING id, email, role, invited_by, created_at, expires_at`,
      [newUuid(), accountId, email, input.role, hashOf(token), actor.label, INVITATION_DAYS],
    );
    const invitation = toInvitation(rows[0]!);
    await recordAudit(tx, { accountId, actor, action: 'member_invite', subject: email, details: { role: input.role } });
    return { ok: true, invitation, token } as const;
  });
}

interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
}

function toInvitation(r: InvitationRow): Invitation {
  return { id: r.id, email: r.email, role: r.role, invitedBy: r.invited_by, createdAt: r.created_at, expiresAt: r.expires_at };
}

const PENDING = 'i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()';

/** The account's invitations still waiting for an answer, newest first. */
export async function listInvitations(sql: Sql, accountId: string): Promise<Invitation[]> {
  const { rows } = await sql.query<InvitationRow>(
    `SELECT i.id, i.email, i.role, i.invited_by, i.created_at, i.expires_at FROM dashboard_invitations i
      WHERE i.account_id = $1 AND ${PENDING} ORDER BY i.created_at DESC, i.id`,
    [accountId],
  );
  return rows.map(toInvitation);
}

/** The pending invitation a link's token opens, or undefined (unknown, used, revoked or expired: all alike). */
export async function openInvitation(sql: Sql, token: string): Promise<OpenInvitation | undefined> {
  if (!token || token.length > 100) return undefined;
  const { rows } = await sql.query<InvitationRow & { account_id: string; account_name: string }>(
    `SELECT i.id, i.email, i.role, i.invited_by, i.created_at, i.expires_at, i.account_id, a.name AS account_name
       FROM dashboard_invitations i JOIN accounts a ON a.id = i.account_id
      WHERE i.token_hash = $1 AND ${PENDING}`,
    [hashOf(token)],
  );
  const r = rows[0];
  return r && { ...toInvitation(r), accountId: r.account_id, accountName: r.account_name };
}

export type AcceptOutcome =
  | { ok: true; user: { userId: string; accountId: string; email: string; role: Role } }
  | { ok: false; reason: 'not_found' | 'taken' };

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
    const { rows } = await tx.query<{ id: string; account_id: string; email: string; role: Role }>(
      `SELECT i.id, i.account_id, i.email, i.role FROM dashboard_invitations i WHERE i.token_hash = $1 AND ${PENDING} FOR UPDATE`,
      [hashOf(token)],
    );
    const inv = rows[0];
    if (!inv) return { ok: false, reason: 'not_found' } as const;
    // Someone may have been given this e-mail's login since the invitation (another account's
    // invitation, the CLI), even at this very moment: the unique index decides.
    const userId = newUuid();
    const created = await tx.query(
      'INSERT INTO dashboard_users (id, account_id, email, password_hash, role) VALUES ($1, $2, $3, $4, $5) ON CONFLICT ((lower(email))) DO NOTHING',
      [userId, inv.account_id, inv.email, passwordHash, inv.role],
    );
    if (created.rowCount === 0) return { ok: false, reason: 'taken' } as const;
    await tx.query('UPDATE dashboard_invitations SET accepted_at = now() WHERE id = $1', [inv.id]);
    await recordAudit(tx, { accountId: inv.account_id, actor: { userId, label: inv.email }, action: 'member_join', subject: inv.email, details: { role: inv.role } });
    return { ok: true, user: { userId, accountId: inv.account_id, email: inv.email, role: inv.role } } as const;
  });
}

/** Revokes a pending invitation of the account (its link stops working); another account's is not found. */
export async function revokeInvitation(db: Database, accountId: string, actor: Actor, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ email: string }>(
      `UPDATE dashboard_invitations i SET revoked_at = now() WHERE i.account_id = $1 AND i.id = $2 AND ${PENDING} RETURNING i.email`,
      [accountId, id],
    );
    if (!rows[0]) return false;
    await recordAudit(tx, { accountId, actor, action: 'member_invite_revoke', subject: rows[0].email });
    return true;
  });
}
