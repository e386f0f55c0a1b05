import { verifyHs256 } from '../../delivery/jwt.ts';
import { parsePublicId } from '../../domain/ids.ts';
import { V1_STATE, type PurchaseState } from '../../domain/purchase-states.ts';
import { deferredInstallmentId } from '../../payments/installment-repository.ts';
import { findOfferPurchaseId, findOfferPurchaseIdByRef, findOfferSecret, loadPayState } from '../../payments/pay-state-repository.ts';
import { collectInstallment } from './collect-installment.ts';
import type { PaymentDeps } from '../deps.ts';
import type { InProgress } from '../../money/claim.ts';

export type TriggerCaptureOutcome =
  /** Captured now, or already captured before (idempotent): the purchase's state after. */
  | { kind: 'captured'; purchaseId: string; state: PurchaseState }
  | { kind: 'refused'; code: 'invalid_signature' | 'missing_identifier' | 'invalid_purchase_state'; message: string }
  | { kind: 'not_found'; message: string }
  /** Another money operation holds the purchase (a refund, a cancel, a renewal): retry. */
  | InProgress;

/** The unverified payload: only to learn which offer's secret verifies it. */
function peek(token: string): Record<string, unknown> | undefined {
  try {
    const payload: unknown = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 255 ? v : undefined);
const refused = (code: Extract<TriggerCaptureOutcome, { kind: 'refused' }>['code'], message: string): TriggerCaptureOutcome => ({ kind: 'refused', code, message });

/**
 * `trigger_capture` (docs/schedules.md#capturing-a-deferred-payment-now-trigger_capture):
 * captures a deferred purchase now instead of at its due date. `token` is an HS256 JWT signed
 * with the offer's secret whose payload names the offer (`merchantUid`) and the purchase
 * (`purchaseUid`, or `reference`). A second call answers the same result and never captures
 * twice.
 */
export async function triggerCapture(deps: PaymentDeps, token: string): Promise<TriggerCaptureOutcome> {
  const { db, box } = deps;
  const claims = peek(token);
  if (!claims) return refused('invalid_signature', 'signature is not a JWT');
  const merchantUid = str(claims.merchantUid);
  if (!merchantUid) return refused('missing_identifier', 'merchantUid is missing from the signed payload');
  const offerId = parsePublicId('mer', merchantUid);
  const offer = offerId ? await findOfferSecret(db, offerId) : undefined;
  if (!offerId || !offer) return { kind: 'not_found', message: 'merchantUid not found' };
  const verified = verifyHs256(token, box.open(offer.secretEnc).reveal());
  if (!verified) return refused('invalid_signature', "the signature does not verify with the offer's secret");
  // RFC 7519 `exp` (seconds), when the merchant sets one: compared with the wall clock, which the
  // merchant's own clock signed against (the sandbox clock may run ahead of both).
  if (verified.exp !== undefined && (typeof verified.exp !== 'number' || verified.exp * 1000 <= Date.now())) {
    return refused('invalid_signature', 'the signed payload has expired (exp)');
  }
  const purchaseUid = str(verified.purchaseUid);
  const reference = str(verified.reference);
  if (!purchaseUid && !reference) return refused('missing_identifier', 'purchaseUid or reference is missing from the signed payload');

  const { accountId } = offer;
  let purchaseId: string | undefined;
  if (purchaseUid) {
    const id = parsePublicId('pur', purchaseUid);
    purchaseId = id ? await findOfferPurchaseId(db, accountId, offerId, id) : undefined;
    if (!purchaseId) return { kind: 'not_found', message: 'purchaseUid not found' };
  } else {
    purchaseId = await findOfferPurchaseIdByRef(db, accountId, offerId, reference!);
    if (!purchaseId) return { kind: 'not_found', message: 'reference not found' };
  }

  const state = (await loadPayState(db, accountId, purchaseId))!;
  const installmentId = offer.type === 'DEFERRED' ? await deferredInstallmentId(db, accountId, purchaseId) : undefined;
  if (!installmentId) return refused('invalid_purchase_state', `a purchase in state ${V1_STATE[state.state]} is not a deferred payment awaiting capture`);
  if (state.state !== 'LEADER_PROCESSED' && state.state !== 'SUCCESSFUL') {
    return refused('invalid_purchase_state', `a purchase in state ${V1_STATE[state.state]} cannot be captured`);
  }
  if (state.state === 'LEADER_PROCESSED') {
    const outcome = await collectInstallment(deps, accountId, installmentId);
    if (outcome === 'in_progress' || outcome === 'busy') return { kind: 'operation_in_progress', operation: outcome === 'busy' ? 'installment_charge' : 'money_operation' };
    if (outcome === 'not_collectable') {
      // Settled while this call waited for the claim (cancelled, refunded): its state says why.
      const now = (await loadPayState(db, accountId, purchaseId))!;
      return refused('invalid_purchase_state', `a purchase in state ${V1_STATE[now.state]} cannot be captured`);
    }
  }
  const after = (await loadPayState(db, accountId, purchaseId))!;
  return { kind: 'captured', purchaseId, state: after.state };
}
