import { BlockList, isIP } from 'node:net';
import { parsePublicId } from './ids.ts';

/**
 * The risk rules of an offer (docs/risk.md#the-rules), stored as JSON: an account's defaults, and
 * per offer the keys it overrides. Every key is optional; an absent key is "no such rule" (or the
 * built-in default of {@link BUILT_IN_RULES}). Money in minor units of the offer's currency.
 * The names are the API's and the audit log's, so they are snake_case here too.
 */
export interface RiskRules {
  /** Refused below this amount (AMOUNT_TOO_LOW), on top of the offer's own minimum. */
  min_amount_cents?: number;
  /** Refused above this amount (AMOUNT_TOO_HIGH), on top of the offer's own maximum. */
  max_amount_cents?: number;
  /** Most credit one shopper may owe across their open plans, this one included (OUTSTANDING_CREDIT_LIMIT). */
  max_outstanding_cents?: number;
  /** Most credit plans one shopper (or card, or address) may start in an hour / a day, this one included (VELOCITY_LIMIT). */
  max_plans_per_hour?: number;
  max_plans_per_day?: number;
  /** A prepaid card is refused for a credit plan (CARD_PREPAID). */
  refuse_prepaid_cards?: boolean;
  /** The card's issuing country must be one of these (ISO 3166 alpha-2) (CARD_COUNTRY); absent: any. */
  card_countries?: string[];
  /** The card must not expire before the plan's last due date (CARD_EXPIRES_BEFORE_LAST_DUE). */
  card_must_outlast_plan?: boolean;
  /** Refused outright (BLOCKED): normalised e-mails, card fingerprints, IP ranges (CIDR or one address). */
  blocked_emails?: string[];
  blocked_cards?: string[];
  blocked_ip_ranges?: string[];
  /** Trusted: the outstanding-credit, velocity and score rules are not applied (a block still wins). */
  allowed_emails?: string[];
  allowed_cards?: string[];
  allowed_ip_ranges?: string[];
  /** Refused below this score, 0..100 (SCORE_TOO_LOW); absent: the score is reported, never refuses. */
  min_score?: number;
  /**
   * When this offer is refused at payment time, the offers the checkout proposes instead, in this
   * order, each only if the engine accepts it for the same amount, shopper and card (`mer_…` ids of
   * the same account; docs/risk.md#the-fallback). Never a reason of refusal itself.
   */
  fallback_offers?: string[];
}

export type RiskRuleName = keyof RiskRules;

/** An offer's own rules: a value overrides the account's; `null` switches the account's rule off on this offer. */
export type RiskRuleOverrides = { [K in RiskRuleName]?: RiskRules[K] | null };

type Kind = 'amount' | 'count' | 'flag' | 'countries' | 'emails' | 'cards' | 'ip_ranges' | 'score' | 'offers';

/** Every rule and the kind of value it takes: the one schema the API, the store and the forms read. */
export const RISK_RULE_KINDS: Readonly<Record<RiskRuleName, Kind>> = {
  min_amount_cents: 'amount',
  max_amount_cents: 'amount',
  max_outstanding_cents: 'amount',
  max_plans_per_hour: 'count',
  max_plans_per_day: 'count',
  refuse_prepaid_cards: 'flag',
  card_countries: 'countries',
  card_must_outlast_plan: 'flag',
  blocked_emails: 'emails',
  blocked_cards: 'cards',
  blocked_ip_ranges: 'ip_ranges',
  allowed_emails: 'emails',
  allowed_cards: 'cards',
  allowed_ip_ranges: 'ip_ranges',
  min_score: 'score',
  fallback_offers: 'offers',
};

export const RISK_RULE_NAMES = Object.keys(RISK_RULE_KINDS) as RiskRuleName[];

/** Bounds of the values: amounts as an offer's (1,000,000.00 at most), counts up to 1,000, lists up to 1,000 entries (fallback offers: 10). */
export const RISK_BOUNDS = { maxAmountCents: 100_000_000, maxCount: 1_000, maxListLength: 1_000, maxEntryLength: 254, maxFallbacks: 10 } as const;

/**
 * What applies when neither the account nor the offer sets a rule: card checks that no serious
 * lender skips (a prepaid card cannot be charged months later; an expired one cannot either),
 * and nothing else, so that an account sells without limits until its staff set some.
 */
export const BUILT_IN_RULES: Readonly<RiskRules> = { refuse_prepaid_cards: true, card_must_outlast_plan: true };

