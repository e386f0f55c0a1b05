import type { Offer } from '../accounts/offer.ts';
import { formatIsoDate } from '../domain/dates.ts';
import { creditMentions } from '../domain/credit-mentions.ts';
import { decimalAmount, parseTypedAmount } from '../domain/money.ts';
import { MAX_PLEDGERS } from '../domain/pot.ts';
import { EXPIRED_COMMENT, V1_STATE } from '../domain/purchase-states.ts';
import type { Schedule } from '../domain/schedule.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { formatDate, formatDateTime, formatMoney, formatPercent } from '../i18n/format.ts';
import { LOCALE, type Lang } from '../i18n/lang.ts';
import type { Pledge } from '../payments/pledge-repository.ts';
import { leaderNameNeeded, type Purchase } from '../purchases/purchase.ts';
import type { LeaderResultFigures } from '../payments/result-figures.ts';
import { cardFields } from './card-form.ts';
import { errorSummary, fieldError, invalidAttrs, pageTitle, type FormErrors } from './errors.ts';
import { frameScript, gtuLink, langSwitcher, layout, testModeBanner, type FrameData } from './html.ts';
import { PAGE_LANGS, stateText, TEXT, type Texts } from './texts.ts';

export interface CheckoutView {
  purchase: Purchase & { merchantName: string; merchantTimeZone: string };
  offer: Offer;
  lang: Lang;
  csrfToken: string;
  /** The installment plan (INSTALLMENTS, DEFERRED, DOWN_PAYMENT), computed for the purchase's creation date. */
  schedule?: Schedule;
  /** When the pot would close if the leader paid now (SHARED). */
  potDeadline?: Date;
  /** Friends typed so far, kept when the page is shown again with an error. */
  friends?: { name: string; email: string; phone: string; share: string }[];
  /** After a refused or invalid submit: the message, and each wrong field's own message (by field id). */
  errors?: FormErrors;
  /** The cardholder's name typed, kept when the page is shown again. */
  holder?: string;
  /** The leader's own name typed for the friends (asked when the merchant sent none), kept when the page is shown again. */
  leaderName?: string;
  pledges?: Pledge[];
  /** The cookie-less CSRF token, for when the page is inside the merchant's frame. */
  csrfFrameToken?: string;
  /** Opened by chipin.js (`?embed=1`): after paying, the shopper stays in the frame. */
  embed?: boolean;
  /** The page's query (`?embed=1&lang=fr`), kept in the form's action. */
  query?: string;
  /** The checkout's cancel link: the shop's cancel URL, saying the shopper cancelled (src/delivery/shop-return.ts). */
  cancelUrl?: string;
  /** The status page's "back to the shop" link, carrying the outcome (the result, or the error after a failure). */
  backUrl?: string;
  /** The result or error posted to an embedding page (assets/result.js). */
  frame?: FrameData;
  /** The page's path and query without `lang`, for the language switcher. */
  switchBase?: string;
  /** The status page's figures: charged, held, what comes next. */
  result?: LeaderResultFigures;
  /** The payment runs on a test PSP (the built-in sandbox, or a PSP account in test): the page says so. */
  testMode?: boolean;
  /** After a risk refusal: the offers the rules accept instead (docs/risk.md#the-fallback), one button each. */
  fallbacks?: FallbackChoice[];
}

/** One fallback offer as the page proposes it. */
export interface FallbackChoice {
  merchantUid: string;
  offer: Pick<Offer, 'type' | 'installments'>;
  /** Its schedule for this purchase (INSTALLMENTS, DEFERRED, DOWN_PAYMENT). */
  schedule?: Schedule;
}

/** The button of a fallback: "Pay 300.00 € now" (SHARED, the leader alone), "Pay in 3 installments of 100.00 €", "Pay 300.00 € on 25 Dec 2026". */
function fallbackLabel(t: Texts, lang: Lang, p: { amountCents: number; currency: string }, f: FallbackChoice): string {
  const lines = f.schedule?.INSTALLMENT ?? [];
  const first = lines[0];
  if (f.offer.type === 'SHARED' || !first) return t.fallbackPayNow(formatMoney(p.amountCents, p.currency, lang));
  const due = (l: { amount_cents: number; fees: number }) => l.amount_cents + l.fees;
  if (f.offer.type === 'DEFERRED') return t.fallbackDeferred(formatMoney(due(first), p.currency, lang), formatDate(first.payment_date, lang));
  const balance = lines[1];
  if (f.offer.type === 'DOWN_PAYMENT' && balance) return t.fallbackDownPayment(formatMoney(due(first), p.currency, lang), formatDate(balance.payment_date, lang));
  return t.fallbackInstallments(
    lines.length,
    formatMoney(due(first), p.currency, lang),
    lines.every((l) => due(l) === due(first)),
  );
}

