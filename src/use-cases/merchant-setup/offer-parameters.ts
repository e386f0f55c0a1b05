import type { MerchantParameters, Offer } from '../../accounts/offer.ts';
import { checkWebhookUrl, WebhookSettingsError, type WebhookRule } from '../../delivery/endpoints.ts';
import { isPhoneCountry } from '../../i18n/countries.ts';
import type { AddressPolicy } from '../../outbound/addresses.ts';
import { MAX_BALANCE_DELAY_DAYS } from '../../domain/schedule.ts';

/**
 * The merchant parameters of the original interface an offer holds, as the back-office API names
 * them (docs/back-office.md#merchant-parameters-of-the-original-interface): their checks, and how
 * a patch of them becomes the offer's new values. `editOffer` writes and audits them with the
 * offer's other terms.
 */

/** The parameters as the API shows them. */
export interface ParameterView {
  country_code: string | null;
  css_url: string | null;
  gtu_url: string | null;
  gtu_label: string | null;
  use_3ds: Offer['use3ds'];
  leader_can_pay_alone: boolean;
  purchase_end_notification_url: string | null;
  send_confirmation_email: boolean;
  send_owed_share_reminder: boolean;
  hold_renewal_days: number;
  funding_cap_cents: number | null;
  /** DOWN_PAYMENT offers: the deposit in percent of the amount (the original "Deposit percentage"); null on the others. */
  deposit_percent: number | null;
  /** DOWN_PAYMENT offers: the most days from a purchase's creation to its balance (the original "Maximum balance payment delay"); null on the others. */
  max_balance_delay_days: number | null;
}

/** A patch of them: any of the view's fields (null clears one that can be unset). */
export type ParameterPatch = Partial<ParameterView>;

export const USE_3DS = ['always', 'never', 'auto'] as const satisfies readonly Offer['use3ds'][];

/** As long as a browser and the columns take (the webhook URL's limit too). */
export const PARAMETER_URL_MAX = 2048;
/** The GTU link's words: a short label by a button, not a paragraph. */
export const GTU_LABEL_MAX = 100;

/**
 * `hold_renewal_days`: a renewal runs a day before a hold lapses at the latest
 * (docs/money-operations.md#re-authorisation), so 1 renews daily; card holds live 7 days at most
 * PSPs and 30 at the longest a card scheme allows, so more than 30 would never be reached.
 * `funding_cap_cents`: as the offer's amounts, 1 minor unit to 1,000,000.00. `deposit_percent` and
 * `max_balance_delay_days`: what the schedule engine takes (docs/schedules.md#down-payment), a deposit
 * and a balance both above nothing, the balance within a year.
 */
export const PARAMETER_BOUNDS = {
  hold_renewal_days: { min: 1, max: 30 },
  funding_cap_cents: { min: 1, max: 100_000_000 },
  deposit_percent: { min: 1, max: 99 },
  max_balance_delay_days: { min: 1, max: MAX_BALANCE_DELAY_DAYS },
} as const;

/** The parameters only one kind of offer uses; the other kinds may send them only with the value they hold when unset. */
const SHARED_ONLY = ['gtu_url', 'gtu_label', 'leader_can_pay_alone', 'purchase_end_notification_url'] as const;
const CREDIT_ONLY = ['send_owed_share_reminder', 'funding_cap_cents'] as const;
/** What a down payment is made of: required on a DOWN_PAYMENT offer, unset (null) on every other. */
const DOWN_PAYMENT_ONLY = ['deposit_percent', 'max_balance_delay_days'] as const;
const UNSET: Partial<ParameterView> = {
  gtu_url: null,
  gtu_label: null,
  leader_can_pay_alone: true,
  purchase_end_notification_url: null,
  send_owed_share_reminder: true,
  funding_cap_cents: null,
  deposit_percent: null,
  max_balance_delay_days: null,
};

/** Why a parameter is refused, as data (the back office says it in the page's language: the back office's catalogue, through src/http/backoffice/texts.ts). */
export type ParameterRefusal =
  | { code: 'url'; rule: WebhookRule }
  | { code: 'not_country' }
  | { code: 'one_line'; max: number }
  | { code: 'not_choice'; choices: readonly string[] }
  | { code: 'not_boolean' }
  | { code: 'not_integer' }
  | { code: 'out_of_range'; min: number; max: number }
  | { code: 'shared_only' }
  | { code: 'credit_only' }
  | { code: 'down_payment_only' }
  | { code: 'required' };

