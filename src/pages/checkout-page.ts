import type { Offer } from '../accounts/offers.ts';
import { decimalAmount } from '../domain/money.ts';
import { MAX_PLEDGERS } from '../domain/pot.ts';
import { EXPIRED_COMMENT, V1_STATE } from '../domain/purchase-states.ts';
import type { Schedule } from '../domain/schedule.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { formatDate, formatDateTime, formatMoney } from '../i18n/format.ts';
import type { Lang } from '../i18n/lang.ts';
import type { Pledge } from '../payments/pledge-repository.ts';
import type { Purchase } from '../purchases/purchase.ts';
import { cardFields } from './card-form.ts';
import { frameScript, layout, type FrameData } from './html.ts';
import { TEXT, type Texts } from './texts.ts';

export interface CheckoutView {
  purchase: Purchase & { merchantName: string };
  offer: Offer;
  lang: Lang;
  csrfToken: string;
  /** The installment plan (INSTALLMENTS, DEFERRED), computed for the purchase's creation date. */
  schedule?: Schedule;
  /** When the pot would close if the leader paid now (SHARED). */
  potDeadline?: Date;
  /** Friends typed so far, kept when the page is shown again with an error. */
  friends?: { name: string; email: string; phone: string; share: string }[];
  error?: string;
  /** Fields the error is about, marked aria-invalid. */
  invalid?: string[];
  pledges?: Pledge[];
  /** The cookie-less CSRF token, for when the page is inside the merchant's frame. */
  csrfFrameToken?: string;
  /** Opened by chipin.js (`?embed=1`): after paying, the shopper stays in the frame. */
  embed?: boolean;
  /** The page's query (`?embed=1&lang=fr`), kept in the form's action. */
  query?: string;
  /** The status page's "back to the shop" link, carrying the outcome (`error` JWT after a failure). */
  backUrl?: string;
  /** The result or error posted to an embedding page (assets/result.js). */
  frame?: FrameData;
}

function basket(v: Omit<CheckoutView, 'csrfToken'>, t: Texts): SafeHtml {
  const p = v.purchase;
  const products = p.products.length
    ? html`<section class="card" aria-labelledby="basket"><h2 id="basket">${t.basket}</h2><table>${p.products.map(
        (x) => html`<tr><td>${x.label ?? x.ref ?? ''}</td><td class="num">${formatMoney(x.amount, x.currency, v.lang)}</td></tr>`,
      )}</table></section>`
    : '';
  return html`
<section class="card">
  <p class="merchant">${t.soldBy} <strong>${p.merchantName}</strong></p>
  ${p.pictureUrl ? html`<img class="picture" src="${p.pictureUrl}" alt="">` : ''}
  <h1>${p.title}</h1>
  ${p.subtitle ? html`<p class="muted">${p.subtitle}</p>` : ''}
  ${p.description ? html`<p>${p.description}</p>` : ''}
  <p class="amount"><span class="muted" style="font-size:1rem;font-weight:400">${t.total}</span> ${formatMoney(p.amountCents, p.currency, v.lang)}</p>
  <p><span class="state" role="status">${t.states[V1_STATE[p.state]]}</span></p>
</section>${products}`;
}

function explain(v: CheckoutView, t: Texts): SafeHtml | '' {
  const { offer, lang, purchase: p } = v;
  if (offer.type === 'SHARED') return html`<p>${t.sharedExplain(formatDateTime(v.potDeadline!, lang))}</p>`;
  const s = v.schedule;
  if (!s) return '';
  if (offer.type === 'DEFERRED') return html`<p>${t.deferredExplain(formatDate(s.INSTALLMENT[0]!.payment_date, lang))}</p>`;
  const rows = s.INSTALLMENT.map(
    (l) =>
      html`<tr><td>${formatDate(l.payment_date, lang)}</td><td class="num">${formatMoney(l.amount_cents + l.fees, p.currency, lang)}</td><td class="num">${formatMoney(l.fees, p.currency, lang)}</td></tr>`,
  );
  return html`<p>${t.installmentsExplain(s.INSTALLMENT.length)}</p>
<table aria-label="${t.schedule}"><thead><tr><th scope="col">${t.dueDate}</th><th scope="col" class="num">${t.amount}</th><th scope="col" class="num">${t.fees}</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">${t.taeg(s.taeg.toFixed(2))}</p>`;
}

function friendRow(t: Texts, i: number, f: { name: string; email: string; phone: string; share: string } | undefined, invalid: Set<string>): SafeHtml {
  const inv = (name: string) => (invalid.has(`${name}_${i}`) ? html` aria-invalid="true"` : '');
  return html`<div class="friend" data-friend>
  <div class="row"><div><label for="pledger_name_${i}">${t.friendName}</label><input id="pledger_name_${i}" name="pledger_name" maxlength="100" autocomplete="off" value="${f?.name ?? ''}"></div>
  <div><label for="pledger_amount_${i}">${t.friendShare}</label><input id="pledger_amount_${i}" name="pledger_amount" inputmode="decimal" maxlength="16" value="${f?.share ?? ''}"${inv('pledger_amount')}></div></div>
  <div class="row"><div><label for="pledger_email_${i}">${t.friendEmail}</label><input id="pledger_email_${i}" name="pledger_email" type="email" maxlength="254" autocomplete="off" value="${f?.email ?? ''}"${inv('pledger_email')}></div>
  <div><label for="pledger_phone_${i}">${t.friendPhone}</label><input id="pledger_phone_${i}" name="pledger_phone" type="tel" maxlength="20" autocomplete="off" value="${f?.phone ?? ''}"${inv('pledger_email')}></div></div>
</div>`;
}

