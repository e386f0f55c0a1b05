import type { Sql } from '../db/database.ts';

/**
 * The bank transfers of transfer mode (`bank_transfers`, migration 060,
 * docs/money-operations.md#payment-by-transfer): what the operator recorded received from a
 * shopper for a purchase, and the refunds of such purchases it must send back by transfer.
 */

export interface ReceivedTransfer {
  id: string;
  amountCents: number;
  currency: string;
  /** The bank statement's day, `YYYY-MM-DD`. */
  valueDate: string;
}

/** The transfer recorded received for the purchase, if any: the purchase is then one paid by transfer. Scoped to the account. */
export async function receivedTransferOf(sql: Sql, accountId: string, purchaseId: string): Promise<ReceivedTransfer | undefined> {
  const { rows } = await sql.query<{ id: string; amount_cents: number; currency: string; value_date: string }>(
    `SELECT id, amount_cents, currency, to_char(value_date, 'YYYY-MM-DD') AS value_date FROM bank_transfers
      WHERE account_id = $1 AND purchase_id = $2 AND direction = 'received'`,
    [accountId, purchaseId],
  );
  const r = rows[0];
  return r && { id: r.id, amountCents: Number(r.amount_cents), currency: r.currency, valueDate: r.value_date };
}

/** Records a transfer received for a purchase, in the caller's transaction (at most one per purchase: a unique index). */
export async function insertReceivedTransfer(
  sql: Sql,
  t: { id: string; accountId: string; purchaseId: string; amountCents: number; currency: string; valueDate: string },
  now: Date,
): Promise<void> {
  await sql.query(
    `INSERT INTO bank_transfers (id, account_id, purchase_id, direction, amount_cents, currency, value_date, created_at)
     VALUES ($1, $2, $3, 'received', $4, $5, $6::date, $7)`,
    [t.id, t.accountId, t.purchaseId, t.amountCents, t.currency, t.valueDate, now],
  );
}

/** Records a refund the operator must send by transfer, in the transaction that makes the refund. */
export async function insertRefundTransfer(
  sql: Sql,
  t: { id: string; accountId: string; purchaseId: string; refundId: string; amountCents: number; currency: string },
  now: Date,
): Promise<void> {
  await sql.query(
    `INSERT INTO bank_transfers (id, account_id, purchase_id, direction, amount_cents, currency, refund_id, created_at)
     VALUES ($1, $2, $3, 'refund', $4, $5, $6, $7)`,
    [t.id, t.accountId, t.purchaseId, t.amountCents, t.currency, t.refundId, now],
  );
}

/** A refund by transfer as the operator's list shows it: what to send, to whom, and for which purchase. */
export interface RefundTransfer {
  refundId: string;
  accountId: string;
  merchantName: string;
  purchaseId: string;
  reference: string | null;
  amountCents: number;
  currency: string;
  shopperEmail: string;
  shopperName: string | null;
  /** The day the shopper's own transfer reached the operator: its statement line names the account to send back to. */
  receivedOn: string | null;
  bookedAt: Date;
  sentAt: Date | null;
}

/** A refund transfer joined with its merchant, purchase and shopper. */
interface RefundTransferRow {
  refund_id: string;
  account_id: string;
  merchant_name: string;
  purchase_id: string;
  ref: string | null;
  amount_cents: number;
  currency: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  received_on: string | null;
  created_at: Date;
  sent_at: Date | null;
}

const REFUND_TRANSFER_SELECT = `SELECT t.refund_id, t.account_id, a.name AS merchant_name, t.purchase_id, p.ref, t.amount_cents, t.currency,
    c.email, c.first_name, c.last_name, t.created_at, t.sent_at,
    (SELECT to_char(r.value_date, 'YYYY-MM-DD') FROM bank_transfers r
      WHERE r.account_id = t.account_id AND r.purchase_id = t.purchase_id AND r.direction = 'received') AS received_on
  FROM bank_transfers t
  JOIN accounts a ON a.id = t.account_id
  JOIN purchases p ON p.account_id = t.account_id AND p.id = t.purchase_id
  JOIN clients c ON c.account_id = p.account_id AND c.id = p.client_id`;

