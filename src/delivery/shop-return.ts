import type { ErrorCode } from '../sdk/protocol.ts';
import type { FrontResult } from './front-result.ts';

/**
 * The way back to the shop in a new page (docs/plugin-integration.md#the-return-to-the-shop): the
 * address the shopper is sent to after paying, failing or cancelling, with the outcome in its
 * query as every integration reads it. Chipin's own `result` / `error` (the signed JWTs alone),
 * and the original provider's `pledg_result` / `pledg_error`, JSON texts its shop plugins parse:
 *
 * - `pledg_result`: the front-end result `{transaction, purchase}`, with `signature` (the same
 *   result signed with the offer's secret) when the offer has one;
 * - `pledg_error`: `{type, message}`, with `signature` (a JWT whose `error` holds the same `type`
 *   and `message`) when the offer has one; `type` `abandonment` for a cancel.
 *
 * Pure.
 */

/** The error types of the original provider's integration guide, and `abandonment` (a cancel) that its plugins test for. */
export type PledgErrorType =
  'invalid_request_error' | 'maintenance' | 'internal_error' | 'payment_refused' | 'bad_gateway' | '3DS_confirmation_timeout' | 'not_eligible' | 'abandonment';

/**
 * The type of an error told to the shop: `not_eligible` after a refusal of the risk rules;
 * `bad_gateway` when the card went through but the merchant's card processor did not accept the
 * payment (`paid`); `abandonment` when the purchase ended unpaid without a refusal (expired,
 * cancelled, aborted); every card refusal `payment_refused`.
 */
export function pledgErrorType(code: ErrorCode, reason: string | undefined, paid: boolean): PledgErrorType {
  if (reason === 'risk_refused') return 'not_eligible';
  if (paid) return 'bad_gateway';
  if (code === 'purchase_expired' || code === 'purchase_cancelled' || code === 'purchase_aborted') return 'abandonment';
  return 'payment_refused';
}

/** What the shopper's cancel tells the shop. */
const ABANDONMENT = { type: 'abandonment', message: 'The shopper cancelled the payment.' } as const;

/** The outcome to take back to the shop. */
export type ShopOutcome =
  | { kind: 'result'; result: FrontResult | Record<string, unknown>; jwt: string | null }
  | { kind: 'error'; type: PledgErrorType; message: string; jwt: string | null }
  | { kind: 'cancel' }
  /** Nothing to tell but the purchase and its state (paid without a result to hand over). */
  | { kind: 'state' };

/**
 * Where the shopper goes back to: a success to the callback (redirectUrl); a failure or a cancel
 * to the cancel URL, else the callback. Undefined when the purchase has neither.
 */
export function shopReturnUrl(purchase: { id: string; callbackUrl: string | null; cancelUrl: string | null }, v1State: string, outcome: ShopOutcome): string | undefined {
  const base = outcome.kind === 'result' || outcome.kind === 'state' ? purchase.callbackUrl : (purchase.cancelUrl ?? purchase.callbackUrl);
  if (!base) return undefined;
  const url = new URL(base);
  url.searchParams.set('purchase_uid', `pur_${purchase.id}`);
  url.searchParams.set('state', v1State);
  if (outcome.kind === 'result') {
    if (outcome.jwt) url.searchParams.set('result', outcome.jwt);
    url.searchParams.set('pledg_result', JSON.stringify(outcome.jwt ? { ...outcome.result, signature: outcome.jwt } : outcome.result));
  } else if (outcome.kind === 'error') {
    if (outcome.jwt) url.searchParams.set('error', outcome.jwt);
    url.searchParams.set('pledg_error', JSON.stringify({ type: outcome.type, message: outcome.message, ...(outcome.jwt ? { signature: outcome.jwt } : {}) }));
  } else if (outcome.kind === 'cancel') {
    url.searchParams.set('pledg_error', JSON.stringify(ABANDONMENT));
  }
  return url.toString();
}
