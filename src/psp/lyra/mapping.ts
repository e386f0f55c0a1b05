import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * Lyra (PayZen, Systempay, Sogecommerce, Lyra Collect…) REST API V4 vocabulary and its mapping
 * onto Chipin's (the "transformers" of a Hyperswitch connector). Pure: no I/O. The switches are
 * exhaustive, so a status added here fails to compile until it is mapped.
 *
 * Sources: docs.lyra.com/en/rest/V4.0/api/kb/status_reference.html (status / detailedStatus),
 * docs.lyra.com/en/rest/V4.0/api/errors-reference.html and errors_psp.html (error codes),
 * docs.lyra.com …/list-of-authorization-request-return-codes.html (issuer return codes),
 * github.com/lyra/rest-php-examples (request shapes of Charge/CreatePayment and CreateToken,
 * the V4/Payment answer and the IPN sample).
 */

/** `transactions[].detailedStatus` values of the transaction lifecycle reference. */
export type LyraDetailedStatus =
  | 'ACCEPTED' // a VERIFICATION transaction (token created without payment)
  | 'AUTHORISED' // authorised, will be captured automatically at the capture date
  | 'AUTHORISED_TO_VALIDATE' // authorised, waits for the merchant's validation (manual capture)
  | 'CANCELLED'
  | 'CAPTURED'
  | 'CAPTURE_FAILED'
  | 'EXPIRED' // the validation (or capture) date passed: the authorisation lapsed
  | 'INITIAL' // created, waiting for the payment method (3-D Secure under way)
  | 'NOT_CREATED'
  | 'PARTIALLY_AUTHORISED'
  | 'PENDING'
  | 'PRE_AUTHORISED'
  | 'REFUSED'
  | 'SUSPENDED'
  | 'UNDER_VERIFICATION'
  | 'WAITING_AUTHORISATION'
  | 'WAITING_AUTHORISATION_TO_VALIDATE'
  | 'WAITING_FOR_PAYMENT';

export const LYRA_DETAILED_STATUSES: readonly LyraDetailedStatus[] = [
  'ACCEPTED',
  'AUTHORISED',
  'AUTHORISED_TO_VALIDATE',
  'CANCELLED',
  'CAPTURED',
  'CAPTURE_FAILED',
  'EXPIRED',
  'INITIAL',
  'NOT_CREATED',
  'PARTIALLY_AUTHORISED',
  'PENDING',
  'PRE_AUTHORISED',
  'REFUSED',
  'SUSPENDED',
  'UNDER_VERIFICATION',
  'WAITING_AUTHORISATION',
  'WAITING_AUTHORISATION_TO_VALIDATE',
  'WAITING_FOR_PAYMENT',
];

function unreachable(value: never): never {
  throw new Error(`unmapped Lyra value ${String(value)}`);
}

function isLyraDetailedStatus(value: unknown): value is LyraDetailedStatus {
  return typeof value === 'string' && (LYRA_DETAILED_STATUSES as readonly string[]).includes(value);
}

/**
 * Our status for a DEBIT transaction's detailedStatus. `AUTHORISED` is money the merchant will
 * receive without any further call (Lyra captures it at the bank remittance, the same night by
 * default), so Chipin counts it as captured, as it does `CAPTURED`. A payment with any refund
 * reads `refunded`.
 */
export function toStatus(status: LyraDetailedStatus, refundedCents: number): TransactionStatus {
  switch (status) {
    case 'AUTHORISED':
    case 'CAPTURED':
    case 'PARTIALLY_AUTHORISED':
      return refundedCents > 0 ? 'refunded' : 'captured';
    case 'AUTHORISED_TO_VALIDATE':
    case 'WAITING_AUTHORISATION_TO_VALIDATE':
    case 'PRE_AUTHORISED':
    case 'ACCEPTED':
      return 'authorized';
    // In progress at Lyra or the acquirer: nothing captured yet. Chipin's contract has no
    // "processing" status (see the report): a hold is the closest, and retrieve tells the end.
    case 'WAITING_AUTHORISATION':
    case 'UNDER_VERIFICATION':
    case 'PENDING':
    case 'SUSPENDED':
      return 'authorized';
    case 'INITIAL':
    case 'WAITING_FOR_PAYMENT':
      return 'requires_action';
    case 'CANCELLED':
      return 'voided';
    case 'REFUSED':
    case 'NOT_CREATED':
    case 'CAPTURE_FAILED':
      return 'declined';
    case 'EXPIRED':
      return 'expired';
    default:
      return unreachable(status);
  }
}

/** Whether a detailedStatus is money taken (captured or to be captured without another call). */
function isCaptured(status: LyraDetailedStatus): boolean {
  return status === 'AUTHORISED' || status === 'CAPTURED' || status === 'PARTIALLY_AUTHORISED';
}

