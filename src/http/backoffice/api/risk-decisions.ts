import { Type } from 'typebox';
import { addDays, DAY_RULE, isDay } from '../../../domain/dates.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { streamCsvExport } from '../../csv-export.ts';
import { ApiError } from '../../errors.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { decodeCursor, encodeCursor } from '../../routes/cursor.ts';
import { TokenApiError } from '../../routes/schemas.ts';
import type { App } from '../../types.ts';
import { DEFAULT_TIME_ZONE, zonedMidnight } from '../../../i18n/format.ts';
import type { Services } from '../../../services.ts';
import { riskDecisionsOf, type RiskDecisionRow } from '../../../use-cases/risk/risk-decisions.ts';
import { csvCell } from '../purchases-csv.ts';
import { BackofficeErrors } from './webhook.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (docs/authentication.md). Admins and support users (docs/back-office.md#roles).';
/** Rows read per query of the CSV export: memory stays this small whatever the period's size. */
const EXPORT_BATCH = 200;
const invalid = (message: string) => new ApiError(400, 'invalid_request', message);

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A calendar day `YYYY-MM-DD` in the account’s time zone', examples: ['2026-11-01'] });
// Optional in the schema, required by the handler: a request without credentials is answered 401
// before its query is judged (the schema runs before the handler's sign-in check).
const Range = {
  from: Type.Optional(Type.String({ ...Day, description: 'Required. First day, inclusive, in the account’s time zone (`YYYY-MM-DD`, 1970-01-01 to 9998-12-31)' })),
  to: Type.Optional(Type.String({ ...Day, description: 'Required. Last day, inclusive, in the account’s time zone (`YYYY-MM-DD`, 1970-01-01 to 9998-12-31)' })),
};

const Reason = Type.Object({ code: Type.String({ description: 'A reason code of docs/risk.md#reason-codes' }), message: Type.String() });
const Decision = Type.Object(
  {
    id: Type.String({ description: 'The decision id, as `risk.decision_id` of the `payment.failed` event and the scoring hook’s `decision_id`' }),
    created_at: Type.String({ format: 'date-time' }),
    purchase_uid: Type.String({ examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    merchant_uid: Type.String({ description: 'The offer decided on' }),
    payment_id: Type.Union([Type.String(), Type.Null()], { description: 'The attempt’s payment (none for a pledge refused before its payment existed)' }),
    pledge_uid: Type.Union([Type.String(), Type.Null()], { description: 'A pledger’s decision: the pledge' }),
    purpose: Type.Union([Type.Literal('leader'), Type.Literal('pledge')]),
    outcome: Type.Union([Type.Literal('accepted'), Type.Literal('refused')]),
    amount_cents: Type.Integer(),
    credit_cents: Type.Integer({ description: 'What an accepted credit plan lends (0 otherwise)' }),
    reasons: Type.Array(Reason, { description: 'Empty when accepted' }),
    score: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'The leader’s score `{value, base, reasons: [{code, points}]}` (docs/risk.md#the-score); none for a pledger',
    }),
    card_fingerprint: Type.Union([Type.String(), Type.Null()], { description: 'Chipin’s keyed fingerprint of the card (`cfp_…`)' }),
    latency_ms: Type.Integer({ description: 'From the start of the decision to its record (the scoring hook’s call included when it was asked)' }),
    hook: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'The external scoring hook’s verdict when it was asked: `{source: hook|default, outcome: accept|refuse, reason?, score?, error?, latencyMs}`',
    }),
    inputs: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'What was decided on: `rules` in effect, `card` (`bin`, `last4`, `brand`, `funding`, `country`, `exp_month`, `exp_year`, `fingerprint`; never the card number), `shopper` (`email` normalised, `phone`, `customer_id`, `ip`), `history` (the leader’s figures), `created`',
      },
    ),
  },
  { title: 'RiskDecision' },
);

function decisionJson(d: RiskDecisionRow) {
  return {
    id: d.id,
    created_at: d.createdAt.toISOString(),
    purchase_uid: toPublicId('pur', d.purchaseId),
    merchant_uid: toPublicId('mer', d.offerId),
    payment_id: d.paymentId,
    pledge_uid: d.pledgeId === null ? null : toPublicId('plg', d.pledgeId),
    purpose: d.purpose,
    outcome: d.outcome,
    amount_cents: d.amountCents,
    credit_cents: d.creditCents,
    reasons: d.reasons,
    score: (d.score as Record<string, unknown> | null) ?? null,
    card_fingerprint: d.cardFingerprint,
    latency_ms: d.latencyMs,
    hook: d.hook,
    inputs: d.inputs,
  };
}

/** The CSV's columns, in order (docs/risk.md#the-export lists them). */
const RISK_DECISION_CSV_COLUMNS = [
  'id',
  'created_at',
  'purchase_uid',
  'merchant_uid',
  'purpose',
  'outcome',
  'reasons',
  'score',
  'amount_cents',
  'credit_cents',
  'card_brand',
  'card_bin',
  'card_last4',
  'card_funding',
  'card_country',
  'card_fingerprint',
  'latency_ms',
  'hook_outcome',
] as const;

