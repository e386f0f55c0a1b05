import { actorOf } from '../../../audit/audit-log.ts';
import type { Offer } from '../../../accounts/offer.ts';
import { OFFER_INPUTS, offerInputLabel, offerPage, offersPage, type OfferInput } from '../pages/offers-page.ts';
import { parseDecimalAmount, parseTypedAmount } from '../../../domain/money.ts';
import { formatMoney, formatPercent } from '../../../i18n/format.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import type { Services } from '../../../services.ts';
import { editOffer, type OfferPatch } from '../../../use-cases/merchant-setup/edit-offer.ts';
import { listPspAccounts } from '../../../use-cases/merchant-setup/psp-accounts.ts';
import { editRiskRules, readRiskRules } from '../../../use-cases/risk/risk-rules.ts';
import { formRefusal, rulesOfForm, typedForm, type RiskFormError } from '../risk-rules-form.ts';
import type { App } from '../../types.ts';
import { seeOther, sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };

/**
 * Back office: the account's offers; each one's fees, limits, delays and PSP account edited with
 * `PATCH /api/backoffice/offers/{merchant_uid}`'s use case (editOffer, which audits); its own risk
 * rules with `PUT /api/backoffice/risk_rules/offers/{merchant_uid}`'s (editRiskRules, which checks
 * and audits: docs/risk.md#editing-the-rules).
 */
export function registerDashboardOffers(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = { ...services.pspAccounts, policy: services.deliveries.policy };
  const riskDeps = { db: services.db, clock: services.clock, offers: services.offers, riskRules: services.riskRules };

  /** Read fresh: the cache may hold terms another process changed. */
  async function offersOf(accountId: string) {
    services.offers.forget(accountId);
    return services.offers.list(accountId);
  }

  app.get('/dashboard/offers', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const accountId = ctx.session.accountId;
    const [offers, accounts] = await Promise.all([offersOf(accountId), listPspAccounts(deps, accountId)]);
    return sendPage(reply, 200, offersPage(ctx.chrome, offers, accounts));
  });

  app.get('/dashboard/offers/:merchant_uid', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const uid = (request.params as { merchant_uid: string }).merchant_uid;
    services.offers.forget(session.accountId);
    const offer = await services.offers.find(session.accountId, uid);
    if (!offer) return sendPage(reply, 404, messagePage(chrome.lang, DASHBOARD_TEXT[chrome.lang].notFoundTitle, DASHBOARD_TEXT[chrome.lang].offerNotFound));
    const done = (request.query as Record<string, unknown>).done;
    const risk = await readRiskRules(riskDeps, session.accountId);
    return sendPage(reply, 200, offerPage(chrome, offer, await listPspAccounts(deps, session.accountId), { saved: done === 'saved', riskSaved: done === 'risk_saved', risk }));
  });

  app.post('/dashboard/offers/:merchant_uid', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form: fields } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const uid = (request.params as { merchant_uid: string }).merchant_uid;
    services.offers.forget(session.accountId);
    const offer = await services.offers.find(session.accountId, uid);
    if (!offer) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.offerNotFound));
    // An input the form did not send keeps its value, as a field left out of the PATCH does.
    const typed = Object.fromEntries(Object.values(OFFER_INPUTS).flatMap((k) => (typeof fields[k] === 'string' ? [[k, fields[k]]] : []))) as Partial<Record<OfferInput, string>>;
    const refuse = async (input: OfferInput | undefined, message: string) =>
      sendPage(reply, 400, offerPage(chrome, offer, await listPspAccounts(deps, session.accountId), { error: { input, message }, typed }));

    const parsed = patchOf(offer, typed);
    if ('bad' in parsed) {
      const why = parsed.why === 'whole' ? t.badWholeNumber : parsed.why === 'yes_no' ? t.offerParameters.refusal({ code: 'not_boolean' }, String) : t.badDecimal;
      return refuse(parsed.bad, `${offerInputLabel(t, offer, parsed.bad)}: ${why}`);
    }
    const outcome = await editOffer(deps, session.accountId, actorOf(session), uid, parsed.patch);
    if (outcome.kind === 'ok') {
      request.log.info({ account_id: session.accountId, merchant_uid: uid }, 'offer edited (back office)');
      return seeOther(reply, `/dashboard/offers/${encodeURIComponent(uid)}?done=saved`);
    }
    if (outcome.kind === 'not_found' && outcome.what === 'offer') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.offerNotFound));
    if (outcome.kind === 'not_found') return refuse('psp_account_id', t.pspAccountNotFound);
    const input = OFFER_INPUTS[outcome.field as keyof typeof OFFER_INPUTS] as OfferInput | undefined;
    const money = (cents: number) => formatMoney(cents, offer.currency, chrome.lang);
    // A bound shown in the unit the form takes: amounts in the currency, the rate in percent.
    const bound = outcome.field.endsWith('_cents') ? money : outcome.field === 'fee_rate_bps' ? (bps: number) => formatPercent(bps / 100, chrome.lang) : String;
    return refuse(input, `${input ? offerInputLabel(t, offer, input) : outcome.field}: ${t.offerRefusal(outcome.refusal, { bound, money })}`);
  });

  app.post('/dashboard/offers/:merchant_uid/risk-rules', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form: fields } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const uid = (request.params as { merchant_uid: string }).merchant_uid;
    services.offers.forget(session.accountId);
    const offer = await services.offers.find(session.accountId, uid);
    if (!offer) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.offerNotFound));
    const typed = typedForm(fields, true);
    // Nothing is written: the page again, with what was typed and the refused rule marked.
    const refuse = async (riskError: RiskFormError) =>
      sendPage(
        reply,
        400,
        offerPage(chrome, offer, await listPspAccounts(deps, session.accountId), { risk: await readRiskRules(riskDeps, session.accountId), riskForm: typed, riskError }),
      );
    const parsed = rulesOfForm(typed, offer.currency);
    if ('error' in parsed) return refuse(parsed.error);
    const outcome = await editRiskRules(riskDeps, session.accountId, actorOf(session), uid, parsed.rules);
    if (outcome.kind === 'not_found') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.offerNotFound));
    if (outcome.kind === 'invalid') {
      const error = formRefusal(typed, outcome.field, outcome.refusal);
      // The form sends rules by their names only: a refusal of anything else is not the staff's.
      if (!error) throw new Error(`risk rules form refused outside its rules: ${outcome.field}`);
      return refuse(error);
    }
    request.log.info({ account_id: session.accountId, merchant_uid: uid }, 'offer risk rules edited (back office)');
    return seeOther(reply, `/dashboard/offers/${encodeURIComponent(uid)}?done=risk_saved#risk`);
  });
}