/** One small form per fallback, posting to `/pay/{uid}/switch` with the page's CSRF tokens. */
function fallbackForms(v: CheckoutView, t: Texts): SafeHtml | '' {
  if (!v.fallbacks?.length) return '';
  const uid = `pur_${v.purchase.id}`;
  return html`<section class="fallbacks" id="fallbacks" aria-labelledby="fallbacks-title"><h3 id="fallbacks-title">${t.fallbackLabel}</h3><p>${t.fallbackIntro}</p>
${v.fallbacks.map(
  (f) => html`<form method="post" action="/pay/${uid}/switch${v.query ?? ''}">
  <input type="hidden" name="csrf" value="${v.csrfToken}">
  ${v.csrfFrameToken ? html`<input type="hidden" name="csrf_frame" value="${v.csrfFrameToken}">` : ''}
  <input type="hidden" name="offer" value="${f.merchantUid}">
  <button type="submit" class="secondary" data-fallback="${f.merchantUid}">${fallbackLabel(t, v.lang, v.purchase, f)}</button>
</form>`,
)}
</section>`;
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
  <p><span class="state" role="status">${stateText(t, V1_STATE[p.state], v.offer.type)}</span></p>
</section>${products}`;
}

function explain(v: CheckoutView, t: Texts): SafeHtml | '' {
  const { offer, lang, purchase: p } = v;
  if (offer.type === 'SHARED') return html`<p>${t.sharedExplain(formatDateTime(v.potDeadline!, lang, p.merchantTimeZone))}</p>`;
  const s = v.schedule;
  if (!s) return '';
  if (offer.type === 'DEFERRED') return html`<p>${t.deferredExplain(formatDate(s.INSTALLMENT[0]!.payment_date, lang))}</p>${creditDisclosure(v, s, t)}`;
  // The first line is charged with this payment: "today", not a date to decode.
  const rows = s.INSTALLMENT.map(
    (l, i) =>
      html`<tr><td>${i === 0 ? t.today : formatDate(l.payment_date, lang)}</td><td class="num">${formatMoney(l.amount_cents + l.fees, p.currency, lang)}</td><td class="num">${formatMoney(l.fees, p.currency, lang)}</td></tr>`,
  );
  const [deposit, balance] = s.INSTALLMENT;
  // "With the fees" only when the payment now carries fees: a free deposit or first line has none to mention.
  const withFees = (deposit?.fees ?? 0) > 0;
  const intro =
    offer.type === 'DOWN_PAYMENT' && deposit && balance
      ? t.downPaymentExplain(
          formatMoney(deposit.amount_cents + deposit.fees, p.currency, lang),
          formatMoney(balance.amount_cents, p.currency, lang),
          formatDate(balance.payment_date, lang),
          withFees,
        )
      : t.installmentsExplain(s.INSTALLMENT.length, withFees);
  return html`<p>${intro}</p>
${creditDisclosure(v, s, t)}
<table aria-label="${t.schedule}"><thead><tr><th scope="col">${t.dueDate}</th><th scope="col" class="num">${t.amountFeesIncluded}</th><th scope="col" class="num">${t.fees}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/**
 * The credit's figures (consumer credit: a paid 3x/4x, a deferred payment, a down payment's balance), above the card form
 * and as prominent as the total: amount financed (what is not paid at checkout), fees (the total
 * cost of credit), total amount due, and the fixed APR (TAEG) of the schedule simulation.
 */
function creditFigures(v: { purchase: { amountCents: number }; offer: { type: string } }, s: Schedule): { financed: number; fees: number; total: number; taeg: number } {
  const fees = s.INSTALLMENT.reduce((sum, l) => sum + l.fees, 0);
  const financed = v.offer.type === 'DEFERRED' ? v.purchase.amountCents : v.purchase.amountCents - s.INSTALLMENT[0]!.amount_cents;
  return { financed, fees, total: v.purchase.amountCents + fees, taeg: s.taeg };
}

/**
 * The credit box, for a credit only (domain/credit-mentions.ts: not a free deferred payment): its
 * figures, the statutory warning, the lender and the right of withdrawal where it applies
 * (docs/schedules.md#credit-mentions).
 */
function creditDisclosure(v: CheckoutView, s: Schedule, t: Texts): SafeHtml | '' {
  const { lang, purchase: p } = v;
  const mentions = creditMentions(v.offer, formatIsoDate(p.createdAt), s.INSTALLMENT);
  if (!mentions) return '';
  const f = creditFigures(v, s);
  const item = (label: string, value: string, id: string) => html`<div><dt>${label}</dt><dd id="${id}">${value}</dd></div>`;
  return html`<section class="credit" aria-labelledby="credit-title"><h3 id="credit-title">${t.creditTitle}</h3><dl>
  ${item(t.amountFinanced, formatMoney(f.financed, p.currency, lang), 'credit-financed')}
  ${item(t.creditCost, formatMoney(f.fees, p.currency, lang), 'credit-fees')}
  ${item(t.totalDue, formatMoney(f.total, p.currency, lang), 'credit-total')}
  ${item(t.fixedApr, formatPercent(f.taeg, lang), 'credit-taeg')}
</dl>
<p class="credit-warning" id="credit-warning">${t.creditWarning}</p>
<p id="credit-lender">${t.creditLender(mentions.lender)}</p>
${mentions.withdrawalDays > 0 ? html`<p id="credit-withdrawal">${t.creditWithdrawal(mentions.withdrawalDays)}</p>` : ''}
</section>`;
}

/** Typed friend rows' amounts in the page's locale ("30,00", "30 €"); invalid ones count as nothing. */
function typedShares(v: CheckoutView): number {
  return (v.friends ?? []).reduce((sum, f) => sum + (parseTypedAmount(f.share, v.purchase.currency) ?? 0), 0);
}

function friendRow(t: Texts, i: number, f: { name: string; email: string; phone: string; share: string } | undefined, e: FormErrors | undefined): SafeHtml {
  const input = (name: string, label: string, attrs: SafeHtml, value: string) =>
    html`<div><label for="${name}_${i}">${label}</label>${fieldError(e, `${name}_${i}`)}<input id="${name}_${i}" name="${name}" ${attrs} value="${value}"${invalidAttrs(e, `${name}_${i}`)}></div>`;
  return html`<fieldset class="friend" data-friend>
  <legend>${t.friendLegend(i + 1)}</legend>
  <div class="row">${input('pledger_name', t.friendName, html`maxlength="100" autocomplete="off"`, f?.name ?? '')}
  ${input('pledger_amount', t.friendShare, html`inputmode="decimal" maxlength="16" autocomplete="off"`, f?.share ?? '')}</div>
  <div class="row">${input('pledger_email', t.friendEmail, html`type="email" maxlength="254" autocomplete="off"`, f?.email ?? '')}
  ${input('pledger_phone', t.friendPhone, html`type="tel" maxlength="20" autocomplete="off"`, f?.phone ?? '')}</div>
</fieldset>`;
}

/**
 * The leader's own name, asked when the merchant sent no client name: friends read it in their
 * invitation and on their page ("Léa invites you to chip in"), never the leader's e-mail address
 * (docs/hosted-payment.md#the-leaders-name). Required once a friend is invited (the server says so).
 */
function leaderNameField(v: CheckoutView, t: Texts): SafeHtml | '' {
  if (!leaderNameNeeded(v.purchase)) return '';
  return html`<div class="leader-name"><label for="leader_name">${t.leaderName}</label><p class="muted" id="leader_name_hint">${t.leaderNameHint}</p>${fieldError(v.errors, 'leader_name')}<input id="leader_name" name="leader_name" maxlength="60" autocomplete="name" value="${v.leaderName ?? v.purchase.leaderName ?? ''}"${invalidAttrs(v.errors, 'leader_name', 'leader_name_hint')}></div>`;
}

function friendsEditor(v: CheckoutView, t: Texts): SafeHtml {
  const friends = v.friends?.length ? v.friends : [undefined, undefined];
  const p = v.purchase;
  const mine = Math.max(p.amountCents - typedShares(v), 0);
  return html`<fieldset id="friends" data-amount="${p.amountCents}" data-currency="${p.currency}" data-decimals="${decimalAmount(0, p.currency).split('.')[1]?.length ?? 0}" data-max="${MAX_PLEDGERS}" data-err-shares="${t.invalidShares}" data-legend="${t.friendLegend(0)}">
  <legend>${t.friends}</legend>
  <p class="muted" id="friends-hint">${v.offer.leaderCanPayAlone ? t.friendsHint : `${t.friendRequired} ${t.friendsHint}`}</p>
  ${leaderNameField(v, t)}
  <div id="friend-rows">${friends.map((f, i) => friendRow(t, i, f, v.errors))}</div>
  <button type="button" class="secondary" id="add-friend" hidden>${t.addFriend}</button>
  <button type="button" class="secondary" id="split-evenly" hidden>${t.splitEvenly}</button>
  <p>${t.yourShare}${t.colon} <strong id="leader-share" aria-live="polite">${formatMoney(mine, p.currency, v.lang)}</strong></p>
  <p id="shares-error" class="alert" role="alert" hidden></p>
</fieldset>`;
}

/**
 * The money next to the button (SHARED): what is charged now and what is only held, until when.
 * The script keeps it in step with the shares; without it, it tells what the server last saw.
 */
function moneySummary(v: CheckoutView, t: Texts): SafeHtml | '' {
  if (v.offer.type !== 'SHARED') return '';
  const p = v.purchase;
  const held = Math.min(typedShares(v), p.amountCents);
  const deadline = formatDateTime(v.potDeadline!, v.lang, p.merchantTimeZone);
  const charged = html`<span id="charged-now">${t.chargedNow(formatMoney(p.amountCents - held, p.currency, v.lang))}</span>`;
  const hold = html`<span id="held-until"${held > 0 ? '' : html` hidden`}>${held > 0 ? html` · ${t.heldUntil(formatMoney(held, p.currency, v.lang), deadline)}` : ''}</span>`;
  return html`<p class="money-summary" id="money-summary" data-charged="${t.chargedNow('{amount}')}" data-held="${t.heldUntil('{amount}', deadline)}">${charged}${hold}</p>`;
}

/** What the leader pays now: their share (SHARED), the first installment (the deposit) with fees, or nothing (DEFERRED authorises only). */
function payLabel(v: CheckoutView, t: Texts): string {
  const p = v.purchase;
  if ((v.offer.type === 'INSTALLMENTS' || v.offer.type === 'DOWN_PAYMENT') && v.schedule) {
    const first = v.schedule.INSTALLMENT[0]!;
    return t.payAmount(formatMoney(first.amount_cents + first.fees, p.currency, v.lang));
  }
  if (v.offer.type === 'DEFERRED' && v.schedule) {
    const only = v.schedule.INSTALLMENT[0]!;
    return t.authorise(formatMoney(only.amount_cents + only.fees, p.currency, v.lang), formatDate(only.payment_date, v.lang));
  }
  if (v.offer.type === 'SHARED') return t.payAmount(formatMoney(Math.max(p.amountCents - typedShares(v), 0), p.currency, v.lang));
  return t.payAmount(formatMoney(p.amountCents, p.currency, v.lang));
}

/** The leader's page behind `payment_url`: basket, what the offer means, card form, and for a pot, the friends. */
export function checkoutPage(v: CheckoutView): string {
  const t = TEXT[v.lang];
  const p = v.purchase;
  const uid = `pur_${p.id}`;
  const body = html`${frameScript(v.frame)}${langSwitcher(t, v.lang, v.switchBase, v.embed, PAGE_LANGS)}${testModeBanner(t, v.testMode)}${basket(v, t)}<section class="card" aria-labelledby="pay-title">
  <h2 id="pay-title">${t.payHeading}</h2>
  ${explain(v, t)}
  ${errorSummary(t, v.errors)}
  ${fallbackForms(v, t)}
  <form method="post" action="/pay/${uid}${v.query ?? ''}" id="checkout" novalidate data-pay="${t.payAmount('{amount}')}" data-lang="${v.lang}">
    <input type="hidden" name="csrf" value="${v.csrfToken}">
    ${v.csrfFrameToken ? html`<input type="hidden" name="csrf_frame" value="${v.csrfFrameToken}">` : ''}
    <input type="hidden" name="offer" value="mer_${v.offer.id}">
    ${v.offer.type === 'SHARED' ? friendsEditor(v, t) : ''}
    ${cardFields(t, { holder: v.holder }, v.errors)}
    ${moneySummary(v, t)}
    <button type="submit" id="pay-button">${payLabel(v, t)}</button>
    ${gtuLink(t, v.offer)}
  </form>
  ${v.cancelUrl ? html`<p class="center"><a href="${v.cancelUrl}" id="cancel">${t.cancel}</a></p>` : ''}
</section>`;
  const title = pageTitle(t, `${t.pageTitles.pay} · ${p.title} · ${p.merchantName}`, v.errors);
  return layout(LOCALE[v.lang], title, body, v.frame ? ['/assets/checkout.js', '/assets/result.js'] : '/assets/checkout.js', { stylesheet: v.offer.cssUrl }).toString();
}

/**
 * The status page's money, as the receipt tells it: what was charged to the card, what is held
 * and until when, for a pot what its deadline will take if friends do not pay (the uncovered
 * rest, lowered by each share paid), and the dates still to come (3x/4x, a down payment's balance, the deferred capture).
 */
function resultFigures(v: Omit<CheckoutView, 'csrfToken'>, t: Texts): SafeHtml | '' {
  const r = v.result;
  if (!r || (r.chargedCents === 0 && r.heldCents === 0)) return '';
  const { lang, purchase: p } = v;
  const m = (cents: number) => formatMoney(cents, p.currency, lang);
  const item = (label: string, value: string, id: string) => html`<div><dt>${label}</dt><dd id="${id}">${value}</dd></div>`;
  const deferred = v.offer.type === 'DEFERRED' ? r.upcoming[0] : undefined;
  const heldUntil = r.pot ? formatDateTime(r.pot.deadline, lang, p.merchantTimeZone) : deferred ? formatDate(deferred.dueDate, lang) : undefined;
  const upcoming =
    (v.offer.type === 'INSTALLMENTS' || v.offer.type === 'DOWN_PAYMENT') && r.upcoming.length > 0
      ? html`<table><caption class="caption">${t.resultNext}</caption><thead><tr><th scope="col">${t.dueDate}</th><th scope="col" class="num">${t.amountFeesIncluded}</th></tr></thead><tbody>${r.upcoming.map(
          (l) => html`<tr><td>${formatDate(l.dueDate, lang)}</td><td class="num">${m(l.amountCents)}</td></tr>`,
        )}</tbody></table>`
      : '';
  const nothingMore = !r.pot && r.heldCents === 0 && r.upcoming.length === 0;
  const refunded = r.refundedCents > 0;
  return html`<section class="card" aria-labelledby="result-title"><h2 id="result-title">${t.resultHeading}</h2>
<dl class="figures">
  ${item(t.resultCharged, m(r.chargedCents), 'result-charged')}
  ${refunded ? item(t.resultRefunded, m(r.refundedCents), 'result-refunded') : ''}
  ${refunded ? item(t.resultNet, m(r.chargedCents - r.refundedCents), 'result-net') : ''}
  ${r.heldCents > 0 ? item(heldUntil ? t.resultHeldUntil(heldUntil) : t.resultHeld, m(r.heldCents), 'result-held') : ''}
  ${deferred ? item(t.resultChargedOn(formatDate(deferred.dueDate, lang)), m(deferred.amountCents), 'result-due') : ''}
  ${r.pot ? item(t.resultRest, m(r.pot.restCents), 'result-rest') : ''}
  ${r.pot ? item(t.resultPotCloses, formatDateTime(r.pot.deadline, lang, p.merchantTimeZone), 'result-deadline') : ''}
</dl>
${r.pot ? html`<p>${t.resultRestExplain(m(r.pot.restCents), formatDateTime(r.pot.deadline, lang, p.merchantTimeZone))}</p>` : ''}
${refunded ? paymentsTable(v, t) : ''}
${upcoming}
${nothingMore ? html`<p>${t.resultNothingMore}</p>` : ''}
</section>`;
}

/** Once a refund reached the card: each payment with what it charged, what was refunded of it and the net. */
function paymentsTable(v: Omit<CheckoutView, 'csrfToken'>, t: Texts): SafeHtml {
  const { lang, purchase: p } = v;
  const m = (cents: number) => formatMoney(cents, p.currency, lang);
  const purposes = v.offer.type === 'DOWN_PAYMENT' ? { ...t.resultPurposes, ...t.resultDownPaymentPurposes } : t.resultPurposes;
  const rows = v.result!.payments.map(
    (x) =>
      html`<tr><td>${purposes[x.purpose] ?? t.resultPayment}</td><td>${formatDateTime(x.createdAt, lang, p.merchantTimeZone)}</td><td class="num">${m(x.chargedCents)}</td><td class="num">${m(x.refundedCents)}</td><td class="num">${m(x.chargedCents - x.refundedCents)}</td></tr>`,
  );
  return html`<table><caption class="caption">${t.resultPayments}</caption><thead><tr><th scope="col">${t.resultPayment}</th><th scope="col">${t.resultPaymentDate}</th><th scope="col" class="num">${t.resultPaymentCharged}</th><th scope="col" class="num">${t.resultPaymentRefunded}</th><th scope="col" class="num">${t.resultPaymentNet}</th></tr></thead><tbody>${rows}</tbody></table>`;
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
    : state === 'LEADER_PROCESSED'
      ? v.offer.type === 'SHARED'
        ? t.doneShared
        : // A 3x/4x or a deposit was charged, not only authorised: the page says what was (a deferred payment's hold is authorised).
          (v.offer.type === 'INSTALLMENTS' || v.offer.type === 'DOWN_PAYMENT') && v.result && v.result.chargedCents > 0
          ? t.doneCharged(formatMoney(v.result.chargedCents, p.currency, v.lang))
          : stateText(t, state, v.offer.type)
      : state === 'SUCCESSFUL'
        ? t.doneSuccessful
        : state === 'FAILED'
          ? t.doneFailed
          : t.states[state];
  const pledges = (v.pledges ?? []).filter((x) => x.state !== 'draft');
  const pot = pledges.length
    ? html`<section class="card" aria-labelledby="pot"><h2 id="pot">${t.pot}</h2><table><thead><tr><th scope="col">${t.potFriend}</th><th scope="col" class="num">${t.potShare}</th><th scope="col" class="num">${t.potStatus}</th></tr></thead><tbody>${pledges.map(
        (x) =>
          html`<tr><td><a href="${pledgeUrl(x.id)}">${x.name ?? x.email ?? x.phoneNumber ?? ''}</a></td><td class="num">${formatMoney(x.amountCents, p.currency, v.lang)}</td><td class="num">${
            x.state === 'paid' ? t.pledgePaid : x.state === 'closed' ? t.pledgeClosed : t.pledgeWaiting
          }</td></tr>`,
      )}</tbody></table></section>`
    : '';
  const ok = state === 'LEADER_PROCESSED' || state === 'SUCCESSFUL';
  const body = html`${frameScript(v.frame)}${langSwitcher(t, v.lang, v.switchBase, v.embed, PAGE_LANGS)}${testModeBanner(t, v.testMode)}${basket(v, t)}
<section class="card">
  <div class="${ok ? 'ok' : 'alert'}" role="status"><strong>${ok ? t.doneTitle : ''}</strong> ${message}</div>
</section>${resultFigures(v, t)}${pot}
${p.callbackUrl && !v.embed ? html`<p><a class="button" href="${v.backUrl ?? p.callbackUrl}">${t.backToShop}</a></p>` : ''}`;
  const title = `${t.pageTitles[expired ? 'EXPIRED' : state] ?? t.states[state]} · ${p.title} · ${p.merchantName}`;
  return layout(LOCALE[v.lang], title, body, v.frame ? '/assets/result.js' : undefined, { stylesheet: v.offer.cssUrl }).toString();
}

/**
 * "Your payment is being confirmed": reloads `statusUrl` every 2 s until the attempt's outcome is
 * known, by script with a button that pauses it (WCAG 2.2.1), or without script by a refresh;
 * `minutesLeft`, when given, says how long the wait can last (a friend's payment waits for its
 * reservation's end: docs/hosted-payment.md#an-attempt-in-progress).
 */
export function confirmingPage(lang: Lang, statusUrl: string, stylesheet?: string | null, minutesLeft?: number): string {
  const t = TEXT[lang];
  const upTo = minutesLeft === undefined ? '' : html` ${t.confirmingUpTo(minutesLeft)}`;
  const body = html`<section class="card" id="confirming" data-status="${statusUrl}" data-seconds="2"><h1>${t.confirmingTitle}</h1><p role="status">${t.confirming}${upTo}</p>
<p><button type="button" class="secondary" id="confirming-pause" hidden data-pause="${t.confirmingPause}" data-resume="${t.confirmingResume}">${t.confirmingPause}</button> <a href="${statusUrl}">${t.confirmingCheck}</a></p></section>`;
  return layout(LOCALE[lang], t.confirmingTitle, body, '/assets/confirming.js', {
    refresh: { seconds: 2, url: statusUrl },
    stylesheet: stylesheet ?? null,
  }).toString();
}

export function notFoundPage(lang: Lang): string {
  const t = TEXT[lang];
  return layout(LOCALE[lang], t.notFoundTitle, html`<section class="card"><h1>${t.notFoundTitle}</h1><p>${t.notFound}</p></section>`).toString();
}
