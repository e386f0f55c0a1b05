import { currencyExponent, decimalAmount } from '../../domain/money.ts';
import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * Braintree's vocabulary and its mapping onto Chipin's. Pure: no I/O. The SDK turns Braintree's
 * XML answers into camel-cased objects (lib/braintree/http.js, `Util.convertNodeToObject`); these
 * readers take such objects defensively, so a missing or mistyped field is `undefined` and becomes
 * `bad_response` in the connector. Sources: Braintree's Transaction response object
 * (developer.paypal.com/braintree/docs/reference/response/transaction), its statuses
 * (…/reference/general/statuses#transaction), processor responses
 * (…/reference/general/processor-responses/authorization-responses) and gateway rejections
 * (…/reference/general/gateway-rejections), as the SDK 3.40.0 names them (lib/braintree/transaction.js).
 */

/** `transaction.status`, as documented (the SDK's `Transaction.Status`). */
export const TRANSACTION_STATUSES = [
  'authorization_expired',
  'authorized',
  'authorizing',
  'settlement_pending',
  'settlement_confirmed',
  'settlement_declined',
  'failed',
  'gateway_rejected',
  'processor_declined',
  'settled',
  'settling',
  'submitted_for_settlement',
  'voided',
] as const;
export type BraintreeStatus = (typeof TRANSACTION_STATUSES)[number];

/** What we keep of a transaction. Amounts in minor units of its currency. */
export interface TransactionView {
  id: string;
  status: BraintreeStatus;
  type: 'sale' | 'credit';
  currency: string;
  /** What was authorised: the `authorized` entry of the status history (a partial submit for settlement lowers `amount` to what is settled). */
  amountCents: number;
  /** The transaction's `amount` now: what is submitted for settlement once captured. */
  currentCents: number;
  processorResponseCode?: string;
  processorResponseText?: string;
  gatewayRejectionReason?: string;
  networkTransactionId?: string;
  refundIds: string[];
  /** The sale a credit refunds. */
  refundedTransactionId?: string;
  /** Our idempotency key, sent as `orderId` with sales and refunds. */
  orderId?: string;
  /** Whether the card was charged with 3-D Secure and the issuer authenticated the shopper. */
  authenticated: boolean;
  /** What the sale's lost or accepted chargebacks took back (`disputes`: `amountDisputed` of those `lost`, `accepted`, `auto_accepted`; a retrieval request takes nothing). */
  lostDisputeCents: number;
}

/** The dispute statuses whose amount the merchant lost (the SDK's `Dispute.Status`). */
const LOST_DISPUTE_STATUSES = ['lost', 'accepted', 'auto_accepted'];

/** The sum of the lost chargebacks among a transaction's `disputes`; undefined when one of them is unreadable. */
function lostDisputes(value: unknown, currency: string): number | undefined {
  if (value === undefined || value === null) return 0;
  if (!Array.isArray(value)) return undefined;
  let sum = 0;
  for (const d of value as unknown[]) {
    if (typeof d !== 'object' || d === null) return undefined;
    const { status, kind, amountDisputed } = d as Record<string, unknown>;
    if (typeof status !== 'string' || !LOST_DISPUTE_STATUSES.includes(status) || kind === 'retrieval') continue;
    const cents = toMinor(amountDisputed, currency);
    if (cents === undefined) return undefined;
    sum += cents;
  }
  return sum;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A Braintree decimal amount ("10.00") in minor units of `currency`, or undefined when it is not one. */
export function toMinor(amount: unknown, currency: string): number | undefined {
  if (typeof amount !== 'string') return undefined;
  let exponent: number;
  try {
    exponent = currencyExponent(currency);
  } catch {
    return undefined;
  }
  const m = /^(\d{1,13})(?:\.(\d+))?$/.exec(amount);
  if (!m) return undefined;
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > exponent) return undefined;
  return Number(m[1]) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
}

/** Minor units as Braintree's `amount` ("10.00"): the decimal of the merchant account's currency. */
export function toBraintreeAmount(amountCents: number, currency: string): string {
  return decimalAmount(amountCents, currency);
}

function isStatus(s: unknown): s is BraintreeStatus {
  return typeof s === 'string' && (TRANSACTION_STATUSES as readonly string[]).includes(s);
}

/** Reads a transaction as the SDK gives it (`result.transaction`, `gateway.transaction.find`); undefined if it is not one. */
export function readTransaction(value: unknown): TransactionView | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const t = value as Record<string, unknown>;
  const id = str(t.id);
  const currency = str(t.currencyIsoCode);
  if (!id || !currency || !isStatus(t.status) || (t.type !== 'sale' && t.type !== 'credit')) return undefined;
  const currentCents = toMinor(t.amount, currency);
  if (currentCents === undefined) return undefined;
  const history = Array.isArray(t.statusHistory) ? (t.statusHistory as unknown[]) : [];
  const authorizedEvent = history.find((e): e is Record<string, unknown> => typeof e === 'object' && e !== null && (e as Record<string, unknown>).status === 'authorized');
  const authorizedCents = authorizedEvent ? toMinor(authorizedEvent.amount, currency) : undefined;
  const amountCents = authorizedCents !== undefined && authorizedCents >= currentCents ? authorizedCents : currentCents;
  const refundIds = Array.isArray(t.refundIds) ? t.refundIds.filter((r): r is string => typeof r === 'string') : [];
  const three = typeof t.threeDSecureInfo === 'object' && t.threeDSecureInfo !== null ? (t.threeDSecureInfo as Record<string, unknown>) : undefined;
  const lostDisputeCents = lostDisputes(t.disputes, currency);
  if (lostDisputeCents === undefined) return undefined;
  return {
    id,
    status: t.status,
    type: t.type,
    currency,
    amountCents,
    currentCents,
    processorResponseCode: str(t.processorResponseCode),
    processorResponseText: str(t.processorResponseText),
    gatewayRejectionReason: str(t.gatewayRejectionReason),
    networkTransactionId: str(t.networkTransactionId),
    refundIds,
    refundedTransactionId: str(t.refundedTransactionId),
    orderId: str(t.orderId),
    authenticated: three?.liabilityShifted === true,
    lostDisputeCents,
  };
}

