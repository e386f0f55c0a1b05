import type { Sql } from '../db/database.ts';
import type { RowType } from '../db/row-types.ts';
import type { DisputeKind, DisputeState } from '../domain/disputes.ts';
import { newUuid } from '../domain/ids.ts';

/**
 * The disputes aggregate (migration 035, docs/money-operations.md#disputes): one row per PSP
 * dispute, UNIQUE (psp, psp_dispute_id), on the payment it disputes.
 */

export type DisputeRow = RowType<
  'disputes',
  {
    id: string;
    account_id: string;
    purchase_id: string;
    payment_id: string;
    psp: string;
    psp_dispute_id: string;
    kind: DisputeKind;
    state: DisputeState;
    reason: string | null;
    amount_cents: number;
    currency: string;
    evidence_due_at: Date | null;
    evidence_sent_at: Date | null;
    opened_at: Date;
    closed_at: Date | null;
    created_at: Date;
    updated_at: Date;
  }
>;

/** The payment a dispute notice names: by its PSP account (null: the built-in sandbox) and PSP transaction id. */
export async function findDisputedPayment(
  sql: Sql,
  accountId: string,
  pspAccountId: string | null,
  transactionId: string,
): Promise<{ id: string; purchase_id: string; psp: string; captured_cents: number; refunded_cents: number } | undefined> {
  const { rows } = await sql.query<{ id: string; purchase_id: string; psp: string; captured_cents: number; refunded_cents: number }>(
    `SELECT id, purchase_id, psp, captured_cents, refunded_cents FROM payments
      WHERE account_id = $1 AND psp_account_id IS NOT DISTINCT FROM $2 AND psp_transaction_id = $3
      ORDER BY created_at DESC LIMIT 1`,
    [accountId, pspAccountId, transactionId],
  );
  const r = rows[0];
  return r && { ...r, captured_cents: Number(r.captured_cents), refunded_cents: Number(r.refunded_cents) };
}

/**
 * The account a built-in sandbox PSP transaction belongs to: the sandbox does not know its
 * merchants, so its notices are addressed by transaction (ids are random uuids, unique service-wide).
 * An owner lookup, like the PSP accounts' (`pspAccountOwner`); every later read is by account.
 */
export async function sandboxTransactionOwner(sql: Sql, transactionId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ account_id: string }>("SELECT account_id FROM payments WHERE psp = 'sandbox' AND psp_account_id IS NULL AND psp_transaction_id = $1 LIMIT 1", [
    transactionId,
  ]);
  return rows[0]?.account_id;
}

export interface NewDispute {
  accountId: string;
  purchaseId: string;
  paymentId: string;
  psp: string;
  pspDisputeId: string;
  kind: DisputeKind;
  state: DisputeState;
  reason: string | null;
  amountCents: number;
  currency: string;
  evidenceDueAt: Date | null;
}

/**
 * Inserts the dispute unless (psp, psp_dispute_id) exists, then answers the row locked for the
 * rest of `tx` and whether this call created it (a redelivered notice finds it); undefined when
 * that PSP dispute is another account's.
 */
export async function upsertDisputeLocked(tx: Sql, d: NewDispute, now: Date): Promise<{ row: DisputeRow; created: boolean } | undefined> {
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO disputes (id, account_id, purchase_id, payment_id, psp, psp_dispute_id, kind, state, reason, amount_cents, currency,
                           evidence_due_at, evidence_sent_at, opened_at, closed_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, NULL, $13, $14, $13, $13)
     ON CONFLICT (psp, psp_dispute_id) DO NOTHING RETURNING id`,
    [
      newUuid(),
      d.accountId,
      d.purchaseId,
      d.paymentId,
      d.psp,
      d.pspDisputeId,
      d.kind,
      d.state,
      d.reason,
      d.amountCents,
      d.currency,
      d.evidenceDueAt,
      now,
      d.state === 'open' || d.state === 'evidence_sent' ? null : now,
    ],
  );
  const { rows } = await tx.query<DisputeRow>('SELECT * FROM disputes WHERE account_id = $1 AND psp = $2 AND psp_dispute_id = $3 FOR UPDATE', [d.accountId, d.psp, d.pspDisputeId]);
  const row = rows[0];
  // Undefined: (psp, psp_dispute_id) is another account's.
  return row && { row: normalise(row), created: inserted.rows.length > 0 };
}

export interface DisputeChange {
  kind: DisputeKind;
  state: DisputeState;
  reason: string | null;
  amountCents: number;
  evidenceDueAt: Date | null;
  closedAt: Date | null;
}

export async function updateDispute(tx: Sql, row: DisputeRow, c: DisputeChange, now: Date): Promise<DisputeRow> {
  const { rows } = await tx.query<DisputeRow>(
    `UPDATE disputes SET kind = $3, state = $4, reason = $5, amount_cents = $6, evidence_due_at = $7, closed_at = $8, updated_at = $9
      WHERE account_id = $1 AND id = $2 RETURNING *`,
    [row.account_id, row.id, c.kind, c.state, c.reason, c.amountCents, c.evidenceDueAt, c.closedAt, now],
  );
  return normalise(rows[0]!);
}

export async function findDispute(sql: Sql, accountId: string, id: string, forUpdate = false): Promise<DisputeRow | undefined> {
  const { rows } = await sql.query<DisputeRow>(`SELECT * FROM disputes WHERE account_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] && normalise(rows[0]);
}

