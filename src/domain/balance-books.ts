/**
 * The books of the transfer mode's double-entry ledger (docs/money-operations.md#the-merchants-balance):
 * what the operator holds and owes for one merchant in one currency. A journal is one business
 * event, booked as one leg per book; its legs add up to zero. Debits are positive, credits
 * negative, in minor units.
 *
 * - `psp_cash`: the money at the operator's PSP and bank for this merchant's purchases (debit:
 *   collected; credit: refunded, charged back, refunded by transfer).
 * - `shopper_receivable`: what shoppers still owe the operator on validated purchases (debit),
 *   or have paid ahead of validation (credit).
 * - `merchant_payable`: what the operator owes the merchant (credit: owed).
 * - `commission`: the operator's commission (credit: earned).
 * - `shopper_fees`: the fees the shoppers pay, the operator's (credit: earned).
 * - `paid_out`: what was paid out to the merchant by bank transfer (credit: paid).
 *
 * Since every journal sums to zero, so does the whole ledger at any moment:
 * cash = owed + commission + fees + paid out − receivable, i.e. Σ collected − Σ refunded − Σ charged
 * back + what shoppers still owe = Σ paid out + Σ owed + commission + shopper fees.
 */

export const BOOKS = ['psp_cash', 'shopper_receivable', 'merchant_payable', 'commission', 'shopper_fees', 'paid_out'] as const;
export type Book = (typeof BOOKS)[number];

export const JOURNAL_KINDS = [
  'validated',
  'capture',
  'refund',
  'chargeback',
  'chargeback_reversal',
  'plan_cancelled',
  'credit_by_transfer',
  'transfer_received',
  'payout',
  'payout_returned',
] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

/** One leg: debit > 0, credit < 0, minor units. */
export interface Leg {
  book: Book;
  amountCents: number;
}

/**
 * The legs of a journal as stored: one per book (legs on the same book added), none of 0.
 * Throws unless every amount is a safe integer and the legs add up to zero: a journal that does not
 * balance is a bug, never something to store.
 */
export function balancedLegs(legs: readonly Leg[]): Leg[] {
  const byBook = new Map<Book, number>();
  for (const leg of legs) {
    if (!Number.isSafeInteger(leg.amountCents)) throw new Error(`a leg's amount must be an integer, got ${leg.amountCents} on ${leg.book}`);
    if (!(BOOKS as readonly string[]).includes(leg.book)) throw new Error(`unknown book ${String(leg.book)}`);
    byBook.set(leg.book, (byBook.get(leg.book) ?? 0) + leg.amountCents);
  }
  let sum = 0;
  for (const amount of byBook.values()) sum += amount;
  if (sum !== 0) throw new Error(`a journal must balance: its legs add up to ${sum}`);
  return BOOKS.filter((b) => (byBook.get(b) ?? 0) !== 0).map((book) => ({ book, amountCents: byBook.get(book)! }));
}

/**
 * The operator's commission on a validated purchase of `amountCents`: `bps` basis points of it,
 * rounded half up to the minor unit, plus the fixed part, never more than the amount (integers
 * only; BigInt for the product so any amount stays exact).
 */
export function commissionOf(amountCents: number, bps: number, fixedCents: number): number {
  const proportional = Number((BigInt(amountCents) * BigInt(bps) + 5_000n) / 10_000n);
  return Math.min(amountCents, proportional + fixedCents);
}
