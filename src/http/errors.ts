/**
 * Every error a client can be answered with, as one closed set of codes. Each API family turns
 * them into its own body format in one place (error-format.ts).
 */
export type ErrorCode =
  // RFC 6749 §5.2, for POST /api/token
  | 'invalid_request'
  | 'invalid_client'
  | 'unsupported_grant_type'
  // bearer guard (RFC 6750)
  | 'invalid_token'
  // purchases (contract: abort)
  | 'purchase_already_aborted'
  | 'purchase_non_abortable'
  // payments (sandbox helpers): a refusal answers its reason
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'invalid_card'
  // the payment-time risk decision refused the attempt (docs/risk.md): nothing charged or held
  | 'risk_refused'
  | 'authentication_failed'
  | 'authorization_expired'
  | 'amount_too_large'
  | 'processing_error'
  | 'purchase_not_payable'
  | 'pledge_closed'
  | 'payment_in_progress'
  // another money operation holds the purchase (docs/money-operations.md#one-money-operation-at-a-time): retry
  | 'operation_in_progress'
  // trigger_capture
  | 'invalid_signature'
  | 'missing_identifier'
  | 'invalid_purchase_state'
  // Idempotency-Key (docs/api-conventions.md#idempotency-key)
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  // schedule simulation (ScheduleError codes, src/domain/schedule.ts, plus SHARED offers)
  | 'invalid_amount'
  | 'invalid_date'
  | 'invalid_second_installment_date'
  | 'invalid_deferred_date'
  | 'invalid_balance_payment_date'
  | 'amount_below_minimum'
  | 'amount_above_maximum'
  | 'amount_above_funding_cap'
  | 'usury_ceiling_exceeded'
  | 'schedule_not_available'
  // back mode: PSP accounts and the PSPs behind payments
  | 'psp_credentials_rejected'
  | 'psp_unreachable'
  | 'psp_unavailable'
  | 'psp_account_in_use'
  // disputes (docs/money-operations.md#disputes): already decided, or evidence already sent
  | 'dispute_not_open'
  // a refund needs a payment a chargeback is open on (docs/money-operations.md#refunds-and-disputes)
  | 'charge_disputed'
  // a notification to an operator's collecting account about a transaction not recorded yet: sent again (docs/money-operations.md#transfer-mode)
  | 'not_ready'
  // transfer mode (docs/money-operations.md#transfer-mode): a transfer-mode route on a purchase or
  // offer of the other mode; a release of a purchase whose money was taken or that is settled
  | 'not_transfer_mode'
  | 'purchase_not_releasable'
  // general
  | 'not_found'
  // back office: a cookie-authenticated write without CSRF proof
  | 'forbidden'
  | 'invalid_input'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'too_many_requests'
  // the database was unreachable or went away under the request (a failover): retry
  | 'service_unavailable'
  | 'internal_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers (WWW-Authenticate, Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (what = 'resource') => new ApiError(404, 'not_found', `${what} not found`);

/**
 * Another money operation on the same purchase is under way (docs/money-operations.md#one-money-operation-at-a-time):
 * 409, retryable; `Retry-After` says when.
 */
export function operationInProgress(message: string): ApiError {
  return new ApiError(409, 'operation_in_progress', message, { 'Retry-After': '2' });
}

/**
 * A PSP fault met while serving a request (docs/psp-connectors.md#faults-never-charge-twice):
 * unreachable, timed out or unreadable, the call is replayed with the same idempotency key before
 * anything else is charged, so the caller is told that nothing was charged and may try again (502);
 * a PSP the offer cannot use (the built-in sandbox in production, a missing PSP account, refused
 * credentials) is 503. The message names no credential.
 */
export function pspError(err: { code: string; message: string }): ApiError {
  if (err.code === 'unreachable' || err.code === 'bad_response') {
    return new ApiError(502, 'psp_unreachable', 'the payment service could not be reached or answered unexpectedly; nothing was charged, try again');
  }
  return new ApiError(503, 'psp_unavailable', `payments are not available: ${err.message}`);
}
