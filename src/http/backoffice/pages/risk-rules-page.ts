import { RISK_RULE_KINDS, RISK_RULE_NAMES, type RiskRuleName, type RiskRules } from '../../../domain/risk-rules.ts';
import { html, type SafeHtml } from '../../../html/html.ts';
import { formatMoney } from '../../../i18n/format.ts';
import type { EnFr } from '../../../i18n/lang.ts';
import type { RiskForm, RiskFormError } from '../risk-rules-form.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { dashboardPage, type Chrome } from './layout.ts';

/**
 * A rule's value as staff read it: money in `currency` as every amount of the page's language is
 * written (minor units when there is none), yes/no, lists comma-separated (the first 10).
 */
export function ruleValue(lang: EnFr, currency: string | null, name: RiskRuleName, value: NonNullable<RiskRules[RiskRuleName]>): string {
  const t = DASHBOARD_TEXT[lang];
  switch (RISK_RULE_KINDS[name]) {
    case 'amount':
      return currency === null ? `${value as number} (${t.riskForm.minorUnits})` : formatMoney(value as number, currency, lang);
    case 'flag':
      return value ? t.riskRules.yes : t.riskRules.no;
    case 'count':
    case 'score':
      return String(value);
    default: {
      const list = value as string[];
      return list.length <= 10 ? list.join(', ') : `${list.slice(0, 10).join(', ')} (+${list.length - 10})`;
    }
  }
}

/** One of the risk rules forms: an offer's own rules, or the account's defaults. */
export interface RiskFormView {
  target: 'offer' | 'account';
  /** Where the form posts. */
  action: string;
  form: RiskForm;
  /** What applies where the form sets nothing: for an offer, the account's rules over Chipin's; for the account, Chipin's. */
  inherited: RiskRules;
  /** The unit of the amounts typed: the offer's currency, or minor units (null). */
  currency: string | null;
  error?: RiskFormError;
}

/** A refusal worded in the page's language, the rule named: "Plans per shopper in a day: must be …". */
function riskErrorText(lang: EnFr, view: Pick<RiskFormView, 'currency'>, error: RiskFormError): { rule: string; why: string } {
  const t = DASHBOARD_TEXT[lang];
  const money = (minor: number) => (view.currency === null ? `${minor} (${t.riskForm.minorUnits})` : formatMoney(minor, view.currency, lang));
  return { rule: t.riskRules.names[error.rule], why: t.riskRuleRefusal(error.refusal, { money }) };
}

/**
 * The form: a fieldset per rule (docs/risk.md#the-rules) with its choices — follow the account
 * (on the account's page: not set), switch off (an offer only), set a value — and the value's
 * input; a refusal is shown beside the rule's input and linked to it (`aria-describedby`), and in
 * an alert above the form that links to the input.
 */
export function riskRulesForm(chrome: Chrome, view: RiskFormView): SafeHtml {
  const t = DASHBOARD_TEXT[chrome.lang];
  const f = t.riskForm;
  const error = view.error ? riskErrorText(chrome.lang, view, view.error) : undefined;
  const unit = view.currency ?? f.minorUnits;
  const fieldset = (name: RiskRuleName) => {
    const kind = RISK_RULE_KINDS[name];
    const typed = view.form[name];
    const inherited = view.inherited[name];
    const now = inherited === undefined ? f.notInEffect : ruleValue(chrome.lang, view.currency, name, inherited);
    const choices: [string, string][] =
      view.target === 'offer'
        ? [
            ['follow', f.follow(now)],
            ['off', f.off],
            ['set', f.set],
          ]
        : [
            ['follow', f.unset(inherited === undefined ? f.notInEffect : f.builtIn(now))],
            ['set', f.set],
          ];
    const isList = !['amount', 'count', 'score', 'flag'].includes(kind);
    const refused = view.error?.rule === name;
    const describedBy = [refused ? `error-${name}` : '', isList ? `hint-${name}` : ''].filter(Boolean).join(' ');
    const aria = html`${describedBy ? html` aria-describedby="${describedBy}"` : ''}${refused ? html` aria-invalid="true"` : ''}`;
    const id = `value-${name}`;
    const input =
      kind === 'flag'
        ? html`<select id="${id}" name="value_${name}"${aria}>${(['true', 'false'] as const).map((v) => {
            const selected = typed.value === '' ? String(inherited ?? true) === v : typed.value === v;
            return html`<option value="${v}"${selected ? html` selected` : ''}>${v === 'true' ? t.riskRules.yes : t.riskRules.no}</option>`;
          })}</select>`
        : isList
          ? html`<textarea id="${id}" name="value_${name}" rows="3" autocomplete="off" spellcheck="false"${aria}>${typed.value}</textarea>`
          : html`<input id="${id}" name="value_${name}" inputmode="${kind === 'amount' && view.currency !== null ? 'decimal' : 'numeric'}" autocomplete="off" value="${typed.value}"${aria}>`;
    const label = kind === 'amount' ? f.valueIn(unit) : f.value;
    return html`<fieldset class="rule"><legend>${t.riskRules.names[name]}</legend>
<div class="choices">${choices.map(
      ([mode, text]) =>
        html`<div><input type="radio" id="mode-${name}-${mode}" name="mode_${name}" value="${mode}"${typed.mode === mode ? html` checked` : ''}> <label for="mode-${name}-${mode}">${text}</label></div>`,
    )}</div>
<div class="rule-value"><label for="${id}">${label}</label>
${input}
${isList ? html`<span class="muted" id="hint-${name}">${f.listHints[kind as keyof typeof f.listHints]}</span>` : ''}</div>
${refused && error ? html`<p class="field-error" id="error-${name}">${f.named(error.rule, error.why)}</p>` : ''}
</fieldset>`;
  };
  return html`${
    error && view.error ? html`<div class="alert" role="alert" id="risk-error"><a href="#value-${view.error.rule}">${f.notSaved(f.named(error.rule, error.why))}</a></div>` : ''
  }<form method="post" action="${view.action}">
<input type="hidden" name="csrf" value="${chrome.csrf}">
${RISK_RULE_NAMES.map(fieldset)}
<p><button type="submit">${view.target === 'offer' ? f.saveOffer : f.saveAccount}</button></p>
</form>`;
}

/** The account's default risk rules (admins), edited with `PUT /api/backoffice/risk_rules/account`'s use case. */
export function accountRiskRulesPage(chrome: Chrome, view: RiskFormView, saved = false): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const body = html`<h1>${t.riskForm.accountTitle}</h1>
${saved ? html`<div class="ok" role="status">${t.riskForm.accountSaved}</div>` : ''}
<section class="card" aria-labelledby="risk-account"><h2 id="risk-account">${t.riskForm.accountLink}</h2>
<p class="muted">${t.riskForm.accountHint}</p>
${riskRulesForm(chrome, view)}
</section>
<p><a class="button secondary" href="/dashboard/settings">${t.goBack}</a></p>`;
  return dashboardPage(chrome, t.riskForm.accountTitle, body);
}
