import { toPublicId } from '../../../domain/ids.ts';
import { V1_STATE, type V1State } from '../../../domain/purchase-states.ts';
import { html } from '../../../html/html.ts';
import { formatDateTime, formatMoney } from '../../../i18n/format.ts';
import type { Purchase } from '../../../purchases/purchase.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

export const V1_STATES: readonly V1State[] = ['INITIALIZED', 'LEADER_PROCESSED', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED'];

/** The list's filters as typed (shown back in the form). */
export interface PurchaseQuery {
  q: string;
  state: string;
  offer: string;
  from: string;
  to: string;
}

export interface PurchasesView {
  query: PurchaseQuery;
  offers: { merchantUid: string; label: string }[];
  purchases: Purchase[];
  /** Link to the next page (filters kept), when there is one. */
  next?: string;
  /** Whether this is a later page (a link back to the first one then). */
  paged: boolean;
  /** Problems with the filters, each naming its field: nothing is listed then. */
  errors: string[];
}

export function purchasesPage(chrome: Chrome, view: PurchasesView): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const { query } = view;
  // Each row names its offer as the filter does ("Shared pot", "3 installments"): a pot and a 3x plan of one amount look alike otherwise.
  const offerOf = new Map(view.offers.map((o) => [o.merchantUid, o.label]));
  const option = (value: string, label: string, current: string) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  const rows = view.purchases.map(
    (p) => html`<tr>
<td><a href="/dashboard/purchases/${toPublicId('pur', p.id)}">${p.ref ?? toPublicId('pur', p.id).slice(0, 12) + '…'}</a></td>
<td>${p.title}</td>
<td>${offerOf.get(toPublicId('mer', p.offerId)) ?? '—'}</td>
<td>${p.client.email}</td>
<td class="num">${formatMoney(p.amountCents, p.currency, chrome.lang)}</td>
<td><span class="state">${t.stateNames[V1_STATE[p.state]]}</span>${
      // A partial refund leaves the state as it was: the list says it beside the state.
      p.refundedCents > 0 && p.state !== 'REFUNDED' ? html` <span class="muted">${t.partlyRefundedOf(formatMoney(p.refundedCents, p.currency, chrome.lang))}</span>` : ''
    }</td>
<td>${formatDateTime(p.createdAt, chrome.lang, chrome.timeZone)}</td>
</tr>`,
  );
  const body = html`<h1>${t.purchases}</h1>
<form method="get" action="/dashboard/purchases" class="card" role="search" aria-label="${t.filters}">
<div class="filters purchase-filters">
<div><label for="q">${t.search}</label><input id="q" name="q" type="search" value="${query.q}" aria-describedby="q-hint"><span class="muted" id="q-hint">${t.searchHint}</span></div>
<div><label for="state">${t.state}</label><select id="state" name="state">${option('', t.anyState, query.state)}${V1_STATES.map((s) => option(s, t.stateNames[s], query.state))}</select></div>
<div><label for="offer">${t.offer}</label><select id="offer" name="offer">${option('', t.anyOffer, query.offer)}${view.offers.map((o) => option(o.merchantUid, o.label, query.offer))}</select></div>
<div><label for="from">${t.createdFrom}</label><input id="from" name="from" type="date" value="${query.from}"></div>
<div><label for="to">${t.createdTo}</label><input id="to" name="to" type="date" value="${query.to}"></div>
<div><button type="submit">${t.apply}</button></div>
</div>
</form>
${view.errors.length ? html`<div class="alert" role="alert"><h2>${t.errorTitle}</h2><ul>${view.errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ''}
<section class="card" aria-labelledby="results">
<h2 id="results">${t.purchases}</h2>
<p><a href="/dashboard/purchases.csv?${new URLSearchParams({ ...query }).toString()}" download>${t.exportCsv}</a> <span class="muted">${t.exportHint}</span></p>
${
  rows.length
    ? // Focusable, so a keyboard can scroll the table sideways on a phone (WCAG 2.1.1).
      html`<div class="scroll" tabindex="0" role="region" aria-label="${t.purchases}"><table class="list"><thead><tr><th scope="col">${t.reference}</th><th scope="col">${t.title}</th><th scope="col">${t.offer}</th><th scope="col">${t.client}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.state}</th><th scope="col">${t.created}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : html`<p>${t.noPurchase}</p>`
}
<p>${view.paged ? html`<a href="/dashboard/purchases?${new URLSearchParams({ ...query }).toString()}">${t.firstPage}</a> ` : ''}${view.next ? html`<a href="${view.next}" rel="next">${t.next}</a>` : ''}</p>
</section>`;
  return dashboardPage(chrome, t.purchases, body);
}
