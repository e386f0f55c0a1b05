/**
 * HTML built with a tagged template that escapes every interpolated value, so that an escape
 * cannot be left out: `` html`<p>${name}</p>` ``. Only what is already HTML passes as is:
 * the result of another `html` template, or `raw(...)` for our own constants (inline CSS).
 *
 * Our own rather than a package: the whole contract is these few lines, has no options to get
 * wrong, and the packages made for it (html-template-tag, escape-html-template-tag...) would add a
 * supply-chain dependency to the path every page and e-mail goes through for no more than this.
 */

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Markup that is safe to insert as is. Not exported as a class: a value only becomes SafeHtml
 * through `html` or `raw`, never by a constructor call on untrusted text.
 */
class SafeHtmlImpl {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}
export type SafeHtml = SafeHtmlImpl;

/** Text safe inside element content and quoted attribute values (both quote kinds). */
function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** null, undefined and false render as nothing (`${cond && html`...`}`); arrays are concatenated. */
function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtmlImpl) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeText(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtmlImpl(out);
}

/** Trusted markup, inserted without escaping: our own constants only, never a value from outside. */
export function raw(markup: string): SafeHtml {
  return new SafeHtmlImpl(markup);
}
