import { html } from '../../html/html.ts';
import type { Lang } from '../../i18n/lang.ts';
import { spaceLayout } from './layout.ts';
import { SPACE_TEXT } from './texts.ts';

/** An error of a one-field form: a summary linking to the field, and the field's own message. */
function errorBlock(title: string, field: string, message: string) {
  return html`<div class="alert error-summary" role="alert" tabindex="-1" id="error-summary"><h2>${title}</h2><ul><li><a href="#${field}">${message}</a></li></ul></div>`;
}

/** The sign-in form: an e-mail address or a phone number. `then`: the space's page to open after. */
export function signInPage(lang: Lang, v: { csrf: string; then?: string; typed?: string; error?: string; switchBase?: string }): string {
  const t = SPACE_TEXT[lang];
  const action = `/space/sign-in?lang=${lang}${v.then ? `&then=${encodeURIComponent(v.then)}` : ''}`;
  const body = html`<section class="card">
  <h1>${t.signInTitle}</h1>
  <p>${t.signInIntro}</p>
  ${v.error ? errorBlock(t.errorTitle, 'identity', v.error) : ''}
  <form method="post" action="${action}" novalidate>
    <input type="hidden" name="csrf" value="${v.csrf}">
    <label for="identity">${t.identityLabel}</label>
    <p class="hint" id="identity-hint">${t.identityHint}</p>
    ${v.error ? html`<p class="field-error" id="identity-error">${v.error}</p>` : ''}
    <input id="identity" name="identity" type="text" inputmode="email" autocomplete="email" required value="${v.typed ?? ''}"
      aria-describedby="identity-hint${v.error ? ' identity-error' : ''}"${v.error ? html` aria-invalid="true"` : ''}>
    <p></p>
    <button type="submit">${t.send}</button>
  </form>
</section>`;
  return spaceLayout(lang, v.error ? t.errorPageTitle(t.signInTitle) : t.signInTitle, body, { switchBase: v.switchBase });
}

/** After a link was asked for by e-mail: where to look. */
export function linkSentPage(lang: Lang, minutes: number): string {
  const t = SPACE_TEXT[lang];
  const body = html`<section class="card"><h1>${t.sentTitle}</h1><div class="ok" role="status">${t.sentEmail(minutes)}</div>
  <p><a href="/space/sign-in?lang=${lang}">${t.askAgain}</a></p></section>`;
  return spaceLayout(lang, t.sentTitle, body);
}

/** The code form, after a code was sent by SMS (or after a wrong code). */
export function codePage(lang: Lang, v: { csrf: string; minutes: number; sent: boolean; error?: string }): string {
  const t = SPACE_TEXT[lang];
  const body = html`<section class="card"><h1>${t.codeTitle}</h1>
  ${v.sent ? html`<div class="ok" role="status">${t.sentPhone(v.minutes)}</div>` : ''}
  ${v.error ? errorBlock(t.errorTitle, 'code', v.error) : ''}
  <form method="post" action="/space/sign-in/code?lang=${lang}" novalidate>
    <input type="hidden" name="csrf" value="${v.csrf}">
    <label for="code">${t.codeLabel}</label>
    ${v.error ? html`<p class="field-error" id="code-error">${v.error}</p>` : ''}
    <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required
      ${v.error ? html`aria-describedby="code-error" aria-invalid="true"` : ''}>
    <p></p>
    <button type="submit">${t.codeSubmit}</button>
  </form>
  <p><a href="/space/sign-in?lang=${lang}">${t.askAgain}</a></p></section>`;
  return spaceLayout(lang, v.error ? t.errorPageTitle(t.codeTitle) : t.codeTitle, body);
}

/** A message and the way back to the sign-in form (a link that no longer works, an expired form, too many attempts). */
export function spaceMessagePage(lang: Lang, title: string, text: string): string {
  const t = SPACE_TEXT[lang];
  const body = html`<section class="card"><h1>${title}</h1><p>${text}</p><p><a href="/space/sign-in?lang=${lang}">${t.askAgain}</a></p></section>`;
  return spaceLayout(lang, title, body);
}
