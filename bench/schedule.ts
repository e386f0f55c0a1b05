/**
 * Micro-benchmark of the schedule engine alone (no HTTP, no database): microseconds per
 * `computeSchedule` of a 3x plan with fees, whose TAEG needs the APR solver. The public
 * simulation route runs exactly this per request, so it is the part of that route's cost that
 * is Chipin's own arithmetic. Run: `npm run bench:schedule`. Figures: docs/performance.md.
 */
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

function run(calls: number): number {
  let checksum = 0;
  for (let i = 0; i < calls; i++) checksum += computeSchedule(TERMS, 30_000 + (i % 7), '2026-01-31').taeg;
  return checksum;
}

run(20_000); // warm-up: let the JIT settle before measuring
const started = process.hrtime.bigint();
run(CALLS);
const us = Number(process.hrtime.bigint() - started) / 1_000 / CALLS;
console.log(`computeSchedule (3x, 150 bps, TAEG): ${us.toFixed(1)} µs per call over ${CALLS} calls`);
