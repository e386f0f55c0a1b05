import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { cancelPurchase } from '../../../use-cases/checkout/cancel-purchase.ts';
import { purchaseRefunds, refundPurchase } from '../../../use-cases/refunds/refund-purchase.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { ApiError, notFound, operationInProgress } from '../../errors.ts';
import { inProgressMessage } from '../../../money/claim.ts';
import { PurchaseIdParams, purchaseIdOf } from '../../purchase-id-param.ts';
import { idempotent } from '../../idempotency.ts';
import type { App } from '../../types.ts';
import { NewRefundPayload, noBodyIsEmpty, RefundSchema, refundV1 } from '../../views/refund-v1.ts';
import { BackofficeErrors } from './webhook.ts';
import { cancelRefusal } from '../../routes/merchant-v1/purchase-cancel.ts';
import { TokenApiError } from '../../routes/schemas.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';
const invalid = (message: string) => new ApiError(400, 'invalid_request', message);

/**
 * Back office: the refund and cancel actions of Merchant API v1 for the dashboard's staff, with
 * dashboard credentials, through the same use cases (docs/purchase-lifecycle.md#refunds,
 * docs/back-office.md). Token API error format.
 */
export function registerBackofficePurchases(app: App, services: Services, guard: DashboardGuard): void {
  const { db } = services;

  app.post(
    '/api/backoffice/purchases/:id/refunds',
    {
      // No body at all means no amount: everything still refundable.
      preValidation: noBodyIsEmpty,
      schema: {
        tags: ['back office'],
        summary: 'Refund a purchase, fully or partly',
        description: `${AUTH_NOTE} As \`POST /api/merchants/v1/purchases/{id}/refunds\`; \`Idempotency-Key\` honoured.`,
        security: SECURITY,
        params: PurchaseIdParams,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: NewRefundPayload,
        response: {
          201: RefundSchema,
          ...BackofficeErrors,
          400: { ...TokenApiError, description: '`amount` not refundable; the message names the field' },
          404: { ...TokenApiError, description: 'Unknown purchase' },
          409: {
            ...TokenApiError,
            description:
              '`idempotency_key_in_use`, or `operation_in_progress`: another money operation on this purchase is under way, retry after `Retry-After` seconds; `charge_disputed`: the amount needs a payment a chargeback is open on',
          },
        },
      },
    },
    async (request, reply) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const purchaseId = purchaseIdOf(request.params.id);
      const body = request.body;
      return idempotent(
        db,
        request,
        reply,
        // The purchase as resolved: `pur_<id>`, `<id>` and `<ID>` are one purchase, so one scope.
        { accountId, resource: { id: purchaseId } },
        async (requestKey) => {
          const outcome = await refundPurchase(services.payments, {
            accountId,
            purchaseId,
            amountCents: body.amount,
            reason: body.reason,
            actor: { userId, label: email },
            requestKey,
          });
          if (outcome.kind === 'not_found') throw notFound('purchase');
          if (outcome.kind === 'invalid') throw invalid(outcome.message);
          if (outcome.kind === 'charge_disputed') throw new ApiError(409, 'charge_disputed', outcome.message);
          if (outcome.kind === 'operation_in_progress') throw operationInProgress(inProgressMessage(outcome));
          return { status: 201, body: refundV1(outcome.refund) };
        },
        invalid,
      );
    },
  );

  app.get(
    '/api/backoffice/purchases/:id/refunds',
    {
      schema: {
        tags: ['back office'],
        summary: "List a purchase's refunds, oldest first",
        description: AUTH_NOTE,
        security: SECURITY,
        params: PurchaseIdParams,
        response: { 200: Type.Object({ data: Type.Array(RefundSchema) }), ...BackofficeErrors, 404: { ...TokenApiError, description: 'Unknown purchase' } },
      },
    },
    async (request) => {
      const accountId = await guard.accountOf(request);
      const refunds = await purchaseRefunds(services.payments, accountId, purchaseIdOf(request.params.id));
      if (!refunds) throw notFound('purchase');
      return { data: refunds.map(refundV1) };
    },
  );

  app.post(
    '/api/backoffice/purchases/:id/cancel',
    {
      schema: {
        tags: ['back office'],
        summary: 'Cancel a purchase on which nothing was captured',
        description: `${AUTH_NOTE} As \`POST /api/merchants/v1/purchases/{id}/cancel\`. No body.`,
        security: SECURITY,
        params: PurchaseIdParams,
        response: {
          200: Type.Object({ purchase_uid: Type.String(), state: Type.String({ description: 'The v1 state: CANCELLED' }) }),
          ...BackofficeErrors,
          404: { ...TokenApiError, description: 'Unknown purchase' },
          409: {
            ...TokenApiError,
            description: '`invalid_purchase_state`: money was captured (refund instead), or already settled; `operation_in_progress`: another money operation is under way, retry',
          },
        },
      },
    },
    async (request) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const purchaseId = purchaseIdOf(request.params.id);
      const outcome = await cancelPurchase(services.payments, { accountId, purchaseId, actor: { userId, label: email } });
      if (outcome.kind === 'not_found') throw notFound('purchase');
      if (outcome.kind !== 'cancelled') throw cancelRefusal(outcome);
      return { purchase_uid: `pur_${purchaseId}`, state: V1_STATE[outcome.state] };
    },
  );
}
