import { html } from '../html/html.ts';
import { LOCALE, type Lang } from '../i18n/lang.ts';
import { layout } from './html.ts';
import { TEXT } from './texts.ts';

/**
 * The pages of the direct call of the front when no checkout follows (docs/plugin-integration.md):
 * a refused request (the shopper reads what to do, the shop's developer which setting is wrong,
 * in English as every API message), and a reference already paid.
 */
export function directRefusedPage(lang: Lang, detail: string): string {
  const t = TEXT[lang];
  return layout(
    LOCALE[lang],
    t.directRefusedTitle,
    html`<section class="card"><h1>${t.directRefusedTitle}</h1><p>${t.directRefused}</p><p class="muted">${t.directRefusedDetail} <code lang="en" id="refusal">${detail}</code></p></section>`,
  ).toString();
}

export function directPaidPage(lang: Lang): string {
  const t = TEXT[lang];
  return layout(LOCALE[lang], t.directPaidTitle, html`<section class="card"><h1>${t.directPaidTitle}</h1><p>${t.directPaid}</p></section>`).toString();
}