/** Why a rule's value is refused, as data: the API words it in English (`message`), the back office in the page's language. */
export type RiskRuleRefusal =
  | { code: 'not_object' }
  | { code: 'unknown_rule' }
  | { code: 'out_of_range'; min: number; max: number; amount: boolean }
  | { code: 'not_boolean' }
  | { code: 'not_list' }
  | { code: 'too_many'; max: number }
  | { code: 'bad_entry'; index: number; expected: 'text' | 'country' | 'email' | 'ip_range' | 'offer'; maxLength: number }
  | { code: 'min_above_max'; max: number }
  /** A fallback offer that is not one of the account's offers, or is the offer itself (the use case checks, src/use-cases/risk/risk-rules.ts). */
  | { code: 'not_account_offer'; index: number };

/** A rule set that breaks the schema: the first offending field, named as the API names it, why (`refusal`) and the API's English `message`. */
export interface RiskRulesError {
  field: string;
  message: string;
  refusal: RiskRuleRefusal;
}

/** A refusal in the API's words (`field … <message>`). */
export function riskRuleMessage(r: RiskRuleRefusal): string {
  switch (r.code) {
    case 'not_object':
      return 'must be an object';
    case 'unknown_rule':
      return `is not a rule (rules: ${RISK_RULE_NAMES.join(', ')})`;
    case 'out_of_range':
      return `must be an integer between ${r.min} and ${r.max}`;
    case 'not_boolean':
      return 'must be true or false';
    case 'not_list':
      return 'must be an array of strings';
    case 'too_many':
      return `must have at most ${r.max} entries`;
    case 'bad_entry':
      return `[${r.index}] ${ENTRY_MESSAGES[r.expected](r.maxLength)}`;
    case 'min_above_max':
      return `must not be above max_amount_cents (${r.max})`;
    case 'not_account_offer':
      return `[${r.index}] must be another offer (mer_…) of this account`;
  }
}

const ENTRY_MESSAGES: Record<'text' | 'country' | 'email' | 'ip_range' | 'offer', (maxLength: number) => string> = {
  text: (maxLength) => `must be a non-empty string of at most ${maxLength} characters`,
  country: () => 'must be an ISO 3166 alpha-2 country code',
  email: () => 'must be an e-mail address',
  ip_range: () => 'must be an IP address or a CIDR range (203.0.113.0/24)',
  offer: () => 'must be an offer id (mer_…)',
};

const refused = (field: string, refusal: RiskRuleRefusal) => ({ error: { field, message: riskRuleMessage(refusal), refusal } });

/** An e-mail as rules and history compare it: trimmed, lower-case (docs/risk.md#shopper-identity). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A card fingerprint as compared: trimmed (PSPs' fingerprints are case-sensitive tokens). */
function normaliseCard(fingerprint: string): string {
  return fingerprint.trim();
}

/** `203.0.113.0/24`, `2001:db8::/32` or a single address; undefined unless well-formed. */
function parseIpRange(range: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, extra] = range.trim().split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether `ip` falls in one of `ranges` (already validated). */
export function ipInRanges(ip: string, ranges: readonly string[]): boolean {
  const version = isIP(ip);
  if (version === 0 || ranges.length === 0) return false;
  const list = new BlockList();
  for (const r of ranges) {
    const range = parseIpRange(r);
    if (range) list.addSubnet(range.address, range.prefix, range.family);
  }
  return list.check(ip, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Checks a rule set from outside (an API body, a stored row) against the schema and returns it
 * normalised (e-mails lower-cased, countries upper-cased, lists de-duplicated), or the first
 * field that breaks it. Unknown keys are refused: a typo must not pass for a rule. A `null`
 * is dropped from an account's rules and kept in an offer's (`overrides`: the rule is off there).
 */
export function parseRiskRules(value: unknown, prefix?: string): { rules: RiskRules } | { error: RiskRulesError };
export function parseRiskRules(value: unknown, prefix: string, overrides: true): { rules: RiskRuleOverrides } | { error: RiskRulesError };
export function parseRiskRules(value: unknown, prefix = 'rules', overrides = false): { rules: RiskRuleOverrides } | { error: RiskRulesError } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refused(prefix, { code: 'not_object' });
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const field = `${prefix}.${key}`;
    const kind = (RISK_RULE_KINDS as Record<string, Kind | undefined>)[key];
    if (kind === undefined) return refused(field, { code: 'unknown_rule' });
    if (v === undefined) continue;
    if (v === null) {
      if (overrides) out[key] = null;
      continue;
    }
    const parsed = parseValue(kind, v);
    if ('refusal' in parsed) return refused(field, parsed.refusal);
    out[key] = parsed.value;
  }
  const rules = out as RiskRuleOverrides;
  if (typeof rules.min_amount_cents === 'number' && typeof rules.max_amount_cents === 'number' && rules.min_amount_cents > rules.max_amount_cents) {
    return refused(`${prefix}.min_amount_cents`, { code: 'min_above_max', max: rules.max_amount_cents });
  }
  return { rules };
}

