import { actorOf, listAudit } from '../../audit/audit-log.ts';
import { ROLES } from '../../dashboard/roles.ts';
import { messagePage } from '../../dashboard/sign-in-page.ts';
import { changeMember, listMembers } from '../../dashboard/team-members.ts';
import { DASHBOARD_TEXT } from '../../dashboard/texts.ts';
import { teamPage } from '../../dashboard/team-page.ts';
import type { DashboardSessions } from '../../dashboard/sessions.ts';
import type { Services } from '../../services.ts';
import type { App } from '../types.ts';
import { formOf, refuseForm, seeOther, sendPage, signedIn } from './dashboard-support.ts';

const PAGE = { schema: { hide: true } };
const SHOWN_ACTIVITY = 50;

/** Back office: the Team page, admins only (the prefix rule of `signedIn` refuses support users). */
export function registerDashboardTeam(app: App, services: Services, sessions: DashboardSessions): void {
  app.get('/dashboard/team', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    return sendPage(reply, 200, teamPage(ctx.chrome, { ...(await view(ctx.session.accountId)), saved: (request.query as Record<string, unknown>).done === 'member' }));
  });

  async function view(accountId: string) {
    const [members, activity] = await Promise.all([listMembers(services.db, accountId), listAudit(services.db, accountId, { limit: SHOWN_ACTIVITY })]);
    return { members, activity };
  }

  // Change a member's role (`role`), or remove them (`remove=yes`). Another account's member is a 404.
  app.post('/dashboard/team/members/:id', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const form = formOf(request);
    if (!sessions.csrfMatches(session, form.csrf)) return refuseForm(reply, chrome.lang);
    const remove = form.remove === 'yes';
    const role = ROLES.find((r) => r === form.role);
    if (!remove && !role) return sendPage(reply, 400, teamPage(chrome, { ...(await view(session.accountId)), error: t.badRole }));
    const actor = actorOf(session);
    const result = await changeMember(services.db, session.accountId, actor, (request.params as { id: string }).id, remove ? { remove: true } : { role: role! });
    if (!result.ok && result.reason === 'not_found') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.memberNotFound));
    if (!result.ok) return sendPage(reply, 409, teamPage(chrome, { ...(await view(session.accountId)), error: t.lastAdmin }));
    return seeOther(reply, '/dashboard/team?done=member');
  });
}
