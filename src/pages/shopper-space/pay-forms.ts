import { html, type SafeHtml } from '../../html/html.ts';
import { formatDate, formatMoney } from '../../i18n/format.ts';
import type { Lang } from '../../i18n/lang.ts';
import { cardFields } from '../card-form.ts';
import { TEXT } from '../texts.ts';
import { SPACE_TEXT } from './texts.ts';

/**
 * The leader's actions on a plan in their space (docs/shopper-space.md#paying-from-the-space). At
 * the top of the page: what the last one did (`?done=`, `?problem=`), focused on load (`autofocus`
 * on a `tabindex="-1"` box, so without script too), then each refused installment still to collect,
 * with its next try and its "pay now". Further down: "repay the rest" and the card change form.
 * Plain form posts with the session's CSRF token, no script.
 */

export interface PayFormsInput {
  uid: string;
  csrf: string;
  currency: string;
  /** Each refused installment still to collect; with its plan line's due date ('yyyy-mm-dd'), the plan's length, and its next try when one is recorded. */
  refused: { id: string; number: number; amountCents: number; dueDate?: string; total?: number; retryOn?: string }[];
  repayCents?: number;
  cardChange: boolean;
  /** A down payment: its one line left is the balance. */
  downPayment?: true;
  done?: string;
  problem?: string;
}

/** `top`: for the top of the page (what the last action did, the refused installments); `section`: the other actions. */
export function payForms(lang: Lang, v: PayFormsInput): { top?: SafeHtml; section?: SafeHtml } {
  const t = SPACE_TEXT[lang].pay;
  const m = (cents: number) => formatMoney(cents, v.currency, lang);
  const base = `/space/purchases/${v.uid}`;
  const done = v.done ? t.done[v.done] : undefined;
  const problem = !done && v.problem ? t.problem[v.problem] : undefined;
  const csrf = html`<input type="hidden" name="csrf" value="${v.csrf}">`;
  const result = done
    ? html`<div class="ok" role="status" id="pay-result" tabindex="-1" autofocus><strong>${done}</strong></div>`
    : problem
      ? html`<div class="alert" role="alert" id="pay-result" tabindex="-1" autofocus><strong>${problem}</strong></div>`
      : '';
  const refused = v.refused.map(
    (i) => html`<section class="alert overdue" aria-labelledby="overdue-${i.number}-title" id="overdue-${i.number}">
  <h2 id="overdue-${i.number}-title" style="font-size:1.05rem;margin:0 0 .4rem">${v.downPayment ? t.refusedBalanceTitle : t.refusedTitle(i.number, i.total ?? i.number)}</h2>
  ${i.dueDate ? html`<p style="margin:0 0 .4rem">${t.refusedDue(m(i.amountCents), formatDate(i.dueDate, lang))}${i.retryOn ? html` ${t.retryOn(formatDate(i.retryOn, lang))}` : ''}</p>` : ''}
  <form method="post" action="${base}/installments/${i.id}/pay" style="margin:0">${csrf}<button class="button" type="submit">${v.downPayment ? t.payBalance(m(i.amountCents)) : t.payNow(i.number, m(i.amountCents))}</button></form>
</section>`,
  );
  const top = result || refused.length > 0 ? html`${result}${refused}` : undefined;
  // A refused balance is paid by its own button above; "pay the balance now" is for one not yet due.
  const repay = v.repayCents !== undefined && !(v.downPayment && v.refused.length > 0) ? v.repayCents : undefined;
  if (repay === undefined && !v.cardChange) return top ? { top } : {};
  const section = html`<section class="card" aria-labelledby="pay-title" id="pay"><h2 id="pay-title">${t.title}</h2>
  ${
    repay !== undefined
      ? html`<form method="post" action="${base}/repay">${csrf}<button class="button" type="submit">${v.downPayment ? t.payBalance(m(repay)) : t.repay(m(repay))}</button></form>`
      : ''
  }
  ${
    v.cardChange
      ? html`<details><summary>${t.changeTitle}</summary><form method="post" action="${base}/card">${csrf}${cardFields(TEXT[lang])}<button class="button" type="submit">${t.changeCard}</button></form></details>`
      : ''
  }
</section>`;
  return { ...(top ? { top } : {}), section };
}
