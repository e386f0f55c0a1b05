import { html, type SafeHtml } from '../html/html.ts';
import { formatDateTime, formatMoney } from '../i18n/format.ts';
import { LOCALE, type Lang } from '../i18n/lang.ts';
import type { Pledge } from '../payments/pledge-repository.ts';
import { leaderDisplayName, type Purchase } from '../purchases/purchase.ts';
import { cardFields } from './card-form.ts';
import { errorSummary, pageTitle, type FormErrors } from './errors.ts';
import { gtuLink, langSwitcher, layout, testModeBanner, type MerchantPageSettings } from './html.ts';
import { PAGE_LANGS, TEXT, type Texts } from './texts.ts';

export interface PledgeView {
  pledge: Pledge;
  purchase: Purchase & { merchantName: string; merchantTimeZone: string };
  deadline: Date | null;
  lang: Lang;
  csrfToken: string;
  /** The cookie-less CSRF token, for when the page is inside the merchant's frame. */
  csrfFrameToken?: string;
  /** After a refused or invalid submit: the message, and each wrong field's own message. */
  errors?: FormErrors;
  /** The cardholder's name typed, kept when the page is shown again. */
  holder?: string;
  /** The page's path without `lang`, for the language switcher. */
  switchBase?: string;
  /** What refunds gave back of the pledge's payment (shown with the net once there is some). */
  refundedCents?: number;
  /** Shown instead of the form once there is nothing to pay. */
  done?: 'paid' | 'closed' | 'full';
  /** The share is paid on a test PSP (the built-in sandbox, or a PSP account in test): the page says so. */
  testMode?: boolean;
  /** The offer's stylesheet and terms' link (docs/back-office.md#merchant-parameters-of-the-original-interface). */
  offer?: MerchantPageSettings;
}

/** A pledger's own page: who invites them, for what, their share, the deadline, a card form. */
export function pledgePage(v: PledgeView): string {
  const t = TEXT[v.lang];
  const p = v.purchase;
  const inviter = leaderDisplayName(p);
  const share = formatMoney(v.pledge.amountCents, p.currency, v.lang);
  const uid = `plg_${v.pledge.id}`;
  const status =
    v.done === 'paid'
      ? html`<div class="ok" role="status">${t.pledgeThanks}</div><dl class="figures"><div><dt>${t.pledgeCharged}</dt><dd id="pledge-charged">${share}</dd></div>${refundFigures(v, t)}</dl><p>${t.pledgeNothingMore}</p>`
      : v.done === 'full'
        ? html`<div class="ok" role="status">${t.pledgeFullText}</div>`
        : v.done === 'closed'
          ? html`<div class="alert" role="status">${t.pledgeClosedText}</div>`
          : '';
  const form = v.done
    ? ''
    : html`${errorSummary(t, v.errors)}
  <form method="post" action="/pledge/${uid}?lang=${v.lang}" id="pledge-form" novalidate>
    <input type="hidden" name="csrf" value="${v.csrfToken}">
    ${v.csrfFrameToken ? html`<input type="hidden" name="csrf_frame" value="${v.csrfFrameToken}">` : ''}
    ${cardFields(t, { holder: v.holder ?? v.pledge.name ?? '' }, v.errors)}
    <button type="submit">${t.payAmount(share)}</button>
    ${gtuLink(t, v.offer)}
  </form>`;
  const body = html`${langSwitcher(t, v.lang, v.switchBase, false, PAGE_LANGS)}${testModeBanner(t, v.testMode)}<section class="card">
  <p class="merchant">${t.soldBy} <strong>${p.merchantName}</strong></p>
  <h1>${v.done === 'paid' ? t.pledgePaidTitle(inviter) : t.pledgeTitle(inviter)}</h1>
  <p>${t.pledgeFor(p.title, p.merchantName)}</p>
  <p class="amount"><span class="muted" style="font-size:1rem;font-weight:400">${t.pledgeShare}</span> ${share}</p>
  ${v.deadline && !v.done ? html`<p>${t.pledgeDeadline(formatDateTime(v.deadline, v.lang, p.merchantTimeZone))}</p>` : ''}
</section>
<section class="card" aria-labelledby="pay-title"><h2 id="pay-title">${t.payHeading}</h2>${status}${form}</section>`;
  const stateTitle = t.pageTitles[v.done === 'paid' ? 'pledgePaid' : v.done === 'full' ? 'pledgeFull' : v.done === 'closed' ? 'pledgeClosed' : 'pledge'];
  return layout(LOCALE[v.lang], pageTitle(t, `${stateTitle} · ${p.title}`, v.errors), body, undefined, { stylesheet: v.offer?.cssUrl }).toString();
}

/** A share partly or fully refunded: what came back to the card and what the pledger paid in the end. */
function refundFigures(v: PledgeView, t: Texts): SafeHtml | '' {
  const refunded = v.refundedCents ?? 0;
  if (refunded <= 0) return '';
  const m = (cents: number) => formatMoney(cents, v.purchase.currency, v.lang);
  return html`<div><dt>${t.resultRefunded}</dt><dd id="pledge-refunded">${m(refunded)}</dd></div><div><dt>${t.resultNet}</dt><dd id="pledge-net">${m(v.pledge.amountCents - refunded)}</dd></div>`;
}

export function pledgeNotFoundPage(lang: Lang): string {
  const t = TEXT[lang];
  return layout(LOCALE[lang], t.pledgeNotFound, html`<section class="card"><h1>${t.pledgeNotFound}</h1></section>`).toString();
}
