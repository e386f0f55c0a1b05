import { computeSchedule, type Schedule } from '../domain/schedule.ts';
import { offerTerms } from '../domain/offer-terms.ts';
import type { Offer } from './offers.ts';

/**
 * The schedules last computed under each offer, by amount and creation day. A product page asks
 * every visitor's browser for the schedule of the same price on the same day, so most
 * simulations are answered from here instead of solving the TAEG again (docs/performance.md).
 *
 * Keyed by the Offer object the OfferCache hands out: when the cache reloads an offer (after its
 * few seconds, or at once after an edit in this process), the new object starts an empty memo and
 * the old one goes with it, so no schedule outlives the terms it was computed under by more than
 * the offer cache itself does. Only successes are kept: a refused amount is computed again, and
 * throws again.
 */
export class ScheduleMemo {
  readonly #byOffer = new WeakMap<Offer, Map<string, Schedule>>();

  /** @param perOffer schedules kept per offer, the oldest dropped first */
  constructor(private readonly perOffer = 256) {}

  /** computeSchedule(offerTerms(offer), amountCents, created), frozen: callers share it. */
  schedule(offer: Offer, amountCents: number, created: string): Schedule {
    let memo = this.#byOffer.get(offer);
    if (memo === undefined) {
      memo = new Map();
      this.#byOffer.set(offer, memo);
    }
    const key = `${amountCents} ${created}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const schedule = freeze(computeSchedule(offerTerms(offer), amountCents, created));
    if (memo.size >= this.perOffer) memo.delete(memo.keys().next().value!);
    memo.set(key, schedule);
    return schedule;
  }
}

function freeze(s: Schedule): Schedule {
  for (const line of s.INSTALLMENT) Object.freeze(line);
  Object.freeze(s.INSTALLMENT);
  return Object.freeze(s);
}
