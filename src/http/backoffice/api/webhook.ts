import { webhookAudit, webhookRemoveAudit, webhookTestAudit } from '../../../audit/audit-log.ts';
import { recordStaffAction } from '../../../use-cases/back-office/audit-trail.ts';
import { Type } from 'typebox';
import { WebhookSettingsError, type WebhookSettings } from '../../../delivery/endpoints.ts';
import { DEFAULT_TRIGGERS, TRIGGER_NAMES } from '../../../delivery/triggers.ts';
import type { Services } from '../../../services.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { App } from '../../types.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { TokenApiError } from '../../routes/schemas.ts';

const TRIGGER_LIST = TRIGGER_NAMES.map((n) => `\`${n}\``).join(', ');

const Settings = {
  url: Type.String({ description: 'Where every webhook is POSTed', examples: ['https://shop.example/chipin/webhooks'] }),
  token: Type.String({ description: 'Carried in every payload as `token`: compare it to check the origin' }),
  secret: Type.String({ description: 'Standard Webhooks signing secret (`whsec_...`) of the `webhook-signature` header' }),
  events: Type.Array(Type.String(), { description: 'Trigger names sent to this endpoint', examples: [[...DEFAULT_TRIGGERS]] }),
  previous_secret_until: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'After a rotation: until when the previous signing secret still signs beside `secret` (docs/webhooks.md#rotating-the-secret)',
    }),
  ),
};

/** The settings as the API answers them: `previous_secret_until` only while the previous secret signs. */
function settingsBody(s: WebhookSettings) {
  return { url: s.url, token: s.token, secret: s.secret, events: s.events, ...(s.previousSecretUntil ? { previous_secret_until: s.previousSecretUntil.toISOString() } : {}) };
}

export const BackofficeErrors = {
  401: {
    ...TokenApiError,
    description: 'Missing or wrong dashboard e-mail and password (`WWW-Authenticate: Basic`, except to a browser asking for HTML: it signs in to the back office instead)',
  },
  403: {
    ...TokenApiError,
    description:
      "`forbidden`: a write with HTTP Basic sent by a browser from another site (`Sec-Fetch-Site` other than `same-origin` or `none`, an `Origin` other than the service's, or a form's `Content-Type`: `application/x-www-form-urlencoded`, `multipart/form-data`, `text/plain`; the message names the header); " +
      'a write with the session cookie but neither the `X-CSRF-Token` header nor a same-origin request; or a `support` user on an admin-only route (webhook, PSP accounts, connectors, offer changes, delivery replay: docs/back-office.md#roles)',
  },
  429: { ...TokenApiError, description: 'Too many failed sign-ins from this address or for this user (`Retry-After`)' },
};

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';

/**
 * Back office: the account's webhook endpoint (docs/webhooks.md#setting-the-webhook-url). One per
 * account; its `token` and signing secret are made with it and change only when a rotation asks.
 */
