import { parseDeliveryUid } from '../../../../delivery/delivery.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import type { App } from '../../../types.ts';
import { deliveryPage } from '../../pages/delivery-page.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { sendPage, signedIn } from '../support.ts';
import { PAGE } from './support.ts';

/** GET /dashboard/developers/deliveries/{delivery_id}: one delivery with its attempt log (`GET /api/backoffice/deliveries/{id}`'s read); another account's is a 404. */
export function registerDevelopersDelivery(app: App, services: Services, sessions: DashboardSessions): void {
  app.get('/dashboard/developers/deliveries/:delivery_id', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const t = DASHBOARD_TEXT[ctx.chrome.lang];
    const id = parseDeliveryUid((request.params as { delivery_id: string }).delivery_id);
    const delivery = id ? await services.deliveries.find(ctx.session.accountId, id) : undefined;
    if (!delivery) return sendPage(reply, 404, messagePage(ctx.chrome.lang, t.notFoundTitle, t.deliveryNotFound));
    return sendPage(reply, 200, deliveryPage(ctx.chrome, delivery));
  });
}