/** Staff sent the evidence: an open dispute becomes `evidence_sent`. */
export async function setEvidenceSent(tx: Sql, row: DisputeRow, now: Date): Promise<DisputeRow> {
  const { rows } = await tx.query<DisputeRow>("UPDATE disputes SET state = 'evidence_sent', evidence_sent_at = $3, updated_at = $3 WHERE account_id = $1 AND id = $2 RETURNING *", [
    row.account_id,
    row.id,
    now,
  ]);
  return normalise(rows[0]!);
}

/** The purchase's disputes, oldest first. */
export async function disputesOfPurchase(sql: Sql, accountId: string, purchaseId: string): Promise<DisputeRow[]> {
  const { rows } = await sql.query<DisputeRow>('SELECT * FROM disputes WHERE account_id = $1 AND purchase_id = $2 ORDER BY opened_at, id', [accountId, purchaseId]);
  return rows.map(normalise);
}

/**
 * What lost chargebacks took from the purchase's merchant (the refunded/lost figures): per
 * payment, its lost chargebacks' amounts, at most what it held after its refunds — what the
 * ledger books (docs/money-operations.md#refunds-and-disputes).
 */
export async function chargedBackCents(sql: Sql, accountId: string, purchaseId: string): Promise<number> {
  const { rows } = await sql.query<{ total: string | number | null }>(
    `SELECT COALESCE(SUM(LEAST(d.lost, GREATEST(p.captured_cents - p.refunded_cents, 0))), 0) AS total
       FROM (SELECT payment_id, SUM(amount_cents) AS lost FROM disputes
              WHERE account_id = $1 AND purchase_id = $2 AND kind = 'chargeback' AND state = 'lost' GROUP BY payment_id) d
       JOIN payments p ON p.account_id = $1 AND p.id = d.payment_id`,
    [accountId, purchaseId],
  );
  return Number(rows[0]?.total ?? 0);
}

/** The payment's disputes in the order they were opened: each lost chargeback takes after the ones before it. */
export async function disputesOfPayment(sql: Sql, accountId: string, paymentId: string): Promise<DisputeRow[]> {
  const { rows } = await sql.query<DisputeRow>('SELECT * FROM disputes WHERE account_id = $1 AND payment_id = $2 ORDER BY opened_at, id', [accountId, paymentId]);
  return rows.map(normalise);
}

/** A dispute notice kept until its transaction is recorded (migration 052). */
export interface ParkedNotice {
  id: number;
  accountId: string;
  pspAccountId: string | null;
  transactionId: string;
  /** The notice as the connector read it (`NotifiedDispute`, its dates as ISO strings). */
  notice: Record<string, unknown>;
  receivedAt: Date;
  matchedAt: Date | null;
}

type ParkedRow = RowType<
  'parked_dispute_notices',
  {
    id: number;
    account_id: string;
    psp_account_id: string | null;
    transaction_id: string;
    notice: unknown;
    received_at: Date;
    matched_at: Date | null;
  }
>;

function toParked(r: ParkedRow): ParkedNotice {
  return {
    id: Number(r.id),
    accountId: r.account_id,
    pspAccountId: r.psp_account_id,
    transactionId: r.transaction_id,
    // jsonb, parsed by both drivers.
    notice: (typeof r.notice === 'string' ? JSON.parse(r.notice) : r.notice) as Record<string, unknown>,
    receivedAt: r.received_at,
    matchedAt: r.matched_at,
  };
}

