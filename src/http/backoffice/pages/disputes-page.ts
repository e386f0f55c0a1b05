import { toPublicId } from '../../../domain/ids.ts';
import { html } from '../../../html/html.ts';
import { formatDateTime, formatMoney } from '../../../i18n/format.ts';
import type { DisputeListRow } from '../../../payments/dispute-repository.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { dashboardPage, type Chrome } from './layout.ts';

/** The account's open disputes, nearest evidence deadline first (docs/money-operations.md#disputes). */
export function disputesPage(chrome: Chrome, view: { disputes: DisputeListRow[]; next?: string; error?: string }): string {
  const t = DASHBOARD_TEXT[chrome.lang].disputes;
  const when = (date: Date | null) => (date ? formatDateTime(date, chrome.lang, chrome.timeZone) : t.noDeadline);
  const rows = view.disputes.map((x) => {
    const uid = toPublicId('pur', x.purchase_id);
    return html`<tr><td>${when(x.evidence_due_at)}</td><td>${t.kindNames[x.kind]}</td><td>${t.stateNames[x.state]}</td><td>${x.reason ?? '—'}</td><td>${formatMoney(x.amount_cents, x.currency, chrome.lang)}</td><td><a href="/dashboard/purchases/${uid}#disputes">${x.purchase_ref ?? uid}</a><br><span class="muted">${x.client_email}</span></td><td>${when(x.opened_at)}</td></tr>`;
  });
  const body = html`<h1>${t.title}</h1>
<p class="muted">${t.intro}</p>
${view.error ? html`<div class="alert" role="alert">${view.error}</div>` : ''}
${
  rows.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.title}"><table class="list"><caption class="sr">${t.title}</caption><thead><tr>${[t.deadline, t.kind, t.state, t.reason, t.amount, t.purchase, t.opened].map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p class="muted">${t.noneOpen}</p>`
}
${view.next ? html`<p><a href="${view.next}">${t.moreLink}</a></p>` : ''}`;
  return dashboardPage(chrome, t.title, body);
}
