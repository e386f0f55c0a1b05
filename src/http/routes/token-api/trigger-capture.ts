import { Type } from 'typebox';
import { toPublicId } from '../../../domain/ids.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import type { Services } from '../../../services.ts';
import { inProgressMessage } from '../../../money/claim.ts';
import { triggerCapture } from '../../../use-cases/installments/trigger-capture.ts';
import { ApiError, operationInProgress } from '../../errors.ts';
import type { App } from '../../types.ts';
import { TokenApiError } from '../schemas.ts';

/**
 * `POST /api/trigger_capture/?signature=<jwt>`
 * (docs/schedules.md#capturing-a-deferred-payment-now-trigger_capture): captures a deferred
 * purchase now instead of at its due date. The signature is an HS256 JWT signed with the offer's
 * secret whose payload names the offer (`merchantUid`) and the purchase (`purchaseUid`, or
 * `reference`).
 */
export function registerTriggerCapture(app: App, services: Services): void {
  const { payments } = services;
  const schema = {
    tags: ['Token API'],
    summary: 'Capture a deferred purchase now',
    description:
      'Authentication: `signature`, an HS256 JWT signed with the offer\'s secret, payload `{"merchantUid":"mer_…","purchaseUid":"pur_…"}` or `{"merchantUid":"mer_…","reference":"<your ref>"}`. ' +
      'Idempotent: a second call answers the same result and never captures twice.',
    security: [],
    querystring: Type.Object({ signature: Type.Optional(Type.String({ maxLength: 4096 })) }, { additionalProperties: true }),
    response: {
      200: Type.Object({ purchase_uid: Type.String(), state: Type.String({ description: 'Merchant API v1 state after the capture' }) }),
      400: { ...TokenApiError, description: '`invalid_signature`, `missing_identifier` or `invalid_purchase_state`' },
      404: { ...TokenApiError, description: 'Unknown merchantUid, purchaseUid or reference' },
      409: {
        ...TokenApiError,
        description: '`operation_in_progress`: another money operation on this purchase (a refund, a cancel) is under way; retry after `Retry-After` seconds',
      },
    },
  };
  const handler = async (request: { query: { signature?: string } }) => {
    const token = request.query.signature;
    if (!token) throw new ApiError(400, 'invalid_signature', 'query parameter signature is required');
    const outcome = await triggerCapture(payments, token);
    switch (outcome.kind) {
      case 'captured':
        return { purchase_uid: toPublicId('pur', outcome.purchaseId), state: V1_STATE[outcome.state] };
      case 'refused':
        throw new ApiError(400, outcome.code, outcome.message);
      case 'not_found':
        throw new ApiError(404, 'not_found', outcome.message);
      case 'operation_in_progress':
        throw operationInProgress(inProgressMessage(outcome));
    }
  };
  // The contract writes the path with a trailing slash; both spellings work.
  app.post('/api/trigger_capture/', { schema }, handler);
  app.post('/api/trigger_capture', { schema: { ...schema, hide: true } }, handler);
}
