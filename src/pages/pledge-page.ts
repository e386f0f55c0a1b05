import { formatDateTime, formatMoney } from '../i18n/format.ts';
import type { Lang } from '../i18n/lang.ts';
import type { Pledge } from '../payments/pot-store.ts';
import type { Purchase } from '../purchases/purchase.ts';
import { cardFields } from './card-form.ts';
import { esc, layout } from './html.ts';
import { TEXT } from './texts.ts';

export interface PledgeView {
  pledge: Pledge;
  purchase: Purchase & { merchantName: string };
  deadline: Date | null;
  lang: Lang;
  csrfToken: string;
  error?: string;
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
      ? `<div class="ok" role="status">${t.pledgeThanks}</div>`
      : v.done === 'full'
        ? `<div class="ok" role="status">${t.pledgeFullText}</div>`
        : v.done === 'closed'
          ? `<div class="alert" role="status">${t.pledgeClosedText}</div>`
          : '';
  const form = v.done
    ? ''
    : `${v.error ? `<div class="alert" role="alert" id="form-error">${esc(v.error)}</div>` : ''}
  <form method="post" action="/pledge/${uid}" id="pledge-form" novalidate>
    <input type="hidden" name="csrf" value="${esc(v.csrfToken)}">
    ${cardFields(t, { holder: v.pledge.name ?? '' })}
    <button type="submit">${esc(`${t.pay} ${share}`)}</button>
  </form>`;
  const body = `<section class="card">
  <p class="merchant">${t.soldBy} <strong>${esc(p.merchantName)}</strong></p>
  <h1>${esc(t.pledgeTitle(inviter))}</h1>
  <p>${esc(t.pledgeFor(p.title, p.merchantName))}</p>
  <p class="amount"><span class="muted" style="font-size:1rem;font-weight:400">${t.pledgeShare}</span> ${esc(share)}</p>
  ${v.deadline && !v.done ? `<p>${esc(t.pledgeDeadline(formatDateTime(v.deadline, v.lang)))}</p>` : ''}
</section>
<section class="card">${status}${form}</section>`;
  return layout(p.language.replace('_', '-'), `${t.pledgeShare} · ${p.title}`, body);
}

export function pledgeNotFoundPage(lang: Lang): string {
  const t = TEXT[lang];
  return layout(lang, t.pledgeNotFound, `<section class="card"><h1>${t.pledgeNotFound}</h1></section>`);
}
