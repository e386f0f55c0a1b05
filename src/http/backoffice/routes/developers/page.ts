import { decodeDeliveryCursor } from '../../../../delivery/delivery.ts';
import { parsePublicId } from '../../../../domain/ids.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import type { App } from '../../../types.ts';
import { developersPage } from '../../pages/developers-page.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { sendPage, signedIn } from '../support.ts';
import { developersView, PAGE } from './support.ts';

/** GET /dashboard/developers: the webhook endpoint, the API keys and the delivery log, paged with `before`. */
export function registerDevelopersPage(app: App, services: Services, sessions: DashboardSessions): void {
  app.get('/dashboard/developers', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const t = DASHBOARD_TEXT[ctx.chrome.lang];
    const query = request.query as Record<string, unknown>;
    const revoked = typeof query.revoked === 'string' && parsePublicId('key', query.revoked) ? query.revoked : undefined;
    const notice = query.done === 'replay' ? 'replayed' : revoked ? { revoked } : undefined;
    const before = typeof query.before === 'string' ? decodeDeliveryCursor(query.before) : undefined;
    if (query.before !== undefined && !before) return sendPage(reply, 400, messagePage(ctx.chrome.lang, t.notFoundTitle, t.badDeliveryCursor));
    return sendPage(reply, 200, developersPage(ctx.chrome, await developersView(services, ctx.session.accountId, { notice }, before)));
  });
}
