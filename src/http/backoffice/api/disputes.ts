import { Type } from 'typebox';
import { DISPUTE_STATES, type DisputeState } from '../../../domain/disputes.ts';
import { parsePublicId } from '../../../domain/ids.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { decodeCursor, encodeCursor } from '../../routes/cursor.ts';
import { TokenApiError } from '../../routes/schemas.ts';
import type { App } from '../../types.ts';
import { DisputeSchema, disputeView } from '../../views/dispute.ts';
import type { Services } from '../../../services.ts';
import { markEvidenceSent } from '../../../use-cases/disputes/dispute.ts';
import { disputeList } from '../../../use-cases/disputes/dispute-list.ts';
import { BackofficeErrors } from './webhook.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md). Admins and support users (docs/back-office.md#roles).';
/** A dispute without a deadline sorts after every dated one (the cursor needs a date). */
export const NO_DEADLINE = new Date('9999-12-31T00:00:00Z');
export const EVIDENCE_MAX_LENGTH = 20_000;
const invalid = (message: string) => new ApiError(400, 'invalid_request', message);

/** The states `state=` selects: `open` (default) lists open and evidence-sent disputes, those still awaiting the bank. */
function statesOf(state: string | undefined): readonly DisputeState[] | undefined {
  if (state === undefined || state === 'open') return ['open', 'evidence_sent'];
  if (state === 'all') return DISPUTE_STATES;
  return (DISPUTE_STATES as readonly string[]).includes(state) ? [state as DisputeState] : undefined;
}

/**
 * Back office: the account's disputes by deadline, and staff marking evidence as sent
 * (docs/money-operations.md#disputes, docs/back-office.md#disputes).
 */
export function registerBackofficeDisputes(app: App, services: Services, guard: DashboardGuard): void {
  const { db } = services;

  app.get(
    '/api/backoffice/disputes',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the disputes by deadline',
        description: `${AUTH_NOTE} The nearest evidence deadline first (disputes without one last), paged with an opaque cursor (\`next_cursor\`). \`state\`: \`open\` (default: open and evidence sent), \`evidence_sent\`, \`won\`, \`lost\`, \`closed\` or \`all\`.`,
        security: SECURITY,
        querystring: Type.Object(
          {
            state: Type.Optional(Type.String({ maxLength: 20 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(DisputeSchema), has_more: Type.Boolean(), next_cursor: Type.Optional(Type.String()) }),
          400: { ...TokenApiError, description: 'Invalid query parameter; the message names it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const { limit = 50, cursor } = request.query;
      const states = statesOf(request.query.state);
      if (!states) throw invalid('query parameter state must be open, evidence_sent, won, lost, closed or all');
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      if (cursor !== undefined && !after) throw invalid('query parameter cursor is not a cursor this API gave');
      const rows = await disputeList(db, accountId, states, after ? { dueAt: after.createdAt, id: after.id } : null, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      void reply.header('cache-control', 'no-store');
      return {
        data: page.map(disputeView),
        has_more: rows.length > limit,
        ...(rows.length > limit && last ? { next_cursor: encodeCursor(last.evidence_due_at ?? NO_DEADLINE, last.id) } : {}),
      };
    },
  );

  app.post(
    '/api/backoffice/disputes/:id/evidence',
    {
      schema: {
        tags: ['back office'],
        summary: "Mark a dispute's evidence as sent",
        description:
          `${AUTH_NOTE} An open dispute becomes \`evidence_sent\` (audited). Where the PSP has an evidence API (Stripe), \`text\` is submitted there first ` +
          "(as `uncategorized_text`, submitted at once); elsewhere send the evidence through the PSP's back office, then mark it here.",
        security: SECURITY,
        params: Type.Object({ id: Type.String({ maxLength: 64, description: '`dsp_<uuid>`' }) }),
        body: Type.Object(
          { text: Type.Optional(Type.String({ maxLength: EVIDENCE_MAX_LENGTH, description: 'What was sent (submitted to the PSP where it has an API)' })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ dispute: DisputeSchema, submitted_to_psp: Type.Boolean() }),
          404: { ...TokenApiError, description: "Unknown dispute, or another account's" },
          409: { ...TokenApiError, description: '`dispute_not_open`: evidence already sent, or the dispute ended' },
          502: { ...TokenApiError, description: '`psp_unavailable`: the PSP refused the evidence; nothing was marked' },
          ...BackofficeErrors,
        },
      },
    },
    async (request) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const id = parsePublicId('dsp', request.params.id);
      if (!id) throw notFound('dispute');
      const outcome = await markEvidenceSent(services.payments, { userId, label: email }, accountId, id, request.body?.text ?? '');
      switch (outcome.kind) {
        case 'not_found':
          throw notFound('dispute');
        case 'not_open':
          throw new ApiError(409, 'dispute_not_open', `the dispute is ${outcome.state}`);
        case 'psp_refused':
          throw new ApiError(502, 'psp_unavailable', `the PSP refused the evidence: ${outcome.message}`);
        case 'marked':
          return { dispute: disputeView(outcome.dispute), submitted_to_psp: outcome.submitted };
      }
    },
  );
}
