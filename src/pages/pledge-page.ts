import { html } from '../html/html.ts';
import { formatDateTime, formatMoney } from '../i18n/format.ts';
import { LOCALE, type Lang } from '../i18n/lang.ts';
import type { Pledge } from '../payments/pledge-repository.ts';
import type { Purchase } from '../purchases/purchase.ts';
import { cardFields } from './card-form.ts';
import { errorSummary, pageTitle, type FormErrors } from './errors.ts';
import { langSwitcher, layout } from './html.ts';
import { TEXT } from './texts.ts';

export interface PledgeView {
  pledge: Pledge;
  purchase: Purchase & { merchantName: string };
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
  /** Shown instead of the form once there is nothing to pay. */
  done?: 'paid' | 'closed' | 'full';
}

/** A pledger's own page: who invites them, for what, their share, the deadline, a card form. */
export function pledgePage(v: PledgeView): string {
  const t = TEXT[v.lang];
  const p = v.purchase;
  const inviter = [p.client.firstName, p.client.lastName].filter(Boolean).join(' ') || p.client.email;
  const share = formatMoney(v.pledge.amountCents, p.currency, v.lang);
  const uid = `plg_${v.pledge.id}`;
  const status =
    v.done === 'paid'
      ? html`<div class="ok" role="status">${t.pledgeThanks}</div><dl class="figures"><div><dt>${t.pledgeCharged}</dt><dd id="pledge-charged">${share}</dd></div></dl><p>${t.pledgeNothingMore}</p>`
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
    <button type="submit">${`${t.pay} ${share}`}</button>
  </form>`;
  const body = html`${langSwitcher(t, v.lang, v.switchBase)}<section class="card">
  <p class="merchant">${t.soldBy} <strong>${p.merchantName}</strong></p>
  <h1>${t.pledgeTitle(inviter)}</h1>
  <p>${t.pledgeFor(p.title, p.merchantName)}</p>
  <p class="amount"><span class="muted" style="font-size:1rem;font-weight:400">${t.pledgeShare}</span> ${share}</p>
  ${v.deadline && !v.done ? html`<p>${t.pledgeDeadline(formatDateTime(v.deadline, v.lang))}</p>` : ''}
</section>
<section class="card" aria-labelledby="pay-title"><h2 id="pay-title">${t.payHeading}</h2>${status}${form}</section>`;
  const stateTitle = t.pageTitles[v.done === 'paid' ? 'pledgePaid' : v.done === 'full' ? 'pledgeFull' : v.done === 'closed' ? 'pledgeClosed' : 'pledge'];
  return layout(LOCALE[v.lang], pageTitle(t, `${stateTitle} · ${p.title}`, v.errors), body).toString();
}

export function pledgeNotFoundPage(lang: Lang): string {
  const t = TEXT[lang];
  return layout(LOCALE[lang], t.pledgeNotFound, html`<section class="card"><h1>${t.pledgeNotFound}</h1></section>`).toString();
}
