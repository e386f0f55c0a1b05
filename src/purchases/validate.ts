import type { Offer } from '../accounts/offer.ts';
import { isKnownCurrency } from '../domain/money.ts';
import type { Product } from './purchase.ts';

/**
 * A business rule the input breaks. `field` is named as in Merchant API v1 (`amount`, `currency`,
 * `products[<i>].currency`); each API family renames it to its own field when it tells the client.
 */
export interface Violation {
  field: 'amount' | 'currency' | `products[${number}].currency` | 'balance_payment_date';
  /** What is wrong, without the field's name: `must be at least 100 for this offer`. */
  message: string;
}

/** Currency and amount against the offer's terms; products in the purchase's currency. */
export function checkAmount(offer: Offer, amountCents: number, currency: string, products: readonly Product[] = []): Violation | undefined {
  if (!isKnownCurrency(currency)) return { field: 'currency', message: `is not an ISO 4217 currency code: "${currency}"` };
  if (currency !== offer.currency) return { field: 'currency', message: `must be ${offer.currency}, the currency of this offer` };
  if (amountCents < offer.minAmountCents) return { field: 'amount', message: `must be at least ${offer.minAmountCents} for this offer` };
  if (amountCents > offer.maxAmountCents) return { field: 'amount', message: `must be at most ${offer.maxAmountCents} for this offer` };
  const i = products.findIndex((p) => p.currency !== currency);
  if (i >= 0) return { field: `products[${i}].currency`, message: `must be ${currency}, the purchase's currency` };
  return undefined;
}
