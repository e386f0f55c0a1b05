import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUuid, parsePublicId } from '../../../domain/ids.ts';
import { spacePurchasePath } from '../../../domain/links.ts';
import { checkCard } from '../../../pages/card-form.ts';
import { spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import type { Services } from '../../../services.ts';
import type { ShopperIdentity } from '../../../shopper-space/identity.ts';
import { changeCard, resumeCardChange, type ChangeCardOutcome } from '../../../use-cases/installments/change-card.ts';
import { payInstallmentNow, repayEarly, resumeShopperPayment, type ShopperPayOutcome } from '../../../use-cases/shopper-space/shopper-pay.ts';
import { challengeReturnOf } from '../../challenge-return.ts';
import type { App } from '../../types.ts';
import { requireShopper, requireShopperForm, seeOther, sendSpacePage, shopperPartyTo, spaceLang } from './guard.ts';

const PAGE = { schema: { hide: true } };

/**
 * The leader pays from their space (docs/shopper-space.md#paying-from-the-space): a refused
 * installment now, the rest early, a new card. Form posts with the session's CSRF token; each
 * answers a 303 back to the purchase's page saying what happened (`?done=` or `?problem=`), or to
 * the issuer's 3-D Secure page, which comes back to the `return` route.
 */
export function registerShopperPay(app: App, services: Services): void {
  const { payments } = services;
  const returnUrl = (purchaseId: string) => (paymentId: string) => `${services.config.publicUrl}${spacePurchasePath(purchaseId)}/payments/${paymentId}/return`;

  /** The space's 404 page: an unknown purchase's, and a payment that is not the purchase's. */
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    return sendSpacePage(reply, 404, spaceMessagePage(lang, t.notFoundTitle, t.notFound));
  };

  /** The purchase of the path, when the signed-in shopper is its leader; else the 404 page is sent. */
  const leaderPurchase = async (request: FastifyRequest, reply: FastifyReply, identity: ShopperIdentity) => {
    const id = parsePublicId('pur', (request.params as { purchase_uid: string }).purchase_uid);
    const party = id ? await shopperPartyTo(services.db, identity, id) : null;
    if (!id || !party || party.role !== 'leader') {
      void notFound(request, reply);
      return undefined;
    }
    return { id, accountId: party.accountId };
  };

  app.post('/space/purchases/:purchase_uid/installments/:installment_id/pay', PAGE, async (request, reply) => {
    const posted = await requireShopperForm(services, request, reply);
    if (!posted) return reply;
    const purchase = await leaderPurchase(request, reply, posted.session.identity);
    if (!purchase) return reply;
    const installmentId = (request.params as { installment_id: string }).installment_id;
    const outcome = isUuid(installmentId) ? await payInstallmentNow(payments, purchase, installmentId, returnUrl(purchase.id)) : ({ kind: 'nothing_to_pay' } as const);
    return seeOther(reply, afterPayment(purchase.id, outcome, 'paid'));
  });

  app.post('/space/purchases/:purchase_uid/repay', PAGE, async (request, reply) => {
    const posted = await requireShopperForm(services, request, reply);
    if (!posted) return reply;
    const purchase = await leaderPurchase(request, reply, posted.session.identity);
    if (!purchase) return reply;
    return seeOther(reply, afterPayment(purchase.id, await repayEarly(payments, purchase, returnUrl(purchase.id)), 'repaid'));
  });

  app.post('/space/purchases/:purchase_uid/card', PAGE, async (request, reply) => {
    const posted = await requireShopperForm(services, request, reply);
    if (!posted) return reply;
    const purchase = await leaderPurchase(request, reply, posted.session.identity);
    if (!purchase) return reply;
    const checked = checkCard(posted.form, services.clock.now());
    if (!checked.ok) return seeOther(reply, `${spacePurchasePath(purchase.id)}?problem=invalid_card&fields=${checked.fields.join(',')}`);
    return seeOther(reply, afterCardChange(purchase.id, await changeCard(payments, purchase, checked.card, returnUrl(purchase.id))));
  });

  // Back from the issuer's 3-D Secure page: the PSP's outcome decides, whichever action it was.
  app.get('/space/purchases/:purchase_uid/payments/:payment_id/return', PAGE, async (request, reply) => {
    const session = await requireShopper(services, request, reply);
    if (!session) return reply;
    const purchase = await leaderPurchase(request, reply, session.identity);
    if (!purchase) return reply;
    // The payment is this purchase's or nothing (docs/security.md#returns-and-ids): a malformed id,
    // an unknown one and another purchase's (another shopper's) are the space's 404, before any
    // query for a malformed one.
    const paymentId = (request.params as { payment_id: string }).payment_id.toLowerCase();
    if (!isUuid(paymentId)) return notFound(request, reply);
    // What the PSP's redirect brought back goes to the PSP that needs it to finish the
    // authentication (docs/psp-connectors.md#the-return-from-3-d-secure).
    const returned = challengeReturnOf(request.query, []);
    const pay = await resumeShopperPayment(payments, purchase, paymentId, returned);
    if (pay.kind !== 'not_found') return seeOther(reply, afterPayment(purchase.id, pay, 'paid'));
    const change = await resumeCardChange(payments, purchase, paymentId, returned);
    if (change.kind === 'not_found') return notFound(request, reply);
    return seeOther(reply, afterCardChange(purchase.id, change));
  });
}

/** Where the shopper goes after a payment: the issuer's page, or back to the purchase saying what happened. */
function afterPayment(purchaseId: string, outcome: ShopperPayOutcome, done: 'paid' | 'repaid'): string {
  const page = spacePurchasePath(purchaseId);
  switch (outcome.kind) {
    case 'challenge':
      return outcome.url;
    case 'paid':
      return `${page}?done=${done}`;
    case 'declined':
      return `${page}?problem=declined&reason=${outcome.reason}`;
    default:
      return `${page}?problem=${outcome.kind}`;
  }
}

function afterCardChange(purchaseId: string, outcome: ChangeCardOutcome): string {
  const page = spacePurchasePath(purchaseId);
  switch (outcome.kind) {
    case 'challenge':
      return outcome.url;
    case 'changed':
      return `${page}?done=card_changed`;
    case 'declined':
      return `${page}?problem=declined&reason=${outcome.reason}`;
    default:
      return `${page}?problem=${outcome.kind}`;
  }
}
