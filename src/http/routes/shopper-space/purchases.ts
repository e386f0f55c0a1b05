import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { pledgePageUrl } from '../../../domain/links.ts';
import { langOf } from '../../../i18n/lang.ts';
import { purchasePage } from '../../../pages/shopper-space/purchase-page.ts';
import { spacePurchase } from '../../../shopper-space/purchase-view.ts';
import type { PurchaseState } from '../../../domain/purchase-states.ts';
import { purchasesPage } from '../../../pages/shopper-space/purchases-page.ts';
import { spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import { maskedIdentity } from '../../../shopper-space/identity.ts';
import { listShopperPurchases } from '../../../shopper-space/shopper-purchase-repository.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { requireShopper, sendSpacePage, spaceLang } from './guard.ts';

const PAGE = { schema: { hide: true } };

/** The shopper's space: the list of their purchases (docs/shopper-space.md). */
export function registerShopperPurchases(app: App, services: Services): void {
  app.get('/space', PAGE, async (request, reply) => {
    const session = await requireShopper(services, request, reply);
    if (!session) return reply;
    const lang = spaceLang(request);
    const rows = await listShopperPurchases(services.db, session.identity);
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
    // The purchase's language unless the shopper chose one (`?lang=`).
    const pageLang = spaceLang(request, langOf(view.language));
    const pledgeUrl = view.pledgeId ? new URL(pledgePageUrl(services.config.publicUrl, view.pledgeId)).pathname : undefined;
    const page = purchasePage(pageLang, {
      who: maskedIdentity(session.identity),
      csrf: session.csrf,
      view,
      switchBase: `/space/purchases/${uid}`,
      ...(pledgeUrl ? { pledgeUrl } : {}),
    });
    return sendSpacePage(reply, 200, page);
  });
}
