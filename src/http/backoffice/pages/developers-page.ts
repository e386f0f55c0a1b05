import type { EventType } from '../../../domain/events.ts';
import type { ApiKeyView } from '../../../accounts/accounts.ts';
import type { TestEventResult, WebhookEndpointView } from '../../../delivery/service.ts';
import type { DeliveryView } from '../../../delivery/delivery-repository.ts';
import { deliveryStanding, toDeliveryUid } from '../../../delivery/delivery.ts';
import { TRIGGER_NAMES, type TriggerName } from '../../../delivery/triggers.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { html } from '../../../html/html.ts';
import { formatDateTime } from '../../../i18n/format.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

export interface DevelopersView {
  webhook: WebhookEndpointView | undefined;
  deliveries: DeliveryView[];
  keys: ApiKeyView[];
  /** Right after creating or rotating a key: its secret, shown this once (`replaced`: the revoked key). */
  newKey?: { apiKey: string; apiSecret: string; replaced?: string };
  /** Right after saving: the token and secret when they were made (shown this once), else only that they were kept. */
  saved?: { issued: true; token: string; secret: string; previousSecretUntil: Date | null } | { issued: false };
  /** The form as typed, after a refusal (`error` names the field). */
  typed?: { url: string; events: string[] };
  error?: string;
  notice?: 'replayed' | { revoked: string };
  /** What the test event just sent came to. */
  test?: TestEventResult;
  /** The link to the page of older deliveries (a cursor), when there are more; whether this page is an older one. */
  olderHref?: string;
  paged?: boolean;
}

export function developersPage(chrome: Chrome, view: DevelopersView): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const url = view.typed?.url ?? view.webhook?.url ?? '';
  const chosen = new Set<string>(view.typed?.events ?? view.webhook?.events ?? []);
  const when = (d: Date) => formatDateTime(d, chrome.lang, chrome.timeZone);
  const rows = view.deliveries.map((d) => {
    const uid = toDeliveryUid(d.id);
    return html`<tr><td><a href="/dashboard/developers/deliveries/${uid}">${when(d.createdAt)}</a></td><td>${d.triggerName ?? t.eventNames[d.eventType as EventType] ?? d.eventType}${d.purchaseId === null ? '' : html`<br><span class="muted">${toPublicId('pur', d.purchaseId)}</span>`}</td><td>${t.deliveryStandingNames[deliveryStanding(d)]}</td><td>${d.attempts}</td><td>${d.lastStatusCode ?? d.lastError ?? '—'}</td>
<td><form method="post" action="/dashboard/developers/deliveries/${uid}/replay"><input type="hidden" name="csrf" value="${chrome.csrf}"><button type="submit" class="secondary" aria-label="${t.replayLabel(uid)}">${t.replay}</button></form></td></tr>`;
  });
  const body = html`<h1>${t.developers}</h1>
${view.notice === 'replayed' ? html`<div class="ok" role="status">${t.replayed}</div>` : ''}
${typeof view.notice === 'object' ? html`<div class="ok" role="status">${t.keyRevoked(view.notice.revoked)}</div>` : ''}
${view.error ? html`<div class="alert" role="alert" id="webhook-error">${view.error}</div>` : ''}
${apiKeysSection(chrome, view)}
<section class="card" aria-labelledby="webhook"><h2 id="webhook">${t.webhook}</h2>
${
  view.saved?.issued
    ? html`<div class="ok" role="status"><p>${t.webhookSaved}</p><dl class="facts"><dt>${t.signingSecret}</dt><dd><code>${view.saved.secret}</code></dd><dt>${t.payloadToken}</dt><dd><code>${view.saved.token}</code></dd></dl>${
        view.saved.previousSecretUntil ? html`<p>${t.webhookPreviousSecret(formatDateTime(view.saved.previousSecretUntil, chrome.lang, chrome.timeZone))}</p>` : ''
      }</div>`
    : view.saved
      ? html`<div class="ok" role="status"><p>${t.webhookSavedKept}</p></div>`
      : html`<p class="muted">${view.webhook ? t.webhookSecretNote : t.noWebhook}</p>`
}
${view.webhook?.disabledAt ? html`<div class="alert">${t.webhookDisabled(view.webhook.disabledReason ?? '')}</div>` : ''}
<form method="post" action="/dashboard/developers/webhook">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<label for="url">${t.webhookUrl}</label>
<input id="url" name="url" type="url" inputmode="url" autocomplete="off" value="${url}" aria-describedby="url-hint${view.error ? ' webhook-error' : ''}"${view.error ? html` aria-invalid="true"` : ''}>
<span class="muted" id="url-hint">${t.webhookUrlHint}</span>
<fieldset><legend>${t.webhookEvents}</legend>
${TRIGGER_NAMES.map(
  (name: TriggerName) =>
    html`<div><input type="checkbox" id="event-${name}" name="events" value="${name}" style="width:auto"${chosen.has(name) ? html` checked` : ''}> <label for="event-${name}" style="display:inline">${name}</label></div>`,
)}
</fieldset>
${
  view.webhook
    ? html`<div><input type="checkbox" id="rotate" name="rotate" value="1" style="width:auto" aria-describedby="rotate-hint"> <label for="rotate" style="display:inline">${t.rotateWebhookSecret}</label>