export function registerBackofficeWebhook(app: App, services: Services, guard: DashboardGuard): void {
  app.put(
    '/api/backoffice/webhook',
    {
      schema: {
        tags: ['back office'],
        summary: 'Set the webhook URL',
        description:
          `${AUTH_NOTE} Sets the account's webhook URL and events (and re-enables the endpoint after a 410). The first call makes a random ` +
          '`token` and a `whsec_` signing secret; later calls keep them, unless `rotate` is true: then a new token and secret are made, the token ' +
          'changes at once (also for deliveries still pending), and the previous secret keeps signing beside the new one for 24 hours (`previous_secret_until`). ' +
          `\`events\` chooses the triggers (${TRIGGER_LIST}); by default the contract's three: ${DEFAULT_TRIGGERS.join(', ')}.`,
        security: SECURITY,
        body: Type.Object(
          {
            url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL; https in production', examples: ['https://shop.example/chipin/webhooks'] }),
            events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32, description: `Trigger names, among ${TRIGGER_LIST}` })),
            rotate: Type.Optional(Type.Boolean({ description: 'true: a new token and signing secret (the previous secret still signs for 24 hours). Default false: both kept' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(Settings, { title: 'WebhookEndpoint', description: 'The endpoint, with its token and secret (new ones on the first call and on a rotation)' }),
          400: { ...TokenApiError, description: 'Invalid url or events (the message names the field)' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const { accountId, userId, email } = await guard.userOf(request);
      try {
        const settings = await services.deliveries.setWebhook(accountId, request.body);
        await recordStaffAction(services.db, webhookAudit(accountId, { userId, label: email }, settings));
        request.log.info({ account_id: accountId, events: settings.events, rotated: request.body.rotate === true }, 'webhook endpoint set');
        void reply.header('cache-control', 'no-store');
        return settingsBody(settings);
      } catch (err) {
        if (err instanceof WebhookSettingsError) throw new ApiError(400, 'invalid_request', err.message);
        throw err;
      }
    },
  );

  app.delete(
    '/api/backoffice/webhook',
    {
      schema: {
        tags: ['back office'],
        summary: 'Remove the webhook URL',
        description:
          `${AUTH_NOTE} Removes the account's webhook endpoint (its URL, events, token and signing secret) and cancels its webhooks still pending, retries included: ` +
          'nothing is sent to the URL again (docs/webhooks.md#removing-the-webhook). Events from then on make no webhook until a URL is set again with `PUT`, which makes a new token and secret.',
        security: SECURITY,
        response: {
          200: Type.Object(
            {
              removed: Type.Literal(true),
              cancelled_deliveries: Type.Integer({ minimum: 0, description: 'Webhooks still pending that were cancelled with it' }),
            },
            { title: 'WebhookRemoved' },
          ),
          404: { ...TokenApiError, description: 'No webhook URL is set' },
          ...BackofficeErrors,
        },
      },
    },
    async (request) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const before = await services.deliveries.getWebhook(accountId);
      const removed = before && (await services.deliveries.removeWebhook(accountId));
      if (!before || !removed) throw notFound('webhook endpoint');
      await recordStaffAction(services.db, webhookRemoveAudit(accountId, { userId, label: email }, { host: new URL(before.url).host, cancelled: removed.cancelled }));
      request.log.info({ account_id: accountId, cancelled: removed.cancelled }, 'webhook endpoint removed');
      return { removed: true as const, cancelled_deliveries: removed.cancelled };
    },
  );

  app.post(
    '/api/backoffice/webhook/test',
    {
      schema: {
        tags: ['back office'],
        summary: 'Send a test event',
        description:
          `${AUTH_NOTE} Sends one signed webhook to the endpoint now and answers what it said (docs/webhooks.md#test-event). ` +
          'The body has the real shape, for the first event the endpoint takes, with `triggerID` 0 and the nil purchase id ' +
          '(`00000000-0000-0000-0000-000000000000`); `webhook-id` is `msg_test_…`. It is signed, timed out and checked against the ' +
          'target rules exactly as deliveries are, and it is not a delivery: not retried, not in the delivery log.',
        security: SECURITY,
        response: {
          200: Type.Object(
            {
              trigger_name: Type.String({ description: 'The trigger the test was sent as' }),
              delivered: Type.Boolean({ description: 'The endpoint answered 2xx' }),
              status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'Its HTTP status; null when none came' }),
              error: Type.Union([Type.String(), Type.Null()], { description: 'Why no answer (network error, timeout, refused target)' }),
              duration_ms: Type.Integer(),
            },
            { title: 'WebhookTestResult' },
          ),
          409: { ...TokenApiError, description: 'No webhook URL is set, or the endpoint is disabled (answered 410): set the URL again' },
          ...BackofficeErrors,
        },
      },
    },
    async (request) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const r = await services.deliveries.sendTest(accountId);
      if (r.kind === 'no_endpoint') throw new ApiError(409, 'invalid_request', 'no webhook URL is set: PUT /api/backoffice/webhook first');
      if (r.kind === 'disabled') throw new ApiError(409, 'invalid_request', 'the webhook endpoint is disabled (it answered 410 Gone): set its URL again');
      await recordStaffAction(services.db, webhookTestAudit(accountId, { userId, label: email }, r));
      return { trigger_name: r.triggerName, delivered: r.delivered, status_code: r.statusCode, error: r.error, duration_ms: r.durationMs };
    },
  );

  app.get(
    '/api/backoffice/webhook',
    {
      schema: {
        tags: ['back office'],
        summary: 'Read the webhook settings',
        description: `${AUTH_NOTE} The endpoint with its token and signing secret; \`disabled_at\` is set when it answered 410 Gone.`,
        security: SECURITY,
        response: {
          200: Type.Object(
            {
              ...Settings,
              disabled_at: Type.Optional(Type.String({ format: 'date-time', description: 'When a 410 answer disabled the endpoint' })),
              disabled_reason: Type.Optional(Type.String()),
              updated_at: Type.String({ format: 'date-time' }),
            },
            { title: 'WebhookEndpointState' },
          ),
          404: { ...TokenApiError, description: 'No webhook URL is set' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const e = await services.deliveries.getWebhook(accountId);
      if (!e) throw notFound('webhook endpoint');
      void reply.header('cache-control', 'no-store');
      return {
        ...settingsBody(e),
        ...(e.disabledAt ? { disabled_at: e.disabledAt.toISOString(), disabled_reason: e.disabledReason ?? '' } : {}),
        updated_at: e.updatedAt.toISOString(),
      };
    },
  );
}
