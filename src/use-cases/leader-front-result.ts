import { frontResultHandover, processorRefused, type FrontResult } from '../delivery/front-result.ts';
import { asCheckoutOutcome, transactionOf } from '../delivery/transaction.ts';
import { toPublicId } from '../domain/ids.ts';
import { LEADER_PURPOSES } from '../domain/leader-plan.ts';
import { lastTransactionEvent, sandboxOfTransactionEvents } from '../payments/payment-repository.ts';
import type { Purchase } from '../purchases/purchase.ts';
import type { PaymentDeps } from './deps.ts';

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
