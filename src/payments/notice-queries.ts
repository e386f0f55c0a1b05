import type { Sql } from '../db/database.ts';

/**
 * What the shopper notices read (src/use-cases/shopper-notices.ts): the money the leader's
 * checkout moved, the saved card, the plan. Read-only.
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

/** The brand and last four digits of the purchase's saved card (the leader's). */
export async function savedCard(sql: Sql, accountId: string, purchaseId: string): Promise<{ brand: string; last4: string } | undefined> {
  const { rows } = await sql.query<{ brand: string; last4: string }>(
    'SELECT m.brand, m.last4 FROM payment_methods m JOIN purchases p ON p.payment_method_id = m.id WHERE p.account_id = $1 AND p.id = $2',
    [accountId, purchaseId],
  );
  return rows[0];
}

/** The plan's installments not cancelled, in order: due date ('yyyy-mm-dd'), amount with fees, state. */
export async function planLines(sql: Sql, accountId: string, purchaseId: string): Promise<{ id: string; index: number; dueDate: string; amountCents: number; state: string }[]> {
  const { rows } = await sql.query<{ id: string; index: number; due_date: string | Date; amount_cents: number; fees_cents: number; state: string }>(
    "SELECT id, index, due_date, amount_cents, fees_cents, state FROM installments WHERE account_id = $1 AND purchase_id = $2 AND state <> 'cancelled' ORDER BY index",
    [accountId, purchaseId],
  );
  return rows.map((r) => ({ id: r.id, index: r.index, dueDate: isoDay(r.due_date), amountCents: r.amount_cents + r.fees_cents, state: r.state }));
}

/** 'yyyy-mm-dd' from a `date` column, whatever the driver answers. */
export function isoDay(d: string | Date): string {
  return typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10);
}
