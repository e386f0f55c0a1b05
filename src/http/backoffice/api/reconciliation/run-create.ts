import { Type } from 'typebox';
import { addDays, DAY_RULE, isDay } from '../../../../domain/dates.ts';
import { parsePublicId } from '../../../../domain/ids.ts';
import { DEFAULT_TIME_ZONE, zonedMidnight } from '../../../../i18n/format.ts';
import type { Services } from '../../../../services.ts';
import { MAX_RECON_DAYS, runReconciliation } from '../../../../use-cases/reconciliation/reconcile-psp.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { ApiError } from '../../../errors.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, invalid, Run, runJson, SECURITY } from './schemas.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** POST /api/backoffice/reconciliation_runs: runs (or resumes) a period's reconciliation with a PSP and answers when it ends. */
export function registerReconciliationRunCreate(app: App, services: Services, guard: DashboardGuard): void {
  app.post(
    '/api/backoffice/reconciliation_runs',
    {
      schema: {
        tags: ['back office'],
        summary: 'Run (or resume) the reconciliation of a period with a PSP',
        description:
          `${AUTH_NOTE} Compares Chipin's payments with the PSP's own records of the days \`from\`–\`to\` (inclusive, in the account's time zone) and answers when the run ends (docs/money-operations.md#reconciliation). ` +
          'The same period again is the same run: an interrupted one resumes at its cursor, a completed one is checked again, and its mismatches are never recorded twice.',
        security: SECURITY,
        body: Type.Object(
          {
            from: Type.String({ pattern: DAY.source, description: 'First day, `YYYY-MM-DD`', examples: ['2026-11-01'] }),
            to: Type.String({ pattern: DAY.source, description: 'Last day, inclusive, `YYYY-MM-DD`', examples: ['2026-11-01'] }),
            psp_account_id: Type.Optional(
              Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'The merchant’s PSP account (`psa_…`); absent or null: the platform’s PSP' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Run,
          400: { ...TokenApiError, description: 'Invalid body; the message names the field' },
          404: { ...TokenApiError, description: 'No such PSP account in this account' },
          ...BackofficeErrors,
        },
      },
    },
    async (request) => {
      const accountId = await guard.accountOf(request);
      const { from, to, psp_account_id } = request.body;
      if (!isDay(from)) throw invalid(`field from must be ${DAY_RULE}`);
      if (!isDay(to)) throw invalid(`field to must be ${DAY_RULE}`);
      if (to < from) throw invalid('field to must be on or after from');
      if (addDays(from, MAX_RECON_DAYS) <= to) throw invalid(`field to must be at most ${MAX_RECON_DAYS} days from from (both included): a run answers when it ends`);
      let pspAccountId: string | null = null;
      if (psp_account_id) {
        const id = parsePublicId('psa', psp_account_id);
        if (!id) throw new ApiError(404, 'not_found', 'No such PSP account');
        pspAccountId = id;
      }
      const zone = (await services.accounts.profileOf(accountId))?.timeZone ?? DEFAULT_TIME_ZONE;
      const outcome = await runReconciliation(services.payments, {
        accountId,
        pspAccountId,
        from: zonedMidnight(from, zone),
        to: zonedMidnight(addDays(to, 1), zone),
      });
      if (outcome.kind === 'unknown_psp_account') throw new ApiError(404, 'not_found', 'No such PSP account');
      return runJson(outcome.run);
    },
  );
}
