/**
 * The rules of transfer mode's payouts (docs/money-operations.md#payouts), pure: which status a
 * payout may move to, how its amount is written in a SEPA file, how a bank account is shown.
 */

export const PAYOUT_STATUSES = ['created', 'exported', 'sent', 'returned'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** The statuses the operator sets by hand (`chipin payout mark`); `exported` is set by producing the file. */
export const MARKED_STATUSES = ['sent', 'returned'] as const;
export type MarkedStatus = (typeof MARKED_STATUSES)[number];

/** The one currency a SEPA credit transfer (pain.001) carries: other payouts need another rail. */
export const SEPA_CURRENCY = 'EUR';

/**
 * Whether a payout in `currency` may go from `from` to `to`, else why not (a sentence naming both).
 *
 * - created → exported: only by producing its pain.001 file, and only in euros;
 * - exported → sent: the bank executed the file's transfer;
 * - created → sent: a payout in another currency, paid by another rail (no SEPA file);
 * - sent → returned, exported → returned: the transfer came back, or the bank refused it;
 * - returned is final: the amount is owed again and goes into the next payout.
 */
export function payoutTransition(from: PayoutStatus, to: PayoutStatus, currency: string): { ok: true } | { ok: false; message: string } {
  const sepa = currency === SEPA_CURRENCY;
  const allowed =
    (from === 'created' && to === 'exported' && sepa) ||
    (from === 'exported' && to === 'sent') ||
    (from === 'created' && to === 'sent' && !sepa) ||
    (to === 'returned' && (from === 'sent' || from === 'exported'));
  if (allowed) return { ok: true };
  if (from === to) return { ok: false, message: `the payout is already ${to}` };
  if (from === 'returned') return { ok: false, message: `a returned payout is final (its amount is owed again and goes into the next payout); it cannot become ${to}` };
  if (from === 'created' && to === 'sent')
    return { ok: false, message: 'a payout in EUR is sent through its pain.001 file: export it first (chipin payout export), then mark it sent' };
  if (to === 'exported' && !sepa) return { ok: false, message: `a payout in ${currency} is not a SEPA credit transfer: pay it by another rail, then mark it sent` };
  if (to === 'exported') return { ok: false, message: `only a created payout can be exported; this one is ${from}` };
  if (from === 'created' && to === 'returned') return { ok: false, message: 'a payout not yet exported or sent cannot be returned' };
  return { ok: false, message: `a payout cannot go from ${from} to ${to}` };
}

/**
 * Minor units as the decimal a SEPA file writes (`12345` → `"123.45"`), exactly: integer
 * arithmetic on the text, never a division (docs/money-operations.md#payouts).
 */
export function decimalOfCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new Error(`an amount must be an integer of minor units, got ${cents}`);
  const sign = cents < 0 ? '-' : '';
  const digits = String(Math.abs(cents)).padStart(3, '0');
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * An IBAN as the back office shows it: its country and check digits, then its last four
 * characters (`FR76 •••• •••• 0189`); the rest is never shown once saved.
 */
export function maskIban(iban: string): string {
  const compact = iban.replace(/\s+/g, '').toUpperCase();
  return `${compact.slice(0, 4)} •••• •••• ${compact.slice(-4)}`;
}

/**
 * A name as the SEPA file may carry it: the EPC's basic Latin set (letters, digits, space and
 * `/ - ? : ( ) . , ' +`). Accents are dropped (`Société` → `Societe`), `&` becomes `+`, any other
 * character a space; spaces are collapsed and the text cut to `max` characters. Banks refuse
 * other characters, and the name is the holder's as typed in the back office.
 */
export function sepaText(text: string, max: number): string {
  const plain = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/&/g, '+')
    .replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.slice(0, max).trim();
}
