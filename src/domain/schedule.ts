/**
 * Payment schedule engine (docs/schedules.md#rules): splits a purchase into installments, one deferred
 * payment, or a deposit and a balance (docs/schedules.md#down-payment), puts the offer's fees on the
 * first line, and states the resulting TAEG.
 * Pure: integers for money, 'yyyy-mm-dd' strings for dates, no I/O.
 */
import { aprPercent, solveApr, type DatedFlow } from './apr.ts';
import { addDays, addMonthsClamped, parseIsoDate } from './dates.ts';

/**
 * The schedule-relevant part of an offer (docs/schedules.md#rules). Money in minor units
 * (docs/api-conventions.md#money), rates in basis points.
 */
export type OfferTerms = {
  type: 'INSTALLMENTS' | 'DEFERRED' | 'DOWN_PAYMENT';
  /** 2..12 for INSTALLMENTS; 1 for DEFERRED; 2 for DOWN_PAYMENT (the deposit and the balance). */
  installments: number;
  /** Days from `created` to the single DEFERRED payment; ignored by the other types. */
  deferredDays: number;
  /** DOWN_PAYMENT only: the deposit, in percent of the amount (1..99). */
  depositPercent?: number | null;
  /** DOWN_PAYMENT only: the most days from `created` to the balance's due date (1..365), the date used when none is asked. */
  maxBalanceDelayDays?: number | null;
  /** Fee as a share of the amount, in basis points (150 = 1.50 %). */
  feeRateBps: number;
  /** Flat fee added to the rate-based fee. */
  fixedFeeCents: number;
  /** Inclusive bounds on the purchase amount. */
  minAmountCents: number;
  maxAmountCents: number;
  /** Largest credit the offer may grant on one purchase (the part not paid at checkout); null = no cap. */
  fundingCapCents: number | null;
  /** Nominal annual interest rate in basis points, reported as `debit_rate` (0 for fee-only offers). */
  debitRateBps: number;
  /** Legal ceiling on the TAEG in basis points; null = none applies. */
  usuryCeilingBps: number | null;
};

/** One payment of the schedule; field names are those of the schedule simulation response. */
export type ScheduleLine = {
  /** Share of the purchase amount paid on this date. */
  amount_cents: number;
  /** Fees charged on top of `amount_cents` on this date. */
  fees: number;
  /** 'yyyy-mm-dd'. */
  payment_date: string;
};

/** A schedule: the eligibility call's answer per eligible offer, and what {@link simulationAnswer} makes the simulation's of. */
export type Schedule = {
  /**
   * Chronological; the sum of `amount_cents` is the purchase amount. A DEFERRED offer has one line;
   * a DOWN_PAYMENT offer two, the deposit (paid at checkout) and the balance.
   */
  INSTALLMENT: ScheduleLine[];
  /** DEFERRED offers only: the single payment again, as its own object (the shape the original provider's shop plugins read). */
  DEFERRED?: ScheduleLine;
  /** Percent, e.g. 0 or 4.5. */
  debit_rate: number;
  /** Percent, 2 decimals, rounded half up. */
  taeg: number;
};

/**
 * The schedule simulation's answer (docs/schedules.md#rules): an installment
 * plan (a down payment's deposit and balance too) as its `INSTALLMENT` lines; a deferred payment as
 * its `DEFERRED` object **alone**. The original provider's plugins that read `INSTALLMENT` first
 * (WooCommerce, PrestaShop) would show a payment due in 30 days as one to pay now.
 */
export type SimulationAnswer = Pick<Schedule, 'debit_rate' | 'taeg'> & ({ INSTALLMENT: ScheduleLine[]; DEFERRED?: never } | { DEFERRED: ScheduleLine; INSTALLMENT?: never });

export function simulationAnswer(schedule: Schedule): SimulationAnswer {
  const { INSTALLMENT, DEFERRED, debit_rate, taeg } = schedule;
  return DEFERRED === undefined ? { INSTALLMENT, debit_rate, taeg } : { DEFERRED, debit_rate, taeg };
}

