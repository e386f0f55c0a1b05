import type { EventType } from '../../../domain/events.ts';
import type { AttemptView, DeliveryView } from '../../../delivery/delivery-repository.ts';
import { deliveryStanding, toDeliveryUid } from '../../../delivery/delivery.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { html } from '../../../html/html.ts';
import { formatDateTime } from '../../../i18n/format.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/** One delivery (admins): what was sent where, its state, every attempt with the answer, and the replay button. */
export function deliveryPage(chrome: Chrome, d: DeliveryView & { attemptLog: AttemptView[] }): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const uid = toDeliveryUid(d.id);
  const purchase = d.purchaseId === null ? undefined : toPublicId('pur', d.purchaseId);
  const when = (date: Date | null) => (date ? html`<time datetime="${date.toISOString()}">${formatDateTime(date, chrome.lang, chrome.timeZone)}</time>` : '—');
  const rows = d.attemptLog.map(
    (a) =>
      html`<tr><td>${a.attempt}</td><td>${when(a.startedAt)}</td><td>${a.durationMs} ms</td><td>${a.statusCode ?? a.error ?? '—'}</td><td>${t.attemptOutcomeNames[a.outcome]}</td><td>${when(a.nextAttemptAt)}</td></tr>`,
  );
  const body = html`<p><a href="/dashboard/developers">${t.backToDevelopers}</a></p>
<h1>${t.deliveryTitle} ${uid}</h1>
<section class="card" aria-labelledby="delivery-facts"><h2 id="delivery-facts">${t.details}</h2>
<dl class="facts">
<dt>${t.event}</dt><dd>${d.triggerName ?? t.eventNames[d.eventType as EventType] ?? d.eventType} (${d.kind === 'webhook' ? 'webhook' : d.kind === 'refusal' ? t.refusalNotification : d.kind === 'purchase_end' ? t.purchaseEndNotification : t.notification})</dd>
${purchase ? html`<dt>${t.purchase}</dt><dd><a href="/dashboard/purchases/${purchase}">${purchase}</a></dd>` : ''}
<dt>URL</dt><dd><code>${d.url}</code></dd>
<dt>${t.status}</dt><dd>${t.deliveryStandingNames[deliveryStanding(d)]}</dd>
<dt>${t.attempts}</dt><dd>${d.attempts}</dd>
<dt>${t.nextAttempt}</dt><dd>${when(d.nextAttemptAt)}</dd>
<dt>${t.created}</dt><dd>${when(d.createdAt)}</dd>
</dl>
<form method="post" action="/dashboard/developers/deliveries/${uid}/replay"><input type="hidden" name="csrf" value="${chrome.csrf}"><button type="submit" class="secondary" aria-label="${t.replayLabel(uid)}">${t.replay}</button></form>
</section>
<section class="card" aria-labelledby="attempt-log"><h2 id="attempt-log">${t.attemptLog}</h2>
${
  rows.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.attemptLog}"><table class="list"><thead><tr><th scope="col">#</th><th scope="col">${t.started}</th><th scope="col">${t.duration}</th><th scope="col">${t.lastAnswer}</th><th scope="col">${t.outcome}</th><th scope="col">${t.nextAttempt}</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>${t.noAttempt}</p>`
}
</section>`;
  return dashboardPage(chrome, `${t.deliveryTitle} ${uid}`, body);
}
