import { errorCodeOf, frontError, frontErrorJwt } from '../../delivery/front-error.ts';
import { toPublicId } from '../../domain/ids.ts';
import { findOfferSecret } from '../../payments/pay-state-repository.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import { PROTOCOL_VERSION, type ChipinError, type ChipinMessage, type ErrorCode, type ErrorMessage } from '../../sdk/protocol.ts';
import { pledgErrorType, type PledgErrorType } from '../../delivery/shop-return.ts';
import type { PaymentDeps } from '../deps.ts';
import { leaderFrontResult } from './leader-front-result.ts';

/** An error as told to the front end, with the original provider's `type` beside Chipin's `code`. */
export type FrontOutcome = Exclude<ChipinMessage, ErrorMessage> | (ErrorMessage & { error: ChipinError & { type: PledgErrorType } });

/**
 * What the hosted page tells the merchant's front end (chipin.js, or any embedding page) about
 * the leader's checkout: the result once the leader's payment went through, an error once the
 * purchase can no longer be paid (failed past its attempts, expired, cancelled, aborted), or
 * — `decline` given, purchase still payable — a retryable error for the refusal just shown; for
 * a card processor that did not accept the authorisation (Lyra: not `AUTHORISED`), an error too.
 * Null when there is nothing to tell (not paid yet, refunded).
 */
export async function leaderFrontOutcome(
  deps: Pick<PaymentDeps, 'db' | 'box'>,
  purchase: Pick<Purchase, 'id' | 'accountId' | 'offerId' | 'ref' | 'metadata' | 'state'>,
  decline?: string,
): Promise<FrontOutcome | null> {
  const uid = toPublicId('pur', purchase.id);
  // A payable page with no refusal to report (every first view): no query at all.
  if ((purchase.state === 'CREATED' && decline === undefined) || purchase.state === 'REFUNDED') return null;
  const handover = await leaderFrontResult(deps, purchase);
  const paid = purchase.state === 'LEADER_PROCESSED' || purchase.state === 'SUCCESSFUL';
  if (paid && !handover) return null;
  if (paid && handover && !handover.refused) {
    return { chipin: PROTOCOL_VERSION, type: 'chipin:result', purchase_uid: uid, result: { ...handover.result }, jwt: handover.jwt ?? null };
  }
  let code: ErrorCode;
  let retryable = false;
  const lastError = handover?.result.transaction.error;
  const reason = decline ?? lastError?.code ?? lastError?.message;
  if (paid) {
    // The card processor's contract variant: a label other than an accepted authorisation is
    // passed as an error, never as a result (docs/front-end.md).
    code = 'processing_error';
  } else if (purchase.state === 'CREATED') {
    if (decline === undefined) return null;
    code = errorCodeOf(decline);
    retryable = true;
  } else if (purchase.state === 'FAILED') {
    code = errorCodeOf(reason);
  } else if (purchase.state === 'ABORTED') {
    code = 'purchase_aborted';
  } else if (purchase.state === 'CANCELLED') {
    // Cancelled unpaid is an expiry; after an authorisation, a cancellation.
    code = handover && handover.result.transaction.status !== 'failed' ? 'purchase_cancelled' : 'purchase_expired';
  } else {
    return null;
  }
  // The original provider's error type beside Chipin's code: what its shop plugins and script read (docs/plugin-integration.md#the-return-to-the-shop).
  const error = { ...frontError(code, uid, retryable), type: pledgErrorType(code, purchase.state === 'CREATED' ? decline : reason, paid) };
  // `iat` in real time, as webhook timestamps: the merchant compares it with its own clock.
  const offer = await findOfferSecret(deps.db, purchase.offerId);
  const secret = offer && offer.accountId === purchase.accountId ? deps.box.open(offer.secretEnc).reveal() : undefined;
  const purchasePart = { meta_data: purchase.metadata ?? {}, reference: purchase.ref ?? '', uid };
  const jwt = secret ? frontErrorJwt(error, purchasePart, handover?.result.transaction ?? null, secret, new Date()) : null;
  return { chipin: PROTOCOL_VERSION, type: 'chipin:error', purchase_uid: uid, error, jwt };
}
