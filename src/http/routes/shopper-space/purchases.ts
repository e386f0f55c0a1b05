import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { pledgePageUrl } from '../../../domain/links.ts';
import { langOf, type Lang } from '../../../i18n/lang.ts';
import { payForms } from '../../../pages/shopper-space/pay-forms.ts';
import { payableNow } from '../../../use-cases/shopper-space/shopper-pay.ts';
import { shopperPurchases } from '../../../use-cases/shopper-space/shopper-purchases.ts';
import { purchasePage } from '../../../pages/shopper-space/purchase-page.ts';
import { spacePurchase, type SpacePurchaseView } from '../../../shopper-space/purchase-view.ts';
import type { PurchaseState } from '../../../domain/purchase-states.ts';
import { purchasesPage } from '../../../pages/shopper-space/purchases-page.ts';
import { spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_LANGS, SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import { maskedIdentity } from '../../../shopper-space/identity.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { requireShopper, sendSpacePage, shopperPartyTo, spaceLang } from './guard.ts';

const PAGE = { schema: { hide: true } };

/** The shopper's space: the list of their purchases (docs/shopper-space.md). */
export function registerShopperPurchases(app: App, services: Services): void {
  app.get('/space', PAGE, async (request, reply) => {
    const session = await requireShopper(services, request, reply);
    if (!session) return reply;
    const lang = spaceLang(request);
    const rows = await shopperPurchases(services, session.identity);
    const items = rows.map((r) => ({
      purchaseUid: toPublicId('pur', r.purchase_id),
      merchantName: r.merchant_name,
      title: r.title,
      amountCents: r.amount_cents,
      currency: r.currency,
      state: r.state as PurchaseState,
      createdAt: r.created_at,
      role: r.role,
      ...(r.role === 'pledger' && r.pledge_amount_cents !== null ? { shareCents: r.pledge_amount_cents } : {}),
      offerType: r.offer_type,
      overdue: r.overdue,
    }));
    return sendSpacePage(reply, 200, purchasesPage(lang, { who: maskedIdentity(session.identity), csrf: session.csrf, items }));
  });

  app.get('/space/purchases/:purchase_uid', PAGE, async (request, reply) => {
    const session = await requireShopper(services, request, reply);
    if (!session) return reply;
    const lang = spaceLang(request);
    const uid = (request.params as { purchase_uid: string }).purchase_uid;
    const id = parsePublicId('pur', uid);
    const found = id ? await spacePurchase(services, session.identity, id) : { kind: 'not_found' as const };
    if (found.kind === 'not_found') {
      const t = SPACE_TEXT[lang];
      return sendSpacePage(reply, 404, spaceMessagePage(lang, t.notFoundTitle, t.notFound));
    }
    const view = found.view;
    // The shopper's choice (`?lang=`), else the purchase's language when the merchant set one, else
    // the browser's, as on the hosted pages (docs/shopper-space.md#what-a-purchase-shows).
    const pageLang = spaceLang(request, view.languageSet ? langOf(view.language, SPACE_LANGS) : undefined);
    const pledgeUrl = view.pledgeId ? new URL(pledgePageUrl(services.config.publicUrl, view.pledgeId)).pathname : undefined;
    const page = purchasePage(pageLang, {
      who: maskedIdentity(session.identity),
      csrf: session.csrf,
      view,
      switchBase: `/space/purchases/${uid}`,
      ...(pledgeUrl ? { pledgeUrl } : {}),
      ...(view.role === 'leader' ? await leaderActions(services, session.identity, view, uid, pageLang, session.csrf, request.query) : {}),
    });
    return sendSpacePage(reply, 200, page);
  });
}

/**
 * The leader's pay-now, repay and change-card forms, with what the last action did
 * (docs/shopper-space.md#paying-from-the-space): what the last action did and each refused
 * installment, with its next try and its "pay now", at the top; the rest further down.
 */
async function leaderActions(
  services: Services,
  identity: Parameters<typeof shopperPartyTo>[1],
  view: Pick<SpacePurchaseView, 'purchaseId' | 'currency' | 'plan'>,
  uid: string,
  lang: Lang,
  csrf: string,
  query: unknown,
) {
  const party = await shopperPartyTo(services.db, identity, view.purchaseId);
  if (!party) return {};
  const q = (query ?? {}) as Record<string, unknown>;
  const word = (v: unknown) => (typeof v === 'string' && /^[a-z_]{1,30}$/.test(v) ? v : undefined);
  const payable = await payableNow(services.payments, { accountId: party.accountId, id: view.purchaseId });
  const done = word(q.done);
  const problem = word(q.problem);
  // Each refused installment with its line of the plan: its due date, and its next try as dunning recorded it.
  const refused = payable.refused.map((r) => {
    const line = view.plan.find((l) => l.number === r.number);
    return { ...r, ...(line ? { dueDate: line.dueDate, total: view.plan.length } : {}), ...(line?.retryOn ? { retryOn: line.retryOn } : {}) };
  });
  const forms = payForms(lang, { uid, csrf, currency: view.currency, ...payable, refused, ...(done ? { done } : {}), ...(problem ? { problem } : {}) });
  return { ...(forms.top ? { top: forms.top } : {}), ...(forms.section ? { extra: forms.section } : {}) };
}
