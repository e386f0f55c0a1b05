import { html } from '../../../html/html.ts';
import type { EnFr } from '../../../i18n/lang.ts';
import type { OpenInvitation } from '../../../staff/invitations.ts';
import { publicPage } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/**
 * The page an invitation link opens: who invites, to which account and role, and the form that
 * chooses the new member's password. The token travels as a query parameter and a hidden field,
 * never in the path: request logs redact `token` parameters (src/http/redact.ts).
 */
export function invitationPage(lang: EnFr, csrf: string, token: string, inv: OpenInvitation, error?: { field: string; message: string }): string {
  const t = DASHBOARD_TEXT[lang];
  const invalid = (name: string) => (error?.field === name ? html` aria-invalid="true" aria-describedby="invitation-error"` : '');
  const body = html`<div class="card">
<h1>${t.joinTitle(inv.accountName)}</h1>
<p>${t.joinIntro(inv.invitedBy, t.roleNames[inv.role])}</p>
${error ? html`<div class="alert" role="alert" id="invitation-error">${error.message}</div>` : ''}
<form method="post" action="/dashboard/invitation">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="token" value="${token}">
<p><label for="email">${t.email}</label><input id="email" name="email" type="email" autocomplete="username" value="${inv.email}" readonly></p>
<p><label for="new_password">${t.newPassword}</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="12" maxlength="1024"${invalid('new_password')}><br><span class="muted">${t.joinPasswordHint}</span></p>
<p><label for="new_password_again">${t.newPasswordAgain}</label><input id="new_password_again" name="new_password_again" type="password" autocomplete="new-password" required${invalid('new_password_again')}></p>
<p><button type="submit">${t.joinButton}</button></p>
</form>
</div>`;
  return publicPage(lang, t.joinTitle(inv.accountName), body, `/dashboard/invitation?token=${encodeURIComponent(token)}`);
}
