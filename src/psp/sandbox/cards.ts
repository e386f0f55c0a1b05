import type { CardInput } from '../connector.ts';
import type { SandboxDeclineCode } from './mapping.ts';
import { luhnValid } from '../kit/card-checks.ts';

/**
 * What a test card number makes the sandbox do (docs/psp-connectors.md#test-cards). Any other valid
 * number approves, like 4242 4242 4242 4242.
 */
export type CardBehaviour =
  | 'approve'
  | 'do_not_honor'
  | 'insufficient_funds'
  | 'challenge'
  | 'decline_off_session'
  // Approve, then open a dispute once captured (docs/money-operations.md#disputes), as Stripe's
  // test cards of the same numbers do: a `fraudulent` chargeback, an inquiry (a retrieval
  // request), an early fraud warning.
  | 'dispute_fraudulent'
  | 'dispute_inquiry'
  | 'fraud_warning';

const TEST_CARDS: Readonly<Record<string, CardBehaviour>> = {
  '4242424242424242': 'approve',
  '4000000000000002': 'do_not_honor',
  '4000000000003220': 'challenge',
  // The original provider's integration guide's "3-D Secure required, challenge succeeds" card.
  '4000000000003063': 'challenge',
  '4000000000009995': 'insufficient_funds',
  '4000000000000341': 'decline_off_session',
  '4000000000000259': 'dispute_fraudulent',
  '4000000000001976': 'dispute_inquiry',
  '4000000000005423': 'fraud_warning',
};

/**
 * The funding and issuing country the sandbox tells for a card (docs/psp-connectors.md#test-cards),
 * as Stripe's test cards of the same numbers do: what the risk rules read (docs/risk.md#card-facts).
 * Any other card is a French credit card.
 */
const FUNDING: Readonly<Record<string, 'debit' | 'prepaid'>> = { '4000056655665556': 'debit', '5105105105105100': 'prepaid' };
const COUNTRY: Readonly<Record<string, string>> = { '4000000760000002': 'BR', '4000008260000000': 'GB', '4000002760000016': 'DE' };

/**
 * Cards without 3-D Secure, which the sandbox requires of them: refused `authentication_failed`
 * when attached, before any transaction (docs/psp-connectors.md#test-cards), as the original
 * provider's test PSP refused this Amex. At attach, because the stored behaviours are a closed
 * set in the database and the outcome for the shopper is the same: a payment refused for failed
 * authentication, nothing held.
 */
const WITHOUT_3DS: ReadonlySet<string> = new Set(['378282246310005']);

/** What may be kept of a card: never the number or the CVC. */
export interface CardSummary {
  brand: string;
  funding: 'credit' | 'debit' | 'prepaid';
  country: string;
  last4: string;
  expMonth: number;
  expYear: number;
  behaviour: CardBehaviour;
}

export type CardCheck = { ok: true; card: CardSummary } | { ok: false; code: SandboxDeclineCode; message: string };

/** The card scheme by its leading digits (IIN ranges), as PSPs report it. */
export function cardBrand(digits: string): string {
  if (digits.startsWith('4')) return 'visa';
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  if (digits.startsWith('6011') || digits.startsWith('65') || (four >= 6440 && four <= 6499)) return 'discover';
  return 'unknown';
}

/**
 * Checks card details the way a PSP's tokeniser does, in order: number (digits once spaces are
 * removed, 12 to 19 of them, Luhn valid), expiry (the card is valid to the end of its month, in
 * UTC), CVC (3 or 4 digits), then 3-D Secure support. A two-digit year means 20yy.
 */
export function checkCard(card: CardInput, now: Date): CardCheck {
  const digits = card.number.replace(/ /g, '');
  if (!/^[0-9]{12,19}$/.test(digits) || !luhnValid(digits)) {
    return { ok: false, code: 'invalid_number', message: 'The card number is not a valid card number.' };
  }
  const { expMonth } = card;
  const expYear = card.expYear >= 0 && card.expYear < 100 ? 2000 + card.expYear : card.expYear;
  if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12 || !Number.isInteger(expYear)) {
    return { ok: false, code: 'expired_card', message: "The card's expiry date is not a valid month." };
  }
  const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (expYear * 12 + (expMonth - 1) < thisMonth) {
    return { ok: false, code: 'expired_card', message: 'The card has expired.' };
  }
  if (!/^[0-9]{3,4}$/.test(card.cvc)) {
    return { ok: false, code: 'incorrect_cvc', message: "The card's security code is incorrect." };
  }
  if (WITHOUT_3DS.has(digits)) {
    return { ok: false, code: 'authentication_failed', message: 'This card does not support 3-D Secure, which this payment requires: authentication failed.' };
  }
  return {
    ok: true,
    card: {
      brand: cardBrand(digits),
      funding: FUNDING[digits] ?? 'credit',
      country: COUNTRY[digits] ?? 'FR',
      last4: digits.slice(-4),
      expMonth,
      expYear,
      behaviour: TEST_CARDS[digits] ?? 'approve',
    },
  };
}
