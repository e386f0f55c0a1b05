import type { Sql } from '../db/database.ts';
import { commissionOf, GIVEN_UP_KINDS, givenUpLegs, givenUpSplit, shopperCashLegs, validatedLegs, type GivenUpKind, type Leg } from '../domain/balance-books.ts';
import { BOOKS, type Book } from '../domain/balance-books.ts';
import { postJournal } from './balance-repository.ts';

/**
 * What each money event of a transfer-mode purchase books in the merchant's balance
 * (docs/money-operations.md#bookings-per-event): the journals of `balance_postings`, posted with
 * `postJournal` in the transaction of the event. A back-mode purchase books nothing: every function
 * here reads the purchase's `payment_mode` first.
 */

/** The journal key of a purchase's validation, unique per merchant (what tells a purchase validated). */
const validatedJournal = (purchaseId: string) => `validated:${purchaseId}`;

/** What the bookings read of a purchase: its mode, amount and currency, and whether its validation was booked. */
interface PurchaseFacts {
  paymentMode: 'back' | 'transfer';
  amountCents: number;
  currency: string;
  validated: boolean;
}

async function purchaseFacts(sql: Sql, accountId: string, purchaseId: string, lock = false): Promise<PurchaseFacts | undefined> {
  const { rows } = await sql.query<{ payment_mode: 'back' | 'transfer'; amount_cents: number; currency: string; validated: boolean }>(
    `SELECT p.payment_mode, p.amount_cents, p.currency,
            EXISTS (SELECT 1 FROM balance_postings b WHERE b.account_id = p.account_id AND b.journal = 'validated:' || p.id::text) AS validated
       FROM purchases p WHERE p.account_id = $1 AND p.id = $2${lock ? ' FOR UPDATE OF p' : ''}`,
    [accountId, purchaseId],
  );
  const r = rows[0];
  return r && { paymentMode: r.payment_mode, amountCents: r.amount_cents, currency: r.currency, validated: r.validated };
}

/**
 * A transfer-mode purchase validated (its leader's payment processed, whatever the path: the one
 * place is the `leaderProcessed` move, `applyMove` in src/purchases/transitions.ts): the shopper
 * owes its amount and the fees of its plan, the operator owes the merchant the amount less its
 * commission (the offer's when it is validated, `commissionOf`). Journal `validated:<purchase>`,
 * booked once. Answers whether it was booked now (false: a back-mode purchase, or booked before).
 */
export async function bookValidated(sql: Sql, v: { accountId: string; purchaseId: string; feesCents: number; occurredAt: Date }): Promise<boolean> {
  const { rows } = await sql.query<{ payment_mode: 'back' | 'transfer'; amount_cents: number; currency: string; commission_bps: number; commission_fixed_cents: number }>(
    `SELECT p.payment_mode, p.amount_cents, p.currency, o.commission_bps, o.commission_fixed_cents
       FROM purchases p JOIN offers o ON o.account_id = p.account_id AND o.id = p.offer_id
      WHERE p.account_id = $1 AND p.id = $2`,
    [v.accountId, v.purchaseId],
  );
  const p = rows[0];
  if (!p || p.payment_mode !== 'transfer') return false;
  if (!Number.isSafeInteger(v.feesCents) || v.feesCents < 0) throw new Error(`a purchase's fees must be a non-negative integer, got ${v.feesCents}`);
  const commissionCents = commissionOf(p.amount_cents, p.commission_bps, p.commission_fixed_cents);
  return postJournal(sql, {
    accountId: v.accountId,
    currency: p.currency,
    journal: validatedJournal(v.purchaseId),
    kind: 'validated',
    purchaseId: v.purchaseId,
    occurredAt: v.occurredAt,
    legs: validatedLegs({ amountCents: p.amount_cents, feesCents: v.feesCents, commissionCents }),
  });
}

