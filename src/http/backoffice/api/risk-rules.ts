import { Type, type TSchema } from 'typebox';
import { RISK_BOUNDS, RISK_RULE_KINDS, type RiskRuleName, type RiskRuleOverrides as RiskRuleOverridesType, type RiskRules as RiskRulesType } from '../../../domain/risk-rules.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { ApiError, notFound } from '../../errors.ts';
import { TokenApiError } from '../../routes/schemas.ts';
import type { App } from '../../types.ts';
import type { Services } from '../../../services.ts';
import { editRiskRules, readRiskRules, type EditRiskRulesOutcome, type RiskRulesDeps } from '../../../use-cases/risk/risk-rules.ts';
import { BackofficeErrors } from './webhook.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'Admins only. HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';

const DESCRIPTIONS: Record<RiskRuleName, string> = {
  min_amount_cents: 'AMOUNT_TOO_LOW below it (on top of the offer’s own minimum)',
  max_amount_cents: 'AMOUNT_TOO_HIGH above it (on top of the offer’s own maximum)',
  max_outstanding_cents: 'OUTSTANDING_CREDIT_LIMIT when the shopper’s open plans and this one would owe more',
  max_plans_per_hour: 'VELOCITY_LIMIT beyond this many credit plans per shopper in an hour, this one included',
  max_plans_per_day: 'VELOCITY_LIMIT beyond this many credit plans per shopper in a day, this one included',
  refuse_prepaid_cards: 'CARD_PREPAID: a prepaid card cannot carry a credit plan (built-in default: true)',
  card_countries: 'CARD_COUNTRY unless the card’s issuing country is one of these (ISO 3166 alpha-2); empty: any',
  card_must_outlast_plan: 'CARD_EXPIRES_BEFORE_LAST_DUE when the card expires before the last due date (built-in default: true)',
  blocked_emails: 'BLOCKED: these e-mails (compared lower-case)',
  blocked_cards: 'BLOCKED: these card fingerprints',
  blocked_ip_ranges: 'BLOCKED: these IP addresses or CIDR ranges',
  allowed_emails: 'Trusted: no outstanding-credit, velocity or score refusal (a block still wins)',
  allowed_cards: 'Trusted card fingerprints',
  allowed_ip_ranges: 'Trusted IP addresses or CIDR ranges',
  min_score: 'SCORE_TOO_LOW below this score (0..100); absent: the score never refuses',
  fallback_offers:
    'Not a refusal: when this offer is refused at payment time, these other offers of the account (`mer_…`, at most 10) are proposed in this order, each only if the rules accept it for the same amount, shopper and card (docs/risk.md#the-fallback)',
};

function ruleSchema(name: RiskRuleName): TSchema {
  const description = DESCRIPTIONS[name];
  switch (RISK_RULE_KINDS[name]) {
    case 'amount':
      return Type.Integer({ minimum: 0, maximum: RISK_BOUNDS.maxAmountCents, description });
    case 'count':
      return Type.Integer({ minimum: 1, maximum: RISK_BOUNDS.maxCount, description });
    case 'score':
      return Type.Integer({ minimum: 0, maximum: 100, description });
    case 'flag':
      return Type.Boolean({ description });
    case 'offers':
      return Type.Array(Type.String({ minLength: 1, maxLength: 64, examples: ['mer_6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f'] }), { maxItems: RISK_BOUNDS.maxFallbacks, description });
    default:
      return Type.Array(Type.String({ minLength: 1, maxLength: RISK_BOUNDS.maxEntryLength }), { maxItems: RISK_BOUNDS.maxListLength, description });
  }
}

/** The rules' schema as the OpenAPI document shows it; src/domain/risk-rules.ts checks the same and normalises. */
const RiskRules = Type.Unsafe<RiskRulesType>(
  Type.Object(Object.fromEntries((Object.keys(RISK_RULE_KINDS) as RiskRuleName[]).map((n) => [n, Type.Optional(ruleSchema(n))])), {
    additionalProperties: false,
    title: 'RiskRules',
    examples: [{ max_outstanding_cents: 300_000, max_plans_per_day: 2, min_score: 30, blocked_emails: ['fraud@example.com'] }],
  }),
);

