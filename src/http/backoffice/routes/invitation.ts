import { acceptInvitation, openInvitation } from '../../../staff/invitations.ts';
import { invitationPage } from '../pages/invitation-page.ts';
import { sessionCookie, type DashboardSessions } from '../../../staff/sessions.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { newPasswordProblem } from '../../../domain/password-rules.ts';
import type { Services } from '../../../services.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import type { App } from '../../types.ts';
import { dashboardLang, formOf, refuseForm, seeOther, sendPage } from './support.ts';
import { csrfFor } from '../../routes/hosted-pages/page-support.ts';

const PAGE = { schema: { hide: true } };
const JOIN_FORM = 'dashboard-invitation';

/**
 * The page an invitation e-mail links to (no session yet: the form is protected by the hosted
 * forms' double-submit CSRF cookie, as the sign-in form). A link that opens nothing counts
 * against the address's dashboard failure budget, so tokens cannot be guessed at speed (they
 * are 256-bit random anyway). The token is a `token` query parameter, which request logs redact.
 */
export function registerDashboardInvitation(app: App, services: Services, guard: DashboardGuard, sessions: DashboardSessions): void {
  const csrf = csrfFor(services);
  const { publicUrl } = services.config;

  app.get('/dashboard/invitation', PAGE, async (request, reply) => {
    const lang = dashboardLang(request, reply);
    const t = DASHBOARD_TEXT[lang];
    const throttled = (seconds: number) => sendPage(reply.header('retry-after', String(seconds)), 429, messagePage(lang, t.invitationNotFoundTitle, t.throttled(seconds)));
    const wait = await guard.addressWait(request.ip);
    if (wait > 0) return throttled(wait);
    const token = tokenOf((request.query as Record<string, unknown>).token);
    const invitation = await openInvitation(services.db, token);
    if (!invitation) {
      const beyond = await guard.addressFailed(request.ip);
      if (beyond > 0) return throttled(beyond);
      return sendPage(reply, 404, messagePage(lang, t.invitationNotFoundTitle, t.invitationNotFound));
    }
    return sendPage(reply, 200, invitationPage(lang, csrf.tokenFor(request, reply, JOIN_FORM), token, invitation));
  });

  app.post('/dashboard/invitation', PAGE, async (request, reply) => {
    const lang = dashboardLang(request, reply);
    const t = DASHBOARD_TEXT[lang];
    const throttled = (seconds: number) => sendPage(reply.header('retry-after', String(seconds)), 429, messagePage(lang, t.invitationNotFoundTitle, t.throttled(seconds)));
    const form = formOf(request);
    if (!csrf.verify(request, JOIN_FORM, form)) return refuseForm(reply, lang);
    const wait = await guard.addressWait(request.ip);
    if (wait > 0) return throttled(wait);
    const token = tokenOf(form.token);
    const invitation = await openInvitation(services.db, token);
    const gone = () => sendPage(reply, 404, messagePage(lang, t.invitationNotFoundTitle, t.invitationNotFound));
    if (!invitation) {
      const beyond = await guard.addressFailed(request.ip);
      if (beyond > 0) return throttled(beyond);
      return gone();
    }
    const refuse = (field: string, message: string) => sendPage(reply, 400, invitationPage(lang, csrf.tokenFor(request, reply, JOIN_FORM), token, invitation, { field, message }));
    const password = form.new_password ?? '';
    const problem = newPasswordProblem(password, invitation.email);
    if (problem) return refuse('new_password', t.passwordProblem[problem]);
    if (password !== (form.new_password_again ?? '')) return refuse('new_password_again', t.passwordsDiffer);
    const accepted = await acceptInvitation(services.db, token, password);
    if (!accepted.ok && accepted.reason === 'taken') return sendPage(reply, 409, messagePage(lang, t.invitationNotFoundTitle, t.invitationProblem.taken));
    if (!accepted.ok) return gone(); // used or revoked in between
    const { token: sessionToken } = await sessions.create(accepted.user);
    request.log.info({ account_id: accepted.user.accountId, user_id: accepted.user.userId }, 'invitation accepted: back-office member joined');
    return seeOther(reply.header('set-cookie', sessionCookie(sessionToken, publicUrl)), '/dashboard');
  });
}

/** The token as sent, or '' (a repeated or non-text parameter is no token). */
function tokenOf(value: unknown): string {
  return typeof value === 'string' && value.length <= 100 ? value : '';
}