/** Why a schedule cannot be offered; a closed set so each API family maps it in one place. */
export type ScheduleErrorCode =
  | 'amount_below_minimum'
  | 'amount_above_maximum'
  | 'amount_above_funding_cap'
  | 'usury_ceiling_exceeded'
  | 'invalid_amount'
  | 'invalid_date'
  | 'invalid_second_installment_date'
  | 'invalid_deferred_date'
  | 'invalid_balance_payment_date';

/**
 * Due dates a purchase asks for instead of the offer's own (docs/schedules.md#requested-dates).
 * Each is checked as a real 'yyyy-mm-dd' date whatever the offer's type, and used only by the
 * type it names.
 */
export type RequestedDates = {
  /**
   * INSTALLMENTS: the second installment's due date; the later ones fall monthly from it. On or
   * before `created` it is ignored (the offer's own dates apply); installments that would fall
   * more than 12 months after `created` are added to the last one that does not.
   */
  secondInstallmentDate?: string;
  /** DEFERRED: the payment's due date, after `created` and at the latest `created` + the offer's deferred days. */
  deferredDate?: string;
  /** DOWN_PAYMENT: the balance's due date, after `created` and at the latest `created` + the offer's maximum balance delay. */
  balanceDate?: string;
};

/** The due dates a purchase asked for, as its schedule takes them (docs/schedules.md#requested-dates). */
export function requestedDatesOf(p: { secondInstallmentDate: string | null; deferredPaymentDate: string | null; balancePaymentDate: string | null }): RequestedDates {
  return {
    ...(p.secondInstallmentDate ? { secondInstallmentDate: p.secondInstallmentDate } : {}),
    ...(p.deferredPaymentDate ? { deferredDate: p.deferredPaymentDate } : {}),
    ...(p.balancePaymentDate ? { balanceDate: p.balancePaymentDate } : {}),
  };
}

/** The longest maximum balance delay a DOWN_PAYMENT offer may have, in days (docs/schedules.md#down-payment). */
export const MAX_BALANCE_DELAY_DAYS = 365;

/** The longest funding, in months from `created`, an installment plan may have (docs/schedules.md#requested-dates). */
const MAX_FUNDING_MONTHS = 12;

