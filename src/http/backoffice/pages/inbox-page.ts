import { toPublicId } from '../../../domain/ids.ts';
import { html } from '../../../html/html.ts';
import { formatDateTime } from '../../../i18n/format.ts';
import { linkify, type InboxEntry } from '../../../pages/sandbox-inbox-page.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { dashboardPage, type Chrome } from './layout.ts';

/**
 * The sandbox inbox as a back-office page (docs/messaging.md#sandbox-inbox): the account's messages,
 * newest first, in the user's language and with the back office's menu. Each body is the message's
 * own text (in the shopper's language), its links clickable. `shown`: how many the route lists at most.
 */
export function inboxPage(chrome: Chrome, messages: readonly InboxEntry[], shown: number): string {
  const t = DASHBOARD_TEXT[chrome.lang].inbox;
  const when = (d: Date) => formatDateTime(d, chrome.lang, chrome.timeZone);
  const items = messages.map(
    (m) => html`<article class="card">
<p><strong>${m.channel === 'email' ? t.email : t.sms}</strong> · ${t.to(m.recipient)} · ${m.accepted ? t.accepted : t.notAccepted} · <time datetime="${m.createdAt.toISOString()}">${when(m.createdAt)}</time></p>
${m.subject === null ? '' : html`<h2>${m.subject}</h2>`}
${m.error ? html`<p class="alert">${m.error}</p>` : ''}
<div style="white-space:pre-wrap;word-break:break-word;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.88rem">${linkify(m.body)}</div>
${m.purchaseId ? html`<p class="muted"><a href="/dashboard/purchases/${toPublicId('pur', m.purchaseId)}">${toPublicId('pur', m.purchaseId)}</a></p>` : ''}
</article>`,
  );
  const body = html`<h1>${t.title}</h1>
<p class="muted">${t.intro(shown)} <a href="/sandbox/inbox">${t.refresh}</a></p>
${items.length ? items : html`<p class="muted">${t.empty}</p>`}`;
  return dashboardPage(chrome, t.title, body);
}
