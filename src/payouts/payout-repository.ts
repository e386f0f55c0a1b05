import type { Sql } from '../db/database.ts';
import type { PayoutStatus } from '../domain/payouts.ts';

/**
 * Payouts, their lines and the pain.001 exports (`payouts`, `payout_lines`, `payout_exports`,
 * migration 059; docs/money-operations.md#payouts), and the reads of the ledger
 * (`balance_postings`, written only by `postJournal`) that a payout run and the merchant's
 * balance need.
 */

export interface PayoutRow {
  id: string;
  account_id: string;
  currency: string;
  /** `YYYY-MM-DD`: the merchant's day (in its time zone) whose end the payout pays up to. */
  business_day: string;
  amount_cents: number;
  line_count: number;
  status: PayoutStatus;
  export_id: string | null;
  created_at: Date;
  exported_at: Date | null;
  sent_at: Date | null;
  returned_at: Date | null;
}

const PAYOUT_COLUMNS = `id, account_id, currency, to_char(business_day, 'YYYY-MM-DD') AS business_day, amount_cents, line_count, status, export_id,
  created_at, exported_at, sent_at, returned_at`;

/** A posting of `merchant_payable` not yet in any payout: a payout line to be. */
export interface UnpaidPosting {
  id: number;
  purchase_id: string | null;
  kind: string;
  journal: string;
  /** The posting's amount on merchant_payable (credit < 0: owed to the merchant). */
  amount_cents: number;
  occurred_at: Date;
}

/**
 * Serialises payout runs of one merchant and currency, until the caller's transaction ends: a run
 * repeated or concurrent waits here, then finds what the first did.
 */
export async function lockPayoutScope(tx: Sql, accountId: string, currency: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`payout:${accountId}:${currency}`]);
}

/**
 * Every merchant and currency with postings of `merchant_payable` in no payout yet (other than a
 * payout's own), and the merchant's time zone: what a payout run looks at.
 */
export async function unpaidScopes(sql: Sql): Promise<{ account_id: string; currency: string; time_zone: string }[]> {
  const { rows } = await sql.query<{ account_id: string; currency: string; time_zone: string }>(
    `SELECT s.account_id, s.currency, a.time_zone FROM (
       SELECT DISTINCT bp.account_id, bp.currency FROM balance_postings bp
        WHERE bp.book = 'merchant_payable' AND bp.kind <> 'payout'
          AND NOT EXISTS (SELECT 1 FROM payout_lines l WHERE l.posting_id = bp.id)
     ) s JOIN accounts a ON a.id = s.account_id
     ORDER BY s.account_id, s.currency`,
  );
  return rows;
}

/**
 * The merchant's `merchant_payable` postings in `currency` that no payout holds yet, booked before
 * `before` (the end of the business day), oldest first; a payout's own posting is never one.
 */
export async function unpaidPostings(tx: Sql, accountId: string, currency: string, before: Date): Promise<UnpaidPosting[]> {
  const { rows } = await tx.query<UnpaidPosting>(
    `SELECT bp.id, bp.purchase_id, bp.kind, bp.journal, bp.amount_cents, bp.occurred_at FROM balance_postings bp
      WHERE bp.account_id = $1 AND bp.currency = $2 AND bp.book = 'merchant_payable' AND bp.occurred_at < $3 AND bp.kind <> 'payout'
        AND NOT EXISTS (SELECT 1 FROM payout_lines l WHERE l.posting_id = bp.id)
      ORDER BY bp.occurred_at, bp.id`,
    [accountId, currency, before],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), amount_cents: Number(r.amount_cents) }));
}

