import type { Sql } from '../db/database.ts';

/** dashboard_invitations: one row per invitation, its link's token kept only as a hash. */

export interface InvitationRow {
  id: string;
  email: string;
  /** The column's CHECK: a merchant's roles (`MerchantRole` of roles.ts: no invitation makes an operator). */
  role: 'admin' | 'support';
  invited_by: string;
  created_at: Date;
  expires_at: Date;
}

const PENDING = 'i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()';

/** Revokes the account's pending invitations of this e-mail (any case). */
export async function revokePendingInvitationsOf(tx: Sql, accountId: string, email: string): Promise<void> {
  await tx.query(
    `UPDATE dashboard_invitations SET revoked_at = now()
      WHERE account_id = $1 AND lower(email) = lower($2) AND accepted_at IS NULL AND revoked_at IS NULL`,
    [accountId, email],
  );
}

export async function insertInvitation(
  tx: Sql,
  i: { id: string; accountId: string; email: string; role: InvitationRow['role']; tokenHash: Buffer; invitedBy: string; days: number },
): Promise<InvitationRow> {
  const { rows } = await tx.query<InvitationRow>(
    `INSERT INTO dashboard_invitations (id, account_id, email, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(days => $7))
     RETURNING id, email, role, invited_by, created_at, expires_at`,
    [i.id, i.accountId, i.email, i.role, i.tokenHash, i.invitedBy, i.days],
  );
  return rows[0]!;
}

/** The account's invitations still waiting for an answer, newest first. */
export async function pendingInvitations(sql: Sql, accountId: string): Promise<InvitationRow[]> {
  const { rows } = await sql.query<InvitationRow>(
    `SELECT i.id, i.email, i.role, i.invited_by, i.created_at, i.expires_at FROM dashboard_invitations i
      WHERE i.account_id = $1 AND ${PENDING} ORDER BY i.created_at DESC, i.id`,
    [accountId],
  );
  return rows;
}

/** The pending invitation with this token hash, with its account's name. */
export async function pendingInvitationByToken(sql: Sql, tokenHash: Buffer): Promise<(InvitationRow & { account_id: string; account_name: string }) | undefined> {
  const { rows } = await sql.query<InvitationRow & { account_id: string; account_name: string }>(
    `SELECT i.id, i.email, i.role, i.invited_by, i.created_at, i.expires_at, i.account_id, a.name AS account_name
       FROM dashboard_invitations i JOIN accounts a ON a.id = i.account_id
      WHERE i.token_hash = $1 AND ${PENDING}`,
    [tokenHash],
  );
  return rows[0];
}

/** The pending invitation with this token hash, its row locked until the transaction ends. */
export async function lockPendingInvitation(tx: Sql, tokenHash: Buffer): Promise<{ id: string; account_id: string; email: string; role: InvitationRow['role'] } | undefined> {
  const { rows } = await tx.query<{ id: string; account_id: string; email: string; role: InvitationRow['role'] }>(
    `SELECT i.id, i.account_id, i.email, i.role FROM dashboard_invitations i WHERE i.token_hash = $1 AND ${PENDING} FOR UPDATE`,
    [tokenHash],
  );
  return rows[0];
}

export async function markInvitationAccepted(tx: Sql, id: string): Promise<void> {
  await tx.query('UPDATE dashboard_invitations SET accepted_at = now() WHERE id = $1', [id]);
}

/** Revokes the account's pending invitation; its e-mail, or undefined when there was none. */
export async function revokePendingInvitation(tx: Sql, accountId: string, id: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ email: string }>(
    `UPDATE dashboard_invitations i SET revoked_at = now() WHERE i.account_id = $1 AND i.id = $2 AND ${PENDING} RETURNING i.email`,
    [accountId, id],
  );
  return rows[0]?.email;
}

/** Deletes invitations that ended (accepted, revoked, else expired) more than 30 days ago; how many. */
export async function purgeEndedInvitations(sql: Sql): Promise<number> {
  const invitations = await sql.query(
    `DELETE FROM dashboard_invitations
      WHERE COALESCE(accepted_at, revoked_at, expires_at) < now() - interval '30 days'`,
  );
  return invitations.rowCount;
}