export type ParameterOutcome = { ok: MerchantParameters } | { field: keyof ParameterPatch; refusal: ParameterRefusal; message: string };

const URL_MESSAGES: Partial<Record<WebhookRule['code'], string>> = {
  too_long: `must be at most ${PARAMETER_URL_MAX} characters`,
  not_absolute: 'must be an absolute http(s) URL',
  not_http: 'must be an http(s) URL',
  has_credentials: 'must not carry a user name or password',
  not_https: 'must be an https:// URL in production',
  localhost: 'must not point to localhost',
};

/** A link the hosted pages show or load: http(s), no credentials, and https only when `httpsOnly`. */
function pageUrlRule(raw: string, httpsOnly: boolean): WebhookRule | undefined {
  if (raw.length > PARAMETER_URL_MAX) return { code: 'too_long', max: PARAMETER_URL_MAX };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { code: 'not_absolute' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { code: 'not_http' };
  if (url.username || url.password) return { code: 'has_credentials' };
  if (httpsOnly && url.protocol !== 'https:') return { code: 'not_https' };
  return undefined;
}

/** The API's words for a URL rule (the webhook checks' own messages name their field `url`). */
function urlMessage(rule: WebhookRule, fallback: string): string {
  if (rule.code === 'internal_address') return `must not point to an internal address (${rule.host})`;
  return URL_MESSAGES[rule.code] ?? fallback;
}

/**
 * The offer's parameters after `patch`, or the first field that breaks a rule. `css_url` must be
 * https in production (the pages are, and a stylesheet over http would be blocked as mixed
 * content); `purchase_end_notification_url` follows the webhook URL's rule (Chipin calls it:
 * docs/security.md#outbound-calls).
 */
export function applyParameters(offer: Offer, patch: ParameterPatch, ctx: { deployment: 'sandbox' | 'production'; policy: AddressPolicy }): ParameterOutcome {
  const refuse = (field: keyof ParameterPatch, refusal: ParameterRefusal, message: string): ParameterOutcome => ({ field, refusal, message });
  for (const field of [...SHARED_ONLY, ...CREDIT_ONLY]) {
    const value = patch[field];
    if (value === undefined || value === UNSET[field]) continue;
    if (offer.type !== 'SHARED' && (SHARED_ONLY as readonly string[]).includes(field)) return refuse(field, { code: 'shared_only' }, 'only a SHARED offer uses it');
    if (offer.type === 'SHARED' && (CREDIT_ONLY as readonly string[]).includes(field))
      return refuse(field, { code: 'credit_only' }, 'only a credit offer (INSTALLMENTS, DEFERRED, DOWN_PAYMENT) uses it');
  }
  for (const field of DOWN_PAYMENT_ONLY) {
    const value = patch[field];
    if (value === undefined) continue;
    if (offer.type !== 'DOWN_PAYMENT' && value !== UNSET[field]) return refuse(field, { code: 'down_payment_only' }, 'only a DOWN_PAYMENT offer uses it');
    if (offer.type === 'DOWN_PAYMENT' && value === null) return refuse(field, { code: 'required' }, 'a DOWN_PAYMENT offer must have one');
  }
  for (const [field, httpsOnly] of [
    ['css_url', ctx.deployment === 'production'],
    ['gtu_url', false],
  ] as const) {
    const raw = patch[field];
    if (raw === undefined || raw === null) continue;
    const rule = pageUrlRule(raw, httpsOnly);
    if (rule) return refuse(field, { code: 'url', rule }, urlMessage(rule, 'must be an http(s) URL'));
  }
  const notify = patch.purchase_end_notification_url;
  if (notify !== undefined && notify !== null) {
    try {
      checkWebhookUrl(notify, ctx.policy);
    } catch (err) {
      if (!(err instanceof WebhookSettingsError)) throw err;
      return refuse('purchase_end_notification_url', { code: 'url', rule: err.rule }, urlMessage(err.rule, 'must be an http(s) URL'));
    }
  }
  let countryCode = offer.countryCode;
  if (patch.country_code !== undefined) {
    countryCode = patch.country_code === null ? null : patch.country_code.trim().toUpperCase();
    if (countryCode !== null && !isPhoneCountry(countryCode))
      return refuse(
        'country_code',
        { code: 'not_country' },
        "must be an ISO 3166 alpha-2 country code with a telephone numbering plan (FR, GB), or null for the account's country",
      );
  }
  const label = patch.gtu_label;
  if (label !== undefined && label !== null && (label.trim() === '' || label.length > GTU_LABEL_MAX || /[\r\n]/.test(label)))
    return refuse('gtu_label', { code: 'one_line', max: GTU_LABEL_MAX }, `must be one line of 1 to ${GTU_LABEL_MAX} characters, or null for Chipin's wording`);
  if (patch.use_3ds !== undefined && !(USE_3DS as readonly string[]).includes(patch.use_3ds))
    return refuse('use_3ds', { code: 'not_choice', choices: USE_3DS }, `must be one of ${USE_3DS.join(', ')}`);
  for (const field of ['leader_can_pay_alone', 'send_confirmation_email', 'send_owed_share_reminder'] as const) {
    if (patch[field] !== undefined && typeof patch[field] !== 'boolean') return refuse(field, { code: 'not_boolean' }, 'must be true or false');
  }
  for (const [field, b] of Object.entries(PARAMETER_BOUNDS) as [keyof typeof PARAMETER_BOUNDS, { min: number; max: number }][]) {
    const v = patch[field];
    if (v === undefined || v === null) continue;
    if (!Number.isSafeInteger(v)) return refuse(field, { code: 'not_integer' }, 'must be an integer');
    if (v < b.min || v > b.max) return refuse(field, { code: 'out_of_range', min: b.min, max: b.max }, `must be between ${b.min} and ${b.max}`);
  }
  const keep = <T>(value: T | undefined, current: T): T => (value === undefined ? current : value);
  return {
    ok: {
      countryCode,
      cssUrl: keep(patch.css_url, offer.cssUrl),
      gtuUrl: keep(patch.gtu_url, offer.gtuUrl),
      gtuLabel: patch.gtu_label === undefined ? offer.gtuLabel : (patch.gtu_label?.trim() ?? null),
      use3ds: keep(patch.use_3ds, offer.use3ds),
      leaderCanPayAlone: keep(patch.leader_can_pay_alone, offer.leaderCanPayAlone),
      purchaseEndNotificationUrl: keep(patch.purchase_end_notification_url, offer.purchaseEndNotificationUrl),
      sendConfirmationEmail: keep(patch.send_confirmation_email, offer.sendConfirmationEmail),
      sendOwedShareReminder: keep(patch.send_owed_share_reminder, offer.sendOwedShareReminder),
      holdRenewalDays: keep(patch.hold_renewal_days, offer.holdRenewalDays),
      fundingCapCents: keep(patch.funding_cap_cents, offer.fundingCapCents),
      depositPercent: keep(patch.deposit_percent, offer.depositPercent),
      maxBalanceDelayDays: keep(patch.max_balance_delay_days, offer.maxBalanceDelayDays),
    },
  };
}

/** The offer's parameters as the API shows them. */
export function parameterView(o: MerchantParameters): ParameterView {
  return {
    country_code: o.countryCode,
    css_url: o.cssUrl,
    gtu_url: o.gtuUrl,
    gtu_label: o.gtuLabel,
    use_3ds: o.use3ds,
    leader_can_pay_alone: o.leaderCanPayAlone,
    purchase_end_notification_url: o.purchaseEndNotificationUrl,
    send_confirmation_email: o.sendConfirmationEmail,
    send_owed_share_reminder: o.sendOwedShareReminder,
    hold_renewal_days: o.holdRenewalDays,
    funding_cap_cents: o.fundingCapCents,
    deposit_percent: o.depositPercent,
    max_balance_delay_days: o.maxBalanceDelayDays,
  };
}

/** Every parameter an edit may change, as the API names it (and as `offer_update` lists them). */
export const PARAMETER_FIELDS = [
  'country_code',
  'css_url',
  'gtu_url',
  'gtu_label',
  'use_3ds',
  'leader_can_pay_alone',
  'purchase_end_notification_url',
  'send_confirmation_email',
  'send_owed_share_reminder',
  'hold_renewal_days',
  'funding_cap_cents',
  'deposit_percent',
  'max_balance_delay_days',
] as const satisfies readonly (keyof ParameterView)[];

/** What the audit log keeps of a value: only the host of the notification URL, whose path or query may carry the merchant's own secret (as for `webhook_set`). */
export function auditedValue(field: string, value: unknown): unknown {
  if (field === 'purchase_end_notification_url' && typeof value === 'string') return new URL(value).host;
  return value;
}