/** What a purchase gave up so far: its given-up journals' merchant and fees legs (docs/money-operations.md#who-bears-what). */
async function givenUpSoFar(sql: Sql, accountId: string, purchaseId: string): Promise<number> {
  const { rows } = await sql.query<{ sum: number }>(
    `SELECT COALESCE(sum(amount_cents), 0)::bigint AS sum FROM balance_postings
      WHERE account_id = $1 AND purchase_id = $2 AND book IN ('merchant_payable', 'shopper_fees') AND kind = ANY($3::text[])
        AND NOT starts_with(journal, 'fees_waived:')`,
    [accountId, purchaseId, [...GIVEN_UP_KINDS]],
  );
  return Number(rows[0]!.sum);
}

/**
 * Books a change of what a validated transfer-mode purchase gave up (docs/money-operations.md#who-bears-what):
 * `deltaCents` > 0 gives up more (money paid back by the merchant's refund or a refund by
 * transfer, a chargeback lost, installments the shopper will no longer pay), < 0 takes some back
 * (a chargeback reversed). The merchant bears it up to the purchase's amount, the shopper's fees
 * beyond; `counter` is the other side (`psp_cash`: money moved; `shopper_receivable`: what the
 * shopper no longer owes). The purchase's row is locked for the split (its callers hold it already),
 * so two of them never split against the same past. Nothing for a back-mode purchase; for one never
 * validated, the money goes back against the shopper's receivable instead (nothing was owed to the
 * merchant). Answers whether a journal was booked now.
 */
async function bookGivenUp(
  sql: Sql,
  g: { accountId: string; purchaseId: string; journal: string; kind: GivenUpKind; counter: 'psp_cash' | 'shopper_receivable'; deltaCents: number; occurredAt: Date },
): Promise<boolean> {
  if (!Number.isSafeInteger(g.deltaCents)) throw new Error(`a given-up amount must be an integer, got ${g.deltaCents}`);
  const p = await purchaseFacts(sql, g.accountId, g.purchaseId, true);
  if (!p || p.paymentMode !== 'transfer' || g.deltaCents === 0) return false;
  let legs: Leg[];
  if (p.validated) legs = givenUpLegs(g.counter, g.deltaCents, givenUpSplit(p.amountCents, await givenUpSoFar(sql, g.accountId, g.purchaseId), g.deltaCents));
  else if (g.counter === 'psp_cash') legs = shopperCashLegs(-g.deltaCents);
  else return false; // nothing is owed on a purchase never validated: nothing to cancel
  return postJournal(sql, { accountId: g.accountId, currency: p.currency, journal: g.journal, kind: g.kind, purchaseId: g.purchaseId, occurredAt: g.occurredAt, legs });
}

/** A `ledger_entries` row, as its booking needs it. */
export interface LedgerEntryRef {
  id: number;
  purchaseId: string;
  kind: 'capture' | 'refund' | 'chargeback' | 'chargeback_reversal';
  amountCents: number;
  occurredAt: Date;
}

/**
 * Books each ledger entry of a transfer-mode purchase (journal `ledger:<entry id>`), in the
 * transaction that appended it: a capture is money collected against what the shopper owes; a
 * refund the merchant asked for (`merchantRefund`: the refund allocations of refund-purchase.ts) and
 * a chargeback, or its reversal, change what the purchase gave up ({@link bookGivenUp}); any other
 * refund (money taken after its purpose was gone: a give-back, a cancelled purchase's hold found
 * captured, a refund Chipin did not ask for) goes back against the shopper's receivable. Entries
 * of back-mode purchases book nothing.
 */
export async function bookLedgerEntries(sql: Sql, accountId: string, entries: readonly LedgerEntryRef[], opts: { merchantRefund?: boolean } = {}): Promise<void> {
  const facts = new Map<string, PurchaseFacts | undefined>();
  for (const e of entries) {
    if (!facts.has(e.purchaseId)) facts.set(e.purchaseId, await purchaseFacts(sql, accountId, e.purchaseId));
    const p = facts.get(e.purchaseId);
    if (!p || p.paymentMode !== 'transfer') continue;
    const journal = `ledger:${e.id}`;
    const base = { accountId, purchaseId: e.purchaseId, journal, occurredAt: e.occurredAt };
    const cash = (cents: number) => postJournal(sql, { ...base, currency: p.currency, kind: e.kind, legs: shopperCashLegs(cents) });
    switch (e.kind) {
      case 'capture':
        await cash(e.amountCents);
        break;
      case 'refund':
        if (opts.merchantRefund) await bookGivenUp(sql, { ...base, kind: 'refund', counter: 'psp_cash', deltaCents: e.amountCents });
        else await cash(-e.amountCents);
        break;
      case 'chargeback':
        await bookGivenUp(sql, { ...base, kind: 'chargeback', counter: 'psp_cash', deltaCents: e.amountCents });
        break;
      case 'chargeback_reversal':
        await bookGivenUp(sql, { ...base, kind: 'chargeback_reversal', counter: 'psp_cash', deltaCents: -e.amountCents });
        break;
    }
  }
}