/**
 * Issuer return codes (`detailedErrorCode` of ACQ_001 "payment refused", CB network table of the
 * authorisation return codes). Unknown codes are declines too: a refusal is never a fault.
 */
export function toDeclineReasonFromIssuerCode(code: string | null | undefined): DeclineReason {
  switch ((code ?? '').replace(/^0+(?=\d)/, '')) {
    case '51': // insufficient balance or exceeded credit limit
    case '61': // withdrawal limit exceeded
      return 'insufficient_funds';
    case '33': // expired card
    case '38':
    case '54':
      return 'expired_card';
    case '14': // invalid cardholder number
    case '15': // unknown issuer
    case '56': // card absent from the file
      return 'invalid_card';
    case '1A': // additional customer authentication required (soft decline: no SCA / no MIT chaining)
      return 'authentication_failed';
    case '13': // invalid amount
      return 'processing_error';
    case '68': // response not received or too late
    case '90': // temporary shutdown
    case '91': // unable to reach the card issuer
    case '96': // system malfunction
    case '97': // overall monitoring timeout
    case '98': // server not available
      return 'processing_error';
    default:
      return 'card_declined'; // 05 do not honor, 41 lost, 43 stolen, 57, 59, 63, …
  }
}

/** A Lyra error (answer or transaction level) in our words, for refusals. */
export function toDeclineReason(errorCode: string | null | undefined, detailedErrorCode?: string | null, detailedErrorMessage?: string | null): DeclineReason {
  const code = errorCode ?? '';
  switch (code) {
    case 'ACQ_001': // payment refused by the acquirer/issuer: the issuer's code tells why
      return toDeclineReasonFromIssuerCode(detailedErrorCode);
    case 'PSP_003': // payment refused
      return 'card_declined';
    case 'PSP_042': // the payment method has insufficient funds
      return 'insufficient_funds';
    case 'PSP_023': // invalid expiry date
      return 'expired_card';
    case 'PSP_024': // CVV is mandatory
      return 'incorrect_cvc';
    case 'PSP_026': // the card number is invalid
    case 'PSP_041': // card range not found
    case 'PSP_022': // unknown card type
    case 'PSP_050': // no brand found
      return 'invalid_card';
    case 'PSP_020': // invalid amount
    case 'PSP_040': // the amount attribute is not authorised
      return 'amount_too_large';
    case 'PSP_052': // the ACS signature is invalid
      return 'authentication_failed';
    default:
      break;
  }
  if (code.startsWith('AUTH_')) return 'authentication_failed';
  if (code.startsWith('INT_')) return invalidInputReason(detailedErrorMessage);
  return 'processing_error';
}

/**
 * INT errors are integration errors: only those naming a card field (documented format:
 * `Invalid input value [name=<field>, value=…]`) are the shopper's input, not our bug.
 */
function invalidInputReason(detailedErrorMessage: string | null | undefined): DeclineReason {
  const field = /\[name=([^,]*?)(?:,|\]\s*$)/.exec(detailedErrorMessage ?? '')?.[1] ?? '';
  if (/securityCode$/.test(field)) return 'incorrect_cvc';
  if (/expiry(Month|Year)$/.test(field)) return 'expired_card';
  if (/pan$/.test(field)) return 'invalid_card';
  return 'processing_error';
}

/** Whether an ERROR answer is a refusal of the shopper's card input (else it is a fault). */
export function isCardInputRefusal(errorCode: string, detailedErrorMessage: string | null | undefined): boolean {
  if (errorCode.startsWith('INT_')) return invalidInputReason(detailedErrorMessage) !== 'processing_error';
  return ['PSP_003', 'PSP_022', 'PSP_023', 'PSP_024', 'PSP_026', 'PSP_041', 'PSP_042', 'PSP_050'].includes(errorCode);
}

/** Our own message per reason: Lyra's messages may echo input values, card data included. */
export function declineMessage(reason: DeclineReason): string {
  switch (reason) {
    case 'card_declined':
      return 'The card was declined.';
    case 'insufficient_funds':
      return 'The card has insufficient funds.';
    case 'expired_card':
      return 'The card has expired.';
    case 'incorrect_cvc':
      return "The card's security code is incorrect.";
    case 'invalid_card':
      return 'The card number is not a valid card number.';
    case 'authentication_failed':
      return '3-D Secure authentication failed.';
    case 'authorization_expired':
      return 'The authorisation hold has expired.';
    case 'amount_too_large':
      return 'The amount is larger than what is left.';
    case 'processing_error':
      return 'Lyra could not process the payment.';
    default:
      return unreachable(reason);
  }
}

export function decline(reason: DeclineReason, message = declineMessage(reason)): { reason: DeclineReason; message: string } {
  return { reason, message };
}

