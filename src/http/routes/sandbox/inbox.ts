import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { DEFAULT_TIME_ZONE } from '../../../i18n/format.ts';
import { sandboxInboxPage } from '../../../pages/sandbox-inbox-page.ts';
import type { Services } from '../../../services.ts';
import { sentMessages } from '../../../use-cases/notices/sent-messages.ts';
import { inboxPage } from '../../backoffice/pages/inbox-page.ts';
import { sendPage, sessionOf, signedIn } from '../../backoffice/routes/support.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import type { App } from '../../types.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';

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
 * - `GET /sandbox/inbox`: an HTML page: for a user signed in to the back office (its session
 *   cookie; the back office links to it), a back-office page in their language; with HTTP Basic
 *   (the dashboard e-mail and password), a page of its own, in English.
 * - `GET /api/sandbox/messages`: the same as JSON for automated tests, with an access token.
 */
export function registerSandboxInbox(app: App, services: Services, guard: DashboardGuard, sessions: DashboardSessions): void {
  const { accounts } = services;
  app.get('/sandbox/inbox', { schema: { hide: true, tags: ['sandbox'], summary: 'Sandbox inbox (HTML)' } }, async (request, reply) => {
    // A user signed in to the back office reads it as one of its pages: their language, its menu.
    if (request.headers.authorization === undefined && (await sessionOf(sessions, request))) {
      const ctx = await signedIn(services, sessions, request, reply);
      if (!ctx) return reply;
      const messages = await sentMessages(services, ctx.session.accountId, { limit: HTML_LIMIT });
      return sendPage(reply, 200, inboxPage(ctx.chrome, messages, HTML_LIMIT));
    }
    // The back office's session or Basic, its failure budget; only the refusals are worded for a browser.
    const check = await guard.checkPage(request);
    if (!check.ok) {
      switch (check.refusal) {
        case 'throttled':
          return challenge(reply, 429, `Too many failed attempts, retry in ${check.retryAfter} s.\n`, { 'retry-after': String(check.retryAfter) });
        case 'no_credentials':
          return challenge(reply, 401, 'Sign in to the back office (/dashboard), or give your merchant dashboard e-mail and password.\n');
        case 'wrong_credentials':
          return challenge(reply, 401, 'Wrong e-mail or password.\n');
        case 'invalid_text':
          return reply.code(400).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(`Invalid request: ${check.message}.\n`);
      }
    }
    const { accountId } = check;
    const [account, messages] = await Promise.all([accounts.profileOf(accountId), sentMessages(services, accountId, { limit: HTML_LIMIT })]);
    return reply
      .headers({
        'content-security-policy': CSP,
        'x-frame-options': 'DENY',
        'cache-control': 'no-store',
      })
      .type('text/html; charset=utf-8')
      .send(sandboxInboxPage(account?.name ?? '', accountId, messages, HTML_LIMIT, account?.timeZone ?? DEFAULT_TIME_ZONE));
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
      const messages = await sentMessages(services, request.auth!.accountId, { purchaseId, limit });
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