function toRefundTransfer(r: RefundTransferRow): RefundTransfer {
  const name = [r.first_name, r.last_name].filter(Boolean).join(' ');
  return {
    refundId: r.refund_id,
    accountId: r.account_id,
    merchantName: r.merchant_name,
    purchaseId: r.purchase_id,
    reference: r.ref,
    amountCents: Number(r.amount_cents),
    currency: r.currency,
    shopperEmail: r.email,
    shopperName: name === '' ? null : name,
    receivedOn: r.received_on,
    bookedAt: r.created_at,
    sentAt: r.sent_at,
  };
}

/**
 * The refunds by transfer the operator has still to send, oldest first, every merchant's: the
 * operator's work list (`chipin transfer refunds`), not a merchant's view.
 */
export async function refundTransfersToSend(sql: Sql): Promise<RefundTransfer[]> {
  const { rows } = await sql.query<RefundTransferRow>(`${REFUND_TRANSFER_SELECT} WHERE t.direction = 'refund' AND t.sent_at IS NULL ORDER BY t.created_at, t.id`);
  return rows.map(toRefundTransfer);
}

/** A refund by transfer by its refund's id, whichever merchant's (the operator's CLI). */
export async function findRefundTransfer(sql: Sql, refundId: string): Promise<RefundTransfer | undefined> {
  const { rows } = await sql.query<RefundTransferRow>(`${REFUND_TRANSFER_SELECT} WHERE t.direction = 'refund' AND t.refund_id = $1`, [refundId]);
  return rows[0] && toRefundTransfer(rows[0]);
}

/** Records a refund by transfer sent; answers false when it was recorded sent already. */
export async function markRefundTransferSent(sql: Sql, refundId: string, at: Date): Promise<boolean> {
  const { rowCount } = await sql.query(`UPDATE bank_transfers SET sent_at = $2 WHERE direction = 'refund' AND refund_id = $1 AND sent_at IS NULL`, [refundId, at]);
  return rowCount > 0;
}

/** What a purchase's refunds have given back or are giving back (every allocation not refused), minor units. Call under the purchase's lock. */
export async function givenBackCents(sql: Sql, accountId: string, purchaseId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    "SELECT COALESCE(sum(amount_cents), 0)::bigint AS n FROM refund_allocations WHERE account_id = $1 AND purchase_id = $2 AND state <> 'failed'",
    [accountId, purchaseId],
  );
  return Number(rows[0]!.n);
}

/**
 * How a purchase is paid, for the transfer-mode routes: the mode it was created in
 * (`purchases.payment_mode`), its offer's type, and whether the shopper paid it by bank transfer.
 * Undefined when the account has no such purchase.
 */
export async function transferStanding(
  sql: Sql,
  accountId: string,
  purchaseId: string,
): Promise<{ paymentMode: 'back' | 'transfer'; offerType: string; paidByTransfer: boolean } | undefined> {
  const { rows } = await sql.query<{ payment_mode: 'back' | 'transfer'; type: string; paid_by_transfer: boolean }>(
    `SELECT p.payment_mode, o.type,
            EXISTS (SELECT 1 FROM bank_transfers t WHERE t.account_id = p.account_id AND t.purchase_id = p.id AND t.direction = 'received') AS paid_by_transfer
       FROM purchases p JOIN offers o ON o.account_id = p.account_id AND o.id = p.offer_id
      WHERE p.account_id = $1 AND p.id = $2`,
    [accountId, purchaseId],
  );
  const r = rows[0];
  return r && { paymentMode: r.payment_mode, offerType: r.type, paidByTransfer: r.paid_by_transfer === true };
}

/**
 * The account of a purchase found by its id alone: for the operator's commands only (a bank
 * statement names a purchase, not a merchant), never for a merchant's request.
 */
export async function purchaseAccountOf(sql: Sql, purchaseId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ account_id: string }>('SELECT account_id FROM purchases WHERE id = $1', [purchaseId]);
  return rows[0]?.account_id;
}

/** The mode an offer pays in now (`offers.payment_mode`); undefined for an unknown offer. */
export async function offerPaymentMode(sql: Sql, offerId: string): Promise<'back' | 'transfer' | undefined> {
  const { rows } = await sql.query<{ payment_mode: 'back' | 'transfer' }>('SELECT payment_mode FROM offers WHERE id = $1', [offerId]);
  return rows[0]?.payment_mode;
}
