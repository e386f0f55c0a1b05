import { toPublicId } from '../domain/ids.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { formatDateTime } from '../i18n/format.ts';
import type { InboxMessage } from '../messaging/outbound-message-repository.ts';

/** What the page shows of a sent message: the log's row as its repository reads it, without its id. */
export type InboxEntry = Omit<InboxMessage, 'id'>;

/** The text, escaped, with its http(s) URLs as links. */
export function linkify(text: string): SafeHtml {
  const parts: SafeHtml[] = [];
  let last = 0;
  for (const m of text.matchAll(/https?:\/\/[^\s<>"']+/g)) {
    const url = m[0].replace(/[.,;:!?)\]]+$/, '');
    const start = m.index;
    parts.push(html`${text.slice(last, start)}<a href="${url}" rel="noopener noreferrer">${url}</a>`);
    last = start + url.length;
  }
  return html`${parts}${text.slice(last)}`;
}

/**
 * The sandbox inbox: the messages sent for an account, newest first, each body as plain text with
 * its links clickable, for a caller with HTTP Basic (a signed-in user gets the back office's page,
 * src/http/backoffice/pages/inbox-page.ts, in their language). English. `shown` is how many
 * messages the route lists at most. Times in the account's `timeZone`, stated, as its messages and
 * back office show them.
 */
export function sandboxInboxPage(accountName: string, accountId: string, messages: readonly InboxEntry[], shown: number, timeZone: string): string {
  const when = (d: Date) => formatDateTime(d, 'en', timeZone);
  const items = messages.map(
    (m, i) => html`${i > 0 ? '\n' : ''}<article class="msg ${m.accepted ? 'ok' : 'ko'}">
<header><span class="ch">${m.channel === 'email' ? 'E-mail' : 'SMS'}</span> to <strong>${m.recipient}</strong>
<span class="st">${m.accepted ? 'accepted: yes' : 'accepted: no'}</span> <time datetime="${m.createdAt.toISOString()}">${when(m.createdAt)}</time></header>
${m.subject === null ? '' : html`<h2>${m.subject}</h2>`}
${m.error ? html`<p class="err">${m.error}</p>` : ''}
<div class="body">${linkify(m.body)}</div>
${m.purchaseId ? html`<footer>${toPublicId('pur', m.purchaseId)}</footer>` : ''}
</article>`,
  );
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sandbox inbox · ${accountName}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;margin:0 auto;max-width:52rem;padding:1rem;color:#1a1a1a;background:#f6f7f9}
h1{font-size:1.4rem;margin:.2rem 0}
.sub{color:#555;margin:0 0 1rem}
.msg{background:#fff;border:1px solid #dde;border-left:4px solid #2a8a3a;border-radius:6px;padding:.8rem 1rem;margin:0 0 1rem}
.msg.ko{border-left-color:#c0392b}
.msg header{font-size:.9rem;color:#333}
.ch{display:inline-block;font-weight:600;background:#eef;border-radius:3px;padding:0 .4rem}
.st{margin-left:.5rem}
.ok .st{color:#2a8a3a}.ko .st{color:#c0392b}
time{color:#666;margin-left:.5rem}
.msg h2{font-size:1.05rem;margin:.6rem 0 .3rem}
.err{color:#c0392b;margin:.3rem 0}
.body{white-space:pre-wrap;word-break:break-word;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.88rem;background:#fafafa;border:1px solid #eee;border-radius:4px;padding:.6rem;margin-top:.5rem}
footer{font-size:.8rem;color:#666;margin-top:.4rem}
.empty{color:#555}
</style>
</head>
<body>
<h1>Sandbox inbox</h1>
<p class="sub">${accountName} (${toPublicId('acc', accountId)}): the e-mails and SMS sent for this account's purchases, newest first (last ${shown}). <a href="">Refresh</a></p>
${items.length ? items : html`<p class="empty">No message yet.</p>`}
</body>
</html>
`.toString();
}
