import { Type } from 'typebox';
import { parsePublicId } from '../../../domain/ids.ts';
import type { Services } from '../../../services.ts';
import { purchaseDisputes, resolveSandboxDispute } from '../../../use-cases/disputes/dispute.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { App } from '../../types.ts';
import { DisputeSchema, disputeView } from '../../views/dispute.ts';
import { BearerErrors, TokenApiError } from '../schemas.ts';

/**
 * Sandbox helpers for disputes (not in production; docs/money-operations.md#disputes): the
 * purchase's disputes, and the card holder's bank deciding one of the sandbox PSP's. The dispute
 * cards open them once captured; an undecided one lapses as lost at its deadline (move the clock).
 */
export function registerSandboxDisputes(app: App, services: Services): void {
  const { payments, psps } = services;

  app.get(
    '/api/sandbox/purchases/:purchase_uid/disputes',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['sandbox'],
        summary: "Sandbox: the purchase's disputes",
        security: [{ bearerToken: [] }],
        params: Type.Object({ purchase_uid: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({ disputes: Type.Array(DisputeSchema) }, { description: 'Oldest first' }),
          ...BearerErrors,
          404: { ...TokenApiError, description: "Unknown purchase, or another account's" },
        },
      },
    },
    async (request) => {
      const accountId = request.auth!.accountId;
      const id = parsePublicId('pur', request.params.purchase_uid);
      const disputes = id ? await purchaseDisputes(payments, accountId, id) : undefined;
      if (!disputes) throw notFound('purchase');
      return { disputes: disputes.map(disputeView) };
    },
  );

  for (const outcome of ['win', 'lose'] as const) {
    app.post(
      `/api/sandbox/disputes/:dispute_id/${outcome}`,
      {
        config: { auth: 'bearer' },
        schema: {
          tags: ['sandbox'],
          summary: `Sandbox: the bank decides a dispute of the sandbox PSP (${outcome === 'win' ? 'the merchant wins' : 'the merchant loses'})`,
          description:
            'The sandbox PSP decides the dispute and notifies Chipin before answering: a chargeback ends `' +
            (outcome === 'win' ? 'won' : 'lost') +
            '`' +
            (outcome === 'lose' ? ' (its amount is charged back)' : '') +
            '; a retrieval request or fraud warning ends `closed`.',
          security: [{ bearerToken: [] }],
          params: Type.Object({ dispute_id: Type.String({ maxLength: 64 }) }),
          response: {
            200: { ...DisputeSchema, description: 'The dispute, as recorded after the notice' },
            ...BearerErrors,
            404: { ...TokenApiError, description: "Unknown dispute, another account's, or not on the sandbox PSP" },
            409: { ...TokenApiError, description: '`dispute_not_open`: the dispute was already decided' },
          },
        },
      },
      async (request) => {
        const accountId = request.auth!.accountId;
        const id = parsePublicId('dsp', request.params.dispute_id);
        const result = id ? await resolveSandboxDispute(payments, psps.sandbox, accountId, id, outcome === 'win' ? 'won' : 'lost') : { kind: 'not_found' as const };
        switch (result.kind) {
          case 'not_found':
            throw notFound('dispute');
          case 'ended':
            throw new ApiError(409, 'dispute_not_open', `the dispute was already decided (${result.state})`);
          case 'resolved':
            return disputeView(result.dispute);
        }
      },
    );
  }
}
