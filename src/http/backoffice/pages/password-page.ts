import { html } from '../../../html/html.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/** The signed-in user's password change form; after a refusal, the message names the field (no password is ever written back). */
export function passwordPage(chrome: Chrome, outcome?: { error: { field: string; message: string } } | { saved: true }): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const error = outcome && 'error' in outcome ? outcome.error : undefined;
  const invalid = (name: string) => (error?.field === name ? html` aria-invalid="true" aria-describedby="password-error"` : '');
  const body = html`<h1>${t.changePassword}</h1>
${outcome && 'saved' in outcome ? html`<div class="ok" role="status">${t.passwordChanged}</div>` : ''}
${error ? html`<div class="alert" role="alert" id="password-error">${error.message}</div>` : ''}
<form method="post" action="/dashboard/account/password" class="card">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<p><label for="current_password">${t.currentPassword}</label><input id="current_password" name="current_password" type="password" autocomplete="current-password" required${invalid('current_password')}></p>
<p><label for="new_password">${t.newPassword}</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="12" maxlength="1024"${invalid('new_password')}><br><span class="muted">${t.passwordHint}</span></p>
<p><label for="new_password_again">${t.newPasswordAgain}</label><input id="new_password_again" name="new_password_again" type="password" autocomplete="new-password" required${invalid('new_password_again')}></p>
<p><button type="submit">${t.changePassword}</button></p>
</form>`;
  return dashboardPage(chrome, t.changePassword, body);
}