// ---------------------------------------------------------------------------------------------
// Answers

/** The envelope of every V4 answer: `{webService, version, status, answer, …, _type: 'V4/WebService/Response'}`. */
export interface LyraEnvelope {
  status: 'SUCCESS' | 'ERROR';
  answer: Record<string, unknown>;
}

export interface LyraErrorAnswer {
  errorCode: string;
  errorMessage: string | null;
  detailedErrorCode: string | null;
  detailedErrorMessage: string | null;
}

/** The parts of a `V4/PaymentTransaction` the connector reads. */
export interface LyraTransaction {
  uuid: string;
  amount: number;
  currency: string;
  status: string;
  detailedStatus: LyraDetailedStatus;
  operationType: 'DEBIT' | 'CREDIT' | 'VERIFICATION';
  creationDate: string | null;
  errorCode: string | null;
  detailedErrorCode: string | null;
  detailedErrorMessage: string | null;
  paymentMethodToken: string | null;
  metadata: Record<string, string> | null;
  /** transactionDetails.cardDetails.authorizationResponse.amount: what was authorised before any update. */
  authorizedAmount: number | null;
  /** transactionDetails.cardDetails.expectedCaptureDate. */
  expectedCaptureDate: string | null;
  /** transactionDetails.cardDetails.initialIssuerTransactionIdentifier: the PSD2 chaining reference. */
  initialIssuerTransactionIdentifier: string | null;
  /** transactionDetails.parentTransactionUuid (refunds point at their payment). */
  parentTransactionUuid: string | null;
  /**
   * transactionDetails.cardDetails.legacyTransId: the transaction's old 6-character id, the
   * Hosted Payment Page's `vads_trans_id` (Lyra's report format, docs.lyra.com …/reporting-collect/2v1-format.html:
   * TRANSACTION_UUID = `uuid`, TRANSACTION_ID = `cardDetails.legacyTransId`; Lyra's sample IPN carries it).
   */
  legacyTransId: string | null;
  card: { brand: string | null; pan: string | null; expiryMonth: number | null; expiryYear: number | null };
}

/** A `V4/Payment` (Charge/CreatePayment, CreateToken, Order/Get answers and IPNs). */
export interface LyraPayment {
  orderStatus: string;
  orderId: string | null;
  serverDate: string | null;
  transactions: LyraTransaction[];
}

export class MalformedAnswer extends Error {}