<p class="muted" id="rotate-hint">${t.rotateWebhookHint}</p></div>`
    : ''
}
<p><button type="submit">${t.saveWebhook}</button></p>
</form>
${view.test ? testOutcome(chrome, view.test) : ''}
${
  view.webhook
    ? html`<form method="post" action="/dashboard/developers/webhook/test"><input type="hidden" name="csrf" value="${chrome.csrf}">
<p class="muted" id="test-hint">${t.testEventHint}</p>
<p><button type="submit" class="secondary" aria-describedby="test-hint">${t.sendTestEvent}</button></p></form>`
    : ''
}
</section>
<section class="card" aria-labelledby="deliveries"><h2 id="deliveries">${t.deliveries}</h2>
<p class="muted">${t.deliveriesHint}</p>
${
  rows.length
    ? // Focusable, so a keyboard can scroll the table sideways on a phone (WCAG 2.1.1).
      html`<div class="scroll" tabindex="0" role="region" aria-label="${t.deliveries}"><table class="list"><thead><tr><th scope="col">${t.created}</th><th scope="col">${t.event}</th><th scope="col">${t.status}</th><th scope="col">${t.attempts}</th><th scope="col">${t.lastAnswer}</th><th scope="col"><span class="muted">${t.replay}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>${t.noDelivery}</p>`
}
${view.olderHref || view.paged ? html`<nav aria-label="${t.deliveries}"><p>${view.paged ? html`<a href="/dashboard/developers#deliveries">${t.newestDeliveries}</a> ` : ''}${view.olderHref ? html`<a href="${view.olderHref}">${t.olderDeliveries}</a>` : ''}</p></nav>` : ''}
</section>`;
  return dashboardPage(chrome, t.developers, body);
}

function testOutcome(chrome: Chrome, r: TestEventResult) {
  const t = DASHBOARD_TEXT[chrome.lang];
  if (r.kind === 'no_endpoint') return html`<div class="alert" role="alert">${t.testEventNoEndpoint}</div>`;
  if (r.kind === 'disabled') return html`<div class="alert" role="alert">${t.replayDisabled}</div>`;
  if (r.delivered) return html`<div class="ok" role="status">${t.testEventSent(r.triggerName, r.statusCode ?? 0, r.durationMs)}</div>`;
  return html`<div class="alert" role="alert">${t.testEventFailed(r.triggerName, r.statusCode === null ? (r.error ?? '—') : `HTTP ${r.statusCode}`)}</div>`;
}

function apiKeysSection(chrome: Chrome, view: DevelopersView) {
  const t = DASHBOARD_TEXT[chrome.lang];
  const when = (d: Date) => formatDateTime(d, chrome.lang, chrome.timeZone);
  const rows = view.keys.map(
    (k) => html`<tr><td><code>${k.apiKey}</code></td><td>${when(k.createdAt)}</td><td>${k.revokedAt ? html`${t.revokedAt} ${when(k.revokedAt)}` : t.live}</td>
<td>${
      k.revokedAt
        ? ''
        : html`<div class="actions"><form method="post" action="/dashboard/developers/keys/${k.apiKey}/rotate"><input type="hidden" name="csrf" value="${chrome.csrf}"><button type="submit" class="secondary" aria-label="${t.rotateKeyLabel(k.apiKey)}">${t.rotateKey}</button></form>
<form method="post" action="/dashboard/developers/keys/${k.apiKey}/revoke"><input type="hidden" name="csrf" value="${chrome.csrf}"><button type="submit" class="secondary" aria-label="${t.revokeKeyLabel(k.apiKey)}">${t.revokeKey}</button></form></div>`
    }</td></tr>`,
  );
  return html`<section class="card" aria-labelledby="api-keys"><h2 id="api-keys">${t.apiKeys}</h2>
${
  view.newKey
    ? html`<div class="ok" role="status"><p>${view.newKey.replaced ? t.keyRotated(view.newKey.replaced) : t.keyCreated}</p><dl class="facts"><dt>${t.apiKey}</dt><dd><code>${view.newKey.apiKey}</code></dd><dt>${t.apiSecret}</dt><dd><code>${view.newKey.apiSecret}</code></dd></dl></div>`
    : html`<p class="muted">${t.apiKeysHint}</p>`
}
${
  rows.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.apiKeys}"><table class="list"><thead><tr><th scope="col">${t.apiKey}</th><th scope="col">${t.created}</th><th scope="col">${t.status}</th><th scope="col"><span class="muted">${t.rotateKey} / ${t.revokeKey}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>${t.noApiKey}</p>`
}
<form method="post" action="/dashboard/developers/keys"><input type="hidden" name="csrf" value="${chrome.csrf}"><p><button type="submit">${t.createKey}</button></p></form>
</section>`;
}

/** The confirmation step of a rotation or a revocation: the same form again, with `confirm=yes`. */
export function confirmKeyPage(chrome: Chrome, apiKey: string, action: 'rotate' | 'revoke'): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const title = action === 'rotate' ? t.confirmRotateTitle : t.confirmRevokeTitle;
  const body = html`<div class="card"><h1>${title}</h1>
<p><strong>${action === 'rotate' ? t.confirmRotate(apiKey) : t.confirmRevoke(apiKey)}</strong></p>
<form method="post" action="/dashboard/developers/keys/${apiKey}/${action}">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<input type="hidden" name="confirm" value="yes">
<p><button type="submit">${action === 'rotate' ? t.confirmRotateButton : t.confirmRevokeButton}</button></p>
</form>
<p><a class="button secondary" href="/dashboard/developers">${t.goBack}</a></p>
</div>`;
  return dashboardPage(chrome, title, body);
}
