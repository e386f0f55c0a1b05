import type { Sql } from '../db/database.ts';
import type { PaymentPurpose } from './payment-repository.ts';

/**
 * What a purchase's payments add up to, as the shopper's receipts and result page, the back
 * office's purchase page and the hosted pages' test banner show it: charged, held, refunded, and
 * on which PSP environment.
 */

/** Charged (captured) and held (authorised, not captured) by the purchase's payments of these purposes. */
export async function chargedAndHeld(sql: Sql, accountId: string, purchaseId: string, purposes: readonly string[]): Promise<{ chargedCents: number; heldCents: number }> {
  const { rows } = await sql.query<{ status: string; amount_cents: number; captured_cents: number }>(
    "SELECT status, amount_cents, captured_cents FROM payments WHERE account_id = $1 AND purchase_id = $2 AND purpose = ANY($3::text[]) AND status IN ('authorized', 'captured')",
    [accountId, purchaseId, [...purposes]],
  );
  let chargedCents = 0;
  let heldCents = 0;
  for (const r of rows) {
    chargedCents += r.captured_cents;
    if (r.status === 'authorized') heldCents += r.amount_cents - r.captured_cents;
  }
  return { chargedCents, heldCents };
}

/** One payment's money as its cardholder is told it: what was charged (captured), what was refunded of it. */
export interface CardPayment {
  id: string;
  purpose: PaymentPurpose;
  /** The pledge it paid (a pledger's card); null: the leader's card. */
  pledgeId: string | null;
  chargedCents: number;
  refundedCents: number;
  createdAt: Date;
}

/**
 * The purchase's payments of these purposes that charged a card, oldest first, partly or fully
 * refunded ones included (a PSP reports a settled transaction as `refunded` once any part of it
 * is refunded: it was still charged).
 */
export async function chargedPayments(sql: Sql, accountId: string, purchaseId: string, purposes: readonly string[]): Promise<CardPayment[]> {
  const { rows } = await sql.query<{ id: string; purpose: PaymentPurpose; pledge_id: string | null; captured_cents: number; refunded_cents: number; created_at: Date }>(
    `SELECT id, purpose, pledge_id, captured_cents, refunded_cents, created_at FROM payments
     WHERE account_id = $1 AND purchase_id = $2 AND purpose = ANY($3::text[]) AND status IN ('authorized', 'captured', 'refunded') AND captured_cents > 0
     ORDER BY created_at, id`,
    [accountId, purchaseId, [...purposes]],
  );
  return rows.map((r) => ({
    id: r.id,
    purpose: r.purpose,
    pledgeId: r.pledge_id,
    chargedCents: Number(r.captured_cents),
    refundedCents: Number(r.refunded_cents),
    createdAt: r.created_at,
  }));
}

/** A payment as the back office's purchase page lists it: its refusal code (`decline_reason`, a DeclineReason) and the pledge a friend's share pays. */
export interface PurchasePaymentRow {
  purpose: string;
  status: string;
  decline_reason: string | null;
  pledge_id: string | null;
  amount_cents: number;
  captured_cents: number;
  refunded_cents: number;
  created_at: Date;
}

/** Every payment of the purchase, oldest first: what the back office's purchase page lists. */
export async function purchasePaymentRows(sql: Sql, accountId: string, purchaseId: string): Promise<PurchasePaymentRow[]> {
  const { rows } = await sql.query<PurchasePaymentRow>(
    `SELECT purpose, status, decline_reason, pledge_id, amount_cents, captured_cents, refunded_cents, created_at
       FROM payments WHERE account_id = $1 AND purchase_id = $2 ORDER BY created_at, id`,
    [accountId, purchaseId],
  );
  return rows;
}

/**
 * Whether the purchase's first payment (a pledge's, given `pledgeId`) ran on a test or a live PSP
 * account: the built-in sandbox PSP is a test one. Undefined when there is no payment yet. The
 * hosted pages' test-mode banner follows it once money moved, not the offer's PSP account of today.
 */
export async function paymentEnvironment(sql: Sql, accountId: string, purchaseId: string, pledgeId?: string): Promise<'test' | 'live' | undefined> {
  const { rows } = await sql.query<{ psp: string; environment: string | null }>(
    `SELECT p.psp, a.environment FROM payments p LEFT JOIN psp_accounts a ON a.id = p.psp_account_id AND (a.account_id = p.account_id OR a.account_id IS NULL)
     WHERE p.account_id = $1 AND p.purchase_id = $2 AND ($3::uuid IS NULL OR p.pledge_id = $3::uuid) AND ($3::uuid IS NOT NULL OR p.pledge_id IS NULL)
     ORDER BY p.created_at, p.id LIMIT 1`,
    [accountId, purchaseId, pledgeId ?? null],
  );
  const row = rows[0];
  if (!row) return undefined;
  return row.psp !== 'sandbox' && row.environment === 'live' ? 'live' : 'test';
}