function obj(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new MalformedAnswer(`${what} is not an object`);
  return v as Record<string, unknown>;
}
function optObj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
function str(v: unknown, what: string): string {
  if (typeof v !== 'string' || v.length === 0) throw new MalformedAnswer(`${what} is not a string`);
  return v;
}
function optStr(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
function optInt(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  return null;
}

export function readEnvelope(body: unknown): LyraEnvelope {
  const b = obj(body, 'answer envelope');
  if (b.status !== 'SUCCESS' && b.status !== 'ERROR') throw new MalformedAnswer('status is neither SUCCESS nor ERROR');
  return { status: b.status, answer: obj(b.answer, 'answer') };
}

export function readError(answer: Record<string, unknown>): LyraErrorAnswer {
  return {
    errorCode: str(answer.errorCode, 'errorCode'),
    errorMessage: optStr(answer.errorMessage),
    detailedErrorCode: optStr(answer.detailedErrorCode),
    detailedErrorMessage: optStr(answer.detailedErrorMessage),
  };
}

export function readTransaction(raw: unknown): LyraTransaction {
  const t = obj(raw, 'transaction');
  const detailedStatus = t.detailedStatus;
  if (!isLyraDetailedStatus(detailedStatus)) throw new MalformedAnswer(`unknown detailedStatus ${String(detailedStatus)}`);
  const amount = optInt(t.amount);
  if (amount === null) throw new MalformedAnswer('transaction amount is not an integer');
  const op = t.operationType;
  if (op !== 'DEBIT' && op !== 'CREDIT' && op !== 'VERIFICATION') throw new MalformedAnswer(`unknown operationType ${String(op)}`);
  const details = optObj(t.transactionDetails);
  const card = optObj(details?.cardDetails);
  const auth = optObj(card?.authorizationResponse);
  const metadata = optObj(t.metadata);
  return {
    uuid: str(t.uuid, 'uuid'),
    amount,
    currency: str(t.currency, 'currency'),
    status: str(t.status, 'status'),
    detailedStatus,
    operationType: op,
    creationDate: optStr(t.creationDate),
    errorCode: optStr(t.errorCode),
    detailedErrorCode: optStr(t.detailedErrorCode),
    detailedErrorMessage: optStr(t.detailedErrorMessage),
    paymentMethodToken: optStr(t.paymentMethodToken),
    metadata: metadata ? (Object.fromEntries(Object.entries(metadata).filter(([, v]) => typeof v === 'string')) as Record<string, string>) : null,
    authorizedAmount: optInt(auth?.amount),
    expectedCaptureDate: optStr(card?.expectedCaptureDate),
    initialIssuerTransactionIdentifier: optStr(card?.initialIssuerTransactionIdentifier),
    parentTransactionUuid: optStr(details?.parentTransactionUuid),
    legacyTransId: optStr(card?.legacyTransId),
    card: {
      brand: optStr(card?.effectiveBrand),
      pan: optStr(card?.pan),
      expiryMonth: optInt(card?.expiryMonth),
      expiryYear: optInt(card?.expiryYear),
    },
  };
}

export function readPayment(answer: Record<string, unknown>): LyraPayment {
  const details = optObj(answer.orderDetails);
  const txs = answer.transactions;
  if (!Array.isArray(txs)) throw new MalformedAnswer('transactions is not an array');
  return {
    orderStatus: str(answer.orderStatus, 'orderStatus'),
    orderId: optStr(details?.orderId),
    serverDate: optStr(answer.serverDate),
    transactions: txs.map(readTransaction),
  };
}

/** The payment's own transaction (the latest DEBIT) and its refunds (CREDITs). */
export function splitOrder(p: LyraPayment): { debit: LyraTransaction | undefined; credits: LyraTransaction[] } {
  const debits = p.transactions.filter((t) => t.operationType === 'DEBIT');
  return { debit: debits[debits.length - 1], credits: p.transactions.filter((t) => t.operationType === 'CREDIT') };
}

/** How long an authorisation waiting for validation holds: 7 days for CB, Visa and Mastercard. */
const LYRA_HOLD_DAYS = 7;
const DAY_MS = 86_400_000;

/** Our view of an order: its DEBIT transaction, with its refunds counted. */
export function toTransactionResult(orderId: string, p: LyraPayment): TransactionResult {
  const { debit, credits } = splitOrder(p);
  if (!debit) throw new MalformedAnswer('the order has no payment transaction');
  const refunded = credits.filter((c) => c.detailedStatus !== 'REFUSED' && c.detailedStatus !== 'CANCELLED').reduce((s, c) => s + c.amount, 0);
  const status = toStatus(debit.detailedStatus, refunded);
  const authorised = debit.authorizedAmount ?? debit.amount;
  const result: TransactionResult = {
    transactionId: orderId,
    status,
    amountCents: Math.max(authorised, debit.amount),
    capturedCents: isCaptured(debit.detailedStatus) ? debit.amount : 0,
    refundedCents: refunded,
  };
  if (status === 'declined') result.decline = decline(toDeclineReason(debit.errorCode, debit.detailedErrorCode, debit.detailedErrorMessage));
  if ((status === 'authorized' || status === 'expired') && debit.creationDate && debit.detailedStatus !== 'WAITING_AUTHORISATION') {
    const created = Date.parse(debit.creationDate);
    if (Number.isFinite(created)) result.expiresAt = new Date(created + LYRA_HOLD_DAYS * DAY_MS);
  }
  if (debit.initialIssuerTransactionIdentifier) result.networkTransactionId = debit.initialIssuerTransactionIdentifier;
  // The contract's card-processor variant: Lyra's ids and label travel to the merchant's payloads.
  result.processor = { uid: debit.uuid, legacyId: debit.legacyTransId, reference: orderId, statusLabel: debit.detailedStatus };
  return result;
}

// ---------------------------------------------------------------------------------------------
// Requests

/** Lyra takes expiry years on 2 digits in its PCI samples (`"expiryYear": "21"`). */
export function cardForm(card: { number: string; expMonth: number; expYear: number; cvc: string; holderName: string }) {
  return {
    paymentMethodType: 'CARD',
    pan: card.number.replace(/[\s-]/g, ''),
    expiryMonth: String(card.expMonth).padStart(2, '0'),
    expiryYear: String(card.expYear % 100).padStart(2, '0'),
    securityCode: card.cvc,
    cardHolderName: card.holderName,
  };
}

/** Lyra's `effectiveBrand` (CB, VISA, MASTERCARD, AMEX, …) as Chipin names brands. */
export function toBrand(effectiveBrand: string | null): string {
  switch ((effectiveBrand ?? '').toUpperCase()) {
    case 'CB':
    case 'VISA':
    case 'VISA_ELECTRON':
    case 'VPAY':
      return 'visa';
    case 'MASTERCARD':
    case 'MAESTRO':
      return 'mastercard';
    case 'AMEX':
      return 'amex';
    case 'DISCOVER':
      return 'discover';
    default:
      return 'unknown';
  }
}
