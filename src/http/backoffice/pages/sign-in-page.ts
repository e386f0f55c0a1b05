import { html } from '../../../html/html.ts';
import type { EnFr } from '../../../i18n/lang.ts';
import { publicPage } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/**
 * The sign-in form. `error` is one message for the whole form: a wrong e-mail and a wrong
 * password read the same, so the page does not tell which e-mails have an account.
 */
export function signInPage(lang: EnFr, csrf: string, view: { email?: string; error?: string } = {}): string {
  const t = DASHBOARD_TEXT[lang];
  const body = html`<div class="card">
<h1>${t.signInTitle}</h1>
${view.error ? html`<div class="alert" role="alert" id="sign-in-error">${view.error}</div>` : ''}
<form method="post" action="/dashboard/sign-in" novalidate>
<input type="hidden" name="csrf" value="${csrf}">
<label for="email">${t.email}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}"${view.error ? html` aria-describedby="sign-in-error"` : ''}>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">${t.signIn}</button></p>
</form>
</div>`;
  return publicPage(lang, t.signInTitle, body, '/dashboard/sign-in');
}

/** A refusal page before or outside a session (expired form). */
export function messagePage(lang: EnFr, title: string, message: string): string {
  const body = html`<div class="card"><h1>${title}</h1><p>${message}</p><p><a href="/dashboard/purchases">${DASHBOARD_TEXT[lang].backToPurchases}</a></p></div>`;
  return publicPage(lang, title, body);
}
