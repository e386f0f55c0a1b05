import { currencyExponent } from '../../domain/money.ts';
import type { DeclineReason } from '../connector.ts';
import { textAt, type XmlNode } from './soap.ts';

/**
 * Payline's wire values (Monext documentation, docs.payline.com / docs.monext.fr, "DirectPayment"
 * web services; element names from WSDL 4.77 in Monext's payline-php-sdk): amounts in the
 * currency's smallest unit, ISO 4217 numeric currency codes, action and mode codes, and the
 * five-digit result codes.
 */

/** `payment.action`: 100 authorisation, 101 authorisation + capture, 201 capture, 421 refund (Payline "Codes - action"). */
export const ACTION = { authorize: '100', sale: '101', capture: '201', refund: '421' } as const;
/** `payment.mode`: CPT, paid in full at once (Payline "Codes - mode"). */
export const MODE_FULL = 'CPT';

/** The result codes the connector reads by name. */
export const CODE = {
  accepted: '00000',
  /** Wallet operations: 02500 "Operation successful", 02501 "… with warning" (createWalletResponse). */
  walletDone: '02500',
  walletDoneWarning: '02501',
  /** 02502: a wallet with this identifier already exists (createWalletResponse). */
  walletExists: '02502',
  /** 02301 "Transaction ID is invalid", 02302 "Transaction is invalid" (return codes, 02xxx). */
  invalidTransactionId: '02301',
  invalidTransaction: '02302',
  /** 02303 "Invalid contract number". */
  invalidContract: '02303',
  /** 02304 "No transaction found for this token" (getWebPaymentDetails). */
  noTransactionForToken: '02304',
  /** 02306: the shopper has not finished on Payline's page yet (return codes, 02xxx). */
  inProgress: '02306',
  /** 03000: verifyEnrollment answered (3-D Secure "Transaction accepted"). */
  enrollmentAnswered: '03000',
} as const;

/** ISO 4217 numeric codes of the currencies a French gateway contract is opened in (ISO 4217 list). */
const NUMERIC: Readonly<Record<string, string>> = {
  EUR: '978',
  USD: '840',
  GBP: '826',
  CHF: '756',
  CAD: '124',
  JPY: '392',
  SEK: '752',
  NOK: '578',
  DKK: '208',
  PLN: '985',
  CZK: '203',
  XPF: '953',
  MAD: '504',
  TND: '788',
};

/** The numeric code Payline wants for `currency`, or undefined for one this connector does not send. */
export function currencyNumeric(currency: string): string | undefined {
  return NUMERIC[currency];
}

/**
 * Chipin's minor units as Payline's `amount`: the same integer, in the currency's smallest unit
 * ("amount in cents": 10.00 EUR is 1000, 500 JPY is 500). Throws for anything not a positive
 * safe integer or a currency without a numeric code here.
 */
export function toPaylineAmount(amountCents: number, currency: string): string {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError('amount must be a positive integer of minor units');
  // N12 (Payline "Object - payment"): at most twelve digits.
  if (amountCents > 999_999_999_999) throw new RangeError('payline: amount has more than 12 digits');
  if (!currencyNumeric(currency)) throw new RangeError(`payline: currency ${currency} is not supported`);
  currencyExponent(currency); // an unknown ISO code throws here
  return String(amountCents);
}

/** Payline's `amount` back to minor units; undefined unless it is a plain non-negative integer. */
export function fromPaylineAmount(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,12}$/.test(text)) return undefined;
  return Number(text);
}

/** `order.date` and the answers' dates: `dd/mm/yyyy HH:MM` (Payline "Object - order"), in Paris time at Payline; read and written as UTC here. */
export function paylineDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
}

export function parsePaylineDate(text: string | undefined): Date | undefined {
  const m = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text ?? '');
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6] ?? '0')));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** A hold lapses 7 days after its authorisation (the CB/Visa/Mastercard authorisation validity; see docs/psp/payline.md). */
const HOLD_DAYS = 7;
export function holdExpiry(authorisedAt: Date): Date {
  return new Date(authorisedAt.getTime() + HOLD_DAYS * 86_400_000);
}

/**
 * `card.type` from the number's first digits (Payline "Codes - card type"): CB for Visa and
 * Mastercard numbers (a French acquiring contract routes both on the CB network), AMEX.
 */
export function cardType(digits: string): 'CB' | 'AMEX' {
  return /^3[47]/.test(digits) ? 'AMEX' : 'CB';
}

export function brandOf(digits: string): string {
  if (/^4/.test(digits)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  return 'unknown';
}

/**
 * A refusal code in the contract's words (Payline return codes: 01xxx from the bank, 02xxx from
 * Payline, 03xxx from 3-D Secure, 04xxx from fraud screening).
 */
export function declineReason(code: string): DeclineReason {
  switch (code) {
    case '01101': // Card expired
    case '01201':
      return 'expired_card';
    case '01111': // Invalid card number
    case '01118': // Card not registered
    case '01125': // Inactive card
      return 'invalid_card';
    case '01130': // Invalid cvv2
      return 'incorrect_cvc';
    case '01116': // Amount limit
    case '01121': // Debit limit exceeded
    case '01183': // Max amount exceeded
      return 'insufficient_funds';
    case '02008': // Transaction canceled by user (left the authentication page)
    case '02319': // Payment cancelled by the buyer
      return 'authentication_failed';
    default:
      if (code.startsWith('03')) return 'authentication_failed';
      if (code.startsWith('01') || code.startsWith('04') || code === '02020') return 'card_declined';
      return 'processing_error';
  }
}

/** Whether a code is a refusal of the payment (a result), as opposed to a fault of the call. */
export function isRefusal(code: string): boolean {
  return /^0[134]\d{3}$/.test(code) || code === '02008' || code === '02319' || code === '02020';
}

/**
 * What Payline's own record says was done on a transaction since its authorisation: the
 * `associatedTransactionsList` that `getTransactionDetails` answers with `transactionHistory=Y`
 * (Monext "Object - associatedTransactions": `type` AUTHOR, CAPTURE, RESET, REFUND, CREDIT…,
 * `amount` in minor units, `status` OK or KO). Only accepted (OK) operations count. Undefined when
 * the answer carries no list: then nothing is known beyond what the connector recorded.
 */
export interface PaylineHistory {
  capturedCents: number;
  refundedCents: number;
  reset: boolean;
}

export function paylineHistory(list: XmlNode | undefined): PaylineHistory | undefined {
  if (!list) return undefined;
  const h: PaylineHistory = { capturedCents: 0, refundedCents: 0, reset: false };
  for (const t of list.children) {
    if (t.name !== 'associatedTransactions' || textAt(t, 'status') !== 'OK') continue;
    const amount = fromPaylineAmount(textAt(t, 'amount'));
    const type = textAt(t, 'type');
    if (type === 'RESET') h.reset = true;
    else if (amount === undefined) continue;
    else if (type === 'CAPTURE') h.capturedCents += amount;
    else if (type === 'REFUND') h.refundedCents += amount;
  }
  return h;
}
