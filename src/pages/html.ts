import type { Offer } from '../accounts/offer.ts';
import { html, raw, type SafeHtml } from '../html/html.ts';
import { EN_FR, LANGUAGE_NAMES, type Lang } from '../i18n/lang.ts';

/**
 * Our pages load nothing from elsewhere: our own script and styles only. `form-action` allows
 * the redirect after a payment to reach the merchant's callback or the 3-D Secure page.
 */
const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self' https: http:; base-uri 'none'; frame-ancestors 'self'";

/**
 * The sandbox PSP's 3-D Secure page may be framed by any site: like a bank's challenge page
 * (EMV 3-DS shows it in the merchant's frame), it is reached inside chipin.js's overlay on the
 * merchant's page. Its form is bound to the transaction by a token, not a cookie, so it works there.
 */
export const CHALLENGE_CSP = PAGE_CSP.replace("frame-ancestors 'self'", 'frame-ancestors *');

/**
 * The CSP, letting the merchant's own site (the origin of its callback URL) embed the page, and
 * the origin of the offer's stylesheet (`css_url`) serve that stylesheet and its fonts: that origin
 * only, never a script (docs/security.md#merchant-stylesheets).
 */
export function pageCsp(embedderOrigin?: string, stylesheetUrl?: string | null): string {
  let csp = embedderOrigin ? PAGE_CSP.replace("frame-ancestors 'self'", `frame-ancestors 'self' ${embedderOrigin}`) : PAGE_CSP;
  const styleOrigin = originOf(stylesheetUrl);
  if (styleOrigin) csp = csp.replace("style-src 'unsafe-inline'", `style-src 'unsafe-inline' ${styleOrigin}`).replace('; img-src', `; font-src ${styleOrigin}; img-src`);
  return csp;
}

