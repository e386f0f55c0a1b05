import { passwordPage } from '../pages/password-page.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { newPasswordProblem } from '../../../domain/password-rules.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };

/**
 * The signed-in user's own account: the password change (every role). The current password is
 * asked again (a session left open on a shared screen does not let anyone lock its owner out),
 * and the user's other sessions end with the old password.
 */
export function registerDashboardAccount(app: App, services: Services, sessions: DashboardSessions): void {
  app.get('/dashboard/account/password', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    return sendPage(reply, 200, passwordPage(ctx.chrome));
  });

  app.post('/dashboard/account/password', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form: fields } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const refuse = (field: string, message: string) => sendPage(reply, 400, passwordPage(chrome, { error: { field, message } }));
    const current = fields.current_password ?? '';
    const next = fields.new_password ?? '';
    const problem = newPasswordProblem(next, session.email);
    if (problem) return refuse('new_password', t.passwordProblem[problem]);
    if (next !== (fields.new_password_again ?? '')) return refuse('new_password_again', t.passwordsDiffer);
    // Same message whatever is wrong with it: it says nothing more than "not this one".
    if (!(await services.accounts.changeDashboardPassword(session, session.id, current, next))) return refuse('current_password', t.wrongCurrentPassword);
    request.log.info({ account_id: session.accountId, user_id: session.userId }, 'dashboard password changed; other sessions ended');
    return sendPage(reply, 200, passwordPage(chrome, { saved: true }));
  });
}
