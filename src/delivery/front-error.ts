import { ERROR_CODES, type ChipinError, type ErrorCode } from '../sdk/protocol.ts';
import type { FrontResult } from './front-result.ts';
import { signHs256 } from './jwt.ts';

/**
 * The failure counterpart of the front-end result: what `onError` receives in the merchant's
 * page (`{code, message, purchase_uid, retryable}`), and the same as an HS256 JWT signed with
 * the offer's secret for the merchant's back end. Pure.
 */

/** Sentences for developers (the shopper read theirs, in their language, on our page). */
const MESSAGES: Record<ErrorCode, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The card has insufficient funds.',
  expired_card: 'The card has expired.',
  incorrect_cvc: 'The CVC was incorrect.',
  invalid_card: 'The card number is not valid.',
  authentication_failed: '3-D Secure authentication failed or was abandoned.',
  authorization_expired: 'The authorisation expired.',
  amount_too_large: 'The amount is too large.',
  processing_error: 'The payment could not be completed.',
  payment_failed: 'The payment failed.',
  purchase_expired: 'The purchase expired before it was paid.',
  purchase_cancelled: 'The purchase was cancelled.',
  purchase_aborted: 'The merchant aborted the purchase.',
};

/** A decline reason (or any text) as one of the documented codes; unknown reasons read `payment_failed`. */
export function errorCodeOf(reason: unknown): ErrorCode {
  return typeof reason === 'string' && (ERROR_CODES as readonly string[]).includes(reason) ? (reason as ErrorCode) : 'payment_failed';
}

export function frontError(code: ErrorCode, purchaseUid: string, retryable: boolean): ChipinError {
  return { code, message: MESSAGES[code], purchase_uid: purchaseUid, retryable };
}

/**
 * The JWT of an error: claims `error`, `purchase` (as in the result), `transaction` (the last
 * leader transaction's, or null when there was none: an expired or aborted purchase) and `iat`.
 */
export function frontErrorJwt(error: ChipinError, purchase: FrontResult['purchase'], transaction: FrontResult['transaction'] | null, offerSecret: string, issuedAt: Date): string {
  return signHs256({ error, purchase, transaction, iat: Math.floor(issuedAt.getTime() / 1000) }, offerSecret);
}
