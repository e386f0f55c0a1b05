import type { Offer } from '../../../accounts/offer.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { html } from '../../../html/html.ts';
import { decimalAmount } from '../../../domain/money.ts';
import { effectiveRules, RISK_RULE_NAMES } from '../../../domain/risk-rules.ts';
import type { RiskRulesView } from '../../../use-cases/risk/risk-rules.ts';
import { formatMoney } from '../../../i18n/format.ts';
import type { PspAccountView } from '../../../use-cases/merchant-setup/psp-accounts.ts';
import { USE_3DS } from '../../../use-cases/merchant-setup/offer-parameters.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { riskRulesForm, ruleValue } from './risk-rules-page.ts';
import { formOfRules, type RiskForm, type RiskFormError } from '../risk-rules-form.ts';
import { DASHBOARD_TEXT, type DashboardTexts } from '../texts.ts';

/** An offer's kind as staff read it: "Shared pot", "3 installments", "Deferred by 30 days", "30 % deposit, balance within 60 days". */
export function kindOf(t: DashboardTexts, o: Pick<Offer, 'type' | 'installments' | 'deferredDays' | 'depositPercent' | 'maxBalanceDelayDays'>): string {
  switch (o.type) {
    case 'SHARED':
      return t.kindShared;
    case 'INSTALLMENTS':
      return t.kindInstallments(o.installments);
    case 'DEFERRED':
      return t.kindDeferred(o.deferredDays);
    case 'DOWN_PAYMENT':
      return t.kindDownPayment(o.depositPercent ?? 0, o.maxBalanceDelayDays ?? 0);
  }
}

const pspOf = (t: DashboardTexts, o: Offer, accounts: PspAccountView[]) => {
  // Transfer mode: the operator's collecting account is never shown to a merchant (docs/money-operations.md#transfer-mode).
  if (o.paymentMode === 'transfer') return o.pspAccountId === null ? `${t.transferPsp} (${t.sandboxPsp})` : `${t.transferPsp} (${o.psp})`;
  if (o.pspAccountId === null) return t.sandboxPsp;
  const a = accounts.find((p) => p.id === toPublicId('psa', o.pspAccountId!));
  return a ? `${a.label} (${a.psp}, ${t.environmentNames[a.environment]})` : o.psp;
};

