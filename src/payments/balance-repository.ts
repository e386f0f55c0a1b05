import type { Sql } from '../db/database.ts';
import { BOOKS, balancedLegs, type Book, type JournalKind, type Leg } from '../domain/balance-books.ts';

/**
 * The transfer mode's double-entry ledger (`balance_postings`, migration 056,
 * docs/money-operations.md#the-merchants-balance): written only here, in the caller's transaction
 * (the one that records the event booked), never changed.
 */

export interface Journal {
  accountId: string;
  currency: string;
  /** The event's key, unique per merchant ('validated:<purchase uuid>', 'ledger:<ledger entry id>', 'payout:<payout uuid>', ...). */
  journal: string;
  kind: JournalKind;
  purchaseId?: string | null;
  payoutId?: string | null;
  occurredAt: Date;
  legs: readonly Leg[];
}

/**
 * Books a journal, once: its legs in one statement, or nothing when the journal was already booked
 * (the same event told again, a job run twice, a crash resumed). Answers whether it was booked now.
 * Throws when the legs do not balance.
 */
export async function postJournal(sql: Sql, j: Journal): Promise<boolean> {
  const legs = balancedLegs(j.legs);
  if (legs.length === 0) return false;
  const { rows } = await sql.query(
    `INSERT INTO balance_postings (account_id, currency, journal, kind, book, amount_cents, purchase_id, payout_id, occurred_at)
     SELECT $1, $2, $3, $4, leg.book, leg.amount_cents, $7, $8, $9
       FROM unnest($5::text[], $6::bigint[]) AS leg (book, amount_cents)
     ON CONFLICT (account_id, journal, book) DO NOTHING
     RETURNING 1`,
    [j.accountId, j.currency, j.journal, j.kind, legs.map((l) => l.book), legs.map((l) => l.amountCents), j.purchaseId ?? null, j.payoutId ?? null, j.occurredAt],
  );
  if (rows.length !== 0 && rows.length !== legs.length) throw new Error(`journal ${j.journal} was partly booked before: ${rows.length} of ${legs.length} legs new`);
  return rows.length > 0;
}

/** A merchant's books in one currency: each book's sum (debit > 0), 0 for a book without postings. */
export type BookBalances = Record<Book, number>;

/** The balances of a merchant's books in a currency, as of now or up to (excluding) `before`. */
export async function bookBalances(sql: Sql, accountId: string, currency: string, before?: Date): Promise<BookBalances> {
  const { rows } = await sql.query<{ book: Book; sum: number }>(
    `SELECT book, sum(amount_cents)::bigint AS sum FROM balance_postings
      WHERE account_id = $1 AND currency = $2 AND ($3::timestamptz IS NULL OR occurred_at < $3)
      GROUP BY book`,
    [accountId, currency, before ?? null],
  );
  const balances = Object.fromEntries(BOOKS.map((b) => [b, 0])) as BookBalances;
  for (const r of rows) balances[r.book] = Number(r.sum);
  return balances;
}

/** What the operator owes the merchant in a currency (negative: the merchant owes the operator, carried to the next payout). */
export function owedCents(balances: BookBalances): number {
  // Subtracted from 0, not negated: nothing owed is 0, never -0.
  return 0 - balances.merchant_payable;
}
