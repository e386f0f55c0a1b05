import type { Sql } from '../db/database.ts';

/**
 * The cards the PSPs attached for a purchase (`payment_methods`): only their token, brand, last four
 * digits and expiry; the purchase points at the one its merchant-initiated charges use.
 */

/** A card the PSP attached for the purchase: only its token, brand, last four digits and expiry. */
export interface SavedCard {
  psp: string;
  pspMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** Stores the leader's card; answers the `payment_methods` id the purchase then points to. */
export async function insertPaymentMethod(sql: Sql, accountId: string, purchaseId: string, card: SavedCard, now: Date): Promise<string> {
  const { rows } = await sql.query<{ id: string }>(
    `INSERT INTO payment_methods (id, account_id, purchase_id, psp, psp_method_id, brand, last4, exp_month, exp_year, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    [accountId, purchaseId, card.psp, card.pspMethodId, card.brand, card.last4, card.expMonth, card.expYear, now],
  );
  return rows[0]!.id;
}

/** The PSP token of the card the leader saved at checkout (off-session charges use it). */
export async function savedPspMethodId(sql: Sql, accountId: string, purchaseId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ psp_method_id: string }>(
    'SELECT m.psp_method_id FROM payment_methods m JOIN purchases p ON p.payment_method_id = m.id WHERE p.account_id = $1 AND p.id = $2',
    [accountId, purchaseId],
  );
  return rows[0]?.psp_method_id;
}

/** The brand and last four digits of the purchase's saved card (the leader's). */
export async function savedCard(sql: Sql, accountId: string, purchaseId: string): Promise<{ brand: string; last4: string } | undefined> {
  const { rows } = await sql.query<{ brand: string; last4: string }>(
    'SELECT m.brand, m.last4 FROM payment_methods m JOIN purchases p ON p.payment_method_id = m.id WHERE p.account_id = $1 AND p.id = $2',
    [accountId, purchaseId],
  );
  return rows[0];
}

/** The `payment_methods` row of a card the PSP attached for the purchase, by its token. */
export async function paymentMethodByToken(sql: Sql, accountId: string, purchaseId: string, pspMethodId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>(
    'SELECT id FROM payment_methods WHERE account_id = $1 AND purchase_id = $2 AND psp_method_id = $3 ORDER BY created_at DESC LIMIT 1',
    [accountId, purchaseId, pspMethodId],
  );
  return rows[0]?.id;
}