export async function findPayoutOfDay(sql: Sql, accountId: string, currency: string, day: string): Promise<PayoutRow | undefined> {
  const { rows } = await sql.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE account_id = $1 AND currency = $2 AND business_day = $3::date`, [
    accountId,
    currency,
    day,
  ]);
  return rows[0] && toPayout(rows[0]);
}

/**
 * Stores a payout and its lines (one per posting, with the posting's purchase, kind and journal;
 * `amount_cents` as owed: the posting's amount negated). Throws when a posting is already in
 * another payout (the lines' key) or is not the merchant's: the caller's transaction then stores
 * nothing.
 */
export async function insertPayout(
  tx: Sql,
  p: { id: string; accountId: string; currency: string; businessDay: string; amountCents: number; postingIds: readonly number[]; now: Date },
): Promise<PayoutRow> {
  const { rows } = await tx.query<PayoutRow>(
    `INSERT INTO payouts (id, account_id, currency, business_day, amount_cents, line_count, status, created_at)
     VALUES ($1, $2, $3, $4::date, $5, $6, 'created', $7)
     RETURNING ${PAYOUT_COLUMNS}`,
    [p.id, p.accountId, p.currency, p.businessDay, p.amountCents, p.postingIds.length, p.now],
  );
  const lines = await tx.query(
    `INSERT INTO payout_lines (posting_id, account_id, payout_id, purchase_id, kind, journal, amount_cents, occurred_at)
     SELECT bp.id, bp.account_id, $3, bp.purchase_id, bp.kind, bp.journal, -bp.amount_cents, bp.occurred_at
       FROM balance_postings bp
      WHERE bp.id = ANY($1::bigint[]) AND bp.account_id = $2 AND bp.currency = $4 AND bp.book = 'merchant_payable'
     RETURNING 1`,
    [p.postingIds, p.accountId, p.id, p.currency],
  );
  if (lines.rows.length !== p.postingIds.length) throw new Error(`payout ${p.id}: ${lines.rows.length} of ${p.postingIds.length} postings found`);
  return toPayout(rows[0]!);
}

function toPayout(r: PayoutRow): PayoutRow {
  return { ...r, amount_cents: Number(r.amount_cents) };
}

/** The merchant's payout, or undefined (another merchant's answers the same). */
export async function findPayout(sql: Sql, accountId: string, id: string): Promise<PayoutRow | undefined> {
  const { rows } = await sql.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE account_id = $1 AND id = $2`, [accountId, id]);
  return rows[0] && toPayout(rows[0]);
}

/**
 * A payout by its id alone, locked (FOR UPDATE) in the caller's transaction: for the operator's
 * CLI, which acts on every merchant's payouts.
 */
export async function lockPayoutForOperator(tx: Sql, id: string): Promise<PayoutRow | undefined> {
  const { rows } = await tx.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0] && toPayout(rows[0]);
}

export async function setPayoutStatus(tx: Sql, id: string, status: 'sent' | 'returned', at: Date): Promise<PayoutRow> {
  const { rows } = await tx.query<PayoutRow>(
    `UPDATE payouts SET status = $2, sent_at = CASE WHEN $2 = 'sent' THEN $3 ELSE sent_at END, returned_at = CASE WHEN $2 = 'returned' THEN $3 ELSE returned_at END
      WHERE id = $1 RETURNING ${PAYOUT_COLUMNS}`,
    [id, status, at],
  );
  return toPayout(rows[0]!);
}

/** The merchant's payouts, newest first, after the cursor (`created_at`, `id` of the last one shown). */
export async function listPayouts(sql: Sql, accountId: string, limit: number, before?: { createdAt: Date; id: string } | null): Promise<PayoutRow[]> {
  const { rows } = await sql.query<PayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM payouts
      WHERE account_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [accountId, before?.createdAt ?? null, before?.id ?? null, limit],
  );
  return rows.map(toPayout);
}

