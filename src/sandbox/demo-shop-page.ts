import { html, raw } from '../html/html.ts';
import { formatMoney } from '../i18n/format.ts';
import { LANGUAGE_NAMES, LOCALE, type Lang } from '../i18n/lang.ts';
import { DEMO_SHOP_LANGS, DEMO_SHOP_TEXT } from './demo-shop-texts.ts';

/** What the demo shop sells, in EUR minor units (its back end creates the purchase for this). */
export const DEMO_SHOP_PRICE_CENTS = 30_000;

/**
 * The sandbox demo shop (`/sandbox/demo-shop`): a merchant's page as a shop would write it, with
 * chipin.js and two buttons. Its own CSP: unlike our hosted pages it frames Chipin (the overlay)
 * and calls its own back end (`connect-src 'self'`).
 */
export const DEMO_SHOP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; frame-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const STYLE = raw(`
  body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#fffaf3;color:#2b2118}
  main{max-width:40rem;margin:0 auto;padding:1.5rem 1rem}
  .product{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
  .price{font-size:1.6rem;font-weight:700}
  button{font:inherit;font-weight:600;padding:.8rem 1.2rem;border:0;border-radius:10px;cursor:pointer;margin:.5rem .5rem 0 0}
  #pay-3x{background:#7a3cff;color:#fff}#split{background:#0b7a5a;color:#fff}
  .note{color:#6b5e51;font-size:.9rem}
  nav.lang{text-align:right;font-size:.9rem}a{color:#5a2bbf}
  #outcome{margin-top:1rem;padding:.75rem;border-radius:8px;background:#f2efe9;white-space:pre-wrap;word-break:break-all}`);

/**
 * The page in `lang` (`?lang=`, else the browser's Accept-Language, as the hosted pages choose),
 * with a link to each other language; its script's messages travel in `data-texts`, since its
 * policy runs no inline script.
 */
export function demoShopPage(sdk: { src: string; integrity: string }, lang: Lang): string {
  const t = DEMO_SHOP_TEXT[lang];
  const others = DEMO_SHOP_LANGS.filter((other) => other !== lang);
  return html`<!doctype html>
<html lang="${LOCALE[lang]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.title}</title>
<style>${STYLE}</style>
</head>
<body><main>
<nav class="lang" aria-label="${t.language}">${others.map((other) => html` <a href="/sandbox/demo-shop?lang=${other}" lang="${other}" hreflang="${other}">${LANGUAGE_NAMES[other]}</a>`)}</nav>
<p class="note">${t.note} <a href="/docs">${t.apiReference}</a>.</p>
<section class="product">
  <h1>${t.product}</h1>
  <p class="price">${formatMoney(DEMO_SHOP_PRICE_CENTS, 'EUR', lang)}</p>
  <button type="button" id="pay-3x">${t.payIn3}</button>
  <button type="button" id="split">${t.split}</button>
</section>
<div id="outcome" role="status" aria-live="polite" data-lang="${lang}" data-texts="${JSON.stringify(t.script)}">${t.choose}</div>
</main>
<script src="${sdk.src}" integrity="${sdk.integrity}" crossorigin="anonymous"></script>
<script src="/sandbox/demo-shop/shop.js" defer></script>
</body>
</html>`.toString();
}
