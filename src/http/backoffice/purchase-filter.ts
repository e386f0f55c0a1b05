import { addDays, isDay, isDayText } from '../../domain/dates.ts';
import { zonedMidnight } from '../../i18n/format.ts';
import { isUuid, parsePublicId, toPublicId } from '../../domain/ids.ts';
import { internalStatesOf, type V1State } from '../../domain/purchase-states.ts';
import type { PurchaseFilter } from '../../purchases/purchase-repository.ts';
import type { PurchaseQuery } from './pages/purchases-page.ts';
import { V1_STATES } from './pages/purchases-page.ts';
import type { DashboardTexts } from './texts.ts';

/** `pur_<uuid>` or the bare uuid, as the back-office API takes them. */
export function purchaseIdOf(value: string): string | undefined {
  return parsePublicId('pur', value) ?? (isUuid(value.toLowerCase()) ? value.toLowerCase() : undefined);
}

/**
 * What is wrong with a day typed in a date filter, in the page's words, or undefined when it is a
 * day the service computes with: a real calendar day `YYYY-MM-DD` within the days any route may
 * name (src/domain/dates.ts; the day after it is where the filter ends).
 */
function dayProblem(text: string, field: string, t: DashboardTexts): string | undefined {
  if (!isDayText(text)) return t.badDate(field);
  return isDay(text) ? undefined : t.dateOutOfRange(field);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** The filters of the purchases list as typed, read from a query string. */
export function purchaseQueryOf(raw: Record<string, unknown>): PurchaseQuery {
  return { q: str(raw.q), state: str(raw.state), offer: str(raw.offer), from: str(raw.from), to: str(raw.to) };
}

/**
 * The list's filters turned into the repository's: one parser for the purchases page and its CSV
 * export, so both always select the same purchases. `errors` name each wrong field (nothing is
 * listed then).
 */
export function purchaseFilterOf(
  query: PurchaseQuery,
  offers: readonly { id: string }[],
  t: DashboardTexts,
  /** The account's time zone: the days typed are its calendar days. */
  timeZone: string,
): { filter: Omit<PurchaseFilter, 'limit' | 'before'>; errors: string[] } {
  const errors: string[] = [];
  // Search: a purchase id, else an e-mail (it has an @), else the merchant's reference.
  const q = query.q;
  const id = q ? purchaseIdOf(q) : undefined;
  const byEmail = !id && q.includes('@') ? q : undefined;
  const byRef = q && !id && !byEmail ? q : undefined;
  const state = V1_STATES.includes(query.state as V1State) ? (query.state as V1State) : undefined;
  if (query.state && !state) errors.push(`${t.state}: ${query.state}?`);
  const offer = query.offer ? offers.find((o) => toPublicId('mer', o.id) === query.offer) : undefined;
  if (query.offer && !offer) errors.push(`${t.offer}: ${query.offer}?`);
  const fromProblem = query.from ? dayProblem(query.from, t.createdFrom, t) : undefined;
  if (fromProblem) errors.push(fromProblem);
  const toProblem = query.to ? dayProblem(query.to, t.createdTo, t) : undefined;
  if (toProblem) errors.push(toProblem);
  const from = query.from && !fromProblem;
  const to = query.to && !toProblem;
  return {
    filter: {
      id,
      clientEmail: byEmail,
      ref: byRef,
      states: state && internalStatesOf(state),
      offerId: offer?.id,
      // From the first instant of the "from" day in the account's zone; the "to" day is
      // inclusive: up to the first instant of the next one.
      createdFrom: from ? zonedMidnight(query.from, timeZone) : undefined,
      createdTo: to ? zonedMidnight(addDays(query.to, 1), timeZone) : undefined,
    },
    errors,
  };
}