/** A refusal caused by the request (amount, date) measured against the offer's terms. */
export class ScheduleError extends Error {
  override readonly name = 'ScheduleError';
  constructor(
    readonly code: ScheduleErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The schedule of a purchase of `amountCents` created on `created` ('yyyy-mm-dd'), on the
 * offer's dates or on those the purchase asks for (`dates`).
 * @throws ScheduleError when the request does not fit the offer.
 * @throws RangeError when the offer terms themselves are inconsistent (a configuration bug).
 */
export function computeSchedule(terms: OfferTerms, amountCents: number, created: string, dates: RequestedDates = {}): Schedule {
  assertTerms(terms);
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw new ScheduleError('invalid_amount', `amount must be a positive integer number of cents, got ${amountCents}`);
  }
  try {
    parseIsoDate(created);
  } catch {
    throw new ScheduleError('invalid_date', `created must be a real calendar date in yyyy-mm-dd form, got ${JSON.stringify(created)}`);
  }
  if (amountCents < terms.minAmountCents) {
    throw new ScheduleError('amount_below_minimum', `amount ${amountCents} is below this offer's minimum of ${terms.minAmountCents}`);
  }
  if (amountCents > terms.maxAmountCents) {
    throw new ScheduleError('amount_above_maximum', `amount ${amountCents} is above this offer's maximum of ${terms.maxAmountCents}`);
  }
  checkDate(dates.secondInstallmentDate, 'invalid_second_installment_date', 'the second installment date');
  checkDate(dates.deferredDate, 'invalid_deferred_date', 'the deferred payment date');
  checkDate(dates.balanceDate, 'invalid_balance_payment_date', 'the balance payment date');
  // A deposit and a balance of at least one cent each (docs/schedules.md#down-payment).
  if (terms.type === 'DOWN_PAYMENT' && amountCents < 2) {
    throw new ScheduleError('amount_below_minimum', `amount ${amountCents} is too small for a down payment: the deposit and the balance need at least 1 cent each`);
  }
  const fees = feeCents(terms, amountCents);
  if (!Number.isSafeInteger(amountCents + fees)) {
    throw new ScheduleError('invalid_amount', `amount ${amountCents} plus fees is too large to represent exactly`);
  }

  const lines = scheduleLines(terms, amountCents, fees, created, dates);
  const credit = creditCents(terms, amountCents, lines);
  if (terms.fundingCapCents !== null && credit > terms.fundingCapCents) {
    throw new ScheduleError('amount_above_funding_cap', `the credit of ${credit} (amount not paid at checkout) is above this offer's funding cap of ${terms.fundingCapCents}`);
  }
  const taeg = taegOf(terms, amountCents, lines, created, dates);
  // Compared on the announced 2-decimal figure: that is the rate the ceiling is checked against.
  if (terms.usuryCeilingBps !== null && Math.round(taeg * 100) > terms.usuryCeilingBps) {
    throw new ScheduleError('usury_ceiling_exceeded', `the TAEG of ${taeg} % is above the usury ceiling of ${terms.usuryCeilingBps / 100} % for this offer`);
  }
  const schedule: Schedule = { INSTALLMENT: lines, debit_rate: terms.debitRateBps / 100, taeg };
  if (terms.type === 'DEFERRED') schedule.DEFERRED = { ...lines[0]! };
  return schedule;
}

function checkDate(date: string | undefined, code: ScheduleErrorCode, what: string): void {
  if (date === undefined) return;
  try {
    parseIsoDate(date);
  } catch {
    throw new ScheduleError(code, `${what} must be a real calendar date in yyyy-mm-dd form, got ${JSON.stringify(date)}`);
  }
}

/**
 * The cash flows the TAEG is computed on (Annex I): the credit as a drawdown at `created`, then
 * every fee and every payment not made at checkout at its date.
 * INSTALLMENTS and DOWN_PAYMENT: the first line (the first installment, the deposit) is paid at
 * checkout, so the credit is amount − first line, and its fees are a charge at t = 0. DEFERRED:
 * nothing is paid at checkout, so the whole amount is credit and amount + fees are repaid on the
 * single date.
 */
export function taegFlows(terms: OfferTerms, amountCents: number, lines: readonly ScheduleLine[], created: string): DatedFlow[] {
  const flows: DatedFlow[] = [{ date: created, amount: creditCents(terms, amountCents, lines) }];
  lines.forEach((line, k) => {
    const paidAtCheckout = terms.type !== 'DEFERRED' && k === 0;
    flows.push({ date: line.payment_date, amount: -(line.fees + (paidAtCheckout ? 0 : line.amount_cents)) });
  });
  return flows;
}

/** Offer fee on an amount: rate × amount rounded half up, plus the fixed fee. BigInt keeps it exact for any safe amount. */
export function feeCents(terms: Pick<OfferTerms, 'feeRateBps' | 'fixedFeeCents'>, amountCents: number): number {
  const rateFee = (BigInt(terms.feeRateBps) * BigInt(amountCents) + 5_000n) / 10_000n;
  return Number(rateFee) + terms.fixedFeeCents;
}

function scheduleLines(terms: OfferTerms, amountCents: number, fees: number, created: string, dates: RequestedDates): ScheduleLine[] {
  try {
    if (terms.type === 'DEFERRED') {
      return [{ amount_cents: amountCents, fees, payment_date: deferredDate(terms, created, dates.deferredDate) }];
    }
    if (terms.type === 'DOWN_PAYMENT') {
      const deposit = depositCents(terms.depositPercent!, amountCents);
      return [
        { amount_cents: deposit, fees, payment_date: created },
        { amount_cents: amountCents - deposit, fees: 0, payment_date: balanceDate(terms, created, dates.balanceDate) },
      ];
    }
    const n = terms.installments;
    const share = Math.floor(amountCents / n);
    // A second date on or before the purchase's own is no delay: the offer's dates apply.
    const second = dates.secondInstallmentDate !== undefined && dates.secondInstallmentDate > created ? dates.secondInstallmentDate : undefined;
    // The offer's own dates end at most 11 months after created: only a requested date can go further.
    const latest = second === undefined ? '9999-12-31' : addMonthsClamped(created, MAX_FUNDING_MONTHS);
    if (second !== undefined && second > latest) {
      throw new ScheduleError(
        'invalid_second_installment_date',
        `the second installment date ${second} is more than ${MAX_FUNDING_MONTHS} months after created ${created}: the latest is ${latest}`,
      );
    }
    const lines: ScheduleLine[] = [];
    for (let k = 0; k < n; k++) {
      // The first line takes the remainder: the customer never pays a later cent more than the first.
      const amount = k === 0 ? amountCents - share * (n - 1) : share;
      const date = k === 0 ? created : second === undefined ? addMonthsClamped(created, k) : addMonthsClamped(second, k - 1);
      // Funding may not last beyond MAX_FUNDING_MONTHS: what would fall later is due with the last line that does not.
      if (date > latest) lines[lines.length - 1]!.amount_cents += amount;
      else lines.push({ amount_cents: amount, fees: k === 0 ? fees : 0, payment_date: date });
    }
    return lines;
  } catch (error) {
    // Only reachable near year 9999, where a later payment date has no yyyy-mm-dd form.
    if (error instanceof RangeError) throw new ScheduleError('invalid_date', `created ${created} is too late: ${error.message}`);
    throw error;
  }
}

/** The offer's latest date (created + deferred days), or the purchase's own date within (created, latest]. */
function deferredDate(terms: OfferTerms, created: string, asked: string | undefined): string {
  const latest = addDays(created, terms.deferredDays);
  if (asked === undefined) return latest;
  if (asked <= created) throw new ScheduleError('invalid_deferred_date', `the deferred payment date ${asked} must be after created ${created}`);
  if (asked > latest) {
    throw new ScheduleError('invalid_deferred_date', `the deferred payment date ${asked} is after the latest this offer allows, ${latest} (created + ${terms.deferredDays} days)`);
  }
  return asked;
}

/**
 * The deposit of a down payment (docs/schedules.md#down-payment): `percent` × amount rounded half
 * up to the cent, kept between 1 cent and the amount − 1 cent so that the checkout captures
 * something and a balance is left to collect (it matters only for amounts of a few cents). The
 * balance is the rest, so deposit + balance is the amount exactly. BigInt: exact for any safe amount.
 * `amountCents` must be at least 2.
 */
export function depositCents(percent: number, amountCents: number): number {
  const rounded = Number((BigInt(percent) * BigInt(amountCents) + 50n) / 100n);
  return Math.min(Math.max(rounded, 1), amountCents - 1);
}

/** The offer's latest balance date (created + the maximum delay), or the purchase's own within (created, latest]. */
function balanceDate(terms: OfferTerms, created: string, asked: string | undefined): string {
  const days = terms.maxBalanceDelayDays!;
  const latest = addDays(created, days);
  if (asked === undefined) return latest;
  if (asked <= created) throw new ScheduleError('invalid_balance_payment_date', `the balance payment date ${asked} must be after created ${created}`);
  if (asked > latest) {
    throw new ScheduleError(
      'invalid_balance_payment_date',
      `the balance payment date ${asked} is after the latest this offer allows, ${latest} (created + ${days} days, the maximum balance payment delay)`,
    );
  }
  return asked;
}

function creditCents(terms: OfferTerms, amountCents: number, lines: readonly ScheduleLine[]): number {
  return terms.type === 'DEFERRED' ? amountCents : amountCents - lines[0]!.amount_cents;
}

function scheduleTaeg(terms: OfferTerms, amountCents: number, lines: readonly ScheduleLine[], created: string): number {
  const checkoutFees = terms.type === 'DEFERRED' ? 0 : lines[0]!.fees;
  const totalFees = lines.reduce((sum, line) => sum + line.fees, 0);
  if (totalFees === 0) return 0;
  const credit = creditCents(terms, amountCents, lines);
  // Fees at checkout that swallow the whole credit leave no finite rate: the amount is too
  // small for this offer's fixed fee, whatever its configured minimum says.
  if (checkoutFees >= credit) {
    throw new ScheduleError('amount_below_minimum', `amount ${amountCents} is too small for this offer: fees of ${checkoutFees} due at checkout reach the credit of ${credit}`);
  }
  // A balance falls a number of days after checkout, off any month grid: days/365, as a deferred payment.
  const dayCount = terms.type === 'INSTALLMENTS' ? 'monthly' : 'actual365';
  return aprPercent(solveApr(taegFlows(terms, amountCents, lines, created), dayCount));
}

function assertTerms(terms: OfferTerms): void {
  const nonNegative = (name: keyof OfferTerms, value: number | null) => {
    if (value !== null && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new RangeError(`offer term ${name} must be a non-negative integer, got ${value}`);
    }
  };
  for (const name of ['feeRateBps', 'fixedFeeCents', 'minAmountCents', 'maxAmountCents', 'fundingCapCents', 'debitRateBps', 'usuryCeilingBps'] as const) {
    nonNegative(name, terms[name]);
  }
  if (terms.type === 'INSTALLMENTS' && !(Number.isInteger(terms.installments) && terms.installments >= 2 && terms.installments <= 12)) {
    throw new RangeError(`an INSTALLMENTS offer needs 2 to 12 installments, got ${terms.installments}`);
  }
  if (terms.type === 'DEFERRED' && !(terms.installments === 1 && Number.isInteger(terms.deferredDays) && terms.deferredDays >= 1)) {
    throw new RangeError(`a DEFERRED offer needs 1 installment and at least 1 deferred day, got ${terms.installments} / ${terms.deferredDays}`);
  }
  if (terms.type === 'DOWN_PAYMENT') {
    const percent = terms.depositPercent;
    const days = terms.maxBalanceDelayDays;
    if (!(Number.isInteger(percent) && percent! >= 1 && percent! <= 99)) throw new RangeError(`a DOWN_PAYMENT offer needs a deposit of 1 to 99 percent, got ${percent}`);
    if (!(Number.isInteger(days) && days! >= 1 && days! <= MAX_BALANCE_DELAY_DAYS)) {
      throw new RangeError(`a DOWN_PAYMENT offer needs a maximum balance payment delay of 1 to ${MAX_BALANCE_DELAY_DAYS} days, got ${days}`);
    }
  }
}

/**
 * The schedule's TAEG. A requested second date (or balance date) a few days after checkout can
 * make the fees of a small credit an annual rate past any the solver brackets: that date is
 * refused, naming it, rather than a schedule with no legal rate to show (docs/schedules.md#requested-dates).
 * On the offer's own dates (a down payment's balance a day later) the amount is refused as too
 * small for the offer.
 */
function taegOf(terms: OfferTerms, amountCents: number, lines: readonly ScheduleLine[], created: string, dates: RequestedDates): number {
  try {
    return scheduleTaeg(terms, amountCents, lines, created);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    if (terms.type === 'DOWN_PAYMENT' && dates.balanceDate !== undefined) {
      throw new ScheduleError('invalid_balance_payment_date', `the balance payment date ${dates.balanceDate} is too soon for this credit: no annual rate can be computed`);
    }
    if (dates.secondInstallmentDate === undefined) {
      // The offer's own dates: its fees on so small a credit over so few days (a 1-day balance)
      // make no rate at all, past any usury ceiling: the amount is too small for this offer.
      throw new ScheduleError('amount_below_minimum', `amount ${amountCents} is too small for this offer: its fees over so short a credit give no computable annual rate`);
    }
    throw new ScheduleError(
      'invalid_second_installment_date',
      `the second installment date ${dates.secondInstallmentDate} is too soon for this credit: no annual rate can be computed`,
    );
  }
}