/**
 * An installment of a validated transfer-mode purchase lowered by a refund (the refund's
 * `installment` allocation: docs/purchase-lifecycle.md#refunds): what the shopper will no longer
 * pay, given up. Journal `lowered:<refund>:<installment>`.
 */
export async function bookInstallmentLowered(
  sql: Sql,
  l: { accountId: string; purchaseId: string; refundId: string; installmentId: string; cents: number; occurredAt: Date },
): Promise<boolean> {
  return bookGivenUp(sql, {
    accountId: l.accountId,
    purchaseId: l.purchaseId,
    journal: `lowered:${l.refundId}:${l.installmentId}`,
    kind: 'plan_cancelled',
    counter: 'shopper_receivable',
    deltaCents: l.cents,
    occurredAt: l.occurredAt,
  });
}

/**
 * A validated transfer-mode purchase whose shopper will pay nothing more (CANCELLED, REFUNDED:
 * the move's transaction): what the shopper still owed is given up, so its receivable ends at 0.
 * Journal `plan_cancelled:<purchase>`.
 */
export async function bookPlanCancelled(sql: Sql, accountId: string, purchaseId: string, occurredAt: Date): Promise<boolean> {
  const books = await purchaseBooks(sql, accountId, purchaseId);
  // Below 0, money was collected beyond what is owed and not given back yet: its give-back will
  // bring the receivable back to 0 (bookLedgerEntries), nothing is cancelled.
  if (books.shopper_receivable <= 0) return false;
  return bookGivenUp(sql, {
    accountId,
    purchaseId,
    journal: `plan_cancelled:${purchaseId}`,
    kind: 'plan_cancelled',
    counter: 'shopper_receivable',
    deltaCents: books.shopper_receivable,
    occurredAt,
  });
}

/**
 * Fees the shopper no longer pays (an early repayment waives the fees of the installments it
 * pays: docs/schedules.md#repaying-early): the operator's, never the merchant's. Journal
 * `fees_waived:<payment>` (of kind plan_cancelled; not part of what the purchase gave up).
 */
export async function bookFeesWaived(sql: Sql, w: { accountId: string; purchaseId: string; paymentId: string; feesCents: number; occurredAt: Date }): Promise<boolean> {
  if (w.feesCents === 0) return false;
  const p = await purchaseFacts(sql, w.accountId, w.purchaseId);
  if (!p || p.paymentMode !== 'transfer' || !p.validated) return false;
  return postJournal(sql, {
    accountId: w.accountId,
    currency: p.currency,
    journal: `fees_waived:${w.paymentId}`,
    kind: 'plan_cancelled',
    purchaseId: w.purchaseId,
    occurredAt: w.occurredAt,
    legs: [
      { book: 'shopper_fees', amountCents: w.feesCents },
      { book: 'shopper_receivable', amountCents: -w.feesCents },
    ],
  });
}

/** One purchase's share of each book (debit > 0): what it added to the merchant's balance so far. */
export async function purchaseBooks(sql: Sql, accountId: string, purchaseId: string): Promise<Record<Book, number>> {
  const { rows } = await sql.query<{ book: Book; sum: number }>(
    'SELECT book, sum(amount_cents)::bigint AS sum FROM balance_postings WHERE account_id = $1 AND purchase_id = $2 GROUP BY book',
    [accountId, purchaseId],
  );
  const books = Object.fromEntries(BOOKS.map((b) => [b, 0])) as Record<Book, number>;
  for (const r of rows) books[r.book] = Number(r.sum);
  return books;
}
