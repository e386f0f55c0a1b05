import { createHash } from 'node:crypto';
import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * Midtrans' Core API wire values and how Chipin reads them (docs/psp/midtrans.md):
 * `transaction_status` (docs.midtrans.com "Transaction Status Cycle"), `fraud_status`, the
 * `status_code` of docs.midtrans.com "Code statuses", and `gross_amount` in whole rupiah.
 */

/** The only currency Midtrans' card acquiring takes (docs.midtrans.com: "gross_amount … IDR"). */
export const MIDTRANS_CURRENCY = 'IDR';

/** Chipin's minor units per rupiah: ISO 4217 gives IDR two decimals (sen), which Midtrans does not take. */
export const SEN_PER_RUPIAH = 100;

/**
 * Chipin's amount (IDR in sen, ISO 4217's two decimals) as Midtrans' `gross_amount`: an integer
 * number of rupiah, no decimals allowed. An amount with sen, or another currency, is refused
 * before any call (RangeError: a caller's bug, not a PSP refusal).
 */
export function toGrossAmount(amountCents: number, currency: string): number {
  if (currency !== MIDTRANS_CURRENCY) throw new RangeError(`midtrans: Midtrans takes IDR only, not ${currency}`);
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError('midtrans: the amount must be a positive integer');
  if (amountCents % SEN_PER_RUPIAH !== 0) throw new RangeError('midtrans: Midtrans takes whole rupiah: the amount in sen must be a multiple of 100');
  return amountCents / SEN_PER_RUPIAH;
}

/** Midtrans' `gross_amount` as it answers it (`"145000.00"`, a string with two decimals, or a number) in sen; undefined when unreadable. */
export function fromGrossAmount(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,15}(\.\d{1,2})?$/.test(text)) return undefined;
  const [whole, frac = ''] = text.split('.');
  return Number(whole) * SEN_PER_RUPIAH + Number(frac.padEnd(2, '0'));
}

export type MidtransTransactionStatus =
  'authorize' | 'capture' | 'settlement' | 'pending' | 'deny' | 'cancel' | 'expire' | 'failure' | 'refund' | 'partial_refund' | 'chargeback' | 'partial_chargeback';

export const TRANSACTION_STATUSES: readonly MidtransTransactionStatus[] = [
  'authorize',
  'capture',
  'settlement',
  'pending',
  'deny',
  'cancel',
  'expire',
  'failure',
  'refund',
  'partial_refund',
  'chargeback',
  'partial_chargeback',
];

/**
 * Our status of a Midtrans card transaction. `capture` with `fraud_status: challenge` waits for
 * the merchant's approval in the Midtrans dashboard: not money taken yet, an action pending.
 */
export function toStatus(status: MidtransTransactionStatus, fraudStatus: string | undefined): TransactionStatus {
  switch (status) {
    case 'pending':
      return 'requires_action';
    case 'authorize':
      return fraudStatus === 'challenge' ? 'requires_action' : 'authorized';
    case 'capture':
      if (fraudStatus === 'challenge') return 'requires_action';
      if (fraudStatus === 'deny') return 'declined';
      return 'captured';
    case 'settlement':
      return 'captured';
    case 'deny':
    case 'failure':
      return 'declined';
    case 'cancel':
      return 'voided';
    case 'expire':
      return 'expired';
    case 'refund':
    case 'partial_refund':
      return 'refunded';
    // A chargeback is not a refund: the transaction stays captured (refunded only by the
    // merchant's own refunds, toTransactionResult), what the bank took is the dispute's (disputes.ts).
    case 'chargeback':
    case 'partial_chargeback':
      return 'captured';
  }
}

function isChargeback(status: MidtransTransactionStatus): boolean {
  return status === 'chargeback' || status === 'partial_chargeback';
}

/**
 * The issuer's ISO 8583 response code Midtrans passes on as `channel_response_code` (docs.midtrans.com
 * "Card transaction: bank response codes"), as our reason. Unlisted codes are a plain decline.
 */
export function toDeclineReason(channelResponseCode: string | undefined): DeclineReason {
  switch (channelResponseCode) {
    case '51':
    case '61':
    case '65':
      return 'insufficient_funds';
    case '54':
    case '33':
      return 'expired_card';
    case 'N7':
    case '82':
      return 'incorrect_cvc';
    case '14':
    case '15':
      return 'invalid_card';
    case '91':
    case '96':
      return 'processing_error';
    default:
      return 'card_declined';
  }
}

