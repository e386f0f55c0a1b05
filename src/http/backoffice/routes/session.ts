import { actorOf } from '../../../audit/audit-log.ts';
import { recordStaffAction } from '../../../use-cases/back-office/audit-trail.ts';
import { clearedSessionCookie, sessionCookie, type DashboardSessions } from '../../../staff/sessions.ts';
import { signInPage } from '../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import type { Services } from '../../../services.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import type { App } from '../../types.ts';
import { dashboardLang, formOf, refuseForm, seeOther, sendPage, sessionOf } from './support.ts';
import { csrfFor } from '../../routes/hosted-pages/page-support.ts';

/** HTML pages: not part of the API reference. */
const PAGE = { schema: { hide: true } };
const SIGN_IN_FORM = 'dashboard-sign-in';

/**
 * Back office: sign-in and sign-out (docs/back-office.md). The sign-in form is protected by the
 * hosted forms' double-submit CSRF cookie (there is no session yet); every later form by the
 * session's own token. Credentials go through the DashboardGuard, so the form and HTTP Basic
 * share one failure budget.
 */
export function registerDashboardSession(app: App, services: Services, guard: DashboardGuard, sessions: DashboardSessions): void {
  const csrf = csrfFor(services);
  const { publicUrl } = services.config;

  app.get('/dashboard/sign-in', PAGE, async (request, reply) => {
    const lang = dashboardLang(request, reply);
    if (await sessionOf(sessions, request)) return seeOther(reply, '/dashboard');
    return sendPage(reply, 200, signInPage(lang, csrf.tokenFor(request, reply, SIGN_IN_FORM)));
  });

  app.post('/dashboard/sign-in', PAGE, async (request, reply) => {
    const lang = dashboardLang(request, reply);
    const t = DASHBOARD_TEXT[lang];
    const form = formOf(request);
    if (!csrf.verify(request, SIGN_IN_FORM, form)) return refuseForm(reply, lang);
    const email = (form.email ?? '').trim();
    const check = await guard.signIn(request.ip, email, form.password ?? '');
    if (!check.ok) {
      const again = (status: number, error: string) => sendPage(reply, status, signInPage(lang, csrf.tokenFor(request, reply, SIGN_IN_FORM), { email, error }));
      switch (check.refusal) {
        case 'throttled':
          void reply.header('retry-after', String(check.retryAfter));
          return again(429, t.throttled(check.retryAfter));
        case 'no_credentials':
          return again(400, t.missingCredentials);
        case 'invalid_text':
          return again(400, t.invalidText);
        case 'wrong_credentials':
          return again(401, t.wrongCredentials);
      }
    }
    // A fresh token at every sign-in: a cookie planted before it (session fixation) signs nobody in.
    const { token } = await sessions.create(check);
    // Right after the session, not in its transaction: the session store owns its own writes.
    await recordStaffAction(services.db, { accountId: check.accountId, actor: actorOf(check), action: 'sign_in' });
    void reply.header('set-cookie', sessionCookie(token, publicUrl));
    return seeOther(reply, '/dashboard');
  });

  app.post('/dashboard/sign-out', PAGE, async (request, reply) => {
    const lang = dashboardLang(request, reply);
    const session = await sessionOf(sessions, request);
    if (!session) return seeOther(reply.header('set-cookie', clearedSessionCookie(publicUrl)), '/dashboard/sign-in');
    if (!sessions.csrfMatches(session, formOf(request).csrf)) return refuseForm(reply, lang);
    await sessions.revoke(session.id);
    await recordStaffAction(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'sign_out' });
    return seeOther(reply.header('set-cookie', clearedSessionCookie(publicUrl)), '/dashboard/sign-in');
  });
}