/** The value, normalised, or why it is refused. */
function parseValue(kind: Kind, v: unknown): { value: unknown } | { refusal: RiskRuleRefusal } {
  const integer = (min: number, max: number) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? { value: v } : { refusal: { code: 'out_of_range' as const, min, max, amount: kind === 'amount' } };
  switch (kind) {
    case 'amount':
      return integer(0, RISK_BOUNDS.maxAmountCents);
    case 'count':
      return integer(1, RISK_BOUNDS.maxCount);
    case 'score':
      return integer(0, 100);
    case 'flag':
      return typeof v === 'boolean' ? { value: v } : { refusal: { code: 'not_boolean' } };
    default:
      return parseList(kind, v);
  }
}

function parseList(kind: 'countries' | 'emails' | 'cards' | 'ip_ranges' | 'offers', v: unknown): { value: string[] } | { refusal: RiskRuleRefusal } {
  if (!Array.isArray(v)) return { refusal: { code: 'not_list' } };
  const max = kind === 'offers' ? RISK_BOUNDS.maxFallbacks : RISK_BOUNDS.maxListLength;
  if (v.length > max) return { refusal: { code: 'too_many', max } };
  const out = new Set<string>();
  const bad = (index: number, expected: 'text' | 'country' | 'email' | 'ip_range' | 'offer') => ({
    refusal: { code: 'bad_entry' as const, index, expected, maxLength: RISK_BOUNDS.maxEntryLength },
  });
  for (const [i, entry] of v.entries()) {
    if (typeof entry !== 'string' || entry.trim() === '' || entry.length > RISK_BOUNDS.maxEntryLength) return bad(i, 'text');
    switch (kind) {
      case 'countries':
        if (!/^[A-Za-z]{2}$/.test(entry.trim())) return bad(i, 'country');
        out.add(entry.trim().toUpperCase());
        break;
      case 'emails':
        if (!/^[^\s@]+@[^\s@]+$/.test(entry.trim())) return bad(i, 'email');
        out.add(normaliseEmail(entry));
        break;
      case 'cards':
        out.add(normaliseCard(entry));
        break;
      case 'ip_ranges':
        if (!parseIpRange(entry)) return bad(i, 'ip_range');
        out.add(entry.trim());
        break;
      case 'offers': {
        const id = parsePublicId('mer', entry.trim());
        if (id === undefined) return bad(i, 'offer');
        out.add(`mer_${id}`);
        break;
      }
    }
  }
  return { value: [...out] };
}

/**
 * The rules that apply to one offer: the built-in defaults, overridden key by key by the
 * account's defaults, overridden key by key by the offer's own, where `null` removes the rule
 * (docs/risk.md#defaults-and-overrides).
 */
export function effectiveRules(account: RiskRules, offer: RiskRuleOverrides | undefined): RiskRules {
  const merged: Record<string, unknown> = { ...BUILT_IN_RULES, ...account, ...(offer ?? {}) };
  for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
  return merged as RiskRules;
}

/** Whether a shopper's e-mail, card or address is in one of these lists. */
export function listed(rules: RiskRules, kind: 'blocked' | 'allowed', who: { email?: string; cardFingerprint?: string; ip?: string }): boolean {
  // Named properties, not keys built from `kind`: the eligibility call runs this twice per offer.
  const blocked = kind === 'blocked';
  const emails = (blocked ? rules.blocked_emails : rules.allowed_emails) ?? [];
  const cards = (blocked ? rules.blocked_cards : rules.allowed_cards) ?? [];
  const ranges = (blocked ? rules.blocked_ip_ranges : rules.allowed_ip_ranges) ?? [];
  if (who.email !== undefined && emails.includes(normaliseEmail(who.email))) return true;
  if (who.cardFingerprint !== undefined && cards.includes(normaliseCard(who.cardFingerprint))) return true;
  return who.ip !== undefined && ipInRanges(who.ip, ranges);
}

/** The purchase's comment after a refusal of the risk rules: the reason codes, for the merchant (docs/risk.md#what-the-merchant-sees). */
export function riskRefusedComment(codes: readonly string[]): string {
  return `The payment was refused by the risk rules (${codes.join(', ')}).`;
}
