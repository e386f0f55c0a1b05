import { encodeDeliveryCursor, type DeliveryCursor } from '../../../../delivery/delivery.ts';
import type { Services } from '../../../../services.ts';
import type { DevelopersView } from '../../pages/developers-page.ts';

export const PAGE = { schema: { hide: true } };
const SHOWN_DELIVERIES = 20;

/** The page's data; `before` pages the delivery log (the API's keyset cursor), one more row read to know if older ones exist. */
export async function developersView(services: Services, accountId: string, extra: Partial<DevelopersView> = {}, before?: DeliveryCursor): Promise<DevelopersView> {
  const [webhook, page, keys] = await Promise.all([
    services.deliveries.getWebhook(accountId),
    services.deliveries.list(accountId, { limit: SHOWN_DELIVERIES + 1, ...(before ? { before } : {}) }),
    services.accounts.listKeys(accountId),
  ]);
  const deliveries = page.slice(0, SHOWN_DELIVERIES);
  const last = deliveries.at(-1);
  const olderHref = page.length > SHOWN_DELIVERIES && last ? `/dashboard/developers?before=${encodeDeliveryCursor(last)}#deliveries` : undefined;
  return { webhook, deliveries, keys, ...(olderHref ? { olderHref } : {}), paged: before !== undefined, ...extra };
}
