import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { parsePublicId, toPublicId } from '../../domain/ids.ts';
import { listMessages, type InboxMessage } from '../../messaging/inbox.ts';
import { esc as escapeHtml } from '../../pages/html.ts';
import type { Services } from '../../services.ts';
import type { DashboardGuard } from '../dashboard-guard.ts';
import type { App } from '../types.ts';
import { BearerErrors, TokenApiError } from './schemas.ts';

const BASIC_CHALLENGE = 'Basic realm="Chipin sandbox"';
const HTML_LIMIT = 100;

/** Nothing loads from anywhere; only the page's own inline style block applies. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PUR_UID = '^pur_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const Message = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    channel: Type.Union([Type.Literal('email'), Type.Literal('sms')]),
    recipient: Type.String({ description: 'E-mail address or phone number (E.164)' }),
    subject: Type.Union([Type.String(), Type.Null()], { description: 'E-mail subject; null for SMS' }),
    body: Type.String({ description: 'Plain-text body (the e-mail text part, or the SMS text)' }),
    accepted: Type.Boolean({ description: 'Whether the mail server / SMS gateway accepted the message' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the message was not accepted' }),
    purchase_uid: Type.Union([Type.String(), Type.Null()], { examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'SandboxMessage' },
);

/** Turns the http(s) URLs of an escaped-on-the-way text into links. */
function linkify(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(/https?:\/\/[^\s<>"']+/g)) {
    const url = m[0].replace(/[.,;:!?)\]]+$/, '');
    const start = m.index;
    out += escapeHtml(text.slice(last, start));
    out += `<a href="${escapeHtml(url)}" rel="noopener noreferrer">${escapeHtml(url)}</a>`;
    last = start + url.length;
  }
  return out + escapeHtml(text.slice(last));
}

function when(d: Date): string {
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

function renderInbox(accountName: string, accountId: string, messages: InboxMessage[]): string {
  const e = escapeHtml;
  const items = messages
    .map(
      (m) => `<article class="msg ${m.accepted ? 'ok' : 'ko'}">
<header><span class="ch">${m.channel === 'email' ? 'E-mail' : 'SMS'}</span> to <strong>${e(m.recipient)}</strong>
<span class="st">${m.accepted ? 'accepted: yes' : 'accepted: no'}</span> <time datetime="${e(m.createdAt.toISOString())}">${e(when(m.createdAt))}</time></header>
${m.subject === null ? '' : `<h2>${e(m.subject)}</h2>`}
${m.error ? `<p class="err">${e(m.error)}</p>` : ''}
<div class="body">${linkify(m.body)}</div>
${m.purchaseId ? `<footer>${e(toPublicId('pur', m.purchaseId))}</footer>` : ''}
</article>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sandbox inbox · ${e(accountName)}</title>
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
<p class="sub">${e(accountName)} (${e(toPublicId('acc', accountId))}): the e-mails and SMS sent for this account's purchases, newest first (last ${HTML_LIMIT}). <a href="">Refresh</a></p>
${items || '<p class="empty">No message yet.</p>'}
</body>
</html>
`;
}

function challenge(reply: FastifyReply, status: 401 | 429, text: string, extra: Record<string, string> = {}): FastifyReply {
  return reply
    .code(status)
    .headers({ ...(status === 401 ? { 'www-authenticate': BASIC_CHALLENGE } : {}), 'cache-control': 'no-store', ...extra })
    .type('text/plain; charset=utf-8')
    .send(text);
}

/**
 * Sandbox only (not registered in production): the messages the service sent, for the merchant
 * developer to follow the links a shopper would receive.
 *
 * - `GET /sandbox/inbox`: an HTML page, HTTP Basic with the merchant dashboard e-mail and password.
 * - `GET /api/sandbox/messages`: the same as JSON for automated tests, with an access token.
 */
export function registerSandboxInbox(app: App, { db, accounts }: Services, guard: DashboardGuard): void {
  app.get('/sandbox/inbox', { schema: { hide: true, tags: ['sandbox'], summary: 'Sandbox inbox (HTML)' } }, async (request, reply) => {
    // The back office's guard and failure budget; only the refusals are worded for a browser.
    const check = await guard.check(request);
    if (!check.ok) {
      switch (check.refusal) {
        case 'throttled':
          return challenge(reply, 429, `Too many failed attempts, retry in ${check.retryAfter} s.\n`, { 'retry-after': String(check.retryAfter) });
        case 'no_credentials':
          return challenge(reply, 401, 'Sign in with your merchant dashboard e-mail and password.\n');
        case 'wrong_credentials':
          return challenge(reply, 401, 'Wrong e-mail or password.\n');
      }
    }
    const { accountId } = check;
    const [accountName, messages] = await Promise.all([accounts.nameOf(accountId), listMessages(db, accountId, { limit: HTML_LIMIT })]);
    return reply
      .headers({
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      })
      .type('text/html; charset=utf-8')
      .send(renderInbox(accountName ?? '', accountId, messages));
  });

  app.get(
    '/api/sandbox/messages',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['sandbox'],
        summary: 'Messages sent for your purchases (sandbox only)',
        description:
          'The e-mails and SMS the sandbox sent (or tried to send) for your account, newest first. ' +
          'Lets automated tests read the payment link a shopper received. Not available in production.',
        security: [{ bearerToken: [] }],
        querystring: Type.Object(
          {
            purchase_uid: Type.Optional(Type.String({ pattern: PUR_UID, description: 'Only the messages of this purchase' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ messages: Type.Array(Message) }),
          400: { ...TokenApiError, description: 'Invalid query parameter' },
          ...BearerErrors,
        },
      },
    },
    async (request) => {
      const { purchase_uid, limit = 50 } = request.query;
      const purchaseId = purchase_uid === undefined ? undefined : parsePublicId('pur', purchase_uid);
      if (purchase_uid !== undefined && purchaseId === undefined) return { messages: [] };
      const messages = await listMessages(db, request.auth!.accountId, { purchaseId, limit });
      return {
        messages: messages.map((m) => ({
          id: m.id,
          channel: m.channel,
          recipient: m.recipient,
          subject: m.subject,
          body: m.body,
          accepted: m.accepted,
          error: m.error,
          purchase_uid: m.purchaseId === null ? null : toPublicId('pur', m.purchaseId),
          created_at: m.createdAt.toISOString(),
        })),
      };
    },
  );
}
