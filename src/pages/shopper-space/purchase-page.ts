import { html, type SafeHtml } from '../../html/html.ts';
import { formatDate, formatDateTime, formatMoney, formatPercent } from '../../i18n/format.ts';
import type { Lang } from '../../i18n/lang.ts';
import type { SpacePurchaseView } from '../../shopper-space/purchase-view.ts';
import { TEXT } from '../texts.ts';
import { spaceLayout } from './layout.ts';
import { dateLine, roleLine, stateLabel } from './purchases-page.ts';
import { SPACE_TEXT, type SpaceTexts } from './texts.ts';

/**
 * One purchase of the shopper's space: for its leader, the plan (each payment's date, amount and
 * state), the card it is charged to and the credit's cost; for a pledger, their share and the pot;
 * for both, the shop and the receipts sent to them. Readable without script: receipts fold with
 * `<details>`. `top`, right under the purchase's summary (in a phone's first screen): what the
 * leader's last action did and each refused installment with its action; `extra`: the other actions.
 */
export function purchasePage(
  lang: Lang,
  v: { who: string; csrf: string; view: SpacePurchaseView; pledgeUrl?: string; switchBase: string; top?: SafeHtml; extra?: SafeHtml },
): string {
  const t = SPACE_TEXT[lang];
  const p = v.view;
  const overdue = p.role === 'leader' && p.plan.some((l) => l.state === 'refused');
  const m = (cents: number) => formatMoney(cents, p.currency, lang);
  const body = html`<p><a href="/space">${t.backToList}</a></p>
<section class="card">
  <p class="merchant">${t.soldBy(p.merchantName)}</p>
  <h1>${p.title}</h1>
  <p class="amount">${m(p.amountCents)}</p>
  <p><span class="state${overdue ? ' overdue' : ''}">${stateLabel(lang, { state: p.state, offerType: p.offerType, overdue })}</span> · ${roleLine(lang, p)}</p>
  <p class="muted">${dateLine(lang, p, formatDateTime(p.createdAt, lang, p.timeZone))}</p>
</section>
${v.top ?? ''}
${p.role === 'leader' && p.offerType !== 'SHARED' ? planSection(lang, t, v.view) : ''}
${p.credit ? creditSection(lang, v.view) : ''}
${p.pledge ? shareSection(lang, t, v.view, v.pledgeUrl) : ''}
${p.pot ? potSection(lang, t, v.view) : ''}
${v.extra ?? ''}
${receiptsSection(lang, t, v.view)}
<section class="card" aria-labelledby="shop-title"><h2 id="shop-title">${t.shopTitle}</h2>
  <p><strong>${p.merchantName}</strong>${p.merchantSite ? html` · <a href="${p.merchantSite}" rel="noopener noreferrer">${t.shopSite}</a>` : ''}</p>
  <p class="muted">${t.shopContact}</p>
</section>`;
  return spaceLayout(lang, `${p.title} · ${p.merchantName}`, body, { signedIn: { who: v.who, csrf: v.csrf }, switchBase: v.switchBase });
}

function planSection(lang: Lang, t: SpaceTexts, p: SpacePurchaseView): SafeHtml {
  const m = (cents: number) => formatMoney(cents, p.currency, lang);
  const rows = p.plan.map(
    (l) =>
      html`<tr><td>${(p.offerType === 'DOWN_PAYMENT' && t.planDownPayment[l.number - 1]) || `${l.number}/${p.plan.length}`}</td><td>${formatDate(l.dueDate, lang)}</td><td class="num">${m(l.amountCents)}</td><td><span class="state">${t.planStates[l.state] ?? l.state}</span>${l.retryOn ? html`<br><span class="hint">${t.retryOn(formatDate(l.retryOn, lang))}</span>` : ''}</td></tr>`,
  );
  return html`<section class="card" aria-labelledby="plan-title"><h2 id="plan-title">${t.planTitle}</h2>
  ${
    p.plan.length === 0
      ? html`<p>${t.planEmpty}</p>`
      : html`<table id="plan"><thead><tr><th scope="col">${t.planNumber}</th><th scope="col">${t.planDate}</th><th scope="col" class="num">${t.planAmount}</th><th scope="col">${t.planState}</th></tr></thead><tbody>${rows}</tbody></table>`
  }
  ${p.card ? html`<p id="card">${t.cardLine(brandLabel(p.card.brand), p.card.last4.replace(/\D/g, '').slice(-4))}</p>` : ''}
</section>`;
}

