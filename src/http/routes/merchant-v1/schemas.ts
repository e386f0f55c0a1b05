import { V1Error } from '../schemas.ts';
import { ApiError } from '../../errors.ts';

/** The answer every Merchant API v1 route may give before it runs: no valid access token. */
export const V1Errors = {
  401: { ...V1Error, description: 'Missing, malformed, expired or revoked access token' },
};

/** Merchant API v1's refusal of a field or a filter, its message naming it (406 `invalid_input`). */
export const invalidInput = (message: string) => new ApiError(406, 'invalid_input', message);