/** What the connector reads of a Midtrans transaction answer (charge, capture, cancel, refund, status, notification). */
export interface MidtransTransaction {
  statusCode: string;
  transactionId: string;
  orderId: string;
  grossCents: number;
  status: MidtransTransactionStatus;
  fraudStatus: string | undefined;
  channelResponseCode: string | undefined;
  statusMessage: string;
  redirectUrl: string | undefined;
  savedTokenId: string | undefined;
  refundedCents: number | undefined;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** A Midtrans transaction answer, or undefined when it is not one (no id, an unknown status, an unreadable amount). */
export function readTransaction(value: unknown): MidtransTransaction | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const o = value as Record<string, unknown>;
  const status = o.transaction_status;
  if (!isString(o.transaction_id) || !isString(o.order_id) || typeof status !== 'string') return undefined;
  if (!(TRANSACTION_STATUSES as readonly string[]).includes(status)) return undefined;
  const grossCents = fromGrossAmount(o.gross_amount);
  if (grossCents === undefined) return undefined;
  const refund = o.refund_amount === undefined ? undefined : fromGrossAmount(o.refund_amount);
  return {
    statusCode: String(o.status_code ?? ''),
    transactionId: o.transaction_id,
    orderId: o.order_id,
    grossCents,
    status: status as MidtransTransactionStatus,
    fraudStatus: isString(o.fraud_status) ? o.fraud_status : undefined,
    channelResponseCode: isString(o.channel_response_code) ? o.channel_response_code : undefined,
    statusMessage: isString(o.status_message) ? o.status_message : '',
    redirectUrl: isString(o.redirect_url) ? o.redirect_url : undefined,
    savedTokenId: isString(o.saved_token_id) ? o.saved_token_id : undefined,
    refundedCents: refund,
  };
}

/** What the connector knew of a transaction before this answer (its stored state). */
export interface Before {
  capturedCents: number;
  refundedCents: number;
  status?: TransactionStatus;
}

/** Our result of a Midtrans transaction, given what we knew of it before. */
export function toTransactionResult(t: MidtransTransaction, before?: Before): TransactionResult {
  let status = toStatus(t.status, t.fraudStatus);
  // Charged back: refunded only by what Chipin itself refunded before (its state). Midtrans keeps
  // chargebacks in the same records as refunds (`refund_amount` is not documented as refunds only).
  const chargedBack = isChargeback(t.status);
  if (chargedBack && before && before.refundedCents > 0) status = 'refunded';
  // Midtrans cancels a pre-authorisation left uncaptured past its time limit ("Status cycle"):
  // a `cancel` of a hold we did not void is the hold lapsing.
  if (status === 'voided' && (before?.status === 'authorized' || before?.status === 'expired')) status = 'expired';
  // Midtrans' status answer tells the original gross amount only: a partial capture's amount is ours, kept in the state.
  const capturedCents = status === 'captured' || status === 'refunded' ? (before && before.capturedCents > 0 ? before.capturedCents : t.grossCents) : 0;
  const refundedCents =
    status !== 'refunded'
      ? 0
      : chargedBack
        ? Math.min(before?.refundedCents ?? 0, capturedCents)
        : (t.refundedCents ?? (before && before.refundedCents > 0 ? before.refundedCents : capturedCents));
  const result: TransactionResult = {
    transactionId: t.transactionId,
    status,
    amountCents: t.grossCents,
    capturedCents,
    refundedCents,
    pspState: { capturedCents, refundedCents, orderId: t.orderId, status },
  };
  if (status === 'declined') {
    // A bank's refusal carries its response code; a charge denied after its 3-D Secure page, with none, failed authentication.
    const reason = t.channelResponseCode === undefined && before?.status === 'requires_action' ? 'authentication_failed' : toDeclineReason(t.channelResponseCode);
    result.decline = { reason, message: t.statusMessage || 'Midtrans declined the card' };
  }
  if (status === 'requires_action' && t.redirectUrl) result.challengeUrl = t.redirectUrl;
  return result;
}

/** Midtrans' `order_id` (at most 50 of `A-Za-z0-9 - _ ~ .`) for one of our calls: the same key gives the same order, which Midtrans never charges twice. */
export function orderIdFor(idempotencyKey: string): string {
  return `chipin-${createHash('sha256').update(idempotencyKey).digest('base64url').slice(0, 40)}`;
}

/**
 * Midtrans' notification signature (docs.midtrans.com "Receiving Notifications"):
 * SHA512(order_id + status_code + gross_amount + server_key), in lower-case hexadecimal.
 */
export function notificationSignature(orderId: string, statusCode: string, grossAmount: string, serverKey: string): string {
  return createHash('sha512').update(`${orderId}${statusCode}${grossAmount}${serverKey}`).digest('hex');
}
