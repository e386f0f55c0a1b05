import { frontResultHandover, processorRefused, type FrontResult } from '../../delivery/front-result.ts';
import { verifyHs256 } from '../../delivery/jwt.ts';
import { asCheckoutOutcome, transactionOf } from '../../delivery/transaction.ts';
import { toPublicId } from '../../domain/ids.ts';
import { LEADER_PURPOSES } from '../../domain/leader-plan.ts';
import { findOfferSecret } from '../../payments/pay-state-repository.ts';
import { lastTransactionEvent, sandboxOfTransactionEvents } from '../../payments/transaction-event-repository.ts';
import { findPurchaseForPage } from '../../purchases/purchase-repository.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import type { PaymentDeps } from '../deps.ts';

/**
 * The back-mode result of the leader's checkout transaction, for the merchant's front end, and
 * its JWT signed with the offer's secret (docs/webhooks.md#front-end-result). Undefined before any
 * transaction. `refused`: the card processor did not accept it (see `processorRefused`): the
 * merchant's front end gets an error instead.
 */
export async function leaderFrontResult(
  deps: Pick<PaymentDeps, 'db' | 'box'>,
  purchase: Pick<Purchase, 'id' | 'accountId' | 'offerId' | 'ref' | 'metadata'>,
): Promise<{ result: FrontResult; jwt?: string; refused: boolean } | undefined> {
  const row = await lastTransactionEvent(deps.db, purchase, LEADER_PURPOSES);
  const transaction = row && transactionOf(row.data);
  if (!row || !transaction) return undefined;
  // `sandbox` as the PSP account the payment ran on says (the offer may have been rebound since).
  const sandbox = (await sandboxOfTransactionEvents(deps.db, [row.id])).get(row.id) ?? true;
  return {
    refused: processorRefused(transaction),
    ...frontResultHandover(
      // `completed` once accepted, as the back-mode notification says it (docs/webhooks.md#front-end-result).
      { transaction: asCheckoutOutcome(transaction), sandbox, purchase: { uid: toPublicId('pur', purchase.id), reference: purchase.ref, metadata: purchase.metadata } },
      deps.box.open(row.secret).reveal(),
    ),
  };
}

/**
 * What a shop's server does with that JWT (docs/front-end.md): whether it is signed with the
 * secret of its purchase's offer, for the purchases of `accountId` only (the sandbox demo shop's).
 */
export async function frontResultJwtValid(deps: Pick<PaymentDeps, 'db' | 'box'>, accountId: string | undefined, purchaseId: string, jwt: string): Promise<boolean> {
  const purchase = await findPurchaseForPage(deps.db, purchaseId);
  const offer = purchase && purchase.accountId === accountId ? await findOfferSecret(deps.db, purchase.offerId) : undefined;
  const claims = offer ? verifyHs256(jwt, deps.box.open(offer.secretEnc).reveal()) : undefined;
  return claims !== undefined;
}
