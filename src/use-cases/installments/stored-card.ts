import { LEADER_PURPOSES, type LeaderPlan } from '../../domain/leader-plan.ts';
import type { OffSessionInput, TransactionResult } from '../../psp/connector.ts';
import type { AccountConnector } from '../../psp/registry.ts';
import { savedPspMethodId } from '../../payments/payment-method-repository.ts';
import { cardCheckOf, storedCredentialPayment } from '../../payments/payment-repository.ts';
import type { PurchasePayState } from '../../payments/pay-state-repository.ts';
import type { PaymentDeps } from '../deps.ts';

/**
 * Stored credentials (PSD2). The leader's checkout is a customer-initiated transaction (CIT) that,
 * when the offer may charge the card later, asks the PSP to store the card (`storeForLater`).
 * Every later off-session charge (the leader's share, installments, the pot's rest, a deferred
 * payment past its hold's life) is a merchant-initiated transaction referencing that CIT. When the
 * shopper changed their card (`change-card.ts`), the CIT that stored the new card is the one.
 */

/** Whether the leader's checkout must store the card: every plan but a SHARED purchase paid alone, which never charges again. */
export function storeForLater(plan: Pick<LeaderPlan, 'purpose'>): boolean {
  return plan.purpose !== 'leader_share';
}

/** The stored-credential reference of a CIT's answer. */
export function storedCredentialOf(cit: Pick<TransactionResult, 'transactionId' | 'networkTransactionId'>): NonNullable<OffSessionInput['storedCredential']> {
  return { initialTransactionId: cit.transactionId, ...(cit.networkTransactionId ? { networkTransactionId: cit.networkTransactionId } : {}) };
}

/**
 * What a merchant-initiated charge of the leader's saved card needs: the connector of the PSP
 * account that stored it (the CIT's, even if the offer was rebound since), the card's token,
 * and the CIT reference.
 */
export async function savedCard(
  deps: PaymentDeps,
  purchase: Pick<PurchasePayState, 'accountId' | 'id' | 'offerId'>,
): Promise<{ psp: AccountConnector; paymentMethodId: string; storedCredential: OffSessionInput['storedCredential'] }> {
  const { db } = deps;
  const paymentMethodId = (await savedPspMethodId(db, purchase.accountId, purchase.id))!;
  // The card change that stored the current card, if the shopper changed it; else the checkout.
  const cit = (await cardCheckOf(db, purchase.accountId, purchase.id, paymentMethodId)) ?? (await storedCredentialPayment(db, purchase.accountId, purchase.id, LEADER_PURPOSES));
  if (cit) {
    const storedCredential = storedCredentialOf({ transactionId: cit.psp_transaction_id!, networkTransactionId: cit.network_transaction_id ?? undefined });
    return { psp: await deps.psps.forPayment(cit), paymentMethodId, storedCredential };
  }
  const offer = (await deps.offers.byId(purchase.accountId, purchase.offerId))!;
  return { psp: await deps.psps.forOffer(offer), paymentMethodId, storedCredential: undefined };
}
