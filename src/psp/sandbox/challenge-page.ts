import { html, raw, type SafeHtml } from '../../html/html.ts';
import { formatMoney } from '../../i18n/format.ts';
import type { EnFr } from '../../i18n/lang.ts';
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

/** The page's texts, English and French (the hosted pages' languages). */
const TEXTS = {
  en: {
    banner: 'Sandbox · test mode',
    finishedTitle: 'Authentication finished',
    finished: 'This 3-D Secure check is already finished; nothing more to do here.',
    back: 'Return to the shop',
    title: 'Confirm your payment',
    intro: 'Your bank asks you to confirm this payment with 3-D Secure. This is the Chipin sandbox: no bank and no real money are involved. Choose how the check ends.',
    card: (brand: string, last4: string) => `${brand} ending in ${last4}`,
    anyCard: 'Card',
    complete: 'Complete authentication',
    fail: 'Fail authentication',
  },
  fr: {
    banner: 'Bac à sable · mode test',
    finishedTitle: 'Authentification terminée',
    finished: 'Cette vérification 3-D Secure est déjà terminée\u00a0; il n’y a plus rien à faire ici.',
    back: 'Revenir à la boutique',
    title: 'Confirmez votre paiement',
    intro:
      'Votre banque vous demande de confirmer ce paiement avec 3-D Secure. Ceci est le bac à sable de Chipin\u00a0: aucune banque ni aucun argent réel. Choisissez l’issue de la vérification.',
    card: (brand: string, last4: string) => `${brand} se terminant par ${last4}`,
    anyCard: 'Carte',
    complete: 'Valider l’authentification',
    fail: 'Faire échouer l’authentification',
  },
} satisfies Record<EnFr, unknown>;

/** The shopper's language for this challenge: the page's own `?lang=`, else the return URL's `lang`, else Accept-Language's choice. */
export function challengeLang(returnUrl: string | undefined, fromHeader: EnFr, own?: unknown): EnFr {
  if (own === 'fr' || own === 'en') return own;
  try {
    const asked = returnUrl ? new URL(returnUrl).searchParams.get('lang') : null;
    return asked === 'fr' || asked === 'en' ? asked : fromHeader;
  } catch {
    return fromHeader;
  }
}

function page(title: string, body: SafeHtml, lang: EnFr = 'en'): string {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body><main><div class="card"><p class="state">${TEXTS[lang].banner}</p>${body}</div></main></body>
</html>`.toString();
}

export function returnLink(returnUrl: string, transactionId: string): string {
  const url = new URL(returnUrl);
  url.searchParams.set('transaction_id', transactionId);
  return url.toString();
}

export function challengePage(view: ChallengeView, lang: EnFr = 'en'): string {
  const t = TEXTS[lang];
  const amount = formatMoney(view.amountCents, view.currency, lang);
  const card = t.card(view.brand === 'unknown' ? t.anyCard : view.brand.toUpperCase(), view.last4);
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
