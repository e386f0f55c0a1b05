import type { Logger } from 'pino';
import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { Database, Sql } from '../../db/database.ts';
import { recordAccountEvent } from '../../delivery/account-events.ts';
import { addDays } from '../../domain/dates.ts';
import type { Clock } from '../../domain/clock.ts';
import { EVENT } from '../../domain/events.ts';
import { newUuid, toPublicId } from '../../domain/ids.ts';
import { payoutTransition, type MarkedStatus } from '../../domain/payouts.ts';
import { zonedDay, zonedMidnight } from '../../i18n/format.ts';
import { postJournal } from '../../payments/balance-repository.ts';
import { bankDetailsState } from '../../payouts/bank-details-repository.ts';
import {
  findPayoutOfDay,
  insertPayout,
  lockPayoutForOperator,
  lockPayoutScope,
  merchantBalances,
  setPayoutStatus,
  unpaidPostings,
  unpaidScopes,
  type PayoutRow,
} from '../../payouts/payout-repository.ts';

/**
 * Transfer mode's payouts (docs/money-operations.md#payouts): the daily run that turns what the
 * operator owes each merchant into one payout per merchant, currency and day, and the statuses the
 * operator sets afterwards.
 */

export interface PayoutDeps {
  db: Database;
  clock: Clock;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** What a run did for one merchant and currency. */
export type PayoutOutcome =
  /** The payout was made now. */
  | { kind: 'created'; payout: PayoutRow }
  /** That day already has its payout (a run repeated, concurrent or resumed): nothing paid twice. */
  | { kind: 'already_paid'; payout: PayoutRow }
  /** Nothing owed and unpaid up to the end of the day. */
  | { kind: 'nothing_owed' }
  /** The unpaid lines add up to zero or less: no payout, the lines (a debit balance) carried to the next day. */
  | { kind: 'not_positive'; owedCents: number; lineCount: number }
  /** Owed, but the merchant has no bank details: the amount stays owed. */
  | { kind: 'no_bank_details'; owedCents: number; lineCount: number }
  /** Owed, but the IBAN was replaced lately: held until its cooling-off ends (or the operator releases it); stays owed. */
  | { kind: 'held'; until: Date; owedCents: number; lineCount: number }
  /** The day has not ended yet in the merchant's time zone. */
  | { kind: 'day_not_ended'; endsAt: Date };

export interface PayoutRunResult {
  accountId: string;
  currency: string;
  /** `YYYY-MM-DD`, in the merchant's time zone. */
  businessDay: string;
  outcome: PayoutOutcome;
}

/**
 * The payout of one merchant, currency and business day (`day`, a calendar day of `timeZone`, the
 * account's): the `merchant_payable` postings no payout holds yet, booked before the day's end
 * (a payout's own excepted), become its lines, one per posting; when they add up to more than
 * zero and the merchant has bank details not in their cooling-off (docs/money-operations.md#bank-details), the payout (status `created`), its lines and its journal
 * `payout:<uuid>` (Dr merchant_payable, Cr paid_out) are written. All in one transaction under a
 * lock per merchant and currency, after checking the day has no payout yet: a run repeated,
 * concurrent, or crashed and resumed pays nothing twice (and the database refuses a posting in two
 * payouts, or two payouts of a day).
 */
export async function payoutOfDay(deps: PayoutDeps, p: { accountId: string; currency: string; day: string; timeZone: string }): Promise<PayoutOutcome> {
  const now = deps.clock.now();
  const dayEnd = zonedMidnight(addDays(p.day, 1), p.timeZone);
  if (dayEnd > now) return { kind: 'day_not_ended', endsAt: dayEnd };
  return deps.db.transaction(async (tx) => {
    await lockPayoutScope(tx, p.accountId, p.currency);
    const existing = await findPayoutOfDay(tx, p.accountId, p.currency, p.day);
    if (existing) return { kind: 'already_paid', payout: existing };
    const postings = await unpaidPostings(tx, p.accountId, p.currency, dayEnd);
    if (postings.length === 0) return { kind: 'nothing_owed' };
    let owedCents = 0;
    for (const posting of postings) owedCents -= posting.amount_cents;
    if (!Number.isSafeInteger(owedCents)) throw new Error(`payout of ${p.accountId} ${p.currency} ${p.day}: the sum of its lines is beyond exact integers`);
    if (owedCents <= 0) return { kind: 'not_positive', owedCents, lineCount: postings.length };
    const bank = await bankDetailsState(tx, p.accountId, now);
    if (bank.kind === 'none') return { kind: 'no_bank_details', owedCents, lineCount: postings.length };
    if (bank.kind === 'held') return { kind: 'held', until: bank.until, owedCents, lineCount: postings.length };
    const id = newUuid();
    const payout = await insertPayout(tx, {
      id,
      accountId: p.accountId,
      currency: p.currency,
      businessDay: p.day,
      amountCents: owedCents,
      postingIds: postings.map((x) => x.id),
      now,
    });
    await postJournal(tx, {
      accountId: p.accountId,
      currency: p.currency,
      journal: `payout:${id}`,
      kind: 'payout',
      payoutId: id,
      occurredAt: now,
      legs: [
        { book: 'merchant_payable', amountCents: owedCents },
        { book: 'paid_out', amountCents: -owedCents },
      ],
    });
    return { kind: 'created', payout };
  });
}

/**
 * A payout run over every merchant and currency that has unpaid postings: the payout of `day`
 * (`YYYY-MM-DD`, read in each merchant's time zone) when given, else of each merchant's latest
 * ended day (yesterday in its zone). Each merchant and currency in its own transaction: one
 * failing (logged) does not stop the others. What the daily job runs; the operator's
 * `chipin payout run` too.
 */
export async function runPayouts(deps: PayoutDeps, opts: { day?: string } = {}): Promise<PayoutRunResult[]> {
  const results: PayoutRunResult[] = [];
  for (const scope of await unpaidScopes(deps.db)) {
    const businessDay = opts.day ?? addDays(zonedDay(deps.clock.now(), scope.time_zone), -1);
    try {
      const outcome = await payoutOfDay(deps, { accountId: scope.account_id, currency: scope.currency, day: businessDay, timeZone: scope.time_zone });
      results.push({ accountId: scope.account_id, currency: scope.currency, businessDay, outcome });
    } catch (err) {
      deps.logger.error({ err, accountId: scope.account_id, currency: scope.currency, businessDay }, 'payout run failed for this merchant and currency');
    }
  }
  return results;
}

/** The daily payout job (service-wide, perpetual): see {@link runPayouts}. */
export const PAYOUT_JOB = 'payouts.daily';
/** How often it looks for merchants whose day has ended (service clock). */
export const PAYOUT_EVERY_MS = 60 * 60_000;

export type MarkOutcome = { kind: 'marked'; payout: PayoutRow } | { kind: 'not_found' } | { kind: 'refused'; message: string };

/**
 * The operator marks a payout `sent` (its transfer was made: the merchant's `payout.paid` webhook)
 * or `returned` (the transfer came back, or the bank refused it: the journal
 * `payout_returned:<uuid>`, Dr paid_out, Cr merchant_payable, makes its amount owed again, and the
 * next payout takes it). One transaction, the payout locked; a move the statuses do not allow is
 * refused with why. Audited on the merchant's log (`payout_mark`).
 */
export async function markPayout(deps: PayoutDeps, payoutId: string, to: MarkedStatus, actor: Actor): Promise<MarkOutcome> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const payout = await lockPayoutForOperator(tx, payoutId);
    if (!payout) return { kind: 'not_found' } as const;
    const move = payoutTransition(payout.status, to, payout.currency);
    if (!move.ok) return { kind: 'refused', message: move.message } as const;
    const marked = await setPayoutStatus(tx, payout.id, to, now);
    if (to === 'sent') await tellPaid(tx, marked, now);
    else {
      await postJournal(tx, {
        accountId: payout.account_id,
        currency: payout.currency,
        journal: `payout_returned:${payout.id}`,
        kind: 'payout_returned',
        payoutId: payout.id,
        occurredAt: now,
        legs: [
          { book: 'paid_out', amountCents: payout.amount_cents },
          { book: 'merchant_payable', amountCents: -payout.amount_cents },
        ],
      });
    }
    await recordAudit(tx, {
      accountId: payout.account_id,
      actor,
      action: 'payout_mark',
      subject: toPublicId('po', payout.id),
      details: { from: payout.status, to, amount_cents: payout.amount_cents, currency: payout.currency },
    });
    return { kind: 'marked', payout: marked } as const;
  });
}

