import { html } from '../../../html/html.ts';
import { formatDate, formatDateTime, formatMoney } from '../../../i18n/format.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { SEPA_CURRENCY } from '../../../domain/payouts.ts';
import type { OperatorPayoutsView } from '../../../use-cases/payouts/payout-export.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/** What an action of the page did, said above its sections. */
export type OperatorNotice = { kind: 'ok'; text: string; details?: readonly string[] } | { kind: 'alert'; text: string; details?: readonly string[] };

/**
 * The operator's payout files (the operator's staff only, docs/back-office.md#the-operators-pages):
 * every merchant's payouts not yet in a file, with the form that makes the SEPA file of the euro
 * ones (`canExport`: a debtor account is configured), and the files, newest first, each with its
 * download and, while some of its payouts are not yet sent, its "mark as sent" form.
 */
export function operatorPayoutsPage(chrome: Chrome, view: OperatorPayoutsView & { shownFiles: number; canExport: boolean }, notice?: OperatorNotice): string {
  const t = DASHBOARD_TEXT[chrome.lang].operator;
  const money = (cents: number, currency: string) => formatMoney(cents, currency, chrome.lang);
  const when = (d: Date) => formatDateTime(d, chrome.lang, chrome.timeZone);
  const euros = view.created.filter((p) => p.currency === SEPA_CURRENCY);
  const waiting = view.created.map(
    (p) =>
      html`<tr><td>${p.account_name} <span class="muted">(${toPublicId('acc', p.account_id)})</span></td><td>${formatDate(p.business_day, chrome.lang)}</td><td class="num">${money(p.amount_cents, p.currency)}${p.currency === SEPA_CURRENCY ? '' : html` <span class="muted">(${t.otherRail})</span>`}</td><td class="num">${String(p.line_count)}</td><td>${when(p.created_at)}</td></tr>`,
  );
  const files = view.exports.map((e) => {
    const id = toPublicId('pex', e.id);
    const mark =
      e.exported_count > 0
        ? html`<form method="post" action="/dashboard/operator/payouts/exports/${id}/sent"><input type="hidden" name="csrf" value="${chrome.csrf}"><button type="submit" class="secondary" aria-label="${t.markSentLabel(e.message_id)}">${t.markSent}</button></form>`
        : '';
    return html`<tr><td><code>${e.message_id}</code></td><td>${when(e.created_at)}</td><td class="num">${String(e.transaction_count)}</td><td class="num">${money(e.control_sum_cents, SEPA_CURRENCY)}</td><td>${t.states(e.exported_count, e.sent_count, e.returned_count)}</td><td><div class="actions"><a class="button secondary" href="/dashboard/operator/payouts/exports/${id}/file" download aria-label="${t.downloadLabel(e.message_id)}">${t.download}</a>${mark}</div></td></tr>`;
  });
  const noticeHtml = notice
    ? html`<div class="${notice.kind}" role="${notice.kind === 'ok' ? 'status' : 'alert'}">${notice.text}${notice.details?.length ? html`<ul>${notice.details.map((d) => html`<li>${d}</li>`)}</ul>` : ''}</div>`
    : '';
  const body = html`<h1>${t.title}</h1>
<p class="muted">${t.intro}</p>
${noticeHtml}
<section class="card" aria-labelledby="waiting"><h2 id="waiting">${t.waiting}</h2>
${
  waiting.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.waiting}"><table class="list"><thead><tr><th scope="col">${t.merchant}</th><th scope="col">${t.day}</th><th scope="col" class="num">${t.amount}</th><th scope="col" class="num">${t.lines}</th><th scope="col">${t.made}</th></tr></thead><tbody>${waiting}</tbody></table></div>`
    : html`<p>${t.noneWaiting}</p>`
}
${
  euros.length === 0
    ? ''
    : view.canExport
      ? html`<form method="post" action="/dashboard/operator/payouts/exports"><input type="hidden" name="csrf" value="${chrome.csrf}"><p><button type="submit">${t.makeFile}</button></p></form>`
      : html`<div class="alert" role="status">${t.noDebtor}</div>`
}
</section>
<section class="card" aria-labelledby="files"><h2 id="files">${t.files}</h2>
${
  files.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.files}"><table class="list"><thead><tr><th scope="col">${t.messageId}</th><th scope="col">${t.made}</th><th scope="col" class="num">${t.transfers}</th><th scope="col" class="num">${t.total}</th><th scope="col">${t.state}</th><th scope="col"><span class="sr">${t.file}</span></th></tr></thead><tbody>${files}</tbody></table></div>
${files.length >= view.shownFiles ? html`<p class="muted">${t.newest(view.shownFiles)}</p>` : ''}`
    : html`<p>${t.noFiles}</p>`
}
</section>`;
  return dashboardPage(chrome, t.title, body);
}
