import { actorOf } from '../../../audit/audit-log.ts';
import { BUILT_IN_RULES } from '../../../domain/risk-rules.ts';
import type { App } from '../../types.ts';
import type { Services } from '../../../services.ts';
import { editRiskRules, readRiskRules, type RiskRulesDeps } from '../../../use-cases/risk/risk-rules.ts';
import { accountRiskRulesPage } from '../pages/risk-rules-page.ts';
import { formOfRules, formRefusal, rulesOfForm, typedForm, type RiskForm, type RiskFormError } from '../risk-rules-form.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import type { Chrome } from '../pages/layout.ts';
import { seeOther, sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };
const PATH = '/dashboard/settings/risk-rules';

/**
 * The account's default risk rules (admins, docs/risk.md#editing-the-rules), below Settings so
 * that the admin-only rule covers it (src/http/backoffice/roles.ts): edited with
 * `PUT /api/backoffice/risk_rules/account`'s use case (editRiskRules, which checks and audits).
 */
export function registerDashboardRiskRules(app: App, services: Services, sessions: DashboardSessions): void {
  const deps: RiskRulesDeps = { db: services.db, clock: services.clock, offers: services.offers, riskRules: services.riskRules };

  /** Amounts are typed in the currency of the account's offers, or in minor units when they have several (or none). */
  async function currencyOf(accountId: string): Promise<string | null> {
    services.offers.forget(accountId);
    const currencies = new Set((await services.offers.list(accountId)).map((o) => o.currency));
    return currencies.size === 1 ? [...currencies][0]! : null;
  }

  const page = (chrome: Chrome, currency: string | null, form: RiskForm, error?: RiskFormError, saved = false) =>
    accountRiskRulesPage(chrome, { target: 'account', action: PATH, form, inherited: { ...BUILT_IN_RULES }, currency, ...(error ? { error } : {}) }, saved);

  app.get(PATH, PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const accountId = ctx.session.accountId;
    const [currency, view] = await Promise.all([currencyOf(accountId), readRiskRules(deps, accountId)]);
    const saved = (request.query as Record<string, unknown>).done === 'saved';
    return sendPage(reply, 200, page(ctx.chrome, currency, formOfRules(view.account, currency), undefined, saved));
  });

  app.post(PATH, PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form: fields } = ctx;
    const currency = await currencyOf(session.accountId);
    const typed = typedForm(fields, false);
    // Nothing is written: the page again, with what was typed and the refused rule marked.
    const refuse = (error: RiskFormError) => sendPage(reply, 400, page(chrome, currency, typed, error));
    const parsed = rulesOfForm(typed, currency);
    if ('error' in parsed) return refuse(parsed.error);
    const outcome = await editRiskRules(deps, session.accountId, actorOf(session), 'account', parsed.rules);
    if (outcome.kind === 'invalid') {
      const error = formRefusal(typed, outcome.field, outcome.refusal);
      // The form sends rules by their names only: a refusal of anything else is not the staff's.
      if (!error) throw new Error(`risk rules form refused outside its rules: ${outcome.field}`);
      return refuse(error);
    }
    if (outcome.kind === 'not_found') throw new Error('the account has no risk rules target');
    request.log.info({ account_id: session.accountId }, 'account risk rules edited (back office)');
    return seeOther(reply, `${PATH}?done=saved`);
  });
}
