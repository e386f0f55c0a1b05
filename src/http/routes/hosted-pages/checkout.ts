import { isPspFault, PspIntegrationError } from '../../../psp/connector.ts';
import { Type } from 'typebox';
import { isEmailAddress } from '../../../domain/email.ts';
import { type Offer } from '../../../accounts/offer.ts';
import { parsePublicId } from '../../../domain/ids.ts';
import { parseTypedAmount } from '../../../domain/money.ts';
import { MAX_PLEDGERS } from '../../../domain/pot.ts';
import { checkCard, typedHolder } from '../../../pages/card-form.ts';
import type { FormErrors } from '../../../pages/errors.ts';
import { notFoundPage } from '../../../pages/checkout-page.ts';
import { TEXT } from '../../../pages/texts.ts';
import { leaderReturnUrl } from '../../../domain/links.ts';
import type { LeaderOutcome } from '../../../use-cases/checkout/leader-outcome.ts';
import { payAsLeader, type NewPledge } from '../../../use-cases/checkout/pay-as-leader.ts';
import { confirmLeaderAttempt } from '../../../use-cases/checkout/resolve-leader-attempt.ts';
import { switchOffer } from '../../../use-cases/checkout/switch-offer.ts';
import { leaderNameNeeded } from '../../../purchases/purchase.ts';
import type { Services } from '../../../services.ts';
import { normalizeTypedPhone, shopperCountry } from '../../../messaging/phone-numbers.ts';
import type { CountryCode } from 'libphonenumber-js/min';
import { DEFAULT_MERCHANT_COUNTRY } from '../../../config.ts';
import type { App } from '../../types.ts';
import { CHALLENGE_RETURN_BODY_LIMIT, challengeReturnOf } from '../../challenge-return.ts';
import { pageHeaders } from './page-support.ts';
import { CheckoutPages } from './checkout-view.ts';

type FriendRow = { name: string; email: string; phone: string; share: string };

function list(form: Record<string, unknown>, name: string): string[] {
  const v = form[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => String(x).trim());
}

/**
 * The friends typed in the form: rows left empty are skipped; any other row must be complete.
 * Amounts in the page's locale ("30,00", "30 €"); phone numbers international or national for
 * `country` (the shopper's, else the merchant's: never the page's language), stored in E.164.
 * Each wrong field gets its own message.
 */
function readFriends(
  form: Record<string, unknown>,
  currency: string,
  country: CountryCode,
  t: (typeof TEXT)['en'],
): { rows: FriendRow[]; pledges?: NewPledge[]; errors?: FormErrors } {
  const names = list(form, 'pledger_name');
  const emails = list(form, 'pledger_email');
  const phones = list(form, 'pledger_phone');
  const shares = list(form, 'pledger_amount');
  const n = Math.max(names.length, emails.length, phones.length, shares.length);
  const rows: FriendRow[] = [];
  const pledges: NewPledge[] = [];
  const fields: Record<string, string> = {};
  let message: string | undefined;
  for (let i = 0; i < n; i++) {
    const row = { name: names[i] ?? '', email: emails[i] ?? '', phone: phones[i] ?? '', share: shares[i] ?? '' };
    rows.push(row);
    if (!row.name && !row.email && !row.phone && !row.share) continue;
    const phone = row.phone ? normalizeTypedPhone(row.phone, country) : undefined;
    const amount = parseTypedAmount(row.share, currency);
    const emailOk = !row.email || isEmailAddress(row.email);
    const contactOk = (row.email || row.phone) && emailOk && (!row.phone || phone);
    if (!contactOk || !amount) {
      message ??= t.invalidFriend(i + 1);
      if (!contactOk) fields[row.phone && !phone && emailOk ? `pledger_phone_${i}` : `pledger_email_${i}`] = t.friendContactError(i + 1);
      if (!amount) fields[`pledger_amount_${i}`] = t.friendShareError(i + 1);
      continue;
    }
    pledges.push({ name: row.name.slice(0, 100) || undefined, email: row.email || undefined, phoneNumber: phone, amountCents: amount });
  }
  if (pledges.length > MAX_PLEDGERS) message ??= t.tooManyFriends(MAX_PLEDGERS);
  return message ? { rows, errors: { message, fields } } : { rows, pledges };
}

/** The leader's own name as typed (one line, at most 60 characters), '' when none. */
function typedLeaderName(form: Record<string, unknown>): string {
  const v = form.leader_name;
  return typeof v === 'string'
    ? v
        .replace(/[\p{Cc}\s]+/gu, ' ')
        .trim()
        .slice(0, 60)
    : '';
}

