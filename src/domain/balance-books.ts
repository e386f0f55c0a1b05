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

export type JournalKind =
  'validated' | 'capture' | 'refund' | 'chargeback' | 'chargeback_reversal' | 'plan_cancelled' | 'credit_by_transfer' | 'transfer_received' | 'payout' | 'payout_returned';

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

/**
 * The kinds of journal that book what a validated purchase gives up (docs/money-operations.md#who-bears-what):
 * money paid back (a refund, a refund by transfer), taken back by the bank (a lost chargeback, or
 * given again by its reversal), or no longer asked of the shopper (plan_cancelled). Their
 * merchant_payable and shopper_fees legs add up, per purchase, to what it gave up so far.
 */
export const GIVEN_UP_KINDS = ['refund', 'chargeback', 'chargeback_reversal', 'plan_cancelled', 'credit_by_transfer'] as const satisfies readonly JournalKind[];
export type GivenUpKind = (typeof GIVEN_UP_KINDS)[number];

/** What validating a transfer-mode purchase books: its amount and the shopper's fees owed by the shopper, the amount less the commission owed to the merchant. */
export function validatedLegs(v: { amountCents: number; feesCents: number; commissionCents: number }): Leg[] {
  return [
    { book: 'shopper_receivable', amountCents: v.amountCents + v.feesCents },
    { book: 'merchant_payable', amountCents: -(v.amountCents - v.commissionCents) },
    { book: 'commission', amountCents: -v.commissionCents },
    { book: 'shopper_fees', amountCents: -v.feesCents },
  ];
}

/**
 * Money that moves between a shopper and the operator's PSP without changing what the merchant is
 * owed: collected (`cents` > 0: a capture, a transfer received) or given back to the shopper
 * (`cents` < 0: money taken after its purpose was gone, any money of a purchase never validated).
 * It lowers, or restores, what the shopper owes.
 */
export function shopperCashLegs(cents: number): Leg[] {
  return [
    { book: 'psp_cash', amountCents: cents },
    { book: 'shopper_receivable', amountCents: -cents },
  ];
}

/**
 * How a change of what a validated purchase gave up is borne: the merchant bears it up to the
 * purchase's amount, the shopper's fees (the operator's) only beyond it, so that a purchase gives
 * up its amount first and its fees last, as a refund lowers an installment's amount before its
 * fees (docs/money-operations.md#who-bears-what). `givenUpBefore`: what the purchase gave up so
 * far; `deltaCents` > 0 gives up more (a refund, a chargeback lost, installments cancelled),
 * < 0 takes some back (a chargeback reversed). Integers in, integers out; the parts add up to the delta.
 */
export function givenUpSplit(amountCents: number, givenUpBefore: number, deltaCents: number): { merchantCents: number; feesCents: number } {
  const clamp = (x: number) => Math.min(amountCents, Math.max(0, x));
  const merchantCents = clamp(givenUpBefore + deltaCents) - clamp(givenUpBefore);
  return { merchantCents, feesCents: deltaCents - merchantCents };
}

/**
 * The legs of a change of what a validated purchase gave up, `deltaCents` (see {@link givenUpSplit}):
 * the merchant's and the fees' parts debited (credited back when negative) against `counter`,
 * `psp_cash` for money paid back or taken by the bank, `shopper_receivable` for what the shopper
 * will no longer pay.
 */
export function givenUpLegs(counter: 'psp_cash' | 'shopper_receivable', deltaCents: number, split: { merchantCents: number; feesCents: number }): Leg[] {
  return [
    { book: counter, amountCents: -deltaCents },
    { book: 'merchant_payable', amountCents: split.merchantCents },
    { book: 'shopper_fees', amountCents: split.feesCents },
  ];
}
