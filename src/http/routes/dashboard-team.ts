import { listAudit } from '../../audit/audit-log.ts';
import { listMembers } from '../../dashboard/team-members.ts';
import { teamPage } from '../../dashboard/team-page.ts';
import type { DashboardSessions } from '../../dashboard/sessions.ts';
import type { Services } from '../../services.ts';
import type { App } from '../types.ts';
import { sendPage, signedIn } from './dashboard-support.ts';

const PAGE = { schema: { hide: true } };
const SHOWN_ACTIVITY = 50;

/** Back office: the Team page, admins only (the prefix rule of `signedIn` refuses support users). */
export function registerDashboardTeam(app: App, services: Services, sessions: DashboardSessions): void {
  app.get('/dashboard/team', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { accountId } = ctx.session;
    const [members, activity] = await Promise.all([listMembers(services.db, accountId), listAudit(services.db, accountId, { limit: SHOWN_ACTIVITY })]);
    return sendPage(reply, 200, teamPage(ctx.chrome, { members, activity }));
  });
}
