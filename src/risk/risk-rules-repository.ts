import type { Sql } from '../db/database.ts';
import { effectiveRules, parseRiskRules, type RiskRuleOverrides, type RiskRules } from '../domain/risk-rules.ts';

/** An account's risk rules as stored: its defaults and each offer's overrides (docs/risk.md#defaults-and-overrides). */
export interface StoredRiskRules {
  account: RiskRules;
  /** Offer id (bare uuid) → the rules that offer overrides. */
  offers: Map<string, RiskRuleOverrides>;
}

const IN_EFFECT = new WeakMap<StoredRiskRules, Map<string, Readonly<RiskRules>>>();

/**
 * The rules in effect on one offer ({@link effectiveRules}), merged once per loaded copy of the
 * account's rules: the per-process copy (src/risk/risk-rules-cache.ts) is the same object for its
 * few seconds, and the eligibility call asks for every offer of the account on each request.
 * Frozen, as callers share it; a new copy (a reload, an edit) merges again.
 */
export function rulesInEffect(stored: StoredRiskRules, offerId: string): Readonly<RiskRules> {
  let byOffer = IN_EFFECT.get(stored);
  if (byOffer === undefined) IN_EFFECT.set(stored, (byOffer = new Map()));
  let rules = byOffer.get(offerId);
  if (rules === undefined) byOffer.set(offerId, (rules = Object.freeze(effectiveRules(stored.account, stored.offers.get(offerId)))));
  return rules;
}

/** The JSON of a row, checked against the rules' schema: only the use case writes it, after the same check. */
function checked(raw: unknown, where: string): RiskRuleOverrides {
  const parsed = parseRiskRules(typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw, 'rules', true);
  if ('error' in parsed) throw new Error(`stored risk rules of ${where} break the schema: ${parsed.error.field} ${parsed.error.message}`);
  return parsed.rules;
}

/** Every rule row of the account, in one statement. */
export async function loadRiskRules(sql: Sql, accountId: string): Promise<StoredRiskRules> {
  const { rows } = await sql.query<{ offer_id: string | null; rules: unknown }>('SELECT offer_id, rules FROM risk_rules WHERE account_id = $1', [accountId]);
  const stored: StoredRiskRules = { account: {}, offers: new Map() };
  for (const row of rows) {
    if (row.offer_id === null)
      stored.account = checked(row.rules, `account ${accountId}`) as RiskRules; // written without nulls
    else stored.offers.set(row.offer_id, checked(row.rules, `offer ${row.offer_id}`));
  }
  return stored;
}

/**
 * Locks the account's rules for an edit: the account's row, so that two edits of the same
 * account's rules (its defaults or any offer's) run one after the other and each audits what it
 * really replaced, even when no rule row exists yet.
 */
export async function lockRiskRules(tx: Sql, accountId: string): Promise<StoredRiskRules> {
  await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  return loadRiskRules(tx, accountId);
}

/** Writes the rules of the account (`offerId` null) or of one of its offers, replacing what was there. */
export async function saveRiskRules(tx: Sql, accountId: string, offerId: string | null, rules: RiskRuleOverrides, now: Date): Promise<void> {
  const json = JSON.stringify(rules);
  if (offerId === null) {
    await tx.query(
      `INSERT INTO risk_rules (account_id, offer_id, rules, updated_at) VALUES ($1, NULL, $2::jsonb, $3)
       ON CONFLICT (account_id) WHERE offer_id IS NULL DO UPDATE SET rules = EXCLUDED.rules, updated_at = EXCLUDED.updated_at`,
      [accountId, json, now],
    );
  } else {
    await tx.query(
      `INSERT INTO risk_rules (account_id, offer_id, rules, updated_at) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (account_id, offer_id) WHERE offer_id IS NOT NULL DO UPDATE SET rules = EXCLUDED.rules, updated_at = EXCLUDED.updated_at`,
      [accountId, offerId, json, now],
    );
  }
}