/** An http(s) URL's origin (scheme, host, port: nothing a CSP could misread), or undefined. */
function originOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** What an offer sets on its pages (docs/back-office.md#merchant-parameters-of-the-original-interface): the merchant's stylesheet, and its terms' link (SHARED). */
export type MerchantPageSettings = Pick<Offer, 'type' | 'cssUrl' | 'gtuUrl' | 'gtuLabel'>;

/** The link to the merchant's terms by a SHARED offer's pay button, opened in a new tab (the payment stays where it is). */
export function gtuLink(t: { gtu: string }, offer: MerchantPageSettings | undefined): SafeHtml | '' {
  if (!offer || offer.type !== 'SHARED' || !offer.gtuUrl) return '';
  return html`<p class="center gtu"><a href="${offer.gtuUrl}" target="_blank" rel="noopener noreferrer">${offer.gtuLabel ?? t.gtu}</a></p>`;
}

/** JSON inside a `<script type="application/json">` block: `<` escaped so no text can close it. */
function jsonScript(id: string, value: unknown): SafeHtml {
  // Script content is not HTML-decoded: entities would corrupt the JSON, and `\u003c` alone keeps it inert.
  return html`<script type="application/json" id="${id}">${raw(JSON.stringify(value).replace(/</g, '\\u003c'))}</script>`;
}

const STYLE = raw(`
  body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2433}
  main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem}
  .card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08);margin-bottom:1rem}
  h1{font-size:1.4rem;margin:.2rem 0}
  .merchant{color:#5b6475;font-size:.95rem}
  .amount{font-size:1.8rem;font-weight:700;margin:.5rem 0}
  .muted{color:#5b6475}
  img.picture{max-width:100%;border-radius:8px}
  table{width:100%;border-collapse:collapse}td{padding:.25rem 0}td.num{text-align:right}
  table+form,table+div,table+section{margin-top:1.25rem}
  .state{display:inline-block;padding:.1rem .6rem;border-radius:999px;background:#eef1f6;font-size:.85rem}
  fieldset{border:0;padding:0;margin:0 0 1rem}legend{font-weight:600;font-size:1.1rem;margin-bottom:.5rem}
  label{display:block;font-weight:500;margin:.6rem 0 .2rem}
  input{box-sizing:border-box;width:100%;font:inherit;padding:.65rem .75rem;border:1px solid #6b7385;border-radius:8px;background:#fff}
  input:focus{border-color:#0b5cad}
  :focus-visible,input:focus{outline:3px solid #0b5cad;outline-offset:2px}
  input[aria-invalid=true]{border:2px solid #b42318}
  .field-error{color:#b42318;font-weight:600;margin:.1rem 0 .2rem}
  .error-summary h2{font-size:1.1rem;margin:0 0 .3rem}.error-summary ul{margin:.3rem 0 0;padding-left:1.2rem}.error-summary a{color:#b42318;font-weight:600}
  .error-summary:focus{outline:3px solid #1d2433;outline-offset:2px}
  .row{display:flex;gap:.75rem}.row>div{flex:1}
  /* Expiry and CVC side by side, their inputs level whatever sits above one of them (an error, a label on two lines): each column's label, error, input and hint sit on the pair's shared grid rows. */
  .card-pair{display:grid;grid-template-columns:1fr 1fr;grid-template-rows:repeat(4,auto);column-gap:.75rem}
  .card-pair>div{display:grid;grid-row:1/span 4;grid-template-rows:subgrid}
  .card-pair label{grid-row:1;align-self:end}.card-pair .field-error{grid-row:2}.card-pair input{grid-row:3}.card-pair small{grid-row:4}
  @media (max-width:480px){.friend .row{flex-direction:column;gap:0}}
  fieldset.friend{border:0;border-top:1px solid #e4e7ec;padding:.5rem 0 0;margin:.5rem 0 0}fieldset.friend legend{font-size:1rem;margin:0;padding:0}
  .credit{border:2px solid #0b5cad;border-radius:10px;padding:.75rem 1rem;margin:1rem 0}.credit h3{margin:0 0 .4rem;font-size:1.05rem}
  .credit dl{margin:0}.credit dl>div{display:flex;justify-content:space-between;gap:1rem;padding:.15rem 0}.credit dt{margin:0}.credit dd{margin:0;font-weight:700;font-size:1.25rem}
  .credit-warning{font-weight:700;margin:.75rem 0 .4rem}.credit p{margin:.4rem 0 0}
  .test-mode{background:#fff4ce;border:2px dashed #8a5a00;color:#4a3000;border-radius:10px;padding:.6rem .8rem;margin:0 0 1rem}
  .money-summary{font-weight:600;margin:.5rem 0}
  dl.figures{margin:0}dl.figures>div{display:flex;justify-content:space-between;gap:1rem;padding:.3rem 0;border-bottom:1px solid #e4e7ec}dl.figures dt{margin:0}dl.figures dd{margin:0;font-weight:700;text-align:right;max-width:55%}
  caption.caption{text-align:left;font-weight:600;padding:.75rem 0 .25rem}
  th{text-align:left;font-weight:600;padding:.25rem 0}th.num{text-align:right}th.num,td.num{padding-left:.75rem}
  nav.lang{text-align:right;margin:0 0 .5rem}nav.lang a{display:inline-block;padding:.25rem 0 .25rem .75rem}nav.lang.embedded{padding-right:3.5rem}
  button:disabled{background:#e4e7ec;color:#5b6475;cursor:not-allowed}
  button,.button{display:block;width:100%;box-sizing:border-box;font:inherit;font-weight:600;padding:.85rem;border:0;border-radius:10px;background:#0b5cad;color:#fff;cursor:pointer;text-align:center;text-decoration:none}
  button.secondary{background:#eef1f6;color:#1d2433;width:auto;display:inline-block;padding:.5rem .9rem;margin:.5rem .5rem 0 0}
  .alert{border-left:4px solid #b42318;background:#fef3f2;padding:.75rem;border-radius:6px;margin-bottom:1rem}
  .ok{border-left:4px solid #067647;background:#ecfdf3;padding:.75rem;border-radius:6px;margin-bottom:1rem}
  a{color:#0b5cad}.center{text-align:center;margin-top:1rem}`);

/**
 * The language switcher: a link to the same page in each other language the area speaks
 * (`among`: the hosted pages' six, the back office's English and French) by `?lang=`, each named
 * in and marked with its own language. `base` is the page's path and query without `lang`; none,
 * no switcher.
 * `embedded`: the page is in chipin.js's overlay, whose close button (2.75rem, .5rem from the
 * frame's top right corner) sits over the frame: the link keeps clear of it (`nav.lang.embedded`),
 * rather than the script moving its button, whose bytes merchants pin by their hash.
 */
export function langSwitcher(t: { language: string }, lang: Lang, base: string | undefined, embedded = false, among: readonly Lang[] = EN_FR): SafeHtml | '' {
  if (!base) return '';
  const links = among
    .filter((other) => other !== lang)
    .map((other) => html`<a href="${`${base}${base.includes('?') ? '&' : '?'}lang=${other}`}" lang="${other}" hreflang="${other}">${LANGUAGE_NAMES[other]}</a>`);
  return html`<nav class="lang${embedded ? ' embedded' : ''}" aria-label="${t.language}">${links}</nav>`;
}

/**
 * The banner of a page whose payment is a test (the built-in sandbox PSP, or a PSP account in its
 * test environment): first on the page, a region named "Test mode" so that assistive technology
 * lists it, in a colour no real payment page uses.
 */
export function testModeBanner(t: { testMode: string; testModeText: string }, on: boolean | undefined): SafeHtml | '' {
  if (!on) return '';
  return html`<section class="test-mode" aria-label="${t.testMode}"><strong>${t.testMode}</strong> · ${t.testModeText}</section>`;
}

/** What a page family adds around the hosted pages' layout (the back office: its banner and wider tables). */
export interface LayoutExtras {
  /** Rendered before `<main>`, as the page's banner (a `<header>` landmark). */
  header?: SafeHtml;
  /** More CSS, after the shared style. */
  style?: SafeHtml;
  /** The merchant's stylesheet (an offer's `css_url`), after ours so that it may restyle the page; its origin must be in the page's CSP (`pageCsp`). */
  stylesheet?: string | null;
  /**
   * Reloads the page at this address after `seconds` without script (`<meta http-equiv="refresh">`
   * inside `<noscript>`): with script, the page's own script does it and lets the shopper pause it.
   */
  refresh?: { seconds: number; url: string };
}

/** A complete mobile-first page in `lang`. */
export function layout(lang: string, title: string, body: SafeHtml, script?: string | string[], extras: LayoutExtras = {}): SafeHtml {
  const scripts = script === undefined ? [] : Array.isArray(script) ? script : [script];
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${STYLE}${extras.style ?? ''}</style>
${extras.stylesheet ? html`<link rel="stylesheet" href="${extras.stylesheet}" referrerpolicy="no-referrer">` : ''}
${extras.refresh ? html`<noscript><meta http-equiv="refresh" content="${`${extras.refresh.seconds}; url=${extras.refresh.url}`}"></noscript>` : ''}
</head>
<body>${extras.header ?? ''}<main>${body}</main>${scripts.map((src) => html`<script src="${src}" defer></script>`)}</body>
</html>`;
}

/**
 * What the frame script (assets/result.js) needs on a hosted page: where it may post
 * (`target`, the merchant origin, never `*`), the purchase, whether the page was opened by
 * chipin.js (`embed`: Escape then posts `chipin:cancel`) and the message to post, if any.
 */
export interface FrameData {
  target: string;
  purchase_uid: string;
  embed: boolean;
  message: unknown;
}

export function frameScript(data: FrameData | undefined): SafeHtml | '' {
  return data ? jsonScript('chipin-frame', data) : '';
}
