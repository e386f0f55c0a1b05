/**
 * Micro-benchmark of the schedule engine alone (no HTTP, no database): microseconds per
 * `computeSchedule` of a 3x plan with fees, whose TAEG needs the APR solver, and per answer of
 * the simulation routes' memo when it already holds the schedule. The public simulation runs the
 * first on a memo miss (a new amount or day under an offer), the second otherwise: the part of
 * that route's cost that is Chipin's own arithmetic. Run: `npm run bench:schedule`. Figures:
 * docs/performance.md.
 */
import { MERCHANT_PARAMETER_DEFAULTS, type Offer } from '../src/accounts/offer.ts';
import { ScheduleMemo } from '../src/accounts/schedule-memo.ts';
import { computeSchedule, type OfferTerms } from '../src/domain/schedule.ts';

const TERMS: OfferTerms = {
  type: 'INSTALLMENTS',
  installments: 3,
  deferredDays: 0,
  feeRateBps: 150,
  fixedFeeCents: 0,
  minAmountCents: 100,
  maxAmountCents: 10_000_000,
  fundingCapCents: null,
  debitRateBps: 0,
  usuryCeilingBps: null,
};
const CALLS = Number(process.env.BENCH_CALLS ?? 50_000);

const OFFER: Offer = {
  ...TERMS,
  depositPercent: null,
  maxBalanceDelayDays: null,
  id: '0b7e6a52-3c1d-4f7e-9a40-6f1e2d3c4b5a',
  accountId: '6f1e2d3c-4b5a-4f7e-9a40-0b7e6a523c1d',
  currency: 'EUR',
  accountName: 'Bench',
  accountTimeZone: 'Europe/Paris',
  accountCountry: null,
  psp: 'sandbox',
  pspAccountId: null,
  paymentMode: 'back',
  commissionBps: 0,
  commissionFixedCents: 0,
  maxAttempts: 3,
  potDeadlineHours: 72,
  expiryHours: 24,
  pspEnvironment: null,
  creditLender: null,
  lender: 'Bench',
  withdrawalDays: null,
  ...MERCHANT_PARAMETER_DEFAULTS,
};
const memo = new ScheduleMemo();

/** µs per call of `schedule` over CALLS calls, after a warm-up that lets the JIT settle. */
function measure(schedule: (amount: number) => { taeg: number }): number {
  let checksum = 0;
  for (let i = 0; i < 20_000; i++) checksum += schedule(30_000 + (i % 7)).taeg;
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) checksum += schedule(30_000 + (i % 7)).taeg;
  const us = Number(process.hrtime.bigint() - started) / 1_000 / CALLS;
  if (!Number.isFinite(checksum)) throw new Error('no schedule computed');
  return us;
}

const computed = measure((amount) => computeSchedule(TERMS, amount, '2026-01-31'));
const remembered = measure((amount) => memo.schedule(OFFER, amount, '2026-01-31'));
console.log(`computeSchedule (3x, 150 bps, TAEG): ${computed.toFixed(1)} µs per call over ${CALLS} calls`);
console.log(`ScheduleMemo hit (the same, already computed): ${remembered.toFixed(2)} µs per call over ${CALLS} calls`);
