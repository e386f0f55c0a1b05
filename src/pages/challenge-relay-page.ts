import { createHash } from 'node:crypto';
import { html, raw, type SafeHtml } from '../html/html.ts';
import type { Lang } from '../i18n/lang.ts';
import type { ChallengeForm } from '../psp/challenge-relay.ts';
import { TEXT } from './texts.ts';

/** Posts the form as soon as the page is read; the button does the same without script. */
const SUBMIT = 'document.getElementById("acs").submit();';
const SUBMIT_HASH = `'sha256-${createHash('sha256').update(SUBMIT).digest('base64')}'`;

/**
 * The relay page's CSP: its one inline script (by hash), and forms may go to the issuer's page
 * only. Framable by any site, like the bank page it leads to (chipin.js shows it in an overlay).
 */
export function challengeRelayCsp(form: ChallengeForm): string {
  return `default-src 'none'; script-src ${SUBMIT_HASH}; style-src 'unsafe-inline'; form-action ${new URL(form.action).origin}; base-uri 'none'; frame-ancestors *`;
}

const STYLE = raw(`
  body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d2433}
  main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem}
  .card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
  h1{font-size:1.4rem;margin:.2rem 0}
  button{display:block;width:100%;min-height:48px;margin:.75rem 0 0;padding:.7rem 1rem;font:inherit;font-weight:600;border-radius:8px;background:#1d4ed8;color:#fff;border:2px solid #1d4ed8;cursor:pointer}
  button:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}`);

function shell(lang: Lang, title: string, body: SafeHtml, script = ''): string {
  return html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${title}</title><style>${STYLE}</style></head><body><main><div class="card">${body}</div></main>${raw(script)}</body></html>`.toString();
}

/** The page that posts a PSP's 3-D Secure form (its action, its hidden fields) from the shopper's browser. */
export function challengeRelayPage(form: ChallengeForm, lang: Lang): string {
  const t = TEXT[lang].relay;
  const fields = Object.entries(form.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return shell(
    lang,
    t.title,
    html`<h1>${t.title}</h1><p>${t.intro}</p><form id="acs" method="post" action="${form.action}">${fields}<button type="submit">${t.go}</button></form>`,
    `<script>${SUBMIT}</script>`,
  );
}

export function challengeRelayGonePage(lang: Lang): string {
  const t = TEXT[lang].relay;
  return shell(lang, t.goneTitle, html`<h1>${t.goneTitle}</h1><p>${t.gone}</p>`);
}