function friendsEditor(v: CheckoutView, t: Texts): SafeHtml {
  const invalid = new Set(v.invalid ?? []);
  const friends = v.friends?.length ? v.friends : [undefined, undefined];
  const p = v.purchase;
  return html`<fieldset id="friends" data-amount="${p.amountCents}" data-currency="${p.currency}" data-decimals="${decimalAmount(0, p.currency).split('.')[1]?.length ?? 0}" data-max="${MAX_PLEDGERS}" data-err-shares="${t.invalidShares}">
  <legend>${t.friends}</legend>
  <p class="muted">${t.friendsHint}</p>
  <div id="friend-rows">${friends.map((f, i) => friendRow(t, i, f, invalid))}</div>
  <button type="button" class="secondary" id="add-friend" hidden>${t.addFriend}</button>
  <button type="button" class="secondary" id="split-evenly" hidden>${t.splitEvenly}</button>
  <p>${t.yourShare}: <strong id="leader-share" aria-live="polite">${formatMoney(p.amountCents, p.currency, v.lang)}</strong></p>
  <p id="shares-error" class="alert" role="alert" hidden></p>
</fieldset>`;
}

/** What the leader pays now: their share (SHARED), the first installment with fees, or nothing (DEFERRED authorises only). */
function payLabel(v: CheckoutView, t: Texts): string {
  const p = v.purchase;
  if (v.offer.type === 'INSTALLMENTS' && v.schedule) {
    const first = v.schedule.INSTALLMENT[0]!;
    return `${t.pay} ${formatMoney(first.amount_cents + first.fees, p.currency, v.lang)}`;
  }
  return `${t.pay} ${formatMoney(p.amountCents, p.currency, v.lang)}`;
}

/** The leader's page behind `payment_url`: basket, what the offer means, card form, and for a pot, the friends. */
export function checkoutPage(v: CheckoutView): string {
  const t = TEXT[v.lang];
  const p = v.purchase;
  const uid = `pur_${p.id}`;
  const body = html`${frameScript(v.frame)}${basket(v, t)}<section class="card" aria-labelledby="pay-title">
  <h2 id="pay-title" hidden>${t.pay}</h2>
  ${explain(v, t)}
  ${v.error ? html`<div class="alert" role="alert" id="form-error">${v.error}</div>` : ''}
  <form method="post" action="/pay/${uid}${v.query ?? ''}" id="checkout" novalidate data-pay-label="${t.pay}" data-lang="${v.lang}">
    <input type="hidden" name="csrf" value="${v.csrfToken}">
    ${v.csrfFrameToken ? html`<input type="hidden" name="csrf_frame" value="${v.csrfFrameToken}">` : ''}
    ${v.offer.type === 'SHARED' ? friendsEditor(v, t) : ''}
    ${cardFields(t)}
    <button type="submit" id="pay-button">${payLabel(v, t)}</button>
  </form>
  ${p.cancelUrl ? html`<p class="center"><a href="${p.cancelUrl}">${t.cancel}</a></p>` : ''}
</section>`;
  return layout(p.language.replace('_', '-'), `${p.title} · ${p.merchantName}`, body, v.frame ? ['/assets/checkout.js', '/assets/result.js'] : '/assets/checkout.js').toString();
}

/** After the leader's payment, or for a purchase that is no longer payable: where it stands. */
export function purchaseStatusPage(v: Omit<CheckoutView, 'csrfToken'>, pledgeUrl: (id: string) => string): string {
  const t = TEXT[v.lang];
  const p = v.purchase;
  const state = V1_STATE[p.state];
  // An expired purchase says so: its shopper otherwise reads a bare "Cancelled".
  const expired = p.state === 'CANCELLED' && p.comment === EXPIRED_COMMENT;
  const message = expired
    ? t.expiredPurchase
    : state === 'LEADER_PROCESSED' ? (v.offer.type === 'SHARED' ? t.doneShared : t.states.LEADER_PROCESSED) : state === 'SUCCESSFUL' ? t.doneSuccessful : state === 'FAILED' ? t.doneFailed : t.states[state];
  const pledges = (v.pledges ?? []).filter((x) => x.state !== 'draft');
  const pot = pledges.length
    ? html`<section class="card" aria-labelledby="pot"><h2 id="pot">${t.pot}</h2><table>${pledges.map(
        (x) =>
          html`<tr><td><a href="${pledgeUrl(x.id)}">${x.name ?? x.email ?? x.phoneNumber ?? ''}</a></td><td class="num">${formatMoney(x.amountCents, p.currency, v.lang)}</td><td class="num">${
            x.state === 'paid' ? t.pledgePaid : x.state === 'closed' ? t.pledgeClosed : t.pledgeWaiting
          }</td></tr>`,
      )}</table></section>`
    : '';
  const ok = state === 'LEADER_PROCESSED' || state === 'SUCCESSFUL';
  const body = html`${frameScript(v.frame)}${basket(v, t)}
<section class="card">
  <div class="${ok ? 'ok' : 'alert'}" role="status"><strong>${ok ? t.doneTitle : ''}</strong> ${message}</div>
  ${p.callbackUrl && !v.embed ? html`<a class="button" href="${v.backUrl ?? p.callbackUrl}">${t.backToShop}</a>` : ''}
</section>${pot}`;
  return layout(p.language.replace('_', '-'), `${p.title} · ${p.merchantName}`, body, v.frame ? '/assets/result.js' : undefined).toString();
}

export function notFoundPage(lang: Lang): string {
  const t = TEXT[lang];
  return layout(lang, t.notFoundTitle, html`<section class="card"><h1>${t.notFoundTitle}</h1><p>${t.notFound}</p></section>`).toString();
}
