import { isStorableDate } from '../domain/dates.ts';
import { addDays } from '../domain/apr.ts';
import { zonedMidnight } from '../i18n/format.ts';
import { isUuid, parsePublicId, toPublicId } from '../domain/ids.ts';
import { internalStatesOf, type V1State } from '../domain/purchase-states.ts';
import type { PurchaseFilter } from '../purchases/purchase-repository.ts';
import type { PurchaseQuery } from './pages/purchases-page.ts';
import { V1_STATES } from './pages/purchases-page.ts';
import type { DashboardTexts } from './texts.ts';

/** `pur_<uuid>` or the bare uuid, as the back-office API takes them. */
export function purchaseIdOf(value: string): string | undefined {
  return parsePublicId('pur', value) ?? (isUuid(value.toLowerCase()) ? value.toLowerCase() : undefined);
}

/** A `YYYY-MM-DD` day of the date filters, checked (a real calendar date), or undefined. */
function dayOf(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const d = new Date(`${text}T00:00:00Z`);
  return isStorableDate(d) && d.toISOString().startsWith(text) ? d : undefined;
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
  const from = query.from ? dayOf(query.from) : undefined;
  if (query.from && !from) errors.push(t.badDate(t.createdFrom));
  const to = query.to ? dayOf(query.to) : undefined;
  if (query.to && !to) errors.push(t.badDate(t.createdTo));
  return {
    filter: {
      id,
      clientEmail: byEmail,
      ref: byRef,
      states: state && internalStatesOf(state),
      offerId: offer?.id,
      // From the first instant of the "from" day in the account's zone; the "to" day is
      // inclusive: up to the first instant of the next one.
      createdFrom: from && zonedMidnight(query.from, timeZone),
      createdTo: to && zonedMidnight(addDays(query.to, 1), timeZone),
    },
    errors,
  };
}
