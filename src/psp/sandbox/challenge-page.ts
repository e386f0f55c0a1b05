import { html, raw, type SafeHtml } from '../../html/html.ts';
import { formatMoney } from '../../i18n/format.ts';
import { Catalogue, type KeyOf } from '../../i18n/catalogue.ts';
import de from '../../i18n/catalogues/sandbox-challenge/de.json' with { type: 'json' };
import en from '../../i18n/catalogues/sandbox-challenge/en.json' with { type: 'json' };
import es from '../../i18n/catalogues/sandbox-challenge/es.json' with { type: 'json' };
import fr from '../../i18n/catalogues/sandbox-challenge/fr.json' with { type: 'json' };
import it from '../../i18n/catalogues/sandbox-challenge/it.json' with { type: 'json' };
import nl from '../../i18n/catalogues/sandbox-challenge/nl.json' with { type: 'json' };
import { LANGS, type Lang } from '../../i18n/lang.ts';
import type { ChallengeView } from './connector.ts';

/**
 * The sandbox's stand-in for a bank's 3-D Secure page: the tester chooses the outcome. In the
 * shopper's language (the `lang` of the return URL the hosted page gave, else the browser's
 * Accept-Language), as a bank's page would be. Its own page shell, not the hosted pages' one: a
 * bank's page is not ours, and a PSP connector must not depend on the pages layer. Styles inline
 * only (the page CSP allows inline styles and nothing else).
 */

const BUTTON = 'display:block;width:100%;min-height:48px;margin:.75rem 0 0;padding:.7rem 1rem;font:inherit;font-weight:600;border-radius:8px;cursor:pointer;';
const PRIMARY = BUTTON + 'background:#1d4ed8;color:#fff;border:2px solid #1d4ed8';
const SECONDARY = BUTTON + 'background:#fff;color:#9f1239;border:2px solid #9f1239';

/** The hosted pages' look for what this page uses, so the sandbox flow feels like one site. */
const STYLE = raw(`
  body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2433}
  main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem}
  .card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08);margin-bottom:1rem}
  h1{font-size:1.4rem;margin:.2rem 0}
  .amount{font-size:1.8rem;font-weight:700;margin:.5rem 0}
  .muted{color:#5b6475}
  .state{display:inline-block;padding:.1rem .6rem;border-radius:999px;background:#eef1f6;font-size:.85rem}
  button{box-sizing:border-box;text-align:center}
  a{color:#0b5cad}`);

/** The page's words, in the hosted pages' six languages (src/i18n/catalogues/sandbox-challenge/). */
const WORDS = new Catalogue<KeyOf<typeof en>>('sandbox-challenge', { de, en, es, fr, it, nl });

const isLang = (s: string): s is Lang => (LANGS as readonly string[]).includes(s);

/** The shopper's language for this challenge: the page's own `?lang=`, else the return URL's `lang`, else Accept-Language's choice. */
export function challengeLang(returnUrl: string | undefined, fromHeader: Lang, own?: unknown): Lang {
  if (typeof own === 'string' && isLang(own)) return own;
  try {
    const asked = returnUrl ? new URL(returnUrl).searchParams.get('lang') : null;
    return asked && isLang(asked) ? asked : fromHeader;
  } catch {
    return fromHeader;
  }
}

function page(title: string, body: SafeHtml, lang: Lang = 'en'): string {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body><main><div class="card"><p class="state">${WORDS.text(lang, 'banner')}</p>${body}</div></main></body>
</html>`.toString();
}

export function returnLink(returnUrl: string, transactionId: string): string {
  const url = new URL(returnUrl);
  url.searchParams.set('transaction_id', transactionId);
  return url.toString();
}

export function challengePage(view: ChallengeView, lang: Lang = 'en'): string {
  const w = (key: KeyOf<typeof en>) => WORDS.text(lang, key);
  const t = { finishedTitle: w('finishedTitle'), finished: w('finished'), back: w('back'), title: w('title'), intro: w('intro'), complete: w('complete'), fail: w('fail') };
  const amount = formatMoney(view.amountCents, view.currency, lang);
  const card = WORDS.text(lang, 'card', { brand: view.brand === 'unknown' ? w('anyCard') : view.brand.toUpperCase(), last4: view.last4 });
  if (!view.pending) {
    return page(
      t.finishedTitle,
      html`
<h1>${t.finishedTitle}</h1>
<p>${t.finished}</p>
<p><a href="${returnLink(view.returnUrl, view.transactionId)}">${t.back}</a></p>
`,
      lang,
    );
  }
  return page(
    t.title,
    html`
<h1 id="title">${t.title}</h1>
<p class="muted">${t.intro}</p>
<p class="amount">${amount}</p>
<p>${card}</p>
<form method="post" aria-labelledby="title">
<input type="hidden" name="token" value="${view.token}">
<button type="submit" name="outcome" value="complete" style="${PRIMARY}">${t.complete}</button>
<button type="submit" name="outcome" value="fail" style="${SECONDARY}">${t.fail}</button>
</form>
`,
    lang,
  );
}

/** A short page for errors (unknown challenge, refused form). */
export function challengeMessagePage(title: string, text: string): string {
  return page(title, html`<h1>${title}</h1><p>${text}</p>`);
}
