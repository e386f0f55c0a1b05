import { Type } from 'typebox';
import type { Services } from '../../../../services.ts';
import { reconciliationMismatches, type MismatchState } from '../../../../use-cases/reconciliation/reconciliation-log.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { decodeCursor, encodeCursor } from '../../../routes/cursor.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, CURSOR, invalid, Mismatch, mismatchJson, PAGE, SECURITY } from './schemas.ts';

/** GET /api/backoffice/reconciliation_mismatches: the account's mismatches, newest first, of one state if asked, a page at a time. */
export function registerReconciliationMismatchList(app: App, services: Services, guard: DashboardGuard): void {
  const { db } = services;

  app.get(
    '/api/backoffice/reconciliation_mismatches',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the reconciliation mismatches',
        description: `${AUTH_NOTE} Newest first, of one state when \`state\` is given, paged with an opaque cursor (\`next_cursor\`).`,
        security: SECURITY,
        querystring: Type.Object(
          { state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('explained'), Type.Literal('resolved')])), limit: PAGE, cursor: CURSOR },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(Mismatch), has_more: Type.Boolean(), next_cursor: Type.Optional(Type.String()) }),
          400: { ...TokenApiError, description: 'Invalid query parameter; the message names it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const { limit = 100, cursor, state } = request.query;
      const before = cursor === undefined ? null : (decodeCursor(cursor) ?? null);
      if (cursor !== undefined && !before) throw invalid('query parameter cursor is not a cursor this API gave');
      const rows = await reconciliationMismatches(db, accountId, (state as MismatchState | undefined) ?? null, limit + 1, before);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      void reply.header('cache-control', 'no-store');
      return {
        data: page.map(mismatchJson),
        has_more: rows.length > limit,
        ...(rows.length > limit && last ? { next_cursor: encodeCursor(last.created_at, last.id) } : {}),
      };
    },
  );
}
