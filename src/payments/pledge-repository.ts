import type { Sql } from '../db/database.ts';
import type { RowType } from '../db/row-types.ts';
import { newUuid } from '../domain/ids.ts';

/**
 * The pledges of a SHARED purchase: the leader's invitations (drafts until the leader's payment
 * succeeds), their reservations while a pledger pays, and the pledgers as the account's clients.
 */

export type PledgeState = 'draft' | 'invited' | 'paying' | 'paid' | 'closed';

export interface Pledge {
  id: string;
  accountId: string;
  purchaseId: string;
  clientId: string | null;
  name: string | null;
  email: string | null;
  phoneNumber: string | null;
  amountCents: number;
  state: PledgeState;
  payingUntil: Date | null;
  paymentId: string | null;
  paidAt: Date | null;
  closedReason: string | null;
  /** The language of the pledge page the friend last used (src/i18n/shopper-lang.ts); null before any. */
  pageLanguage: string | null;
}

type PledgeRow = RowType<
  'pledges',
  {
    id: string;
    account_id: string;
    purchase_id: string;
    client_id: string | null;
    name: string | null;
    email: string | null;
    phone_number: string | null;
    amount_cents: number;
    state: PledgeState;
    paying_until: Date | null;
    payment_id: string | null;
    paid_at: Date | null;
    closed_reason: string | null;
    page_language: string | null;
  }
>;

function toPledge(r: PledgeRow): Pledge {
  return {
    id: r.id,
    accountId: r.account_id,
    purchaseId: r.purchase_id,
    clientId: r.client_id,
    name: r.name,
    email: r.email,
    phoneNumber: r.phone_number,
    amountCents: r.amount_cents,
    state: r.state,
    payingUntil: r.paying_until,
    paymentId: r.payment_id,
    paidAt: r.paid_at,
    closedReason: r.closed_reason,
    pageLanguage: r.page_language ?? null,
  };
}

export async function listPledges(sql: Sql, accountId: string, purchaseId: string): Promise<Pledge[]> {
  const { rows } = await sql.query<PledgeRow>('SELECT * FROM pledges WHERE account_id = $1 AND purchase_id = $2 ORDER BY position, id', [accountId, purchaseId]);
  return rows.map(toPledge);
}

/** A pledge by id alone: for the pledger's page, reached through its own unguessable link. */
export async function findPledgeForPage(sql: Sql, id: string): Promise<Pledge | undefined> {
  const { rows } = await sql.query<PledgeRow>('SELECT * FROM pledges WHERE id = $1', [id]);
  return rows[0] && toPledge(rows[0]);
}

/**
 * Keeps the language of the pledge page the friend is using, when it changed: their messages
 * follow it (docs/hosted-payment.md#language). The pledge's `updated_at` is not touched: a page
 * read is no change the merchant sees.
 */
export async function setPledgePageLanguage(sql: Sql, accountId: string, id: string, lang: string): Promise<void> {
  await sql.query('UPDATE pledges SET page_language = $3 WHERE account_id = $1 AND id = $2 AND page_language IS DISTINCT FROM $3', [accountId, id, lang]);
}

export async function findPledge(sql: Sql, accountId: string, id: string, lock = false): Promise<Pledge | undefined> {
  const { rows } = await sql.query<PledgeRow>(`SELECT * FROM pledges WHERE account_id = $1 AND id = $2 ${lock ? 'FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] && toPledge(rows[0]);
}

export interface NewPledge {
  name?: string;
  email?: string;
  phoneNumber?: string;
  amountCents: number;
}

/** The leader's invitations, stored as drafts until the leader's payment succeeds. */
export async function insertDraftPledges(sql: Sql, accountId: string, purchaseId: string, pledges: readonly NewPledge[], now: Date): Promise<void> {
  await sql.query("DELETE FROM pledges WHERE account_id = $1 AND purchase_id = $2 AND state = 'draft'", [accountId, purchaseId]);
  for (const [position, p] of pledges.entries()) {
    await sql.query(
      `INSERT INTO pledges (id, account_id, purchase_id, name, email, phone_number, amount_cents, position, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'draft', $9, $9)`,
      [newUuid(), accountId, purchaseId, p.name ?? null, p.email ?? null, p.phoneNumber ?? null, p.amountCents, position, now],
    );
  }
}

export async function setPledgeState(
  sql: Sql,
  p: Pick<Pledge, 'accountId' | 'id'>,
  state: PledgeState,
  now: Date,
  extra: { payingUntil?: Date | null; paymentId?: string; paidAt?: Date; closedReason?: string; clientId?: string } = {},
): Promise<void> {
  await sql.query(
    `UPDATE pledges SET state = $3, updated_at = $4,
       paying_until = CASE WHEN $5::boolean THEN $6::timestamptz ELSE paying_until END,
       payment_id = COALESCE($7, payment_id), paid_at = COALESCE($8, paid_at),
       closed_reason = COALESCE($9, closed_reason), client_id = COALESCE($10, client_id)
     WHERE account_id = $1 AND id = $2`,
    [
      p.accountId,
      p.id,
      state,
      now,
      extra.payingUntil !== undefined,
      extra.payingUntil ?? null,
      extra.paymentId ?? null,
      extra.paidAt ?? null,
      extra.closedReason ?? null,
      extra.clientId ?? null,
    ],
  );
}

/**
 * The pledge is paid by `paymentId`, only while it still holds that payment's reservation
 * (`paying` with it): a pledge closed meanwhile (the deadline) or paid already stays as it is.
 * Answers whether it was paid now.
 */
export async function markPledgePaid(sql: Sql, p: Pick<Pledge, 'accountId' | 'id'>, paymentId: string, now: Date, clientId?: string): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE pledges SET state = 'paid', paying_until = NULL, paid_at = $4, updated_at = $4, client_id = COALESCE($5, client_id)
     WHERE account_id = $1 AND id = $2 AND state = 'paying' AND payment_id = $3`,
    [p.accountId, p.id, paymentId, now, clientId ?? null],
  );
  return rowCount === 1;
}