/** The merchant's `payout.paid` event and its webhook (docs/webhooks.md#webhook-payload). */
async function tellPaid(tx: Sql, p: PayoutRow, now: Date): Promise<void> {
  await recordAccountEvent(tx, {
    accountId: p.account_id,
    type: EVENT.payoutPaid,
    data: { payout_id: toPublicId('po', p.id), amount_cents: p.amount_cents, currency: p.currency, business_day: p.business_day, line_count: p.line_count },
    at: now,
  });
}

/** Why the next run pays a currency's balance or not, as the back office says it. */
type NextPayout = 'on_next_run' | 'no_bank_details' | 'held' | 'debit_balance' | 'nothing_owed';

export interface MerchantBalance {
  currency: string;
  /** What the operator owes the merchant now (negative: the merchant owes it, carried to the next payouts). */
  owed_cents: number;
  /** Payouts made but not yet sent (created or exported). */
  in_payouts_cents: number;
  /** Payouts sent and not returned. */
  paid_out_cents: number;
  returned_cents: number;
  last_payout_day: string | null;
  next_payout: NextPayout;
}

/** The merchant's balance per currency and what becomes of it at the next run (`now`: the service clock's, for a cooling-off running). */
export async function merchantBalance(sql: Sql, accountId: string, now: Date): Promise<{ bank_details_set: boolean; currencies: MerchantBalance[] }> {
  const [rows, bank] = [await merchantBalances(sql, accountId), await bankDetailsState(sql, accountId, now)];
  const details = bank.kind !== 'none';
  const paid: NextPayout = bank.kind === 'held' ? 'held' : details ? 'on_next_run' : 'no_bank_details';
  return {
    bank_details_set: details,
    currencies: rows.map((r) => ({
      currency: r.currency,
      owed_cents: r.owed_cents,
      in_payouts_cents: r.created_cents + r.exported_cents,
      paid_out_cents: r.sent_cents,
      returned_cents: r.returned_cents,
      last_payout_day: r.last_payout_day,
      next_payout: r.owed_cents < 0 ? 'debit_balance' : r.owed_cents === 0 ? 'nothing_owed' : paid,
    })),
  };
}