/** An offer's own rules: each may also be `null`, switching the account's rule off on this offer. */
const RiskRuleOverrides = Type.Unsafe<RiskRuleOverridesType>(
  Type.Object(Object.fromEntries((Object.keys(RISK_RULE_KINDS) as RiskRuleName[]).map((n) => [n, Type.Optional(Type.Union([ruleSchema(n), Type.Null()]))])), {
    additionalProperties: false,
    title: 'RiskRuleOverrides',
    examples: [{ max_plans_per_day: null, card_countries: ['FR', 'BE'] }],
  }),
);

const RiskRulesView = Type.Object(
  {
    built_in: RiskRules,
    account: { ...RiskRules, description: "The account's defaults" },
    offers: Type.Array(
      Type.Object({
        merchant_uid: Type.String(),
        type: Type.String(),
        overrides: { ...RiskRuleOverrides, description: 'The rules this offer sets itself (`null`: the account’s rule is off here)' },
        effective: { ...RiskRules, description: 'What applies: built-in, then the account’s, then the offer’s, key by key' },
      }),
    ),
  },
  { title: 'RiskRulesView' },
);

const ERRORS = {
  400: {
    ...TokenApiError,
    description: '`invalid_request`: a rule is unknown or its value breaks the schema, or a fallback offer is not another offer of the account (the message names the field)',
  },
  ...BackofficeErrors,
};

/** Back office: the risk rules of docs/risk.md, the account's defaults and each offer's overrides, read and replaced (admins only, audited). */
export function registerBackofficeRiskRules(app: App, services: Services, guard: DashboardGuard): void {
  const deps: RiskRulesDeps = { db: services.db, clock: services.clock, offers: services.offers, riskRules: services.riskRules };

  const answer = (outcome: EditRiskRulesOutcome) => {
    switch (outcome.kind) {
      case 'ok':
        return outcome.rules;
      case 'not_found':
        throw notFound('offer');
      case 'invalid':
        throw new ApiError(400, 'invalid_request', `field ${outcome.field} ${outcome.message}`);
    }
  };

  app.get(
    '/api/backoffice/risk_rules',
    {
      schema: {
        tags: ['back office'],
        summary: 'Read the risk rules',
        description: `${AUTH_NOTE} The built-in defaults, the account's defaults, and per offer its overrides and the rules in effect (docs/risk.md#the-rules).`,
        security: SECURITY,
        response: { 200: RiskRulesView, ...BackofficeErrors },
      },
    },
    async (request) => readRiskRules(deps, await guard.accountOf(request)),
  );

  app.put(
    '/api/backoffice/risk_rules/account',
    {
      schema: {
        tags: ['back office'],
        summary: "Replace the account's default risk rules",
        description: `${AUTH_NOTE} The body replaces the account's defaults whole (\`{}\` clears them); every offer inherits them, rule by rule, unless it sets its own. Audited (\`risk_rules_update\`). Other server processes apply a change within 5 seconds.`,
        security: SECURITY,
        body: RiskRules,
        response: { 200: RiskRulesView, ...ERRORS },
      },
    },
    async (request) => {
      const { accountId, userId, email } = await guard.userOf(request);
      return answer(await editRiskRules(deps, accountId, { userId, label: email }, 'account', request.body));
    },
  );

  app.put(
    '/api/backoffice/risk_rules/offers/:merchant_uid',
    {
      schema: {
        tags: ['back office'],
        summary: "Replace an offer's own risk rules",
        description: `${AUTH_NOTE} The body replaces the rules this offer overrides (\`{}\`: it follows the account's defaults in everything). A rule set to \`null\` switches the account's rule off on this offer. Audited (\`risk_rules_update\`).`,
        security: SECURITY,
        params: Type.Object({ merchant_uid: Type.String({ maxLength: 64 }) }),
        body: RiskRuleOverrides,
        response: { 200: RiskRulesView, ...ERRORS, 404: { ...TokenApiError, description: 'No such offer in this account' } },
      },
    },
    async (request) => {
      const { accountId, userId, email } = await guard.userOf(request);
      return answer(await editRiskRules(deps, accountId, { userId, label: email }, request.params.merchant_uid, request.body));
    },
  );
}