/** The account's offers: kind, fees, limits, delays and the PSP account each pays through. */
export function offersPage(chrome: Chrome, offers: Offer[], accounts: PspAccountView[]): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const money = (cents: number, o: Offer) => formatMoney(cents, o.currency, chrome.lang);
  const rows = offers.map((o) => {
    const uid = toPublicId('mer', o.id);
    return html`<tr><td><a href="/dashboard/offers/${uid}">${kindOf(t, o)}</a><br><span class="muted">${uid}</span></td>
<td>${t.feesOf((o.feeRateBps / 100).toLocaleString(chrome.lang), money(o.fixedFeeCents, o))}</td>
<td>${money(o.minAmountCents, o)} – ${money(o.maxAmountCents, o)}</td>
<td>${t.hours(o.expiryHours)}</td><td>${o.type === 'SHARED' ? t.hours(o.potDeadlineHours) : '—'}</td><td>${pspOf(t, o, accounts)}</td></tr>`;
  });
  const body = html`<h1>${t.offers}</h1>
<div class="scroll" tabindex="0" role="region" aria-label="${t.offersTable}"><table class="list"><thead><tr><th scope="col">${t.offer}</th><th scope="col">${t.fees}</th><th scope="col">${t.limits}</th><th scope="col">${t.expiryHours}</th><th scope="col">${t.potDeadlineHours}</th><th scope="col">${t.pspAccount}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  return dashboardPage(chrome, t.offers, body);
}

/** The page's inputs, by the API field each one sets (a refusal names the API field). */
export const OFFER_INPUTS = {
  psp_account_id: 'psp_account_id',
  fee_rate_bps: 'fee_rate',
  fixed_fee_cents: 'fixed_fee',
  min_amount_cents: 'min_amount',
  max_amount_cents: 'max_amount',
  expiry_hours: 'expiry_hours',
  pot_deadline_hours: 'pot_deadline_hours',
  country_code: 'country_code',
  css_url: 'css_url',
  gtu_url: 'gtu_url',
  gtu_label: 'gtu_label',
  use_3ds: 'use_3ds',
  leader_can_pay_alone: 'leader_can_pay_alone',
  purchase_end_notification_url: 'purchase_end_notification_url',
  send_confirmation_email: 'send_confirmation_email',
  send_owed_share_reminder: 'send_owed_share_reminder',
  hold_renewal_days: 'hold_renewal_days',
  funding_cap_cents: 'funding_cap',
  deposit_percent: 'deposit_percent',
  max_balance_delay_days: 'max_balance_delay_days',
} as const;
export type OfferInput = (typeof OFFER_INPUTS)[keyof typeof OFFER_INPUTS];

/** Each input's label, as an error names it. */
export function offerInputLabel(t: DashboardTexts, o: Offer, input: OfferInput): string {
  const labels: Record<OfferInput, string> = {
    psp_account_id: t.pspAccountField,
    fee_rate: t.feeRateField,
    fixed_fee: t.fixedFeeField(o.currency),
    min_amount: t.minAmountField(o.currency),
    max_amount: t.maxAmountField(o.currency),
    expiry_hours: t.expiryHoursField,
    pot_deadline_hours: t.potDeadlineHoursField,
    country_code: t.offerParameters.countryCode,
    css_url: t.offerParameters.cssUrl,
    gtu_url: t.offerParameters.gtuUrl,
    gtu_label: t.offerParameters.gtuLabel,
    use_3ds: t.offerParameters.use3ds,
    leader_can_pay_alone: t.offerParameters.leaderCanPayAlone,
    purchase_end_notification_url: t.offerParameters.purchaseEndNotificationUrl,
    send_confirmation_email: t.offerParameters.sendConfirmationEmail,
    send_owed_share_reminder: t.offerParameters.sendOwedShareReminder,
    hold_renewal_days: t.offerParameters.holdRenewalDays,
    funding_cap: t.offerParameters.fundingCap(o.currency),
    deposit_percent: t.offerParameters.depositPercent,
    max_balance_delay_days: t.offerParameters.maxBalanceDelayDays,
  };
  return labels[input];
}

/** A yes/no choice as the form sends it (a select, so that "no" is sent too, unlike an unticked checkbox). */
const yesNo = (b: boolean) => (b ? 'yes' : 'no');

/** What the inputs show: the offer's terms as typed numbers (a percent with 2 decimals is exactly the basis points, as an amount with 2 decimals is the cents). */
function inputsOf(o: Offer): Record<OfferInput, string> {
  return {
    psp_account_id: o.pspAccountId === null || o.paymentMode === 'transfer' ? '' : toPublicId('psa', o.pspAccountId),
    fee_rate: decimalAmount(o.feeRateBps, 'EUR'),
    fixed_fee: decimalAmount(o.fixedFeeCents, o.currency),
    min_amount: decimalAmount(o.minAmountCents, o.currency),
    max_amount: decimalAmount(o.maxAmountCents, o.currency),
    expiry_hours: String(o.expiryHours),
    pot_deadline_hours: String(o.potDeadlineHours),
    country_code: o.countryCode ?? '',
    css_url: o.cssUrl ?? '',
    gtu_url: o.gtuUrl ?? '',
    gtu_label: o.gtuLabel ?? '',
    use_3ds: o.use3ds,
    leader_can_pay_alone: yesNo(o.leaderCanPayAlone),
    purchase_end_notification_url: o.purchaseEndNotificationUrl ?? '',
    send_confirmation_email: yesNo(o.sendConfirmationEmail),
    send_owed_share_reminder: yesNo(o.sendOwedShareReminder),
    hold_renewal_days: String(o.holdRenewalDays),
    funding_cap: o.fundingCapCents === null ? '' : decimalAmount(o.fundingCapCents, o.currency),
    deposit_percent: o.depositPercent === null ? '' : String(o.depositPercent),
    max_balance_delay_days: o.maxBalanceDelayDays === null ? '' : String(o.maxBalanceDelayDays),
  };
}

/**
 * One offer: what it sells (read-only), and the one form editing its fees, limits, delays and PSP
 * account (`PATCH /api/backoffice/offers/{merchant_uid}`'s use case). After a refusal the typed
 * values are shown again, the named input marked.
 */
export function offerPage(
  chrome: Chrome,
  o: Offer,
  accounts: PspAccountView[],
  extra: {
    error?: { input: OfferInput | undefined; message: string };
    typed?: Partial<Record<OfferInput, string>>;
    saved?: boolean;
    /** The account's risk rules: the page shows those in effect on this offer, and the form editing the offer's own. */
    risk?: RiskRulesView;
    /** The risk rules form as typed, after a refusal (`riskError`). */
    riskForm?: RiskForm;
    riskError?: RiskFormError;
    riskSaved?: boolean;
  } = {},
): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const uid = toPublicId('mer', o.id);
  const v = { ...inputsOf(o), ...extra.typed };
  const invalid = (input: OfferInput) => (extra.error && extra.error.input === input ? html` aria-invalid="true" aria-describedby="offer-error"` : '');
  const text = (input: Exclude<OfferInput, 'psp_account_id'>, mode: 'decimal' | 'numeric') =>
    html`<p><label for="${input}">${offerInputLabel(t, o, input)}</label><input id="${input}" name="${input}" inputmode="${mode}" autocomplete="off" required value="${v[input]}"${invalid(input)}></p>`;
  const p = t.offerParameters;
  // Optional inputs: empty is none (the API's null).
  const optional = (input: OfferInput, type: 'url' | 'text', hint = '') =>
    html`<p><label for="${input}">${offerInputLabel(t, o, input)}</label><input id="${input}" name="${input}" type="${type}" autocomplete="off" value="${v[input]}"${invalid(input)}>${hint ? html`<span class="muted">${hint}</span>` : ''}</p>`;
  const choice = (input: OfferInput, options: [string, string][]) =>
    html`<p><label for="${input}">${offerInputLabel(t, o, input)}</label><select id="${input}" name="${input}"${invalid(input)}>${options.map(
      ([value, label]) => html`<option value="${value}"${value === v[input] ? html` selected` : ''}>${label}</option>`,
    )}</select></p>`;
  const yesNoOf = (input: OfferInput) =>
    choice(input, [
      ['yes', p.yes],
      ['no', p.no],
    ]);
  const shared = o.type === 'SHARED';
  const body = html`<h1>${kindOf(t, o)}</h1>
