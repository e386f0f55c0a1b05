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
  // Idempotency-Key (DESIGN §7)
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  // general
  | 'not_found'
  | 'invalid_input'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'too_many_requests'
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
