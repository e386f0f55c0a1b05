import { html, raw } from '../html/html.ts';

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
  #outcome{margin-top:1rem;padding:.75rem;border-radius:8px;background:#f2efe9;white-space:pre-wrap;word-break:break-all}`);

export function demoShopPage(sdk: { src: string; integrity: string }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo Shop · Chipin sandbox</title>
<style>${STYLE}</style>
</head>
<body><main>
<p class="note">Chipin sandbox · a demo merchant page using <code>chipin.js</code> (see docs/front-end.md). Test card 4242 4242 4242 4242; 4000 0000 0000 0002 is declined.</p>
<section class="product">
  <h1>Weekend in Lisbon</h1>
  <p class="price">€300.00</p>
  <button type="button" id="pay-3x">Pay in 3x</button>
  <button type="button" id="split">Split with friends</button>
</section>
<div id="outcome" role="status" aria-live="polite">Choose how to pay.</div>
</main>
<script src="${sdk.src}" integrity="${sdk.integrity}" crossorigin="anonymous"></script>
<script src="/sandbox/demo-shop/shop.js" defer></script>
</body>
</html>`.toString();
}
