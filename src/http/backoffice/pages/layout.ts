import { html, raw, type SafeHtml } from '../../../html/html.ts';
import type { EnFr } from '../../../i18n/lang.ts';
import { langSwitcher, layout } from '../../../pages/html.ts';
import type { Role } from '../../../domain/roles.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/** Wider than the shopper pages (tables), still one column on a phone. */
const STYLE = raw(`
  main{max-width:60rem}
  /* For screen readers only: a table's caption where the heading above it already says it on screen. */
  .sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
  header.bo{background:#1d2433;color:#fff;padding:.5rem 1rem}
  header.bo nav.menu{flex-basis:100%}
  header.bo .bar{max-width:80rem;margin:0 auto;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
  header.bo a{color:#fff}header.bo .brand{font-weight:700;margin-right:auto}
  header.bo nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
  header.bo form{margin:0}header.bo button{background:#eef1f6;color:#1d2433;width:auto;padding:.4rem .8rem}
  header.bo nav.lang{margin:0}
  select,textarea{box-sizing:border-box;width:100%;font:inherit;padding:.6rem .7rem;border:1px solid #6b7385;border-radius:8px;background:#fff}
  .filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:0 1rem;align-items:end}
  .filters button{margin-top:.8rem}
  /* The purchases list is wider on a desktop screen: its filters on one line, its table with room for the offer. */
  @media (min-width:75rem){main:has(.purchase-filters){max-width:78rem}.purchase-filters{grid-template-columns:minmax(14rem,2fr) repeat(4,minmax(9rem,1fr)) auto}}
  /* A chip (a state) is one line: in a narrow table cell it keeps its words together. */
  .state{white-space:nowrap}
  .scroll{overflow-x:auto}
  /* A table wider than the screen shows a shadow on the side it scrolls to (the white covers are "local": they move with the table and hide a shadow once its edge is reached); on white, in a card or not. */
  .scroll{background:linear-gradient(to right,#fff 30%,rgba(255,255,255,0)),linear-gradient(to right,rgba(255,255,255,0),#fff 70%) 100% 0,radial-gradient(farthest-side at 0 50%,rgba(0,0,0,.18),rgba(0,0,0,0)),radial-gradient(farthest-side at 100% 50%,rgba(0,0,0,.18),rgba(0,0,0,0)) 100% 0;background-repeat:no-repeat;background-size:40px 100%,40px 100%,14px 100%,14px 100%;background-attachment:local,local,scroll,scroll;background-color:#fff}
  table.list th,table.list td{padding:.4rem .5rem;border-bottom:1px solid #e4e7ec;vertical-align:top}
  ol.timeline{padding-left:1.2rem}ol.timeline li{margin:.3rem 0}
  dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}dl.facts dt{font-weight:600}dl.facts dd{margin:0;word-break:break-word}
  .actions form{margin-top:.5rem}
  fieldset.rule{border-top:1px solid #e4e7ec;padding:.6rem 0 0;margin:.6rem 0 0}fieldset.rule legend{font-size:1rem;margin:0;padding:0}
  /* A rule's value box only once "Set" is chosen (without :has, every box shows, as before). */
  fieldset.rule:has(input[value="set"]:not(:checked)) .rule-value{display:none}
  /* A rule's choices side by side, wrapping on a phone: a rule is two or three lines, not five. */
  .choices{display:flex;flex-wrap:wrap;column-gap:1.25rem}.choices label{display:inline;font-weight:400;margin:0}.choices input{width:auto;margin:.3rem .4rem .3rem 0}
  details.edit>summary{cursor:pointer;margin:1rem 0 .5rem}details.edit>summary h3{display:inline;margin:0}
  .copy-row{display:flex;gap:.5rem;align-items:center}.copy-row input{flex:1;min-width:0;font-family:ui-monospace,monospace;font-size:.9rem}.copy-row button{margin:0}
  a.button.secondary{background:#eef1f6;color:#1d2433}
  dl.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:.75rem;margin:0 0 .75rem}
  dl.figures dt{color:#5b6475;font-size:.9rem}dl.figures dd{margin:0;font-size:1.5rem;font-weight:700}
  figure.chart{margin:0 0 .5rem}figure.chart figcaption{font-size:.9rem;margin-bottom:.25rem}
  svg.chart{display:block;width:100%;height:8rem}
  .chart-top,.chart-axis{font-size:.8rem;color:#5b6475}.chart-axis{display:flex;justify-content:space-between;gap:1rem}
  @media (max-width:480px){dl.facts{grid-template-columns:1fr}}`);

