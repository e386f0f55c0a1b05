import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { updateMismatch } from '../../../../use-cases/reconciliation/reconcile-psp.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { ApiError } from '../../../errors.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, Mismatch, mismatchJson, SECURITY } from './schemas.ts';

/** PATCH /api/backoffice/reconciliation_mismatches/{id}: marks a mismatch explained or resolved, with a note; audited. */
export function registerReconciliationMismatchUpdate(app: App, services: Services, guard: DashboardGuard): void {
  app.patch(
    '/api/backoffice/reconciliation_mismatches/:id',
    {
      schema: {
        tags: ['back office'],
        summary: 'Mark a reconciliation mismatch explained or resolved',
        description: `${AUTH_NOTE} With a note saying why; audited (\`reconciliation_mismatch_update\`). A later run that finds the difference again opens a resolved mismatch again.`,
        security: SECURITY,
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object(
          {
            state: Type.Union([Type.Literal('explained'), Type.Literal('resolved')]),
            note: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Mismatch,
          400: { ...TokenApiError, description: 'Invalid body; the message names the field' },
          404: { ...TokenApiError, description: 'No such mismatch in this account' },
          ...BackofficeErrors,
        },
      },
    },
    async (request) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const id = request.params.id;
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new ApiError(404, 'not_found', 'No such mismatch');
      const outcome = await updateMismatch(services.payments, accountId, { userId, label: email }, id, { state: request.body.state, note: request.body.note ?? null });
      if (outcome.kind === 'not_found') throw new ApiError(404, 'not_found', 'No such mismatch');
      return mismatchJson(outcome.mismatch);
    },
  );
}
