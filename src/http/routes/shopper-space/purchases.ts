import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import type { PurchaseState } from '../../../domain/purchase-states.ts';
import { purchasesPage } from '../../../pages/shopper-space/purchases-page.ts';
import { spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import { maskedIdentity } from '../../../shopper-space/identity.ts';
import { listShopperPurchases } from '../../../shopper-space/shopper-purchase-repository.ts';
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
    const id = parsePublicId('pur', (request.params as { purchase_uid: string }).purchase_uid);
    const party = id ? await shopperPartyTo(services.db, session.identity, id) : null;
    if (!id || !party) {
      const t = SPACE_TEXT[lang];
      return sendSpacePage(reply, 404, spaceMessagePage(lang, t.notFoundTitle, t.notFound));
    }
    return sendSpacePage(reply, 200, spaceMessagePage(lang, id, party.role));
  });
}