type NumberField =
  | 'fee_rate_bps'
  | 'fixed_fee_cents'
  | 'min_amount_cents'
  | 'max_amount_cents'
  | 'expiry_hours'
  | 'pot_deadline_hours'
  | 'hold_renewal_days'
  | 'deposit_percent'
  | 'max_balance_delay_days';

/**
 * The form's typed values as the API's patch, with integer arithmetic only: amounts in the
 * offer's currency with up to its decimals, the fee rate in percent with up to 2 decimals, hours
 * and days whole; an empty optional text is none (null); yes/no choices as booleans. The first
 * input that cannot be read is named, with why (the use case judges the rest).
 */
function patchOf(offer: Offer, typed: Partial<Record<OfferInput, string>>): { patch: OfferPatch } | { bad: OfferInput; why: 'whole' | 'decimal' | 'yes_no' } {
  const whole = (text: string) => (/^\s*\d{1,9}\s*$/.test(text) ? Number(text) : undefined);
  const parsers: [OfferInput, NumberField, (text: string) => number | undefined][] = [
    // A percent with 2 decimals is exactly the basis points, as an amount with 2 decimals is the cents.
    ['fee_rate', 'fee_rate_bps', (text) => (/\d/.test(text) ? parseDecimalAmount(text.replace('%', ''), 'EUR') : undefined)],
    ['fixed_fee', 'fixed_fee_cents', (text) => parseTypedAmount(text, offer.currency)],
    ['min_amount', 'min_amount_cents', (text) => parseTypedAmount(text, offer.currency)],
    ['max_amount', 'max_amount_cents', (text) => parseTypedAmount(text, offer.currency)],
    ['expiry_hours', 'expiry_hours', whole],
    ['pot_deadline_hours', 'pot_deadline_hours', whole],
    ['hold_renewal_days', 'hold_renewal_days', whole],
    ['deposit_percent', 'deposit_percent', whole],
    ['max_balance_delay_days', 'max_balance_delay_days', whole],
  ];
  const patch: OfferPatch = {};
  // The empty option is the built-in sandbox PSP, as `null` is in the API.
  if (typed.psp_account_id !== undefined) patch.psp_account_id = typed.psp_account_id || null;
  for (const [input, field, parse] of parsers) {
    const text = typed[input];
    if (text === undefined) continue;
    const value = parse(text);
    if (value === undefined) return { bad: input, why: parse === whole ? 'whole' : 'decimal' };
    patch[field] = value;
  }
  for (const field of ['country_code', 'css_url', 'gtu_url', 'gtu_label', 'purchase_end_notification_url'] as const) {
    const text = typed[field];
    if (text !== undefined) patch[field] = text.trim() === '' ? null : text.trim();
  }
  if (typed.use_3ds !== undefined) patch.use_3ds = typed.use_3ds as Offer['use3ds'];
  for (const field of ['leader_can_pay_alone', 'send_confirmation_email', 'send_owed_share_reminder'] as const) {
    const text = typed[field];
    if (text === undefined) continue;
    if (text !== 'yes' && text !== 'no') return { bad: field, why: 'yes_no' };
    patch[field] = text === 'yes';
  }
  if (typed.funding_cap !== undefined) {
    const text = typed.funding_cap.trim();
    const cents = text === '' ? null : parseTypedAmount(text, offer.currency);
    if (cents === undefined) return { bad: 'funding_cap', why: 'decimal' };
    patch.funding_cap_cents = cents;
  }
  return { patch };
}