/** The leader's hosted checkout: `GET /pay/<purchase_uid>` shows it, `POST` pays. */
export function registerCheckout(app: App, services: Services): void {
  const { clock, config, payments } = services;
  const page = new CheckoutPages(services);
  const csrf = page.csrf;
  // The merchant's country: the offer's `country_code`, else the account's, else the deployment's (docs/messaging.md#phone-numbers).
  const merchantCountry = (offer: Offer): CountryCode => ((offer.countryCode ?? offer.accountCountry) as CountryCode | null) ?? config.merchantCountry ?? DEFAULT_MERCHANT_COUNTRY;

  const params = Type.Object({ purchase_uid: Type.String({ maxLength: 64 }) });
  const querystring = Type.Object({ embed: Type.Optional(Type.String({ maxLength: 8 })), lang: Type.Optional(Type.String({ maxLength: 16 })) }, { additionalProperties: true });

  app.get('/pay/:purchase_uid', { schema: { hide: true, params, querystring } }, async (request, reply) => {
    const ctx = await page.load(request);
    if (!ctx) return page.notFound(request, reply);
    return page.show(request, reply, ctx);
  });

  // The wait's status address: the outcome once known, the wait again before
  // (docs/hosted-payment.md#an-attempt-in-progress). Resolving an attempt in doubt here is what the
  // leader's next submit or the reconciliation would do: its own PSP key, never a second charge.
  app.get('/pay/:purchase_uid/confirming', { schema: { hide: true, params, querystring } }, async (request, reply) => {
    const ctx = await page.load(request);
    if (!ctx) return page.notFound(request, reply);
    const result = ctx.purchase.state === 'CREATED' ? await confirmLeaderAttempt(payments, ctx.purchase) : undefined;
    if (result?.kind === 'in_progress') return page.confirming(reply, ctx);
    if (!result) return reply.redirect(`/pay/pur_${ctx.purchase.id}${ctx.mode.query}`, 303);
    return page.outcome(request, reply, ctx, result);
  });

  app.post('/pay/:purchase_uid', { schema: { hide: true, params, querystring } }, async (request, reply) => {
    const ctx = await page.load(request);
    if (!ctx) return page.notFound(request, reply);
    const t = TEXT[ctx.lang];
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!csrf.verify(request, `pur_${ctx.purchase.id}`, form)) return page.show(request, reply, ctx, { errors: { message: t.expiredForm } }, 403);
    const friends =
      ctx.offer.type === 'SHARED' ? readFriends(form, ctx.purchase.currency, shopperCountry(ctx.purchase.phoneNumber, merchantCountry(ctx.offer)), t) : { rows: [], pledges: [] };
    // The leader's own name, asked when the merchant sent none: required once a friend is invited,
    // since friends read it as who invites them (docs/hosted-payment.md#the-leaders-name).
    const leaderName = ctx.offer.type === 'SHARED' && leaderNameNeeded(ctx.purchase) ? typedLeaderName(form) : undefined;
    const nameMissing = leaderName === '' && (friends.pledges?.length ?? 0) > 0;
    // What the shopper typed is kept when the page comes back with an error (never the card's own fields).
    const kept = { friends: friends.rows, holder: typedHolder(form), leaderName };
    const checked = checkCard(form, clock.now());
    if (!friends.pledges || !checked.ok || nameMissing) {
      const cardFields: Record<string, string> = checked.ok ? {} : Object.fromEntries(checked.fields.map((f) => [f, t.fieldErrors[f] ?? t.invalidCard]));
      const nameField: Record<string, string> = nameMissing ? { leader_name: t.leaderNameError } : {};
      const message = friends.errors?.message ?? (nameMissing ? t.leaderNameError : t.invalidCard);
      const errors: FormErrors = { message, fields: { ...nameField, ...(friends.errors?.fields ?? {}), ...cardFields } };
      return page.show(request, reply, ctx, { ...kept, errors }, 422);
    }
    // The 3-D Secure return keeps the page's mode (embed) and its language: the sandbox's
    // challenge page speaks it too.
    const back = new URLSearchParams(ctx.mode.query);
    back.set('lang', ctx.lang);
    const returnUrl = (paymentId: string) => `${leaderReturnUrl(config.publicUrl, ctx.purchase.id, paymentId)}&${back.toString()}`;
    let result: LeaderOutcome;
    try {
      // The offer the page showed, when its form says (a page rendered before this field did not).
      const shown = typeof form.offer === 'string' ? parsePublicId('mer', form.offer) : undefined;
      result = await payAsLeader(payments, ctx.purchase, checked.card, friends.pledges, returnUrl, {
        ip: request.ip,
        ...(shown ? { offerId: shown } : {}),
        ...(leaderName ? { leaderName } : {}),
      });
    } catch (err) {
      if (!(err instanceof PspIntegrationError)) throw err;
      // A PSP fault: the purchase is unchanged and a new attempt replays this one first (never a second charge).
      request.log.warn({ psp: err.connector, psp_error: err.code, purchase_id: ctx.purchase.id }, 'PSP fault during the leader checkout');
      return page.show(request, reply, ctx, { ...kept, errors: { message: t.errors.processing_error } }, isPspFault(err) ? 502 : 503);
    }
    return page.outcome(request, reply, ctx, result, kept);
  });

  // After a risk refusal, the leader takes one of the offer's fallbacks (docs/risk.md#the-fallback):
  // the purchase moves to that offer and its checkout is shown again, in the same mode and language.
  const switchBody = Type.Object(
    { offer: Type.Optional(Type.String({ maxLength: 64 })), csrf: Type.Optional(Type.String({ maxLength: 512 })), csrf_frame: Type.Optional(Type.String({ maxLength: 512 })) },
    { additionalProperties: true },
  );
  app.post('/pay/:purchase_uid/switch', { schema: { hide: true, params, querystring, body: switchBody } }, async (request, reply) => {
    const ctx = await page.load(request);
    if (!ctx) return page.notFound(request, reply);
    const t = TEXT[ctx.lang];
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!csrf.verify(request, `pur_${ctx.purchase.id}`, form)) return page.show(request, reply, ctx, { errors: { message: t.expiredForm } }, 403);
    const switched = await switchOffer(services, ctx.purchase.accountId, ctx.purchase.id, typeof form.offer === 'string' ? form.offer.trim() : '');
    if (switched.kind === 'switched') return reply.redirect(`/pay/pur_${ctx.purchase.id}${ctx.mode.query}`, 303);
    if (switched.kind === 'not_found') return pageHeaders(reply).code(404).send(notFoundPage(ctx.lang));
    const fresh = (await page.load(request))!;
    // The offer is fixed once the leader's attempt started (docs/risk.md#the-fallback): wait for
    // it while it runs (the shopper may try again once it was refused); past CREATED, the page
    // as it now is.
    const message = switched.kind === 'offer_fixed' ? (switched.retryable ? t.inProgress : t.expiredForm) : t.switchRefused[switched.refusal.code];
    return page.show(request, reply, fresh, { errors: { message } }, 409);
  });

  const returnQuery = Type.Object(
    { payment: Type.String({ maxLength: 64 }), embed: Type.Optional(Type.String({ maxLength: 8 })), lang: Type.Optional(Type.String({ maxLength: 16 })) },
    { additionalProperties: true },
  );
  const OURS = ['payment', 'embed', 'lang'];
  // Some PSPs' issuers send the shopper back with a form POST (3-D Secure's TermUrl, Sips'
  // merchantReturnUrl): the posted fields go to the PSP that needs them to finish the
  // authentication (Fondy's PaRes), then a redirect to the same address as a GET shows the outcome
  // from the PSP's own record (docs/psp-connectors.md#the-return-from-3-d-secure).
  app.post('/pay/:purchase_uid/return', { schema: { hide: true, params, querystring: returnQuery }, bodyLimit: CHALLENGE_RETURN_BODY_LIMIT }, async (request, reply) => {
    const again = `/pay/${encodeURIComponent(request.params.purchase_uid)}/return?${new URLSearchParams(request.query as Record<string, string>).toString()}`;
    const returned = challengeReturnOf(request.body, OURS);
    if (Object.keys(returned).length === 0) return reply.redirect(again, 303);
    const result = await page.resumeFromReturn(request, returned);
    return result === 'not_found' ? page.notFound(request, reply) : reply.redirect(again, 303);
  });
  app.get('/pay/:purchase_uid/return', { schema: { hide: true, params, querystring: returnQuery } }, async (request, reply) => {
    const result = await page.resumeFromReturn(request, challengeReturnOf(request.query, OURS));
    return result === 'not_found' ? page.notFound(request, reply) : page.outcome(request, reply, result.ctx, result.outcome);
  });
}
