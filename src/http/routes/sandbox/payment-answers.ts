import { toPublicId } from '../../../domain/ids.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import { pledgePageUrl } from '../../../domain/links.ts';
import type { CardInput } from '../../../psp/connector.ts';
import { paymentOfRequest, payStateOf, pledgesOf } from '../../../use-cases/checkout/payment-lookup.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../errors.ts';

/** A test card; expiring in December three years from now unless `expiry` (`MM/YYYY`) says when. */
export function sandboxCard(number: string, now: Date, holderName: string, expiry?: string): CardInput {
  const [month, year] = expiry ? expiry.split('/').map(Number) : [12, now.getUTCFullYear() + 3];
  return { number: number.replace(/\s/g, ''), expMonth: month!, expYear: year!, cvc: '123', holderName };
}

export const declined = (reason: string, message: string) => new ApiError(402, reason as 'card_declined', message);

export const invalidKey = (message: string) => new ApiError(400, 'invalid_request', message);

/** The purchase and its pledges as both helpers answer them (payment-schemas.ts, PayResponse). */
export async function payView(services: Services, accountId: string, purchaseId: string) {
  const state = (await payStateOf(services, accountId, purchaseId))!;
  const pledges = (await pledgesOf(services, accountId, purchaseId)).filter((p) => p.state !== 'draft');
  return {
    purchase_uid: toPublicId('pur', purchaseId),
    state: V1_STATE[state.state],
    pledges: pledges.map((p) => ({
      id: toPublicId('plg', p.id),
      email: p.email ?? undefined,
      phone_number: p.phoneNumber ?? undefined,
      amount_cents: p.amountCents,
      url: pledgePageUrl(services.config.publicUrl, p.id),
      state: p.state,
    })),
  };
}

/**
 * The outcome of an attempt this Idempotency-Key request already made and recorded (its answer
 * lost: the takeover of docs/api-conventions.md#idempotency-key): charged, or awaiting its
 * 3-D Secure challenge. A pending one is resolved by the use case; a refused one is a refusal,
 * never stored, so the call is made afresh. A pledger's charged payment is answered by the use
 * case (the pledge paid, or closed when the payment came too late), so `charged` is the leader's only.
 */
export async function answeredAttempt(services: Services, accountId: string, purchaseId: string, requestKey: string, charged = true) {
  const own = await paymentOfRequest(services, accountId, purchaseId, requestKey);
  if (charged && (own?.status === 'authorized' || own?.status === 'captured')) return { status: 200, body: await payView(services, accountId, purchaseId) };
  if (own?.status === 'requires_action' && own.challenge_url)
    return { status: 202, body: { ...(await payView(services, accountId, purchaseId)), challenge_url: own.challenge_url } };
  return undefined;
}