/**
 * A processor response code (2000–3000, "Authorization Responses") as our reason. The codes
 * Braintree documents as soft or hard declines of the card fall under `card_declined` unless a
 * closer reason exists.
 */
export function declineOfProcessorCode(code: string | undefined): DeclineReason {
  switch (code) {
    case '2001': // Insufficient Funds
    case '2002': // Limit Exceeded
    case '2003': // Cardholder's Activity Limit Exceeded
      return 'insufficient_funds';
    case '2004': // Expired Card
      return 'expired_card';
    case '2005': // Invalid Credit Card Number
    case '2006': // Invalid Expiration Date
    case '2007': // No Account
    case '2008': // Card Account Length Error
      return 'invalid_card';
    case '2010': // Card Issuer Declined CVV
      return 'incorrect_cvc';
    case '2099': // Cardholder Authentication Required
      return 'authentication_failed';
    case '3000': // Processor Network Unavailable – Try Again
      return 'processing_error';
    default:
      return 'card_declined';
  }
}

/** A gateway rejection (Braintree's own risk rules, not the issuer) as our reason. */
export function declineOfGatewayRejection(reason: string | undefined): DeclineReason {
  switch (reason) {
    case 'cvv':
    case 'avs_and_cvv':
      return 'incorrect_cvc';
    case 'three_d_secure':
      return 'authentication_failed';
    case 'application_incomplete':
    case 'token_issuance':
      return 'processing_error';
    default:
      return 'card_declined';
  }
}

/** Why a transaction is refused, when it is. */
export function declineOf(t: TransactionView): { reason: DeclineReason; message: string } | undefined {
  if (t.status === 'processor_declined' || t.status === 'settlement_declined')
    return {
      reason: declineOfProcessorCode(t.processorResponseCode),
      message: `Braintree: processor declined (${t.processorResponseCode ?? '?'} ${t.processorResponseText ?? ''})`.trim(),
    };
  if (t.status === 'gateway_rejected')
    return { reason: declineOfGatewayRejection(t.gatewayRejectionReason), message: `Braintree: gateway rejected (${t.gatewayRejectionReason ?? 'unknown'})` };
  if (t.status === 'failed') return { reason: 'processing_error', message: 'Braintree: the transaction failed at the processor' };
  return undefined;
}

/** Braintree's status of a sale as ours (refunds are credits, counted apart: {@link toTransactionResult}). */
export function statusOf(status: BraintreeStatus): TransactionStatus {
  switch (status) {
    case 'authorized':
    case 'authorizing':
      return 'authorized';
    case 'submitted_for_settlement':
    case 'settling':
    case 'settled':
    case 'settlement_pending':
    case 'settlement_confirmed':
      return 'captured';
    case 'voided':
      return 'voided';
    case 'authorization_expired':
      return 'expired';
    case 'processor_declined':
    case 'gateway_rejected':
    case 'failed':
    case 'settlement_declined':
      return 'declined';
  }
}

/**
 * A sale as our result. `amountCents`: what was authorised; `capturedCents`: what was submitted
 * for settlement (Braintree's sale `amount` becomes that on a partial submit); `refundedCents`:
 * the sum of the refund credits given (those not refused).
 */
export function toTransactionResult(sale: TransactionView, refunds: readonly TransactionView[] = []): TransactionResult {
  const status = statusOf(sale.status);
  const captured = status === 'captured' ? sale.currentCents : 0;
  const refundedCents = refunds.filter((r) => statusOf(r.status) === 'captured').reduce((sum, r) => sum + r.currentCents, 0);
  const decline = declineOf(sale);
  return {
    transactionId: sale.id,
    status: status === 'captured' && refundedCents > 0 ? 'refunded' : status,
    amountCents: sale.amountCents,
    capturedCents: captured,
    refundedCents,
    ...(decline ? { decline } : {}),
    ...(sale.networkTransactionId ? { networkTransactionId: sale.networkTransactionId } : {}),
    pspState: { currency: sale.currency, ...(sale.networkTransactionId ? { networkTransactionId: sale.networkTransactionId } : {}) },
  };
}

/** The SDK's validation error codes (`result.errors.deepErrors()`) that mean the card itself is invalid. */
const CARD_ERROR_CODES: Readonly<Record<string, DeclineReason>> = {
  '81707': 'incorrect_cvc', // CVV must be 4 digits for American Express and 3 digits for other card types
  '81736': 'incorrect_cvc', // CVV verification failed
  '81709': 'expired_card', // Expiration date is required
  '81710': 'expired_card', // Expiration date is invalid
  '81712': 'expired_card', // Expiration month is invalid
  '81713': 'expired_card', // Expiration year is invalid
  '81714': 'invalid_card', // Credit card number is required
  '81715': 'invalid_card', // Credit card number is invalid
  '81716': 'invalid_card', // Credit card number must be 12-19 digits
  '81717': 'invalid_card', // Credit card number is not an accepted test number
};

/** A validation error on the card as our reason, or undefined when the errors are not about the card. */
export function declineOfValidationCodes(codes: readonly string[]): DeclineReason | undefined {
  for (const c of codes) if (CARD_ERROR_CODES[c]) return CARD_ERROR_CODES[c];
  return undefined;
}
