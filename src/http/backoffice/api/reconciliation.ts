import { Type } from 'typebox';
import { addDays } from '../../../domain/apr.ts';
import { DAY_RULE, isDay } from '../../../domain/dates.ts';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { ApiError } from '../../errors.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { decodeCursor, encodeCursor } from '../../routes/cursor.ts';
import { TokenApiError } from '../../routes/schemas.ts';
import type { App } from '../../types.ts';
import { DEFAULT_TIME_ZONE, zonedMidnight } from '../../../i18n/format.ts';
import type { Services } from '../../../services.ts';
import { MAX_RECON_DAYS, runReconciliation, updateMismatch } from '../../../use-cases/reconcile-psp.ts';
import { reconciliationMismatches, reconciliationRuns, type MismatchRow, type MismatchState, type RunRow } from '../../../use-cases/reconciliation-log.ts';
import { BackofficeErrors } from './webhook.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (docs/authentication.md). Admins and support users read; admins only run and mark (docs/back-office.md#roles).';
const invalid = (message: string) => new ApiError(400, 'invalid_request', message);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const Run = Type.Object(
  {
    id: Type.String(),
    psp: Type.String({ description: 'The PSP’s registry name (`sandbox`, `stripe` …)' }),
    psp_account_id: Type.Union([Type.String(), Type.Null()], { description: 'The merchant’s PSP account (`psa_…`); null: the platform’s PSP' }),
    period_from: Type.String({ format: 'date-time' }),
    period_to: Type.String({ format: 'date-time', description: 'Exclusive' }),
    state: Type.Union([Type.Literal('running'), Type.Literal('interrupted'), Type.Literal('completed')]),
    pages: Type.Integer(),
    matched_count: Type.Integer({ description: 'Transactions that agree on both sides' }),
    mismatch_count: Type.Integer({ description: 'Differences found by this run (new or found again)' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'The PSP fault that interrupted the run; running the period again resumes it' }),
    started_at: Type.String({ format: 'date-time' }),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'ReconciliationRun' },
);

const Mismatch = Type.Object(
  {
    id: Type.String(),
    run_id: Type.String({ description: 'The run that last found it' }),
    psp: Type.String(),
    psp_account_id: Type.Union([Type.String(), Type.Null()]),
    transaction_id: Type.String({ description: 'The PSP’s transaction id' }),
    payment_id: Type.Union([Type.String(), Type.Null()], { description: 'Chipin’s payment; null for a transaction unknown to Chipin' }),
    purchase_uid: Type.Union([Type.String(), Type.Null()]),
    kind: Type.Union([Type.Literal('missing_at_psp'), Type.Literal('unknown_to_chipin'), Type.Literal('amount_differs'), Type.Literal('status_differs')]),
    operation: Type.Union([Type.Literal('transaction'), Type.Literal('capture'), Type.Literal('refund'), Type.Literal('chargeback')]),
    chipin_cents: Type.Union([Type.Integer(), Type.Null()]),
    psp_cents: Type.Union([Type.Integer(), Type.Null()]),
    chipin_status: Type.Union([Type.String(), Type.Null()]),
    psp_status: Type.Union([Type.String(), Type.Null()]),
    currency: Type.String(),
    state: Type.Union([Type.Literal('open'), Type.Literal('explained'), Type.Literal('resolved')]),
    note: Type.Union([Type.String(), Type.Null()]),
    resolved_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ReconciliationMismatch' },
);

function runJson(r: RunRow) {
  return {
    id: r.id,
    psp: r.psp,
    psp_account_id: r.psp_account_id === null ? null : toPublicId('psa', r.psp_account_id),
    period_from: r.period_from.toISOString(),
    period_to: r.period_to.toISOString(),
    state: r.state,
    pages: r.pages,
    matched_count: r.matched_count,
    mismatch_count: r.mismatch_count,
    error: r.error,
    started_at: r.started_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

function mismatchJson(m: MismatchRow) {
  return {
    id: m.id,
    run_id: m.run_id,
    psp: m.psp,
    psp_account_id: m.psp_account_id === null ? null : toPublicId('psa', m.psp_account_id),
    transaction_id: m.transaction_id,
    payment_id: m.payment_id,
    purchase_uid: m.purchase_id === null ? null : toPublicId('pur', m.purchase_id),
    kind: m.kind,
    operation: m.operation,
    chipin_cents: m.chipin_cents,
    psp_cents: m.psp_cents,
    chipin_status: m.chipin_status,
    psp_status: m.psp_status,
    currency: m.currency,
    state: m.state,
    note: m.note,
    resolved_at: m.resolved_at?.toISOString() ?? null,
    created_at: m.created_at.toISOString(),
    updated_at: m.updated_at.toISOString(),
  };
}

const PAGE = Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 }));
const CURSOR = Type.Optional(Type.String({ maxLength: 200 }));

export function registerBackofficeReconciliation(app: App, services: Services, guard: DashboardGuard): void {
  const { db } = services;

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