/** Pledgers become clients of the account (unique by e-mail: docs/api-conventions.md#clients); one without e-mail stays anonymous. */
export async function upsertPledgerClient(sql: Sql, accountId: string, p: Pledge, now: Date): Promise<string | undefined> {
  if (!p.email) return undefined;
  const [first, ...rest] = (p.name ?? '').trim().split(/\s+/);
  const { rows } = await sql.query<{ id: string }>(
    `INSERT INTO clients AS cl (id, account_id, ref, email, first_name, last_name, created_at, updated_at)
     VALUES ($1, $2, NULL, $3, $4, $5, $6, $6)
     ON CONFLICT (account_id, lower(email)) WHERE ref IS NULL DO UPDATE SET
       first_name = COALESCE(cl.first_name, EXCLUDED.first_name), last_name = COALESCE(cl.last_name, EXCLUDED.last_name)
     RETURNING id`,
    [newUuid(), accountId, p.email, first || null, rest.join(' ') || null, now],
  );
  return rows[0]?.id;
}

/** The shares of the leader's draft invitations (a 3-D Secure resume re-plans with them). */
export async function draftShares(sql: Sql, accountId: string, purchaseId: string): Promise<number[]> {
  const { rows } = await sql.query<{ amount_cents: number }>("SELECT amount_cents FROM pledges WHERE account_id = $1 AND purchase_id = $2 AND state = 'draft'", [
    accountId,
    purchaseId,
  ]);
  return rows.map((r) => r.amount_cents);
}

/** The leader's payment succeeded: drafts become invitations. Answers how many. */
export async function inviteDrafts(sql: Sql, accountId: string, purchaseId: string, now: Date): Promise<number> {
  const { rowCount } = await sql.query("UPDATE pledges SET state = 'invited', updated_at = $3 WHERE account_id = $1 AND purchase_id = $2 AND state = 'draft'", [
    accountId,
    purchaseId,
    now,
  ]);
  return rowCount;
}

/** Paid and reserved shares of the pot other than `exceptId`'s; an expired reservation no longer counts. */
export async function committedShares(sql: Sql, accountId: string, purchaseId: string, exceptId: string, now: Date): Promise<number[]> {
  const { rows } = await sql.query<{ amount_cents: number }>(
    `SELECT amount_cents FROM pledges WHERE account_id = $1 AND purchase_id = $2 AND id <> $3
       AND (state = 'paid' OR (state = 'paying' AND paying_until > $4))`,
    [accountId, purchaseId, exceptId, now],
  );
  return rows.map((r) => r.amount_cents);
}

/** Closes the pot's pledges still in `states` (the pot is full, or its deadline passed). */
export async function closePledges(
  sql: Sql,
  accountId: string,
  purchaseId: string,
  states: readonly PledgeState[],
  reason: 'pot_full' | 'deadline' | 'refunded' | 'cancelled',
  now: Date,
): Promise<void> {
  await sql.query("UPDATE pledges SET state = 'closed', closed_reason = $4, updated_at = $3 WHERE account_id = $1 AND purchase_id = $2 AND state = ANY($5::text[])", [
    accountId,
    purchaseId,
    now,
    reason,
    states,
  ]);
}

/** Marks the unpaid invitations not reminded yet as reminded; answers their ids (each is reminded once). */
export async function markReminded(sql: Sql, accountId: string, purchaseId: string, now: Date): Promise<Set<string>> {
  const { rows } = await sql.query<{ id: string }>(
    "UPDATE pledges SET reminded_at = $3 WHERE account_id = $1 AND purchase_id = $2 AND state = 'invited' AND reminded_at IS NULL RETURNING id",
    [accountId, purchaseId, now],
  );
  return new Set(rows.map((r) => r.id));
}