${extra.saved ? html`<div class="ok" role="status">${t.offerSaved}</div>` : ''}
${extra.error ? html`<div class="alert" role="alert" id="offer-error">${extra.error.message}</div>` : ''}
<section class="card" aria-labelledby="sold"><h2 id="sold">${t.soldTerms}</h2>
<dl class="facts"><dt>${t.offer}</dt><dd>${kindOf(t, o)} <span class="muted">${uid}</span></dd>
<dt>${t.currencyLabel}</dt><dd>${o.currency}</dd>
<dt>${t.paymentMode}</dt><dd>${t.paymentModes[o.paymentMode]}</dd>
${
  o.paymentMode === 'transfer'
    ? html`<dt>${t.commission}</dt><dd>${t.commissionOf((o.commissionBps / 100).toLocaleString(chrome.lang), formatMoney(o.commissionFixedCents, o.currency, chrome.lang))}</dd>
<dt>${t.pspAccount}</dt><dd>${pspOf(t, o, accounts)}</dd>`
    : ''
}
</dl><p class="muted">${t.paymentModeHint}</p></section>
<form method="post" action="/dashboard/offers/${uid}">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<section class="card" aria-labelledby="terms"><h2 id="terms">${t.editOfferTerms}</h2>
<p class="muted" id="terms-hint">${t.offerEditHint}</p>
${text('fee_rate', 'decimal')}
${text('fixed_fee', 'decimal')}
${text('min_amount', 'decimal')}
${text('max_amount', 'decimal')}
${text('expiry_hours', 'numeric')}
${o.type === 'SHARED' ? text('pot_deadline_hours', 'numeric') : ''}
${o.type === 'DOWN_PAYMENT' ? html`${text('deposit_percent', 'numeric')}${text('max_balance_delay_days', 'numeric')}` : ''}
</section>
<section class="card" aria-labelledby="parameters"><h2 id="parameters">${p.title}</h2>
<p class="muted">${p.hint}</p>
${optional('country_code', 'text')}
${optional('css_url', 'url', p.cssUrlHint)}
${shared ? optional('gtu_url', 'url') : ''}
${shared ? optional('gtu_label', 'text') : ''}
${choice(
  'use_3ds',
  USE_3DS.map((k) => [k, p.use3dsNames[k]]),
)}
${shared ? yesNoOf('leader_can_pay_alone') : ''}
${shared ? optional('purchase_end_notification_url', 'url') : ''}
${yesNoOf('send_confirmation_email')}
${shared ? '' : yesNoOf('send_owed_share_reminder')}
${text('hold_renewal_days', 'numeric')}
${shared ? '' : html`<p><label for="funding_cap">${offerInputLabel(t, o, 'funding_cap')}</label><input id="funding_cap" name="funding_cap" inputmode="decimal" autocomplete="off" value="${v.funding_cap}"${invalid('funding_cap')}></p>`}
</section>
${
  o.paymentMode === 'transfer'
    ? ''
    : html`<section class="card" aria-labelledby="psp"><h2 id="psp">${t.pspAccount}</h2>
<label for="psp_account_id">${t.pspAccountField}</label>
<select id="psp_account_id" name="psp_account_id"${invalid('psp_account_id')}>
<option value=""${v.psp_account_id === '' ? html` selected` : ''}>${t.sandboxPsp}</option>
${accounts.map((a) => html`<option value="${a.id}"${a.id === v.psp_account_id ? html` selected` : ''}>${a.label} (${a.psp}, ${t.environmentNames[a.environment]})</option>`)}
</select>
<span class="muted">${t.pspAccountHint}</span>
</section>`
}
<p><button type="submit">${t.saveOffer}</button></p>
</form>
${extra.risk ? riskSection(chrome, o, extra.risk, extra) : ''}
<p><a class="button secondary" href="/dashboard/offers">${t.goBack}</a></p>`;
  return dashboardPage(chrome, kindOf(t, o), body);
}

/**
 * The risk rules in effect on the offer (docs/risk.md), each with where it comes from: Chipin's
 * default, the account, the offer; then the form editing the offer's own rules
 * (`PUT /api/backoffice/risk_rules/offers/{merchant_uid}`'s use case), folded under its heading
 * (docs/back-office.md#risk-rules): seventeen rules are most of a phone's page, and most visits
 * read the table. A refused save opens it on the refusal.
 */
function riskSection(chrome: Chrome, o: Offer, view: RiskRulesView, extra: { riskForm?: RiskForm; riskError?: RiskFormError; riskSaved?: boolean }) {
  const t = DASHBOARD_TEXT[chrome.lang];
  const uid = toPublicId('mer', o.id);
  const mine = view.offers.find((x) => x.merchant_uid === uid);
  if (!mine) return '';
  const r = t.riskRules;
  const rows = RISK_RULE_NAMES.flatMap((name) => {
    const value = mine.effective[name];
    if (value === undefined) return [];
    const source = mine.overrides[name] !== undefined ? r.sources.offer : view.account[name] !== undefined ? r.sources.account : r.sources.built_in;
    return [html`<tr><th scope="row">${r.names[name]}</th><td>${ruleValue(chrome.lang, o.currency, name, value)}</td><td>${source}</td></tr>`];
  });
  const form = riskRulesForm(chrome, {
    target: 'offer',
    action: `/dashboard/offers/${uid}/risk-rules`,
    form: extra.riskForm ?? formOfRules(mine.overrides, o.currency),
    inherited: effectiveRules(view.account, {}),
    currency: o.currency,
    ...(extra.riskError ? { error: extra.riskError } : {}),
  });
  return html`<section class="card" aria-labelledby="risk"><h2 id="risk">${r.title}</h2>
${extra.riskSaved ? html`<div class="ok" role="status">${t.riskForm.offerSaved}</div>` : ''}
<p class="muted">${r.hint}</p>
${
  rows.length === 0
    ? html`<p>${r.none}</p>`
    : html`<div class="scroll"><table class="list"><thead><tr><th scope="col">${r.rule}</th><th scope="col">${r.value}</th><th scope="col">${r.source}</th></tr></thead><tbody>${rows}</tbody></table></div>`
}
<details class="edit"${extra.riskError ? html` open` : ''}><summary><h3 id="risk-edit">${t.riskForm.offerTitle}</h3></summary>
<p class="muted">${t.riskForm.offerHint} <a href="/dashboard/settings/risk-rules">${t.riskForm.accountLink}</a></p>
${form}
</details>
</section>`;
}
