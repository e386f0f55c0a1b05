import type { CardInput, DeclineReason } from '../connector.ts';

/** The Luhn (mod 10) check digit test of ISO/IEC 7812. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * Checks that need no PSP, made before tokenising so the card data goes no further when it is
 * malformed: the number (12–19 digits, Luhn), the expiry (valid to the end of its month, UTC),
 * the CVC (3 or 4 digits).
 */
export function checkCardLocally(card: CardInput, now: Date): { ok: true; digits: string; year: number } | { ok: false; reason: DeclineReason; message: string } {
  const digits = card.number.replace(/ /g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) return { ok: false, reason: 'invalid_card', message: 'The card number is not a valid card number.' };
  const year = card.expYear < 100 ? 2000 + card.expYear : card.expYear;
  const month = card.expMonth;
  const valid = Number.isInteger(month) && month >= 1 && month <= 12 && Number.isInteger(year) && Date.UTC(year, month, 1) > now.getTime();
  if (!valid) return { ok: false, reason: 'expired_card', message: 'The card has expired.' };
  if (!/^\d{3,4}$/.test(card.cvc)) return { ok: false, reason: 'incorrect_cvc', message: "The card's security code is incorrect." };
  return { ok: true, digits, year };
}
