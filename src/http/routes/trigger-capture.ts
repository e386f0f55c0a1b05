import { Type } from 'typebox';
import { verifyHs256 } from '../../delivery/jwt.ts';
import { parsePublicId, toPublicId } from '../../domain/ids.ts';
import { V1_STATE } from '../../domain/purchase-states.ts';
import { collectInstallment, deferredInstallmentId } from '../../payments/installments.ts';
import { loadPayState } from '../../payments/pot-store.ts';
import type { Services } from '../../services.ts';
import { ApiError } from '../errors.ts';
import type { App } from '../types.ts';
import { TokenApiError } from './schemas.ts';

const bad = (code: 'invalid_signature' | 'missing_identifier' | 'invalid_purchase_state', message: string) => new ApiError(400, code, message);

/** The unverified payload: only to learn which offer's secret verifies it. */
function peek(token: string): Record<string, unknown> | undefined {
  try {
    const payload: unknown = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 255 ? v : undefined);

/**
 * `POST /api/trigger_capture/?signature=<jwt>` (DESIGN §7): captures a deferred purchase now
 * instead of at its due date. The signature is an HS256 JWT signed with the offer's secret whose
 * payload names the offer (`merchantUid`) and the purchase (`purchaseUid`, or `reference`).
 */
export function registerTriggerCapture(app: App, services: Services): void {
  const { db, box, payments } = services;
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
    },
  };
  const handler = async (request: { query: { signature?: string } }) => {
    const token = request.query.signature;
    if (!token) throw bad('invalid_signature', 'query parameter signature is required');
    const claims = peek(token);
    if (!claims) throw bad('invalid_signature', 'signature is not a JWT');
    const merchantUid = str(claims.merchantUid);
    if (!merchantUid) throw bad('missing_identifier', 'merchantUid is missing from the signed payload');
    const offerId = parsePublicId('mer', merchantUid);
    const { rows: offers } = offerId
      ? await db.query<{ account_id: string; signing_secret_enc: string; type: string }>('SELECT account_id, signing_secret_enc, type FROM offers WHERE id = $1', [offerId])
      : { rows: [] };
    const offer = offers[0];
    if (!offer) throw new ApiError(404, 'not_found', 'merchantUid not found');
    const verified = verifyHs256(token, box.open(offer.signing_secret_enc).reveal());
    if (!verified) throw bad('invalid_signature', 'the signature does not verify with the offer\'s secret');
    const purchaseUid = str(verified.purchaseUid);
    const reference = str(verified.reference);
    if (!purchaseUid && !reference) throw bad('missing_identifier', 'purchaseUid or reference is missing from the signed payload');

    const accountId = offer.account_id;
    let purchaseId: string | undefined;
    if (purchaseUid) {
      const id = parsePublicId('pur', purchaseUid);
      const { rows } = id ? await db.query<{ id: string }>('SELECT id FROM purchases WHERE account_id = $1 AND offer_id = $2 AND id = $3', [accountId, offerId, id]) : { rows: [] };
      purchaseId = rows[0]?.id;
      if (!purchaseId) throw new ApiError(404, 'not_found', 'purchaseUid not found');
    } else {
      // The newest purchase of the offer with that reference: references are the merchant's and may repeat.
      const { rows } = await db.query<{ id: string }>('SELECT id FROM purchases WHERE account_id = $1 AND offer_id = $2 AND ref = $3 ORDER BY created_at DESC LIMIT 1', [accountId, offerId, reference]);
      purchaseId = rows[0]?.id;
      if (!purchaseId) throw new ApiError(404, 'not_found', 'reference not found');
    }

    const state = (await loadPayState(db, accountId, purchaseId))!;
    const installmentId = offer.type === 'DEFERRED' ? await deferredInstallmentId(db, accountId, purchaseId) : undefined;
    if (!installmentId) throw bad('invalid_purchase_state', `a purchase in state ${V1_STATE[state.state]} is not a deferred payment awaiting capture`);
    if (state.state !== 'LEADER_PROCESSED' && state.state !== 'SUCCESSFUL') {
      throw bad('invalid_purchase_state', `a purchase in state ${V1_STATE[state.state]} cannot be captured`);
    }
    if (state.state === 'LEADER_PROCESSED') {
      const outcome = await collectInstallment(payments, accountId, installmentId);
      if (outcome === 'not_collectable') throw bad('invalid_purchase_state', 'the purchase cannot be captured now');
    }
    const after = (await loadPayState(db, accountId, purchaseId))!;
    return { purchase_uid: toPublicId('pur', purchaseId), state: V1_STATE[after.state] };
  };
  // The contract writes the path with a trailing slash; both spellings work.
  app.post('/api/trigger_capture/', { schema }, handler);
  app.post('/api/trigger_capture', { schema: { ...schema, hide: true } }, handler);
}