/** The operator's view: the newest payouts of every merchant, of one status when given. */
export async function listPayoutsForOperator(sql: Sql, status: PayoutStatus | null, limit: number): Promise<PayoutRow[]> {
  const { rows } = await sql.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id DESC LIMIT $2`, [
    status,
    limit,
  ]);
  return rows.map(toPayout);
}

export interface PayoutLineRow {
  posting_id: number;
  purchase_id: string | null;
  /** The merchant's reference of that purchase (null when it has none, or for a line of no purchase): how the back office names it. */
  purchase_ref: string | null;
  kind: string;
  journal: string;
  /** What the line adds to the payout: positive owed to the merchant, negative deducted (the payout figure: gross − commission). */
  amount_cents: number;
  /** The operator's commission its journal booked (a validated purchase's; 0 for any other event). */
  commission_cents: number;
  occurred_at: Date;
}

/**
 * A page of a payout's lines, in posting order, after `afterPostingId` (keyset: the CSV streams
 * them), each with the commission its journal booked (the journal's `commission` leg, found by the
 * unique key of account, journal and book) and its purchase's reference.
 */
export async function payoutLines(sql: Sql, accountId: string, payoutId: string, afterPostingId: number | null, limit: number): Promise<PayoutLineRow[]> {
  const { rows } = await sql.query<PayoutLineRow>(
    `SELECT l.posting_id, l.purchase_id, p.ref AS purchase_ref, l.kind, l.journal, l.amount_cents, COALESCE(-c.amount_cents, 0) AS commission_cents, l.occurred_at
       FROM payout_lines l
       LEFT JOIN balance_postings c ON c.account_id = l.account_id AND c.journal = l.journal AND c.book = 'commission'
       LEFT JOIN purchases p ON p.account_id = l.account_id AND p.id = l.purchase_id
      WHERE l.payout_id = $2 AND l.account_id = $1 AND ($3::bigint IS NULL OR l.posting_id > $3)
      ORDER BY l.posting_id LIMIT $4`,
    [accountId, payoutId, afterPostingId, limit],
  );
  return rows.map((r) => ({ ...r, posting_id: Number(r.posting_id), amount_cents: Number(r.amount_cents), commission_cents: Number(r.commission_cents) }));
}

/** The commission of a payout's lines, summed (its gross is its amount plus this). */
export async function payoutCommissionCents(sql: Sql, accountId: string, payoutId: string): Promise<number> {
  const { rows } = await sql.query<{ sum: number }>(
    `SELECT COALESCE(-sum(c.amount_cents), 0)::bigint AS sum
       FROM payout_lines l
       JOIN balance_postings c ON c.account_id = l.account_id AND c.journal = l.journal AND c.book = 'commission'
      WHERE l.payout_id = $2 AND l.account_id = $1`,
    [accountId, payoutId],
  );
  return Number(rows[0]!.sum);
}

/** Per currency: what the operator owes the merchant (−Σ merchant_payable), and its payouts' totals by status. */
export interface BalanceRow {
  currency: string;
  owed_cents: number;
  created_cents: number;
  exported_cents: number;
  sent_cents: number;
  returned_cents: number;
  last_payout_day: string | null;
}

export async function merchantBalances(sql: Sql, accountId: string): Promise<BalanceRow[]> {
  const { rows } = await sql.query<BalanceRow>(
    `WITH owed AS (
       SELECT currency, -sum(amount_cents)::bigint AS owed_cents FROM balance_postings
        WHERE account_id = $1 AND book = 'merchant_payable' GROUP BY currency
     ), paid AS (
       SELECT currency,
              coalesce(sum(amount_cents) FILTER (WHERE status = 'created'), 0)::bigint AS created_cents,
              coalesce(sum(amount_cents) FILTER (WHERE status = 'exported'), 0)::bigint AS exported_cents,
              coalesce(sum(amount_cents) FILTER (WHERE status = 'sent'), 0)::bigint AS sent_cents,
              coalesce(sum(amount_cents) FILTER (WHERE status = 'returned'), 0)::bigint AS returned_cents,
              to_char(max(business_day), 'YYYY-MM-DD') AS last_payout_day
         FROM payouts WHERE account_id = $1 GROUP BY currency
     )
     SELECT coalesce(o.currency, p.currency) AS currency, coalesce(o.owed_cents, 0)::bigint AS owed_cents,
            coalesce(p.created_cents, 0)::bigint AS created_cents, coalesce(p.exported_cents, 0)::bigint AS exported_cents,
            coalesce(p.sent_cents, 0)::bigint AS sent_cents, coalesce(p.returned_cents, 0)::bigint AS returned_cents, p.last_payout_day
       FROM owed o FULL JOIN paid p ON p.currency = o.currency
      ORDER BY 1`,
    [accountId],
  );
  return rows.map((r) => ({
    ...r,
    owed_cents: Number(r.owed_cents),
    created_cents: Number(r.created_cents),
    exported_cents: Number(r.exported_cents),
    sent_cents: Number(r.sent_cents),
    returned_cents: Number(r.returned_cents),
  }));
}

/**
 * The payouts a pain.001 file takes, locked: created, in `currency`, of business days up to `upTo`
 * (all when null), oldest first, at most `limit`. Locked FOR UPDATE: a concurrent export waits, then
 * finds them exported and skips them, so no payout is in two files.
 */
export async function lockPayoutsToExport(tx: Sql, currency: string, upTo: string | null, limit: number): Promise<PayoutRow[]> {
  const { rows } = await tx.query<PayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM payouts
      WHERE status = 'created' AND currency = $1 AND ($2::date IS NULL OR business_day <= $2::date)
      ORDER BY business_day, created_at, id LIMIT $3 FOR UPDATE`,
    [currency, upTo, limit],
  );
  return rows.map(toPayout);
}