const cell = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/** A decision as one CSV line: the flat facts; the full record (rules, shopper, history) is the JSON's `inputs`. */
function csvLine(d: RiskDecisionRow): string {
  const card = (d.inputs.card ?? {}) as Record<string, unknown>;
  const score = d.score && typeof d.score === 'object' ? (d.score as { value?: unknown }).value : undefined;
  const cells = [
    d.id,
    d.createdAt.toISOString(),
    toPublicId('pur', d.purchaseId),
    toPublicId('mer', d.offerId),
    d.purpose,
    d.outcome,
    d.reasons.map((r) => r.code).join(' '),
    typeof score === 'number' ? score : null,
    d.amountCents,
    d.creditCents,
    cell(card.brand),
    cell(card.bin),
    cell(card.last4),
    cell(card.funding),
    cell(card.country),
    d.cardFingerprint,
    d.latencyMs,
    d.hook ? cell(d.hook.outcome) : null,
  ];
  return cells.map(csvCell).join(',') + '\r\n';
}

/**
 * Back office: the account's payment-time risk decisions of a period, as JSON pages with a cursor
 * or as one CSV streamed in constant memory (docs/risk.md#decisions-as-records). The days are the
 * account's calendar days, as the purchases list and its export read them. Scoped to the
 * signed-in account; admins and support users alike, as the purchases export.
 */
export function registerBackofficeRiskDecisions(app: App, services: Services, guard: DashboardGuard): void {
  // Reads only, seconds old at most: the replica while fresh (docs/deployment.md#read-replicas).
  const db = services.reads;

  /** The period as instants: from the first instant of `from` to the first of the day after `to`, in the account's zone. */
  async function rangeOf(accountId: string, query: { from?: string; to?: string }): Promise<{ from: Date; to: Date }> {
    if (query.from === undefined) throw invalid('query parameter from is required');
    if (query.to === undefined) throw invalid('query parameter to is required');
    // The days any route may name (src/domain/dates.ts): the day after `to` is still a day the service computes with.
    if (!isDay(query.from)) throw invalid(`query parameter from must be ${DAY_RULE}`);
    if (!isDay(query.to)) throw invalid(`query parameter to must be ${DAY_RULE}`);
    if (query.to < query.from) throw invalid('query parameter to must be on or after from');
    const zone = (await services.accounts.profileOf(accountId))?.timeZone ?? DEFAULT_TIME_ZONE;
    return { from: zonedMidnight(query.from, zone), to: zonedMidnight(addDays(query.to, 1), zone) };
  }

  app.get(
    '/api/backoffice/risk_decisions',
    {
      schema: {
        tags: ['back office'],
        summary: 'Export the risk decisions of a period',
        description: `${AUTH_NOTE} Oldest first, paged with an opaque cursor (\`next_cursor\`); the same records as CSV at \`/api/backoffice/risk_decisions.csv\`.`,
        security: SECURITY,
        querystring: Type.Object(
          {
            ...Range,
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ data: Type.Array(Decision), has_more: Type.Boolean(), next_cursor: Type.Optional(Type.String()) }),
          400: { ...TokenApiError, description: 'Invalid query parameter; the message names it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const { limit = 100, cursor } = request.query;
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      if (cursor !== undefined && !after) throw invalid('query parameter cursor is not a cursor this API gave');
      const range = await rangeOf(accountId, request.query);
      const rows = await riskDecisionsOf(db, accountId, range, after, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      void reply.header('cache-control', 'no-store');
      return {
        data: page.map(decisionJson),
        has_more: rows.length > limit,
        ...(rows.length > limit && last ? { next_cursor: encodeCursor(last.createdAt, last.id) } : {}),
      };
    },
  );

  app.get(
    '/api/backoffice/risk_decisions.csv',
    {
      schema: {
        tags: ['back office'],
        summary: 'Export the risk decisions of a period as CSV',
        description: `${AUTH_NOTE} RFC 4180, oldest first, the whole period in one streamed file; columns: ${RISK_DECISION_CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')} (docs/risk.md#the-export). \`reasons\`: the codes separated by spaces.`,
        security: SECURITY,
        querystring: Type.Object(Range, { additionalProperties: false }),
        produces: ['text/csv'],
        response: {
          200: { description: 'The CSV file (`text/csv; charset=utf-8`, an attachment)', content: { 'text/csv': { schema: Type.String() } } },
          400: { ...TokenApiError, description: 'Invalid query parameter; the message names it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const range = await rangeOf(accountId, request.query);
      return streamCsvExport(reply, {
        filename: `chipin-risk-decisions-${request.query.from ?? ''}-${request.query.to ?? ''}.csv`,
        header: RISK_DECISION_CSV_COLUMNS.join(',') + '\r\n',
        batch: EXPORT_BATCH,
        page: (last) => riskDecisionsOf(db, accountId, range, last, EXPORT_BATCH),
        line: csvLine,
      });
    },
  );
}
