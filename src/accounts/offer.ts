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
}

/** The terms the back office edits (src/use-cases/edit-offer.ts holds their rules). */
export type EditableTerms = Pick<Offer, 'feeRateBps' | 'fixedFeeCents' | 'minAmountCents' | 'maxAmountCents' | 'expiryHours' | 'potDeadlineHours' | 'pspAccountId' | 'psp'>;