/** The created payouts in other currencies than `currency`: no SEPA file carries them. */
export async function createdPayoutsNotIn(sql: Sql, currency: string, upTo: string | null): Promise<PayoutRow[]> {
  const { rows } = await sql.query<PayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM payouts
      WHERE status = 'created' AND currency <> $1 AND ($2::date IS NULL OR business_day <= $2::date)
      ORDER BY currency, business_day, created_at, id`,
    [currency, upTo],
  );
  return rows.map(toPayout);
}

export interface PayoutExportRow {
  id: string;
  pain_format: string;
  message_id: string;
  transaction_count: number;
  control_sum_cents: number;
  file_enc: string;
  created_at: Date;
}

/** Stores an export and marks its payouts exported, in the caller's transaction. */
export async function insertExport(tx: Sql, e: PayoutExportRow, payoutIds: readonly string[]): Promise<void> {
  await tx.query(
    `INSERT INTO payout_exports (id, pain_format, message_id, transaction_count, control_sum_cents, file_enc, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [e.id, e.pain_format, e.message_id, e.transaction_count, e.control_sum_cents, e.file_enc, e.created_at],
  );
  const { rows } = await tx.query(`UPDATE payouts SET status = 'exported', export_id = $2, exported_at = $3 WHERE id = ANY($1::uuid[]) AND status = 'created' RETURNING 1`, [
    payoutIds,
    e.id,
    e.created_at,
  ]);
  if (rows.length !== payoutIds.length) throw new Error(`export ${e.id}: ${rows.length} of ${payoutIds.length} payouts were still created`);
}

export async function findExport(sql: Sql, id: string): Promise<PayoutExportRow | undefined> {
  const { rows } = await sql.query<PayoutExportRow>(
    'SELECT id, pain_format, message_id, transaction_count, control_sum_cents, file_enc, created_at FROM payout_exports WHERE id = $1',
    [id],
  );
  return rows[0] && { ...rows[0], control_sum_cents: Number(rows[0].control_sum_cents) };
}

/** A payout as the operator's pages list it: with its merchant's name. */
export type OperatorPayoutRow = PayoutRow & { account_name: string };

/**
 * The operator's view of the payouts not yet in a file (`created`), every merchant and currency,
 * oldest first, at most `limit`: what the next pain.001 file takes (its euro ones) or another rail.
 */
export async function createdPayoutsForOperator(sql: Sql, limit: number): Promise<OperatorPayoutRow[]> {
  const { rows } = await sql.query<OperatorPayoutRow>(
    `SELECT p.*, a.name AS account_name
       FROM (SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE status = 'created' ORDER BY business_day, created_at, id LIMIT $1) p
       JOIN accounts a ON a.id = p.account_id
      ORDER BY p.business_day, p.created_at, p.id`,
    [limit],
  );
  return rows.map((r) => ({ ...toPayout(r), account_name: r.account_name }));
}

/** A pain.001 file as the operator's pages list it: its record, and how many of its payouts are in each status. */
export interface ExportSummaryRow {
  id: string;
  pain_format: string;
  message_id: string;
  transaction_count: number;
  control_sum_cents: number;
  created_at: Date;
  exported_count: number;
  sent_count: number;
  returned_count: number;
}

/** The pain.001 files, newest first, at most `limit`, each with its payouts' statuses counted (never the file itself). */
export async function listExports(sql: Sql, limit: number): Promise<ExportSummaryRow[]> {
  const { rows } = await sql.query<ExportSummaryRow>(
    `SELECT e.id, e.pain_format, e.message_id, e.transaction_count, e.control_sum_cents, e.created_at,
            count(p.id) FILTER (WHERE p.status = 'exported') AS exported_count,
            count(p.id) FILTER (WHERE p.status = 'sent') AS sent_count,
            count(p.id) FILTER (WHERE p.status = 'returned') AS returned_count
       FROM payout_exports e LEFT JOIN payouts p ON p.export_id = e.id
      GROUP BY e.id
      ORDER BY e.created_at DESC, e.id DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({
    ...r,
    transaction_count: Number(r.transaction_count),
    control_sum_cents: Number(r.control_sum_cents),
    exported_count: Number(r.exported_count),
    sent_count: Number(r.sent_count),
    returned_count: Number(r.returned_count),
  }));
}

/** The payouts a pain.001 file carries, oldest first (the file's order). */
export async function payoutsOfExport(sql: Sql, exportId: string): Promise<PayoutRow[]> {
  const { rows } = await sql.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE export_id = $1 ORDER BY business_day, created_at, id`, [exportId]);
  return rows.map(toPayout);
}
