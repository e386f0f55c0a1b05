import { currencyExponent, decimalAmount } from '../../domain/money.ts';
import type { DeclineReason, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * Mercado Pago's payment statuses (Payments API reference, "status"): `pending` (a 3-D Secure
 * challenge is `pending` / `pending_challenge`), `approved`, `authorized` (held with
 * `capture: false`), `in_process`, `in_mediation`, `rejected`, `cancelled`, `refunded`,
 * `charged_back`.
 */
const MP_STATUSES = ['pending', 'approved', 'authorized', 'in_process', 'in_mediation', 'rejected', 'cancelled', 'refunded', 'charged_back'] as const;
type MpStatus = (typeof MP_STATUSES)[number];

/**
 * `transaction_amount` is a decimal in the currency's unit (JSON number). Built from the integer
 * minor units through the exact decimal string ("12.30"), never by dividing a float: the JSON
 * number the SDK then writes is that decimal's shortest form ("12.3"), the same value.
 */
export function toMpAmount(amountCents: number, currency: string): number {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError(`amountCents must be a positive integer, got ${amountCents}`);
  // A double keeps any decimal of up to 15 significant digits exactly (reads back digit for digit).
  if (amountCents > MAX_CENTS) throw new RangeError(`amountCents beyond what a JSON number carries exactly: ${amountCents}`);
  return Number(decimalAmount(amountCents, currency));
}

const MAX_CENTS = 999_999_999_999_999;

/** A `transaction_amount` (or refunded amount) read back into minor units; undefined if it has more decimals than the currency. */
export function fromMpAmount(value: unknown, currency: string): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  const exponent = currencyExponent(currency);
  // String(number) is the shortest decimal that reads back as the same number: "12.3" for 12.3.
  const m = /^(\d{1,15})(?:\.(\d+))?$/.exec(String(value));
  if (!m) return undefined;
  const fraction = m[2] ?? '';
  if (fraction.length > exponent) return undefined;
  const cents = Number(m[1]) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
  return Number.isSafeInteger(cents) && cents <= MAX_CENTS ? cents : undefined;
}

/** What Mercado Pago's `status_detail` of a rejection means for Chipin (Payments API, "status_detail"; test cards' outcomes). */
export function declineFor(detail: string | undefined): { reason: DeclineReason; message: string } {
  const d = detail ?? '';
  const reason: DeclineReason =
    d === 'cc_rejected_insufficient_amount'
      ? 'insufficient_funds'
      : d === 'cc_rejected_bad_filled_security_code'
        ? 'incorrect_cvc'
        : d === 'cc_rejected_bad_filled_date'
          ? 'expired_card'
          : d === 'cc_rejected_bad_filled_card_number' || d === 'cc_rejected_bad_filled_other' || d === 'cc_rejected_invalid_installments'
            ? 'invalid_card'
            : d === 'cc_rejected_3ds_challenge' || d === 'cc_rejected_3ds_mandatory'
              ? 'authentication_failed'
              : d === 'expired'
                ? 'authorization_expired'
                : 'card_declined';
  return { reason, message: d ? `Mercado Pago rejected the payment (${d})` : 'Mercado Pago rejected the payment' };
}

/** The part of a Mercado Pago payment Chipin reads. */
export interface PaymentView {
  id: string;
  status: MpStatus;
  statusDetail: string | undefined;
  currency: string;
  /** `transaction_amount`: after a partial capture, what was captured. */
  amountCents: number;
  refundedCents: number;
  captured: boolean;
  /** 3-D Secure: the issuer's page (`three_ds_info.external_resource_url`) and the `creq` it wants posted. */
  challenge?: { url: string; creq: string };
  dateCreated?: Date;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Reads a payment as the API (and the SDK) returns it; undefined when something Chipin needs is missing. */
export function readPayment(value: unknown): PaymentView | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const p = value as Record<string, unknown>;
  const id = typeof p.id === 'number' && Number.isSafeInteger(p.id) ? String(p.id) : str(p.id);
  const status = str(p.status);
  const currency = str(p.currency_id);
  if (!id || !/^\d{1,20}$/.test(id) || !status || !(MP_STATUSES as readonly string[]).includes(status) || !currency || !/^[A-Z]{3}$/.test(currency)) return undefined;
  let amountCents: number | undefined;
  let refundedCents: number | undefined;
  try {
    amountCents = fromMpAmount(p.transaction_amount, currency);
    refundedCents = p.transaction_amount_refunded === undefined || p.transaction_amount_refunded === null ? 0 : fromMpAmount(p.transaction_amount_refunded, currency);
  } catch {
    return undefined;
  }
  if (amountCents === undefined || refundedCents === undefined) return undefined;
  const view: PaymentView = {
    id,
    status: status as MpStatus,
    statusDetail: str(p.status_detail),
    currency,
    amountCents,
    refundedCents,
    captured: p.captured === true,
  };
  const info = p.three_ds_info;
  if (typeof info === 'object' && info !== null) {
    const url = str((info as Record<string, unknown>).external_resource_url);
    const creq = str((info as Record<string, unknown>).creq);
    if (url && creq) view.challenge = { url, creq };
  }
  const created = str(p.date_created);
  if (created && !Number.isNaN(Date.parse(created))) view.dateCreated = new Date(created);
  return view;
}

