import { computeSchedule, type RequestedDates, type Schedule } from '../domain/schedule.ts';
import { offerTerms } from '../domain/offer-terms.ts';
import type { Offer } from './offer.ts';

/**
 * The schedules last computed, by offer, amount and creation day. A product page asks every
 * visitor's browser for the schedule of the same price on the same day, so most simulations are
 * answered from here instead of solving the TAEG again (docs/performance.md).
 *
 * An entry answers only for the very Offer object it was computed under, as the OfferCache hands
 * it out: once the cache reloads an offer (after its few seconds, or at once after an edit in
 * this process), the new object misses and replaces the entry, so no schedule outlives the terms
 * it was computed under by more than the offer cache itself does. Bounded as a whole (the oldest
 * entry goes first), whatever the number of offers and amounts a client asks for. Only successes
 * are kept: a refused amount is computed again, and throws again.
 */
export class ScheduleMemo {
  readonly #entries = new Map<string, { offer: Offer; schedule: Schedule }>();

  /** @param max schedules kept in all (a few hundred bytes each) */
  constructor(private readonly max = 10_000) {}

  /** computeSchedule(offerTerms(offer), amountCents, created, dates), frozen: callers share it. */
  schedule(offer: Offer, amountCents: number, created: string, dates: RequestedDates = {}): Schedule {
    const key = `${offer.id} ${amountCents} ${created} ${dates.secondInstallmentDate ?? ''} ${dates.deferredDate ?? ''} ${dates.balanceDate ?? ''}`;
    const known = this.#entries.get(key);
    if (known !== undefined && known.offer === offer) return known.schedule;
    const schedule = freeze(computeSchedule(offerTerms(offer), amountCents, created, dates));
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { offer, schedule });
    return schedule;
  }
}

function freeze(s: Schedule): Schedule {
  for (const line of s.INSTALLMENT) Object.freeze(line);
  Object.freeze(s.INSTALLMENT);
  if (s.DEFERRED) Object.freeze(s.DEFERRED);
  return Object.freeze(s);
}
