import { pledgePageUrl } from '../../domain/links.ts';
import type { PledgeMessage } from '../../messaging/messenger.ts';
import { listPledges, type Pledge } from '../../payments/pledge-repository.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import { leaderDisplayName } from '../../purchases/purchase.ts';
import { findPurchase } from '../../purchases/purchase-repository.ts';
import { messageLang } from '../../i18n/shopper-lang.ts';
import type { PaymentDeps } from '../deps.ts';

/** Sends one message per pledger (e-mail and/or SMS), each in their own language (src/i18n/shopper-lang.ts). */
export async function sendToPledgers(deps: PaymentDeps, accountId: string, purchaseId: string, kind: PledgeMessage['kind'], pledges: Pledge[], deadline: Date): Promise<void> {
  const purchase = await findPurchase(deps.db, accountId, purchaseId);
  const offer = purchase && (await deps.offers.byId(accountId, purchase.offerId));
  if (!purchase || !offer) return;
  const inviterName = leaderDisplayName(purchase);
  for (const p of pledges) {
    const msg: PledgeMessage = {
      kind,
      accountId,
      purchaseId,
      language: messageLang(purchase, offer.accountLanguage, p),
      merchantName: offer.accountName,
      timeZone: offer.accountTimeZone,
      title: purchase.title,
      amountCents: purchase.amountCents,
      currency: purchase.currency,
      url: pledgePageUrl(deps.publicUrl, p.id),
      inviterName,
      shareCents: p.amountCents,
      deadline,
      pledgerName: p.name ?? undefined,
    };
    await Promise.all([p.email ? deps.messenger.sendPledgeEmail(p.email, msg) : undefined, p.phoneNumber ? deps.messenger.sendPledgeSms(p.phoneNumber, msg) : undefined]);
  }
}

/** Invitations go out after the leader's payment committed; a failed send never undoes it. */
export async function invitePledgers(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<void> {
  const state = await loadPayState(deps.db, accountId, purchaseId);
  if (!state?.potDeadlineAt) return;
  const invited = (await listPledges(deps.db, accountId, purchaseId)).filter((p) => p.state === 'invited');
  await sendToPledgers(deps, accountId, purchaseId, 'invitation', invited, state.potDeadlineAt);
}
