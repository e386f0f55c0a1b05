import { Type } from 'typebox';
import { PAYOUT_LINE_CSV_COLUMNS, payoutLineCsv } from '../../../../payouts/payout-views.ts';
import type { Services } from '../../../../services.ts';
import { payoutLinesOf, payoutOf, type PayoutLineRow } from '../../../../use-cases/payouts/payout-list.ts';
import { streamCsvExport } from '../../../csv-export.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import { notFound } from '../../../errors.ts';
import { TokenApiError } from '../../../routes/schemas.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, payoutIdOf, SECURITY } from './schemas.ts';

/** Rows read per query of the lines' CSV. */
const EXPORT_BATCH = 500;

/** GET /api/backoffice/payouts/{payout_id}/lines.csv: all of a payout's lines as CSV, streamed. */
export function registerPayoutLinesCsv(app: App, services: Services, guard: DashboardGuard): void {
  // Reads only, seconds old at most: the replica while fresh (docs/deployment.md#read-replicas).
  const reads = services.reads;

  app.get(
    '/api/backoffice/payouts/:payout_id/lines.csv',
    {
      schema: {
        tags: ['back office'],
        summary: 'A payout’s lines as CSV',
        description: `${AUTH_NOTE} RFC 4180, in posting order, streamed; columns: ${PAYOUT_LINE_CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')}.`,
        security: SECURITY,
        params: Type.Object({ payout_id: Type.String({ maxLength: 64, description: '`po_…`' }) }),
        produces: ['text/csv'],
        response: {
          200: { description: 'The CSV file (`text/csv; charset=utf-8`, an attachment)', content: { 'text/csv': { schema: Type.String() } } },
          404: { ...TokenApiError, description: 'No such payout in this account' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const payout = await payoutOf(reads, accountId, payoutIdOf(request.params.payout_id));
      if (!payout) throw notFound('payout');
      return streamCsvExport<PayoutLineRow>(reply, {
        filename: `chipin-payout-${payout.business_day}-${payout.currency}-${payout.id}.csv`,
        header: PAYOUT_LINE_CSV_COLUMNS.join(',') + '\r\n',
        batch: EXPORT_BATCH,
        page: (last) => payoutLinesOf(reads, accountId, payout.id, last?.posting_id ?? null, EXPORT_BATCH),
        line: (l) => payoutLineCsv(payout, l),
      });
    },
  );
}
