import { decimalAmount, parseTypedAmount } from '../../domain/money.ts';
import { RISK_RULE_KINDS, RISK_RULE_NAMES, type RiskRuleName, type RiskRuleOverrides, type RiskRuleRefusal } from '../../domain/risk-rules.ts';
import type { RiskFormRefusal } from './texts.ts';

/**
 * The back office's risk rules forms (docs/risk.md#editing-the-rules): per rule, what the staff
 * chose — `follow` (the offer follows the account; on the account's page: not set), `off` (switched
 * off on this offer) or `set` — and the value typed, as text. They become the body of
 * `PUT /api/backoffice/risk_rules/…` (editRiskRules checks it, as for the API); lists are one
 * entry per line. Amounts are typed in `currency` (the offer's), or in minor units when there is
 * none (the account's page of an account whose offers are in several currencies).
 */
type RuleMode = 'follow' | 'off' | 'set';
interface RuleTyped {
  mode: RuleMode;
  value: string;
}
export type RiskForm = Record<RiskRuleName, RuleTyped>;

/** A refused form: the rule whose input is refused, and why. */
export interface RiskFormError {
  rule: RiskRuleName;
  refusal: RiskFormRefusal;
}

/** A rule's value as its input shows it. */
function textOf(name: RiskRuleName, value: unknown, currency: string | null): string {
  switch (RISK_RULE_KINDS[name]) {
    case 'amount':
      return currency === null ? String(value) : decimalAmount(value as number, currency);
    case 'flag':
      return value ? 'true' : 'false';
    case 'count':
    case 'score':
      return String(value);
    default:
      return (value as string[]).join('\n');
  }
}

/** The form showing stored rules (an offer's overrides, or the account's defaults). */
export function formOfRules(rules: RiskRuleOverrides, currency: string | null): RiskForm {
  return Object.fromEntries(
    RISK_RULE_NAMES.map((name) => {
      const v = rules[name];
      const typed: RuleTyped = v === undefined ? { mode: 'follow', value: '' } : v === null ? { mode: 'off', value: '' } : { mode: 'set', value: textOf(name, v, currency) };
      return [name, typed];
    }),
  ) as RiskForm;
}

/** The form as posted (`mode_<rule>`, `value_<rule>`); a mode the form does not offer reads as `follow`. */
export function typedForm(fields: Record<string, string>, offer: boolean): RiskForm {
  return Object.fromEntries(
    RISK_RULE_NAMES.map((name) => {
      const asked = fields[`mode_${name}`];
      const mode: RuleMode = asked === 'set' || (asked === 'off' && offer) ? asked : 'follow';
      return [name, { mode, value: (fields[`value_${name}`] ?? '').slice(0, 300_000) }];
    }),
  ) as RiskForm;
}

/** The non-empty lines of a list's text, and the line number (from 0) of each. */
function linesOf(text: string): { entries: string[]; lines: number[] } {
  const entries: string[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    entries.push(line.trim());
    lines.push(i);
  });
  return { entries, lines };
}

/**
 * The rules the form sets, as the API's body, or the first rule whose text is not even of its
 * kind (an amount, a whole number). The schema's own checks (bounds, list entries) are the use
 * case's, as for the API: see {@link formRefusal}.
 */
export function rulesOfForm(form: RiskForm, currency: string | null): { rules: RiskRuleOverrides } | { error: RiskFormError } {
  const rules: Record<string, unknown> = {};
  for (const name of RISK_RULE_NAMES) {
    const { mode, value } = form[name];
    if (mode === 'follow') continue;
    if (mode === 'off') {
      rules[name] = null;
      continue;
    }
    const whole = /^\s*\d{1,12}\s*$/.test(value) ? Number(value) : undefined;
    switch (RISK_RULE_KINDS[name]) {
      case 'amount': {
        const cents = currency === null ? whole : parseTypedAmount(value, currency);
        if (cents === undefined) return { error: { rule: name, refusal: currency === null ? { code: 'not_whole' } : { code: 'not_amount' } } };
        rules[name] = cents;
        break;
      }
      case 'count':
      case 'score':
        if (whole === undefined) return { error: { rule: name, refusal: { code: 'not_whole' } } };
        rules[name] = whole;
        break;
      case 'flag':
        rules[name] = value === 'true';
        break;
      default:
        rules[name] = linesOf(value).entries;
    }
  }
  return { rules: rules as RiskRuleOverrides };
}

/** The use case's refusal (`field` is `rules.<rule>`) on the form: a list's entry named by its line as typed. */
export function formRefusal(form: RiskForm, field: string, refusal: RiskRuleRefusal): RiskFormError | undefined {
  const name = field.replace(/^rules\./, '') as RiskRuleName;
  if (!(name in RISK_RULE_KINDS)) return undefined;
  if (refusal.code !== 'bad_entry' && refusal.code !== 'not_account_offer') return { rule: name, refusal };
  const line = linesOf(form[name].value).lines[refusal.index];
  return { rule: name, refusal: { ...refusal, index: line ?? refusal.index } };
}