const PARKED_COLUMNS = 'id, account_id, psp_account_id, transaction_id, notice, received_at, matched_at';

/**
 * Keeps a dispute notice whose transaction no payment of the account has recorded yet; answers its
 * id, or undefined when the same notice (`noticeKey`) is kept already (a redelivery).
 */
export async function parkNotice(
  sql: Sql,
  n: { accountId: string; pspAccountId: string | null; transactionId: string; pspDisputeId: string; notice: Record<string, unknown>; noticeKey: string; receivedAt: Date },
): Promise<number | undefined> {
  const { rows } = await sql.query<{ id: number | string }>(
    `INSERT INTO parked_dispute_notices (account_id, psp_account_id, transaction_id, psp_dispute_id, notice, notice_key, received_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
     ON CONFLICT (account_id, notice_key) DO NOTHING RETURNING id`,
    [n.accountId, n.pspAccountId, n.transactionId, n.pspDisputeId, JSON.stringify(n.notice), n.noticeKey, n.receivedAt],
  );
  return rows[0] === undefined ? undefined : Number(rows[0].id);
}

export async function findParkedNotice(sql: Sql, accountId: string, id: number): Promise<ParkedNotice | undefined> {
  const { rows } = await sql.query<ParkedRow>(`SELECT ${PARKED_COLUMNS} FROM parked_dispute_notices WHERE account_id = $1 AND id = $2`, [accountId, id]);
  return rows[0] && toParked(rows[0]);
}

/** The notices still kept for this transaction of the account's PSP account, in the order they came, locked for the rest of `tx`. */
export async function lockWaitingNotices(tx: Sql, accountId: string, pspAccountId: string | null, transactionId: string): Promise<ParkedNotice[]> {
  const { rows } = await tx.query<ParkedRow>(
    `SELECT ${PARKED_COLUMNS} FROM parked_dispute_notices
      WHERE account_id = $1 AND transaction_id = $3 AND psp_account_id IS NOT DISTINCT FROM $2::uuid AND matched_at IS NULL
      ORDER BY id FOR UPDATE`,
    [accountId, pspAccountId, transactionId],
  );
  return rows.map(toParked);
}

/** The kept notice was applied to this payment. */
export async function markNoticeMatched(tx: Sql, accountId: string, id: number, paymentId: string, now: Date): Promise<void> {
  await tx.query('UPDATE parked_dispute_notices SET matched_at = $3, payment_id = $4 WHERE account_id = $1 AND id = $2 AND matched_at IS NULL', [accountId, id, now, paymentId]);
}

/** Position in the list of disputes by deadline: (evidence_due_at, id); a dispute without deadline sorts last. */
export interface DisputeCursor {
  dueAt: Date | null;
  id: string;
}

/**
 * The account's disputes in `states`, by deadline (the nearest first, those without one last),
 * then id; `limit` rows after `after`.
 */
/** A dispute as a list shows it: with its purchase's reference and customer, so staff know which sale it is. */
export type DisputeListRow = DisputeRow & { purchase_ref: string | null; client_email: string };

export async function listDisputes(sql: Sql, accountId: string, states: readonly DisputeState[], after: DisputeCursor | null, limit: number): Promise<DisputeListRow[]> {
  const far = new Date('9999-12-31T00:00:00Z');
  const { rows } = await sql.query<DisputeListRow>(
    `SELECT d.*, p.ref AS purchase_ref, c.email AS client_email
       FROM disputes d
       JOIN purchases p ON p.id = d.purchase_id AND p.account_id = d.account_id
       JOIN clients c ON c.id = p.client_id AND c.account_id = p.account_id
      WHERE d.account_id = $1 AND d.state = ANY($2::text[])
        AND ($3::timestamptz IS NULL OR (COALESCE(d.evidence_due_at, $5::timestamptz), d.id) > ($3::timestamptz, $4::uuid))
      ORDER BY COALESCE(d.evidence_due_at, $5::timestamptz), d.id
      LIMIT $6`,
    [accountId, states, after ? (after.dueAt ?? far) : null, after?.id ?? null, far, limit],
  );
  return rows.map((r) => ({ ...normalise(r), purchase_ref: r.purchase_ref, client_email: r.client_email }));
}

function normalise(r: DisputeRow): DisputeRow {
  return { ...r, amount_cents: Number(r.amount_cents) };
}
