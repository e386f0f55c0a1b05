import { actorOf } from '../../../audit/audit-log.ts';
import { recentActivity } from '../../../use-cases/back-office/audit-trail.ts';
import { ROLES } from '../roles.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import { changeMember, listMembers } from '../../../staff/team-members.ts';
import { inviteMember, listInvitations, revokeInvitation } from '../../../staff/invitations.ts';
import { invitationMail } from '../invitation-mail.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { teamPage } from '../pages/team-page.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { seeOther, sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };
const SHOWN_ACTIVITY = 50;

/** Back office: the Team page, admins only (the prefix rule of `signedIn` refuses support users). */
export function registerDashboardTeam(app: App, services: Services, sessions: DashboardSessions): void {
  app.get('/dashboard/team', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const done = (request.query as Record<string, unknown>).done;
    return sendPage(reply, 200, teamPage(ctx.chrome, { ...(await view(ctx.session.accountId)), saved: done === 'member', invited: done === 'revoked' ? 'revoked' : undefined }));
  });

  async function view(accountId: string) {
    const [members, invitations, activity] = await Promise.all([
      listMembers(services.db, accountId),
      listInvitations(services.db, accountId),
      recentActivity(services.db, accountId, SHOWN_ACTIVITY),
    ]);
    return { members, invitations, activity };
  }

  // Invite a member by e-mail. The page answers directly (no redirect): when no e-mail could be
  // sent, it shows the link this once, as the Developers page shows a new API secret.
  app.post('/dashboard/team/invitations', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const typed = { email: (form.email ?? '').slice(0, 254), role: form.role ?? '' };
    const role = ROLES.find((r) => r === form.role);
    if (!role) return sendPage(reply, 400, teamPage(chrome, { ...(await view(session.accountId)), typed, inviteError: t.badRole }));
    // (The form parser has refused a NUL or a lone surrogate already, naming the field.)
    const outcome = await inviteMember(services.db, session.accountId, actorOf(session), { email: typed.email, role });
    if (!outcome.ok) return sendPage(reply, 400, teamPage(chrome, { ...(await view(session.accountId)), typed, inviteError: t.invitationProblem[outcome.reason] }));
    const { invitation, token } = outcome;
    const link = `${services.config.publicUrl}/dashboard/invitation?token=${token}`;
    const mail = invitationMail(chrome.lang, {
      to: invitation.email,
      accountName: chrome.accountName,
      timeZone: chrome.timeZone,
      invitedBy: session.email,
      role,
      url: link,
      expiresAt: invitation.expiresAt,
    });
    const sent = services.mailer.kind === 'smtp' && (await services.mailer.send(mail)).accepted;
    request.log.info({ account_id: session.accountId, invitation_id: invitation.id, emailed: sent }, 'back-office member invited');
    return sendPage(reply, 200, teamPage(chrome, { ...(await view(session.accountId)), invited: { email: invitation.email, link: sent ? undefined : link } }));
  });

  app.post('/dashboard/team/invitations/:id/revoke', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const revoked = await revokeInvitation(services.db, session.accountId, actorOf(session), (request.params as { id: string }).id);
    if (!revoked) return sendPage(reply, 404, messagePage(chrome.lang, t.invitationNotFoundTitle, t.invitationNotFound));
    return seeOther(reply, '/dashboard/team?done=revoked');
  });

  // Change a member's role (`role`), or remove them (`remove=yes`). Another account's member is a 404.
  app.post('/dashboard/team/members/:id', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
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
