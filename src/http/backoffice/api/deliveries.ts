import { recordStaffAction } from '../../../use-cases/back-office/audit-trail.ts';
import { Type } from 'typebox';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { decodeDeliveryCursor, encodeDeliveryCursor, parseDeliveryUid, toDeliveryUid } from '../../../delivery/delivery.ts';
import type { AttemptView, DeliveryView } from '../../../delivery/service.ts';
import type { Services } from '../../../services.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { App } from '../../types.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { BackofficeErrors } from './webhook.ts';
import { TokenApiError } from '../../routes/schemas.ts';

const PUR_UID = '^pur_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';

const Status = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('cancelled')], {
  description: '`pending` (due, or waiting for a retry), `succeeded`, `failed` (given up after every retry, or 410), `cancelled` (its endpoint was disabled)',
});

const DeliveryFields = {
  id: Type.String({ description: 'Delivery id, also sent as the `webhook-id` header', examples: ['dlv_0b8e4a9c-7a51-4c0e-9d33-3c1d2f6b8a10'] }),
  kind: Type.Union([Type.Literal('webhook'), Type.Literal('notification'), Type.Literal('refusal'), Type.Literal('purchase_end')], {
    description:
      "`notification`: back mode's, to paymentNotificationUrl; `refusal`: the error notification, to errorNotificationUrl; `purchase_end`: a pot's end, to the offer's purchase end notification URL",
  }),
  purchase_uid: Type.Optional(
    Type.String({ description: 'The purchase the event is about; absent for a payout’s webhook (`payoutPaid`)', examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
  ),
  event: Type.String({ description: 'The event delivered', examples: ['purchase.leader_processed'] }),
  trigger_id: Type.Integer({ description: 'The webhook `triggerID` (the event number)' }),
  trigger_name: Type.Optional(Type.String({ description: 'Webhooks: the `triggerName`', examples: ['paymentProcessed'] })),
  url: Type.String({ description: 'Where it was (or will be) sent: http(s) URL or mailto:' }),
  status: Status,
  attempts: Type.Integer({ description: 'Attempts made so far' }),
  next_attempt_at: Type.Optional(Type.String({ format: 'date-time', description: 'Pending: when the next attempt is due' })),
  last_status_code: Type.Optional(Type.Integer()),
  last_error: Type.Optional(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Type.Optional(Type.String({ format: 'date-time' })),
};
const Delivery = Type.Object(DeliveryFields, { title: 'Delivery' });

const Attempt = Type.Object(
  {
    attempt: Type.Integer({ description: '1 for the first' }),
    url: Type.String(),
    started_at: Type.String({ format: 'date-time' }),
    duration_ms: Type.Integer(),
    status_code: Type.Optional(Type.Integer()),
    response_excerpt: Type.Optional(Type.String({ description: 'The first KB of the answer' })),
    error: Type.Optional(Type.String()),
    outcome: Type.String({ description: '`succeeded`, `retry_scheduled`, `gave_up`, `endpoint_gone` or `interrupted`' }),
    next_attempt_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { title: 'DeliveryAttempt' },
);

function deliveryJson(d: DeliveryView) {
  return {
    id: toDeliveryUid(d.id),
    kind: d.kind,
    ...(d.purchaseId !== null ? { purchase_uid: toPublicId('pur', d.purchaseId) } : {}),
    event: d.eventType,
    trigger_id: d.eventId,
    ...(d.triggerName ? { trigger_name: d.triggerName } : {}),
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    ...(d.nextAttemptAt ? { next_attempt_at: d.nextAttemptAt.toISOString() } : {}),
    ...(d.lastStatusCode !== null ? { last_status_code: d.lastStatusCode } : {}),
    ...(d.lastError !== null ? { last_error: d.lastError } : {}),
    created_at: d.createdAt.toISOString(),
    ...(d.completedAt ? { completed_at: d.completedAt.toISOString() } : {}),
  };
}

function attemptJson(a: AttemptView) {
  return {
    attempt: a.attempt,
    url: a.url,
    started_at: a.startedAt.toISOString(),
    duration_ms: a.durationMs,
    ...(a.statusCode !== null ? { status_code: a.statusCode } : {}),
    ...(a.responseExcerpt !== null ? { response_excerpt: a.responseExcerpt } : {}),
    ...(a.error !== null ? { error: a.error } : {}),
    outcome: a.outcome,
    ...(a.nextAttemptAt ? { next_attempt_at: a.nextAttemptAt.toISOString() } : {}),
  };
}

const DeliveryParams = Type.Object({ delivery_id: Type.String({ maxLength: 100, examples: ['dlv_0b8e4a9c-7a51-4c0e-9d33-3c1d2f6b8a10'] }) });

/**
 * Back office: the delivery log of the account's webhooks and notifications, each with its
 * attempts, and replay by hand. Scoped to the signed-in account: another account's delivery
 * answers 404 like an unknown one.
 */
export function registerBackofficeDeliveries(app: App, services: Services, guard: DashboardGuard): void {
  app.get(
    '/api/backoffice/deliveries',
    {
      schema: {
        tags: ['back office'],
        summary: 'List webhook and notification deliveries',
        description: `${AUTH_NOTE} Newest first, paged with an opaque cursor (\`next_cursor\`).`,
        security: SECURITY,
        querystring: Type.Object(
          {
            purchase_uid: Type.Optional(Type.String({ pattern: PUR_UID, description: 'Only this purchase' })),
            status: Type.Optional(Status),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(Delivery), has_more: Type.Boolean(), next_cursor: Type.Optional(Type.String()) }),
          400: { ...TokenApiError, description: 'Invalid query parameter' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const { purchase_uid, status, limit = 20, cursor } = request.query;
      const before = cursor === undefined ? undefined : decodeDeliveryCursor(cursor);
      if (cursor !== undefined && !before) throw new ApiError(400, 'invalid_request', 'query parameter cursor is not a cursor this API gave');
      const purchaseId = purchase_uid === undefined ? undefined : parsePublicId('pur', purchase_uid);
      const rows = await services.deliveries.list(accountId, {
        ...(purchaseId ? { purchaseId } : {}),
        ...(status ? { status } : {}),
        ...(before ? { before } : {}),
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      void reply.header('cache-control', 'no-store');
      return {
        data: page.map(deliveryJson),
        has_more: rows.length > limit,
        ...(rows.length > limit && last ? { next_cursor: encodeDeliveryCursor(last) } : {}),
      };
    },
  );

  app.get(
    '/api/backoffice/deliveries/:delivery_id',
    {
      schema: {
        tags: ['back office'],
        summary: 'One delivery with every attempt',
        description: `${AUTH_NOTE} Each attempt with its status code, latency, the first KB of the answer and the error.`,
        security: SECURITY,
        params: DeliveryParams,
        response: {
          200: Type.Object({ ...DeliveryFields, attempt_log: Type.Array(Attempt) }, { title: 'DeliveryWithAttempts' }),
          404: { ...TokenApiError, description: 'Unknown delivery (or another account’s)' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const id = parseDeliveryUid(request.params.delivery_id);
      const d = id && (await services.deliveries.find(accountId, id));
      if (!d) throw notFound('delivery');
      void reply.header('cache-control', 'no-store');
      return { ...deliveryJson(d), attempt_log: d.attemptLog.map(attemptJson) };
    },
  );

  app.post(
    '/api/backoffice/deliveries/:delivery_id/replay',
    {
      schema: {
        tags: ['back office'],
        summary: 'Send a delivery again',
        description:
          `${AUTH_NOTE} Whatever its status, the delivery is sent again now with a fresh retry schedule, the same body and the same ` +
          '`webhook-id` (receivers that de-duplicate on it will ignore it). A webhook cannot be replayed while its endpoint is ' +
          'disabled: set the URL again first. No body.',
        security: SECURITY,
        params: DeliveryParams,
        response: {
          202: Type.Object(DeliveryFields, { title: 'Delivery', description: 'Queued: due now' }),
          404: { ...TokenApiError, description: 'Unknown delivery (or another account’s)' },
          409: { ...TokenApiError, description: 'The webhook endpoint is disabled or removed' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const id = parseDeliveryUid(request.params.delivery_id);
      if (!id) throw notFound('delivery');
      const result = await services.deliveries.replay(accountId, id);
      if (!result.ok) {
        if (result.reason === 'not_found') throw notFound('delivery');
        throw new ApiError(409, 'invalid_request', 'the webhook endpoint is disabled (it answered 410 Gone) or removed: set its URL again with PUT /api/backoffice/webhook first');
      }
      await recordStaffAction(services.db, { accountId, actor: { userId, label: email }, action: 'delivery_replay', subject: toDeliveryUid(id) });
      request.log.info({ account_id: accountId, delivery_id: toDeliveryUid(id) }, 'delivery replay requested');
      return reply.code(202).header('cache-control', 'no-store').send(deliveryJson(result.delivery));
    },
  );
}
