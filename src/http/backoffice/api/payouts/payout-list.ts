import { Type } from 'typebox';
import { payoutView } from '../../../../payouts/payout-views.ts';
import type { Services } from '../../../../services.ts';
import { payoutList } from '../../../../use-cases/payouts/payout-list.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { decodeCursor, encodeCursor } from '../../../routes/cursor.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, invalid, Payout, SECURITY } from './schemas.ts';

/** GET /api/backoffice/payouts: the account's payouts, newest first, a page at a time. */
export function registerPayoutList(app: App, services: Services, guard: DashboardGuard): void {
  // Reads only, seconds old at most: the replica while fresh (docs/deployment.md#read-replicas).
  const reads = services.reads;

  app.get(
    '/api/backoffice/payouts',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the account’s payouts',
        description: `${AUTH_NOTE} Newest first, paged with an opaque cursor (\`next_cursor\`).`,
        security: SECURITY,
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })), cursor: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(Payout), has_more: Type.Boolean(), next_cursor: Type.Optional(Type.String()) }),
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
      const rows = await payoutList(reads, accountId, limit + 1, before);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      void reply.header('cache-control', 'no-store');
      return { data: page.map(payoutView), has_more: rows.length > limit, ...(rows.length > limit && last ? { next_cursor: encodeCursor(last.created_at, last.id) } : {}) };
    },
  );
}