/**
 * How long an authorisation holds: Mercado Pago cancels an uncaptured `authorized` payment after
 * 7 days (docs/psp/mercadopago.md, "Capture").
 */
const HOLD_MS = 7 * 86_400_000;

/**
 * A captured payment the card holder's bank disputes: `in_mediation` while it is reviewed, then
 * `charged_back` (`status_detail` `in_process` while disputed, `settled` when the money was
 * retained from the seller, `reimbursed` when it was given back; Payments API, "Get payment
 * status"). A chargeback is not a refund: such a payment reads `captured` (or `refunded` for the
 * merchant's own refunds, `transaction_amount_refunded`), and what a settled chargeback took is
 * a lost dispute's (docs/money-operations.md#disputes), never counted as refunded as well.
 */
function isDisputed(p: PaymentView): boolean {
  // Only a captured payment can be charged back, whatever its `captured` flag says.
  return p.status === 'charged_back' || (p.captured && p.status === 'in_mediation');
}

/** What a settled chargeback retained from the seller: the captured amount less the merchant's refunds. */
export function chargedBackCents(p: PaymentView): number {
  return p.status === 'charged_back' && p.statusDetail === 'settled' ? Math.max(0, p.amountCents - p.refundedCents) : 0;
}

/** Our status of a payment. */
function toStatus(p: PaymentView): TransactionStatus {
  if (isDisputed(p)) return p.refundedCents > 0 ? 'refunded' : 'captured';
  switch (p.status) {
    case 'authorized':
      return 'authorized';
    case 'approved':
      return p.refundedCents > 0 ? 'refunded' : 'captured';
    case 'refunded':
      return 'refunded';
    case 'cancelled':
      return p.statusDetail === 'expired' ? 'expired' : 'voided';
    case 'rejected':
      return 'declined';
    case 'charged_back': // read above: disputed
      return 'captured';
    case 'pending':
    case 'in_process':
    case 'in_mediation': // not captured: still being paid
      return p.challenge ? 'requires_action' : p.status === 'pending' && p.statusDetail === 'pending_challenge' ? 'requires_action' : 'authorized';
  }
}

/**
 * Our result. `authorisedCents` is the amount the authorisation was made for (kept in the state:
 * Mercado Pago's `transaction_amount` becomes the captured amount after a partial capture).
 */
export function toTransactionResult(p: PaymentView, authorisedCents?: number): TransactionResult {
  const status = toStatus(p);
  const amountCents = authorisedCents ?? p.amountCents;
  const capturedCents = status === 'captured' || status === 'refunded' ? p.amountCents : 0;
  const result: TransactionResult = {
    transactionId: p.id,
    status,
    amountCents,
    capturedCents,
    refundedCents: status === 'refunded' ? (p.status === 'refunded' ? Math.max(p.refundedCents, capturedCents) : p.refundedCents) : 0,
    pspState: { authorisedCents: amountCents, currency: p.currency },
  };
  if (status === 'declined') result.decline = declineFor(p.statusDetail);
  if (status === 'authorized' && p.dateCreated) result.expiresAt = new Date(p.dateCreated.getTime() + HOLD_MS);
  if (status === 'requires_action' && p.challenge) result.challengeForm = { action: p.challenge.url, fields: { creq: p.challenge.creq } };
  return result;
}
