/** An offer ("merchant uid") as the purchase rules need it. */
export interface Offer {
  id: string;
  accountId: string;
  type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED';
  installments: number;
  deferredDays: number;
  currency: string;
  minAmountCents: number;
  maxAmountCents: number;
  accountName: string;
  /** The account's time zone (IANA name): what its pages and messages show times in. */
  accountTimeZone: string;
  /** The account's country (ISO 3166 alpha-2), where its shoppers' national phone numbers are read; null: the deployment's. */
  accountCountry: string | null;
  /** PSP connector name (registry key): the PSP account's connector, `sandbox` without one. */
  psp: string;
  /** The merchant PSP account the offer pays through (back mode); null: the built-in sandbox PSP. */
  pspAccountId: string | null;
  /** Card refusals a leader may have before the purchase goes FAILED. */
  maxAttempts: number;
  /** How long pledgers have to pay, from the leader's payment (SHARED). */
  potDeadlineHours: number;
  /** How long a purchase may stay unpaid (CREATED) before it expires. */
  expiryHours: number;
  /** Schedule terms (docs/schedules.md#rules): fee in basis points of the amount, plus a fixed fee. */
  feeRateBps: number;
  fixedFeeCents: number;
  /** Nominal annual interest rate in basis points (`debit_rate`). */
  debitRateBps: number;
  /** Largest credit on one purchase; null = no cap. */
  fundingCapCents: number | null;
  /** Legal ceiling on the TAEG in basis points; null = none. */
  usuryCeilingBps: number | null;
  /** The environment of the PSP account it pays through; null: the built-in sandbox PSP (test mode too). */
  pspEnvironment: 'test' | 'live' | null;
  /** The lender's identity set on this offer (docs/schedules.md#credit-mentions); null: the deployment's. */
  creditLender: string | null;
  /** The lender shoppers are shown: `creditLender`, else the deployment's `CREDIT_LENDER`, else the merchant (OfferCache fills it). */
  lender: string;
  /** The right of withdrawal's period set on this offer, in days (0: none); null: Chipin's rule (domain/credit-mentions.ts). */
  withdrawalDays: number | null;
}

/** Whether payments on this offer are tests: the built-in sandbox PSP, or a PSP account in its test environment. */
export function inTestMode(offer: Pick<Offer, 'pspEnvironment'>): boolean {
  return offer.pspEnvironment !== 'live';
}

/** The terms the back office edits (src/use-cases/edit-offer.ts holds their rules). */
export type EditableTerms = Pick<
  Offer,
  'feeRateBps' | 'fixedFeeCents' | 'minAmountCents' | 'maxAmountCents' | 'expiryHours' | 'potDeadlineHours' | 'pspAccountId' | 'psp' | 'creditLender' | 'withdrawalDays'
>;
