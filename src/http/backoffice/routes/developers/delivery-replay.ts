import { actorOf } from '../../../../audit/audit-log.ts';
import { parseDeliveryUid, toDeliveryUid } from '../../../../delivery/delivery.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { recordStaffAction } from '../../../../use-cases/back-office/audit-trail.ts';
import type { App } from '../../../types.ts';
import { developersPage } from '../../pages/developers-page.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { seeOther, sendPage, signedInForm } from '../support.ts';
import { developersView, PAGE } from './support.ts';

/** POST /dashboard/developers/deliveries/{delivery_id}/replay: the same replay as `POST /api/backoffice/deliveries/{id}/replay`, audited. */
export function registerDevelopersDeliveryReplay(app: App, services: Services, sessions: DashboardSessions): void {
  app.post('/dashboard/developers/deliveries/:delivery_id/replay', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const id = parseDeliveryUid((request.params as { delivery_id: string }).delivery_id);
    const result = id ? await services.deliveries.replay(session.accountId, id) : { ok: false as const, reason: 'not_found' as const };
    if (!result.ok && result.reason === 'not_found') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.deliveryNotFound));
    if (!result.ok) return sendPage(reply, 409, developersPage(chrome, await developersView(services, session.accountId, { error: t.replayDisabled })));
    await recordStaffAction(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'delivery_replay', subject: toDeliveryUid(result.delivery.id) });
    request.log.info({ account_id: session.accountId, delivery_id: toDeliveryUid(result.delivery.id) }, 'delivery replay requested (back office)');
    return seeOther(reply, '/dashboard/developers?done=replay');
  });
}