/** What every signed-in page shows in its banner. */
export interface Chrome {
  lang: EnFr;
  accountName: string;
  /** The account's time zone (IANA name): every date with a time on the page is shown in it, and says so. */
  timeZone: string;
  csrf: string;
  /** The signed-in user's role: a support user's menu leaves out the admin-only pages; the operator's staff's has the operator's pages instead. */
  role: Role;
  /** The page's path and query without `lang`, for the language switcher. */
  path: string;
  /** A sandbox deployment: the menu links to the sandbox inbox (messages sent), which only it serves. */
  sandbox?: boolean;
}

/** A signed-in back-office page: banner with the menu and sign-out, then `body` in `<main>`; `script`, our own (`/assets/…`), if any. */
export function dashboardPage(chrome: Chrome, title: string, body: SafeHtml, script?: string): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  // Name, language and sign-out on the first line, the menu under them across the width: on a
  // desktop screen the banner takes two lines (three in French at 1280 px), not four.
  const header = html`<header class="bo"><div class="bar">
<span class="brand">${t.backOffice} · ${chrome.accountName}</span>
${langSwitcher(t, chrome.lang, chrome.path)}
<form method="post" action="/dashboard/sign-out"><input type="hidden" name="csrf" value="${chrome.csrf}"><button type="submit">${t.signOut}</button></form>
<nav aria-label="${t.mainMenu}" class="menu"><ul><li><a href="/dashboard">${t.home}</a></li><li><a href="/dashboard/purchases">${t.purchases}</a></li><li><a href="/dashboard/disputes">${t.disputes.menu}</a></li><li><a href="/dashboard/reconciliation">${t.reconciliation}</a></li>${
    chrome.role === 'admin'
      ? html`<li><a href="/dashboard/reports">${t.reports}</a></li><li><a href="/dashboard/payouts">${t.payouts.menu}</a></li><li><a href="/dashboard/offers">${t.offers}</a></li><li><a href="/dashboard/psp-accounts">${t.pspAccounts}</a></li><li><a href="/dashboard/developers">${t.developers}</a></li><li><a href="/dashboard/team">${t.team}</a></li><li><a href="/dashboard/settings">${t.settings}</a></li>`
      : chrome.role === 'operator'
        ? html`<li><a href="/dashboard/operator/payouts">${t.operator.menu}</a></li>`
        : ''
  }${chrome.sandbox ? html`<li><a href="/sandbox/inbox">${t.sandboxInbox}</a></li>` : ''}<li><a href="/dashboard/account/password">${t.myPassword}</a></li></ul></nav>
</div></header>`;
  return layout(chrome.lang, `${title} · ${t.backOffice}`, body, script, { header, style: STYLE }).toString();
}

/** A page without a session (sign-in, errors before sign-in): the banner holds the name and the language only. */
export function publicPage(lang: EnFr, title: string, body: SafeHtml, path?: string): string {
  const t = DASHBOARD_TEXT[lang];
  const header = html`<header class="bo"><div class="bar"><span class="brand">${t.backOffice}</span>${langSwitcher(t, lang, path)}</div></header>`;
  return layout(lang, `${title} · ${t.backOffice}`, body, undefined, { header, style: STYLE }).toString();
}
