import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { reconciliationRuns } from '../../../../use-cases/reconciliation/reconciliation-log.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { decodeCursor, encodeCursor } from '../../../routes/cursor.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, CURSOR, invalid, PAGE, Run, runJson, SECURITY } from './schemas.ts';

/** GET /api/backoffice/reconciliation_runs: the account's runs, newest first, a page at a time. */
export function registerReconciliationRunList(app: App, services: Services, guard: DashboardGuard): void {
  const { db } = services;

  app.get(
    '/api/backoffice/reconciliation_runs',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the reconciliation runs',
        description: `${AUTH_NOTE} Newest first, paged with an opaque cursor (\`next_cursor\`).`,
        security: SECURITY,
        querystring: Type.Object({ limit: PAGE, cursor: CURSOR }, { additionalProperties: false }),
        response: {
          200: Type.Object({ data: Type.Array(Run), has_more: Type.Boolean(), next_cursor: Type.Optional(Type.String()) }),
          400: { ...TokenApiError, description: 'Invalid query parameter; the message names it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const { limit = 100, cursor } = request.query;
      const before = cursor === undefined ? null : (decodeCursor(cursor) ?? null);
      if (cursor !== undefined && !before) throw invalid('query parameter cursor is not a cursor this API gave');
      const rows = await reconciliationRuns(db, accountId, limit + 1, before && { startedAt: before.createdAt, id: before.id });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      void reply.header('cache-control', 'no-store');
      return { data: page.map(runJson), has_more: rows.length > limit, ...(rows.length > limit && last ? { next_cursor: encodeCursor(last.started_at, last.id) } : {}) };
    },
  );
}
