import { html } from '../../../html/html.ts';
import { formatDate, formatDateTime, formatMoney, zonedDay, zonedMidnight } from '../../../i18n/format.ts';
import type { EnFr } from '../../../i18n/lang.ts';
import type { MismatchRow, RunRow } from '../../../payments/reconciliation-repository.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/**
 * A run's period as staff asked for it: whole days of the account's zone as those days
 * (`11 December 2026`, `2 December 2026 → 5 December 2026`, the last day included), any other
 * period by its two instants.
 */
export function periodText(from: Date, to: Date, lang: EnFr, timeZone: string): string {
  const first = zonedDay(from, timeZone);
  const last = zonedDay(new Date(to.getTime() - 1), timeZone);
  const wholeDays = zonedMidnight(first, timeZone).getTime() === from.getTime() && zonedMidnight(zonedDay(to, timeZone), timeZone).getTime() === to.getTime();
  if (!wholeDays || to <= from) return `${formatDateTime(from, lang, timeZone)} → ${formatDateTime(to, lang, timeZone)}`;
  return first === last ? formatDate(first, lang) : `${formatDate(first, lang)} → ${formatDate(last, lang)}`;
}

/**
 * Reconciliation (docs/money-operations.md#reconciliation, docs/back-office.md): the account's
 * latest runs and its open mismatches. Admins run a period and mark a mismatch explained or
 * resolved with a note; support users read.
 */
export function reconciliationPage(
  chrome: Chrome,
  view: { runs: readonly RunRow[]; open: readonly MismatchRow[]; days: { from: string; to: string } },
  outcome?: { error: string } | { saved: true } | { ran: number },
): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const r = t.recon;
  const admin = chrome.role === 'admin';
  const when = (d: Date) => formatDateTime(d, chrome.lang, chrome.timeZone);
  const money = (cents: number | null, currency: string) => (cents === null ? '—' : formatMoney(cents, currency, chrome.lang));
  const body = html`<h1>${t.reconciliation}</h1>
<p class="muted">${r.intro}</p>
${outcome && 'saved' in outcome ? html`<div class="ok" role="status">${r.done}</div>` : ''}
${outcome && 'ran' in outcome ? html`<div class="ok" role="status">${r.ran(outcome.ran)}</div>` : ''}
${outcome && 'error' in outcome ? html`<div class="alert" role="alert" id="recon-error">${outcome.error}</div>` : ''}
${
  admin
    ? html`<form method="post" action="/dashboard/reconciliation/runs" class="card">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<h2>${r.runTitle}</h2>
<p><label for="from">${r.from}</label><input id="from" name="from" type="date" required value="${view.days.from}">
<label for="to">${r.to}</label><input id="to" name="to" type="date" required value="${view.days.to}"></p>
<p><button type="submit">${r.run}</button></p>
</form>`
    : ''
}
<section class="card" aria-labelledby="open-mismatches"><h2 id="open-mismatches">${r.open}</h2>
${
  view.open.length === 0
    ? html`<p>${r.noOpen}</p>`
    : html`<div class="scroll" tabindex="0" role="region" aria-label="${r.open}"><table class="list"><thead><tr><th>${r.transaction}</th><th>${r.purchase}</th><th>${r.kind}</th><th>${r.operation}</th><th>${r.chipin}</th><th>${r.psp}</th>${admin ? html`<th>${r.note}</th>` : ''}</tr></thead><tbody>
${view.open.map(
  (m) => html`<tr><td><code>${m.transaction_id}</code><br><span class="muted">${m.psp} · ${when(m.created_at)}</span></td>
<td>${m.purchase_id ? html`<a href="/dashboard/purchases/${toPublicId('pur', m.purchase_id)}">${toPublicId('pur', m.purchase_id)}</a>` : '—'}</td>
<td>${r.kinds[m.kind] ?? m.kind}${m.kind === 'status_differs' ? html`<br><span class="muted">${m.chipin_status ?? '—'} / ${m.psp_status ?? '—'}</span>` : ''}</td>
<td>${r.operations[m.operation] ?? m.operation}</td><td>${money(m.chipin_cents, m.currency)}</td><td>${money(m.psp_cents, m.currency)}</td>
${
  admin
    ? html`<td><form method="post" action="/dashboard/reconciliation/mismatches/${m.id}"><input type="hidden" name="csrf" value="${chrome.csrf}">
<label for="note-${m.id}" class="muted">${r.note}</label><input id="note-${m.id}" name="note" type="text" maxlength="2000">
<button type="submit" name="state" value="explained">${r.explain}</button> <button type="submit" name="state" value="resolved">${r.resolve}</button></form></td>`
    : ''
}</tr>`,
)}
</tbody></table></div>`
}
</section>
<section class="card" aria-labelledby="latest-runs"><h2 id="latest-runs">${r.runs}</h2>
${
  view.runs.length === 0
    ? html`<p>${r.noRuns}</p>`
    : html`<div class="scroll" tabindex="0" role="region" aria-label="${r.runs}"><table class="list"><thead><tr><th>${r.period}</th><th>PSP</th><th>${r.state}</th><th>${r.matched}</th><th>${r.mismatches}</th><th>${r.error}</th></tr></thead><tbody>
${view.runs.map(
  (
    run,
  ) => html`<tr><td>${periodText(run.period_from, run.period_to, chrome.lang, chrome.timeZone)}</td><td>${run.psp}${run.psp_account_id ? html`<br><span class="muted">${toPublicId('psa', run.psp_account_id)}</span>` : ''}</td>
<td>${r.runStates[run.state] ?? run.state}</td><td>${run.matched_count}</td><td>${run.mismatch_count}</td><td>${run.error ?? ''}</td></tr>`,
)}
</tbody></table></div>`
}
</section>`;
  return dashboardPage(chrome, t.reconciliation, body);
}
