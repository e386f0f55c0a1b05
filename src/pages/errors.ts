import { html, type SafeHtml } from '../html/html.ts';
import type { Texts } from './texts.ts';

/** What went wrong on a submit: a message for the whole form, and one per field (by the field's id). */
export interface FormErrors {
  message?: string;
  fields?: Record<string, string>;
}

function hasErrors(e: FormErrors | undefined): boolean {
  return !!e && (!!e.message || Object.keys(e.fields ?? {}).length > 0);
}

/**
 * The error summary shown above a form after a refused or invalid submit: focused on load
 * (`autofocus` on a `tabindex=-1` box, so without JavaScript too), announced as an alert, each
 * field error a link to its field.
 */
export function errorSummary(t: Texts, e: FormErrors | undefined): SafeHtml | '' {
  if (!e || !hasErrors(e)) return '';
  const fields = Object.entries(e.fields ?? {});
  return html`<div class="alert error-summary" role="alert" id="error-summary" tabindex="-1" autofocus aria-labelledby="error-summary-title">
  <h2 id="error-summary-title">${t.errorTitle}</h2>
  ${e.message ? html`<p id="form-error">${e.message}</p>` : ''}
  ${fields.length ? html`<ul>${fields.map(([id, text]) => html`<li><a href="#${id}">${text}</a></li>`)}</ul>` : ''}
</div>`;
}

/** A field's error wiring: `aria-invalid` and `aria-describedby` to its own message. */
export function invalidAttrs(e: FormErrors | undefined, id: string, hint?: string): SafeHtml {
  const message = e?.fields?.[id];
  const described = [hint, message ? `${id}_error` : undefined].filter(Boolean).join(' ');
  return html`${message ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}`;
}

/** The message under a field, when it has one. */
export function fieldError(e: FormErrors | undefined, id: string): SafeHtml | '' {
  const message = e?.fields?.[id];
  return message ? html`<p class="field-error" id="${id}_error">${message}</p>` : '';
}

/** The page title, prefixed "Error:" after a refused or invalid submit. */
export function pageTitle(t: Texts, title: string, e: FormErrors | undefined): string {
  return hasErrors(e) ? `${t.errorPrefix}${title}` : title;
}
