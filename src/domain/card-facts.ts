/**
 * What the payment-time risk decision knows of a card (docs/risk.md#card-facts), and what a
 * decision record keeps of it: never the number, only its first six digits (the BIN, which names
 * the issuer), its last four, and a keyed fingerprint.
 */
type CardFunding = 'credit' | 'debit' | 'prepaid' | 'unknown';

export interface CardFacts {
  bin: string;
  last4: string;
  brand: string;
  /** As the PSP tells it when it tokenises the card; `unknown` where it does not. */
  funding: CardFunding;
  /** Issuing country, ISO 3166 alpha-2, when the PSP tells it. */
  country?: string;
  expMonth: number;
  expYear: number;
  /** Chipin's keyed fingerprint (src/crypto/card-fingerprint.ts). */
  fingerprint: string;
}

/** The BIN: the first six digits of a card number (PCI DSS lets them be kept with the last four). */
export function binOf(number: string): string {
  return number.replace(/\D/g, '').slice(0, 6);
}