/** `visa` → `Visa`, as the receipts write it; an unknown brand is left out. */
function brandLabel(brand: string): string {
  const b = brand.trim().slice(0, 20);
  return !b || b.toLowerCase() === 'unknown' ? '' : b.charAt(0).toUpperCase() + b.slice(1);
}

function creditSection(lang: Lang, p: SpacePurchaseView): SafeHtml | '' {
  const c = p.credit;
  if (!c) return '';
  const h = TEXT[lang];
  const m = (cents: number) => formatMoney(cents, p.currency, lang);
  return html`<section class="card credit" aria-labelledby="credit-title"><h2 id="credit-title" style="font-size:1.05rem">${h.creditTitle}</h2>
  <dl>
    <div><dt>${h.amountFinanced}</dt><dd>${m(c.financedCents)}</dd></div>
    <div><dt>${h.creditCost}</dt><dd id="credit-cost">${m(c.feesCents)}</dd></div>
    <div><dt>${h.totalDue}</dt><dd>${m(c.totalDueCents)}</dd></div>
    <div><dt>${h.fixedApr}</dt><dd id="taeg">${formatPercent(c.taegPercent, lang)}</dd></div>
  </dl>
  ${c.mentions ? html`<p class="credit-warning">${h.creditWarning}</p><p>${h.creditLender(c.mentions.lender)}</p>${c.mentions.withdrawalDays > 0 ? html`<p>${h.creditWithdrawal(c.mentions.withdrawalDays)}</p>` : ''}` : ''}
</section>`;
}

function shareSection(lang: Lang, t: SpaceTexts, p: SpacePurchaseView, pledgeUrl: string | undefined): SafeHtml | '' {
  const s = p.pledge;
  if (!s) return '';
  return html`<section class="card" aria-labelledby="share-title"><h2 id="share-title">${t.shareTitle}</h2>
  <p class="amount" id="share">${formatMoney(s.amountCents, p.currency, lang)}</p>
  <p><span class="state">${t.pledgeStates[s.state] ?? s.state}</span>${s.paidAt ? html` · ${t.paidOn(formatDateTime(s.paidAt, lang, p.timeZone))}` : ''}</p>
  ${s.state === 'invited' && pledgeUrl ? html`<p><a class="button" href="${pledgeUrl}">${t.payShare}</a></p>` : ''}
</section>`;
}

function potSection(lang: Lang, t: SpaceTexts, p: SpacePurchaseView): SafeHtml | '' {
  const pot = p.pot;
  if (!pot) return '';
  const m = (cents: number) => formatMoney(cents, p.currency, lang);
  const label = t.potCollected(m(pot.collectedCents), m(pot.pledgedCents));
  return html`<section class="card" aria-labelledby="pot-title"><h2 id="pot-title">${t.potTitle}</h2>
  <p id="pot-progress">${label}</p>
  <progress class="progress" max="${pot.pledgedCents}" value="${pot.collectedCents}" aria-label="${label}"></progress>
  <p>${t.potFriends(pot.paidFriends, pot.friends)}</p>
  ${pot.deadline ? html`<p id="pot-deadline">${t.potDeadline(formatDateTime(pot.deadline, lang, p.timeZone))}</p>` : ''}
</section>`;
}

function receiptsSection(lang: Lang, t: SpaceTexts, p: SpacePurchaseView): SafeHtml {
  return html`<section class="card" aria-labelledby="receipts-title"><h2 id="receipts-title">${t.receiptsTitle}</h2>
  ${
    p.receipts.length === 0
      ? html`<p>${t.receiptsEmpty}</p>`
      : p.receipts.map(
          (r) =>
            html`<details class="receipt"><summary>${r.subject ?? 'SMS'} — ${t.sentOn(formatDateTime(r.sentAt, lang, p.timeZone))}</summary><pre style="white-space:pre-wrap;font:inherit">${r.body}</pre></details>`,
        )
  }
</section>`;
}
