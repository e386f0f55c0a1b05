import type { OfferCache } from '../../accounts/offers.ts';
import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import { parsePublicId, toPublicId } from '../../domain/ids.ts';
import {
  BUILT_IN_RULES,
  effectiveRules,
  parseRiskRules,
  RISK_RULE_NAMES,
  riskRuleMessage,
  type RiskRuleOverrides,
  type RiskRuleRefusal,
  type RiskRules,
} from '../../domain/risk-rules.ts';
import type { RiskRulesCache } from '../../risk/risk-rules-cache.ts';
import { loadRiskRules, lockRiskRules, saveRiskRules, type StoredRiskRules } from '../../risk/risk-rules-repository.ts';

export interface RiskRulesDeps {
  db: Database;
  clock: Clock;
  offers: OfferCache;
  riskRules: RiskRulesCache;
}

/** The account's rules as the back office shows them (docs/risk.md#defaults-and-overrides). */
export interface RiskRulesView {
  built_in: RiskRules;
  account: RiskRules;
  offers: { merchant_uid: string; type: string; overrides: RiskRuleOverrides; effective: RiskRules }[];
}

export type EditRiskRulesOutcome = { kind: 'ok'; rules: RiskRulesView } | { kind: 'not_found' } | { kind: 'invalid'; field: string; message: string; refusal: RiskRuleRefusal };

async function viewOf(deps: RiskRulesDeps, accountId: string, stored: StoredRiskRules): Promise<RiskRulesView> {
  const offers = await deps.offers.list(accountId);
  return {
    built_in: { ...BUILT_IN_RULES },
    account: stored.account,
    offers: offers.map((o) => {
      const overrides = stored.offers.get(o.id) ?? {};
      return { merchant_uid: toPublicId('mer', o.id), type: o.type, overrides, effective: effectiveRules(stored.account, overrides) };
    }),
  };
}

/** The account's defaults, and each offer's overrides and the rules that apply to it. */
export async function readRiskRules(deps: RiskRulesDeps, accountId: string): Promise<RiskRulesView> {
  return viewOf(deps, accountId, await loadRiskRules(deps.db, accountId));
}

/** `{rule: {from, to}}` for every rule whose value changed (`null`: not set). */
function changes(before: RiskRuleOverrides, after: RiskRuleOverrides): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const name of RISK_RULE_NAMES) {
    // `undefined`: not set; `null`: switched off on this offer (the audit says `"off"`).
    const from = before[name] === undefined ? null : before[name] === null ? 'off' : before[name];
    const to = after[name] === undefined ? null : after[name] === null ? 'off' : after[name];
    if (JSON.stringify(from) !== JSON.stringify(to)) out[name] = { from, to };
  }
  return out;
}

/**
 * The first fallback offer (docs/risk.md#the-fallback) that is not another offer of the account:
 * the schema checked the ids' form, this checks they are the account's (an offer never falls
 * back on itself).
 */
async function foreignFallback(
  deps: RiskRulesDeps,
  accountId: string,
  offerId: string | null,
  fallbacks: readonly string[] | null | undefined,
): Promise<{ field: string; message: string; refusal: RiskRuleRefusal } | undefined> {
  if (!fallbacks || fallbacks.length === 0) return undefined;
  const mine = new Set((await deps.offers.list(accountId)).map((o) => toPublicId('mer', o.id)));
  const index = fallbacks.findIndex((uid) => !mine.has(uid) || uid === (offerId === null ? null : toPublicId('mer', offerId)));
  if (index < 0) return undefined;
  const refusal: RiskRuleRefusal = { code: 'not_account_offer', index };
  return { field: 'rules.fallback_offers', message: riskRuleMessage(refusal), refusal };
}

/**
 * Replaces the account's defaults (`target` = `account`) or one offer's overrides (`mer_…`) with
 * `rules`, checked against the rules' schema; `{}` clears them. Written and audited
 * (`risk_rules_update`, each changed rule from → to) in one transaction; this process's copy is
 * dropped, other processes see the change within their cache's 5 seconds.
 */
export async function editRiskRules(deps: RiskRulesDeps, accountId: string, actor: Actor, target: string, rules: unknown): Promise<EditRiskRulesOutcome> {
  let offerId: string | null = null;
  if (target !== 'account') {
    const id = parsePublicId('mer', target);
    const offer = id === undefined ? undefined : (await deps.offers.list(accountId)).find((o) => o.id === id);
    if (!offer) return { kind: 'not_found' };
    offerId = offer.id;
  }
  const parsed = offerId === null ? parseRiskRules(rules) : parseRiskRules(rules, 'rules', true);
  if ('error' in parsed) return { kind: 'invalid', ...parsed.error };
  const foreign = await foreignFallback(deps, accountId, offerId, parsed.rules.fallback_offers);
  if (foreign) return { kind: 'invalid', ...foreign };
  const stored = await deps.db.transaction(async (tx) => {
    const current = await lockRiskRules(tx, accountId);
    const before = offerId === null ? current.account : (current.offers.get(offerId) ?? {});
    const changed = changes(before, parsed.rules);
    if (Object.keys(changed).length > 0) {
      await saveRiskRules(tx, accountId, offerId, parsed.rules, deps.clock.now());
      await recordAudit(tx, {
        accountId,
        actor,
        action: 'risk_rules_update',
        subject: offerId === null ? toPublicId('acc', accountId) : toPublicId('mer', offerId),
        details: changed,
      });
    }
    if (offerId === null) current.account = parsed.rules as RiskRules;
    else current.offers.set(offerId, parsed.rules);
    return current;
  });
  deps.riskRules.forget(accountId);
  return { kind: 'ok', rules: await viewOf(deps, accountId, stored) };
}
