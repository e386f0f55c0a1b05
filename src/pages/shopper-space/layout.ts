import { html, raw, type SafeHtml } from '../../html/html.ts';
import { LOCALE, type Lang } from '../../i18n/lang.ts';
import { langSwitcher, layout } from '../html.ts';
import { SPACE_LANGS, SPACE_TEXT } from './texts.ts';

/**
 * The shopper's space CSP: the hosted pages' (our own script and styles only), its forms posting
 * to us only, and never framed: nobody may overlay its buttons.
 */
export const SPACE_CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const STYLE = raw(`
  header.space{display:flex;justify-content:space-between;align-items:center;gap:.5rem;flex-wrap:wrap;max-width:48rem;margin:0 auto;padding:.75rem 1rem 0}
  header.space form{margin:0}header.space button{width:auto;display:inline-block;padding:.45rem .9rem;background:#eef1f6;color:#1d2433}
  main{max-width:48rem}
  .purchase-list{list-style:none;margin:0;padding:0}.purchase-list li{margin:0 0 .75rem}
  .purchase-list a{display:block;text-decoration:none;color:inherit}.purchase-list a:focus-visible{outline:3px solid #0b5cad;outline-offset:2px;border-radius:12px}
  .purchase-list .title{color:#0b5cad;font-weight:600;text-decoration:underline}
  .progress{width:100%;height:1rem}
  #plan th,#plan td{padding:.4rem .5rem .4rem 0;vertical-align:top}#plan td.num{white-space:nowrap;padding-left:.5rem}
  .hint{color:#5b6475;font-size:.9rem;margin:0 0 .3rem}
  .state.overdue{background:#fef3f2;color:#912018;font-weight:600}
  #pay-result:focus{outline:3px solid #0b5cad;outline-offset:2px}`);

/** A page of the space: its header (who is signed in, the sign-out button) when signed in, and the switcher to its other languages. */
export function spaceLayout(lang: Lang, title: string, body: SafeHtml, opts: { signedIn?: { who: string; csrf: string }; switchBase?: string } = {}): string {
  const t = SPACE_TEXT[lang];
  const header = opts.signedIn
    ? html`<header class="space"><span>${t.signedInAs(opts.signedIn.who)}</span><form method="post" action="/space/sign-out"><input type="hidden" name="csrf" value="${opts.signedIn.csrf}"><button type="submit">${t.signOut}</button></form></header>`
    : undefined;
  return layout(LOCALE[lang], title, html`${langSwitcher(t, lang, opts.switchBase, false, SPACE_LANGS)}${body}`, undefined, {
    ...(header ? { header } : {}),
    style: STYLE,
  }).toString();
}
