import type { Offer } from '../accounts/offers.ts';
import { isKnownCurrency } from '../domain/money.ts';
import type { Product } from './purchase.ts';

/** Input that passed the schema but breaks a business rule; `field` is named as the client sent it. */
export class InputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`field ${field} ${message}`);
  }
}

/** Currency and amount against the offer's terms; products in the purchase's currency. */
export function checkAmount(
  offer: Offer,
  amountCents: number,
  currency: string,
  fields: { amount: string; currency: string; products?: string },
  products: readonly Product[] = [],
): void {
  if (!isKnownCurrency(currency)) throw new InputError(fields.currency, `is not an ISO 4217 currency code: "${currency}"`);
  if (currency !== offer.currency) throw new InputError(fields.currency, `must be ${offer.currency}, the currency of this offer`);
  if (amountCents < offer.minAmountCents) throw new InputError(fields.amount, `must be at least ${offer.minAmountCents} for this offer`);
  if (amountCents > offer.maxAmountCents) throw new InputError(fields.amount, `must be at most ${offer.maxAmountCents} for this offer`);
  products.forEach((p, i) => {
    if (p.currency !== currency) throw new InputError(`${fields.products}[${i}].currency`, `must be ${currency}, the purchase's currency`);
  });
}
