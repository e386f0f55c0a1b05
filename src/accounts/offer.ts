import type { OfferType } from '../domain/offer-terms.ts';
/** An offer ("merchant uid") as the purchase rules need it. */
export interface Offer {
  id: string;
  accountId: string;
  type: OfferType;
  installments: number;
  deferredDays: number;
  /** DOWN_PAYMENT: the deposit in percent of the amount (1..99); null for the other types (docs/schedules.md#down-payment). */
  depositPercent: number | null;
  /** DOWN_PAYMENT: the most days from the purchase's creation to the balance's due date (1..365); null for the other types. */
  maxBalanceDelayDays: number | null;
  currency: string;
  minAmountCents: number;
  maxAmountCents: number;
  accountName: string;
  /** The account's time zone (IANA name): what its pages and messages show times in. */
  accountTimeZone: string;
  /** The account's country (ISO 3166 alpha-2), where its shoppers' national phone numbers are read; null: the deployment's. */
  accountCountry: string | null;
  /** The account's language (de, en, es, fr, it, nl): a shopper's when nothing else says theirs (src/i18n/shopper-lang.ts). */
  accountLanguage?: string;
  /** PSP connector name (registry key): the PSP account's connector, `sandbox` without one. */
  psp: string;
  /**
   * The PSP account the offer pays through: the merchant's own (back mode) or an operator's
   * collecting account (transfer mode); null: the built-in sandbox PSP.
   */
  pspAccountId: string | null;
  /**
   * Who collects (docs/money-operations.md#transfer-mode): `back`, the merchant's PSP account;
   * `transfer`, the operator's, which then owes the merchant its validated purchases less its
   * commission. Set by the operator's CLI only.
   */
  paymentMode: 'back' | 'transfer';
  /** The operator's commission on each validated purchase in transfer mode: basis points of its amount, plus a fixed part (minor units). */
  commissionBps: number;
  commissionFixedCents: number;
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
  /**
   * The merchant parameters of the original interface (docs/back-office.md#merchant-parameters-of-the-original-interface).
   * `countryCode`: where national phone numbers are read when the purchase names no country (ISO 3166 alpha-2);
   * null: the account's, else the deployment's (docs/messaging.md#phone-numbers).
   */
  countryCode: string | null;
  /** The merchant's stylesheet linked on the offer's hosted pages (https; docs/security.md#merchant-stylesheets); null: none. */
  cssUrl: string | null;
  /** The merchant's terms, linked by the pay button of a SHARED offer's pages; null: no link. */
  gtuUrl: string | null;
  /** The words of that link; null: Chipin's wording. */
  gtuLabel: string | null;
  /** When 3-D Secure is asked for: `always`, `never` (unless the card requires it), `auto` (Chipin's behaviour before the parameter existed). */
  use3ds: 'always' | 'never' | 'auto';
  /** Whether a SHARED purchase goes ahead when the leader names no friend (the leader then pays alone). */
  leaderCanPayAlone: boolean;
  /** Told `{reference, uid}` when a pot ends; null: nothing sent. */
  purchaseEndNotificationUrl: string | null;
  /** Whether the shopper is e-mailed a confirmation at the end of the payment. */
  sendConfirmationEmail: boolean;
  /** Whether the shopper is reminded, before it is charged, that a share (an installment, a deferred payment) will soon be debited. */
  sendOwedShareReminder: boolean;
  /**
   * Days after it was placed when a hold that must outlive its authorisation is renewed at the
   * latest (1 to 30); a hold its PSP lets lapse sooner is still renewed a day before it lapses
   * (docs/money-operations.md#re-authorisation). 7, the default, changes nothing with holds of 7 days.
   */
  holdRenewalDays: number;
}

/** The merchant parameters of an offer that sets none (migration defaults): Chipin's behaviour before they existed. */
export const MERCHANT_PARAMETER_DEFAULTS: Readonly<Omit<MerchantParameters, 'fundingCapCents' | 'depositPercent' | 'maxBalanceDelayDays'>> = {
  countryCode: null,
  cssUrl: null,
  gtuUrl: null,
  gtuLabel: null,
  use3ds: 'auto',
  leaderCanPayAlone: true,
  purchaseEndNotificationUrl: null,
  sendConfirmationEmail: true,
  sendOwedShareReminder: true,
  holdRenewalDays: 7,
};

/** Whether payments on this offer are tests: the built-in sandbox PSP, or a PSP account in its test environment. */
export function inTestMode(offer: Pick<Offer, 'pspEnvironment'>): boolean {
  return offer.pspEnvironment !== 'live';
}

/** The terms the back office edits (src/use-cases/merchant-setup/edit-offer.ts holds their rules). */
export type EditableTerms = Pick<
  Offer,
  'feeRateBps' | 'fixedFeeCents' | 'minAmountCents' | 'maxAmountCents' | 'expiryHours' | 'potDeadlineHours' | 'pspAccountId' | 'psp' | 'creditLender' | 'withdrawalDays'
> &
  MerchantParameters;

/** The merchant parameters of the original interface an offer holds (docs/back-office.md#merchant-parameters-of-the-original-interface). */
export type MerchantParameters = Pick<
  Offer,
  | 'countryCode'
  | 'cssUrl'
  | 'gtuUrl'
  | 'gtuLabel'
  | 'use3ds'
  | 'leaderCanPayAlone'
  | 'purchaseEndNotificationUrl'
  | 'sendConfirmationEmail'
  | 'sendOwedShareReminder'
  | 'holdRenewalDays'
  | 'fundingCapCents'
  | 'depositPercent'
  | 'maxBalanceDelayDays'
>;
