import { isPspFault, PspIntegrationError, type ChallengeReturn } from '../../../psp/connector.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isEmailAddress } from '../../../domain/email.ts';
import { inTestMode, type Offer } from '../../../accounts/offer.ts';
import { isUuid, parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { parseTypedAmount } from '../../../domain/money.ts';
import { MAX_PLEDGERS } from '../../../domain/pot.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import { computeSchedule, type Schedule } from '../../../domain/schedule.ts';
import { checkCard, DECLINE_FIELD, typedHolder } from '../../../pages/card-form.ts';
import type { FormErrors } from '../../../pages/errors.ts';
import { checkoutPage, confirmingPage, notFoundPage, purchaseStatusPage, type CheckoutView, type FallbackChoice } from '../../../pages/checkout-page.ts';
import { TEXT } from '../../../pages/texts.ts';
import { formatIsoDate } from '../../../domain/apr.ts';
import { leaderReturnUrl, pledgePageUrl } from '../../../domain/links.ts';
import { offerTerms } from '../../../domain/offer-terms.ts';
import { paidEnvironment, pledgesOf } from '../../../use-cases/payment-lookup.ts';
import { leaderFrontOutcome, type FrontOutcome } from '../../../use-cases/leader-front-outcome.ts';
import { shopReturnUrl, type ShopOutcome } from '../../../delivery/shop-return.ts';
import { leaderResultFigures } from '../../../payments/result-figures.ts';
import { merchantOrigin } from '../../../sdk/protocol.ts';
import { confirmLeaderAttempt, payAsLeader, resumeLeaderAfterChallenge, type LeaderOutcome, type NewPledge } from '../../../use-cases/pay-as-leader.ts';
import { switchOffer } from '../../../use-cases/switch-offer.ts';
import { requestedDatesOf, type Purchase } from '../../../purchases/purchase.ts';
import { purchaseForPage } from '../../../use-cases/page-lookup.ts';
import type { Services } from '../../../services.ts';
import { langFromAcceptLanguage, pageLang, type Lang } from '../../../i18n/lang.ts';
import { normalizeTypedPhone, shopperCountry } from '../../../messaging/phone-numbers.ts';
import type { CountryCode } from 'libphonenumber-js/min';
import { DEFAULT_MERCHANT_COUNTRY } from '../../../config.ts';
import type { App } from '../../types.ts';
import { CHALLENGE_RETURN_BODY_LIMIT, challengeReturnOf } from '../../challenge-return.ts';
import { csrfFor, pageHeaders } from './page-support.ts';

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

/**
 * Where the leader goes back to the shop with what the page told (docs/plugin-integration.md#the-return-to-the-shop):
 * a success to the callback with the result, a failure to the cancel URL (else the callback) with
 * the error, each in Chipin's and the original provider's parameters; undefined when there is
 * nothing to tell or nowhere to go.
 */
function shopReturn(purchase: Purchase, state: Purchase['state'], told: FrontOutcome | null): string | undefined {
  if (told?.type === 'chipin:cancel') return undefined;
  const outcome: ShopOutcome = !told
    ? { kind: 'state' }
    : told.type === 'chipin:result'
      ? { kind: 'result', result: told.result, jwt: told.jwt }
      : { kind: 'error', type: told.error.type, message: told.error.message, jwt: told.jwt };
  return shopReturnUrl(purchase, V1_STATE[state], outcome);
}

/** The page's own query, kept through the form and the 3-D Secure return: `embed=1` (chipin.js's overlay), `lang`. */
interface PageQuery {
  embed?: string;
  lang?: string;
}

function pageMode(query: PageQuery): { embed: boolean; lang?: string; query: string } {
  const embed = query.embed === '1';
  const lang = query.lang && /^[a-z]{2}([_-][A-Z]{2})?$/.test(query.lang) ? query.lang : undefined;
  const q = new URLSearchParams();
  if (embed) q.set('embed', '1');
  if (lang) q.set('lang', lang);
  const text = q.toString();
  return { embed, lang, query: text ? `?${text}` : '' };
}

/** The leader's hosted checkout: `GET /pay/<purchase_uid>` shows it, `POST` pays. */
export function registerCheckout(app: App, services: Services): void {
  const { db, offers, clock, config, payments } = services;
  const csrf = csrfFor(services);

  const ownOrigin = new URL(config.publicUrl).origin;
  // The merchant's country: the offer's `country_code`, else the account's, else the deployment's (docs/messaging.md#phone-numbers).
  const merchantCountry = (offer: Offer): CountryCode => ((offer.countryCode ?? offer.accountCountry) as CountryCode | null) ?? config.merchantCountry ?? DEFAULT_MERCHANT_COUNTRY;

  async function load(request: { params: { purchase_uid: string }; query?: unknown; headers?: { 'accept-language'?: string } }) {
    const id = parsePublicId('pur', request.params.purchase_uid);
    const purchase = id ? await purchaseForPage(services, id) : undefined;
    const offer = purchase && (await offers.byId(purchase.accountId, purchase.offerId));
    const mode = pageMode((request.query ?? {}) as PageQuery);
    return purchase && offer ? { purchase, offer, lang: pageLang(mode.lang, purchase, request.headers?.['accept-language']), mode } : undefined;
  }

  // The plan shown is the one the payment will make: on the due dates the purchase asked for, if any.
  function schedule(
    offer: Offer,
    purchase: Pick<Purchase, 'amountCents' | 'createdAt' | 'secondInstallmentDate' | 'deferredPaymentDate' | 'balancePaymentDate'>,
  ): Schedule | undefined {
    if (offer.type === 'SHARED') return undefined;
    try {
      return computeSchedule(offerTerms(offer), purchase.amountCents, formatIsoDate(purchase.createdAt), requestedDatesOf(purchase));
    } catch {
      return undefined; // the payment itself refuses with the reason
    }
  }

  async function show(
    request: FastifyRequest,
    reply: FastifyReply,
    ctx: { purchase: Purchase & { merchantName: string; merchantTimeZone: string }; offer: Offer; lang: Lang; mode: ReturnType<typeof pageMode> },
    extra: Partial<CheckoutView> = {},
    status = 200,
    decline?: string,
  ) {
    pageHeaders(reply, ctx.purchase.merchantOrigin ?? ctx.purchase.callbackUrl, ctx.offer.cssUrl);
    const uid = `pur_${ctx.purchase.id}`;
    const { embed } = ctx.mode;
    // Once money moved, the banner follows the PSP account the payment ran on, not the offer's of today.
    const paidOn = ctx.purchase.state === 'CREATED' ? undefined : await paidEnvironment(services, ctx.purchase.accountId, ctx.purchase.id);
    const testMode = paidOn ? paidOn === 'test' : inTestMode(ctx.offer);
    // What an embedding page is told (chipin.js or the merchant's own iframe), posted to the merchant's origin only.
    const message = await leaderFrontOutcome(payments, ctx.purchase, decline);
    const frame = message || embed ? { target: merchantOrigin(ctx.purchase.merchantOrigin ?? ctx.purchase.callbackUrl, ownOrigin), purchase_uid: uid, embed, message } : undefined;
    if (ctx.purchase.state !== 'CREATED') {
      const pledges = await pledgesOf(services, ctx.purchase.accountId, ctx.purchase.id);
      const result = await leaderResultFigures(db, ctx.purchase.accountId, ctx.purchase.id);
      // The way back to the shop carries the outcome: the error after a failure, the result after a success.
      const backUrl = shopReturn(ctx.purchase, ctx.purchase.state, message);
      const switchBase = `/pay/${uid}${embed ? '?embed=1' : ''}`;
      return reply.code(status).send(purchaseStatusPage({ ...ctx, pledges, frame, embed, backUrl, switchBase, result, testMode }, (pid) => pledgePageUrl(config.publicUrl, pid)));
    }
    const token = csrf.tokenFor(request, reply, uid);
    return reply.code(status).send(
      checkoutPage({
        ...ctx,
        csrfToken: token,
        csrfFrameToken: csrf.frameTokenFor(uid),
        embed,
        // Cancelling goes back to the shop saying so (`pledg_error` of type abandonment); in a frame the embedding script closes it.
        cancelUrl: !embed && (ctx.purchase.cancelUrl || ctx.purchase.merchantOrigin) ? shopReturnUrl(ctx.purchase, V1_STATE[ctx.purchase.state], { kind: 'cancel' }) : undefined,
        query: ctx.mode.query,
        frame,
        schedule: schedule(ctx.offer, ctx.purchase),
        switchBase: `/pay/${uid}${embed ? '?embed=1' : ''}`,
        potDeadline: new Date(clock.now().getTime() + ctx.offer.potDeadlineHours * 3_600_000),
        testMode,
        ...extra,
      }),
    );
  }

  /**
   * After the last refusal, a purchase of the direct call of the front goes back to the shop at
   * once, with the error (docs/plugin-integration.md#the-return-to-the-shop): the shop plugins
   * expect the shopper on their cancel URL. Other purchases, and any page in a frame, stay on the
   * status page, whose button goes back with the same error.
   */
  async function failedBackToShop(ctx: NonNullable<Awaited<ReturnType<typeof load>>>, decline: string): Promise<string | undefined> {
    if (ctx.purchase.state === 'CREATED' || ctx.mode.embed || ctx.purchase.merchantOrigin === null) return undefined;
    return shopReturn(ctx.purchase, ctx.purchase.state, await leaderFrontOutcome(payments, ctx.purchase, decline));
  }

  async function outcome(
    request: FastifyRequest,
    reply: FastifyReply,
    ctx: NonNullable<Awaited<ReturnType<typeof load>>>,
    result: LeaderOutcome,
    kept: Partial<CheckoutView> = {},
  ) {
    const t = TEXT[ctx.lang];
    switch (result.kind) {
      case 'processed': {
        // Inside chipin.js's overlay the shopper stays on our status page, which posts the result.
        if (ctx.mode.embed) return reply.redirect(`/pay/pur_${ctx.purchase.id}${ctx.mode.query}`, 303);
        // The result, or the error when the card processor did not accept the payment; without a
        // way back to the shop (or anything to tell), our status page.
        const told = await leaderFrontOutcome(payments, { ...ctx.purchase, state: result.state });
        return reply.redirect(shopReturn(ctx.purchase, result.state, told) ?? `/pay/pur_${ctx.purchase.id}`, 303);
      }
      case 'challenge':
        return reply.redirect(result.url, 303);
      case 'not_payable':
        return reply.redirect(`/pay/pur_${ctx.purchase.id}${ctx.mode.query}`, 303);
      case 'in_progress':
        // An attempt of the leader's is under way or in doubt: wait for its outcome rather than
        // an error (docs/hosted-payment.md#an-attempt-in-progress).
        return confirming(reply, ctx);
      case 'offer_changed': {
        // A fallback was taken as the leader paid (docs/risk.md#the-fallback): nothing was charged;
        // the new offer's checkout is shown, to be paid on the terms it shows.
        const fresh = (await load(request as unknown as { params: { purchase_uid: string }; query: unknown }))!;
        return show(request, reply, fresh, { holder: kept.holder, errors: { message: t.offerChanged } }, 409);
      }
      case 'invalid': {
        // The merchant requires a pot: the first friend's row is where to act (docs/hosted-payment.md#rules).
        if (result.problem.code === 'pledger_required')
          return show(request, reply, ctx, { ...kept, errors: { message: t.friendRequired, fields: { pledger_email_0: t.friendRequired } } }, 422);
        const message =
          result.problem.code === 'not_shared'
            ? t.notShared
            : result.problem.code === 'schedule' || result.problem.code === 'psp_amount'
              ? result.problem.message
              : t.invalidShares;
        return show(request, reply, ctx, { ...kept, errors: { message } }, 422);
      }
      case 'risk_refused': {
        // Not accusing, and no reason told: the reasons are the merchant's (the event and the comment).
        const fresh = (await load(request as unknown as { params: { purchase_uid: string }; query: unknown }))!;
        const back = await failedBackToShop(fresh, 'risk_refused');
        if (back) return reply.redirect(back, 303);
        const left = fresh.purchase.state === 'CREATED' ? t.attemptsLeft(result.attemptsLeft) : '';
        // The offers the rules accept instead, one button each (docs/risk.md#the-fallback).
        const fallbacks: FallbackChoice[] =
          fresh.purchase.state === 'CREATED' ? result.fallbacks.map((o) => ({ merchantUid: toPublicId('mer', o.id), offer: o, schedule: schedule(o, fresh.purchase) })) : [];
        return show(request, reply, fresh, { ...kept, errors: { message: `${t.riskRefused} ${left}`.trim() }, fallbacks }, 402, 'risk_refused');
      }
      case 'declined': {
        const fresh = (await load(request as unknown as { params: { purchase_uid: string }; query: unknown }))!;
        const back = await failedBackToShop(fresh, result.reason);
        if (back) return reply.redirect(back, 303);
        const reason = t.errors[result.reason] ?? t.errors.processing_error!;
        const left = fresh.purchase.state === 'CREATED' ? t.attemptsLeft(result.attemptsLeft) : '';
        // A refusal about one field (expired card, wrong CVC, bad number) is that field's message too.
        const field = DECLINE_FIELD[result.reason];
        const errors: FormErrors = { message: `${reason} ${left}`.trim(), fields: field ? { [field]: reason } : {} };
        return show(request, reply, fresh, { ...kept, errors }, 402, result.reason);
      }
    }
  }

  function confirming(reply: FastifyReply, ctx: NonNullable<Awaited<ReturnType<typeof load>>>) {
    pageHeaders(reply, ctx.purchase.merchantOrigin ?? ctx.purchase.callbackUrl, ctx.offer.cssUrl);
    return reply.code(202).send(confirmingPage(ctx.lang, `/pay/pur_${ctx.purchase.id}/confirming${ctx.mode.query}`, ctx.offer.cssUrl));
  }

  const params = Type.Object({ purchase_uid: Type.String({ maxLength: 64 }) });
  const querystring = Type.Object({ embed: Type.Optional(Type.String({ maxLength: 8 })), lang: Type.Optional(Type.String({ maxLength: 16 })) }, { additionalProperties: true });

  app.get('/pay/:purchase_uid', { schema: { hide: true, params, querystring } }, async (request, reply) => {
    const ctx = await load(request);
    if (!ctx) return notFound(request, reply);
    return show(request, reply, ctx);
  });

  // The wait's status address: the outcome once known, the wait again before
  // (docs/hosted-payment.md#an-attempt-in-progress). Resolving an attempt in doubt here is what the
  // leader's next submit or the reconciliation would do: its own PSP key, never a second charge.
  app.get('/pay/:purchase_uid/confirming', { schema: { hide: true, params, querystring } }, async (request, reply) => {
    const ctx = await load(request);
    if (!ctx) return notFound(request, reply);
    const result = ctx.purchase.state === 'CREATED' ? await confirmLeaderAttempt(payments, ctx.purchase) : undefined;
    if (result?.kind === 'in_progress') return confirming(reply, ctx);
    if (!result) return reply.redirect(`/pay/pur_${ctx.purchase.id}${ctx.mode.query}`, 303);
    return outcome(request, reply, ctx, result);
  });

  app.post('/pay/:purchase_uid', { schema: { hide: true, params, querystring } }, async (request, reply) => {
    const ctx = await load(request);
    if (!ctx) return notFound(request, reply);
    const t = TEXT[ctx.lang];
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!csrf.verify(request, `pur_${ctx.purchase.id}`, form)) return show(request, reply, ctx, { errors: { message: t.expiredForm } }, 403);
    const friends =
      ctx.offer.type === 'SHARED' ? readFriends(form, ctx.purchase.currency, shopperCountry(ctx.purchase.phoneNumber, merchantCountry(ctx.offer)), t) : { rows: [], pledges: [] };
    // What the shopper typed is kept when the page comes back with an error (never the card's own fields).
    const kept = { friends: friends.rows, holder: typedHolder(form) };
    const checked = checkCard(form, clock.now());
    if (!friends.pledges || !checked.ok) {
      const cardFields: Record<string, string> = checked.ok ? {} : Object.fromEntries(checked.fields.map((f) => [f, t.fieldErrors[f] ?? t.invalidCard]));
      const errors: FormErrors = { message: friends.errors?.message ?? t.invalidCard, fields: { ...(friends.errors?.fields ?? {}), ...cardFields } };
      return show(request, reply, ctx, { ...kept, errors }, 422);
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
      result = await payAsLeader(payments, ctx.purchase, checked.card, friends.pledges, returnUrl, { ip: request.ip, ...(shown ? { offerId: shown } : {}) });
    } catch (err) {
      if (!(err instanceof PspIntegrationError)) throw err;
      // A PSP fault: the purchase is unchanged and a new attempt replays this one first (never a second charge).
      request.log.warn({ psp: err.connector, psp_error: err.code, purchase_id: ctx.purchase.id }, 'PSP fault during the leader checkout');
      return show(request, reply, ctx, { ...kept, errors: { message: t.errors.processing_error } }, isPspFault(err) ? 502 : 503);
    }
    return outcome(request, reply, ctx, result, kept);
  });

  // After a risk refusal, the leader takes one of the offer's fallbacks (docs/risk.md#the-fallback):
  // the purchase moves to that offer and its checkout is shown again, in the same mode and language.
  const switchBody = Type.Object(
    { offer: Type.Optional(Type.String({ maxLength: 64 })), csrf: Type.Optional(Type.String({ maxLength: 512 })), csrf_frame: Type.Optional(Type.String({ maxLength: 512 })) },
    { additionalProperties: true },
  );
  app.post('/pay/:purchase_uid/switch', { schema: { hide: true, params, querystring, body: switchBody } }, async (request, reply) => {
    const ctx = await load(request);
    if (!ctx) return notFound(request, reply);
    const t = TEXT[ctx.lang];
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!csrf.verify(request, `pur_${ctx.purchase.id}`, form)) return show(request, reply, ctx, { errors: { message: t.expiredForm } }, 403);
    const switched = await switchOffer(services, ctx.purchase.accountId, ctx.purchase.id, typeof form.offer === 'string' ? form.offer.trim() : '');
    if (switched.kind === 'switched') return reply.redirect(`/pay/pur_${ctx.purchase.id}${ctx.mode.query}`, 303);
    if (switched.kind === 'not_found') return pageHeaders(reply).code(404).send(notFoundPage(ctx.lang));
    const fresh = (await load(request))!;
    // The offer is fixed once the leader's attempt started (docs/risk.md#the-fallback): wait for
    // it while it runs (the shopper may try again once it was refused); past CREATED, the page
    // as it now is.
    const message = switched.kind === 'offer_fixed' ? (switched.retryable ? t.inProgress : t.expiredForm) : t.switchRefused[switched.refusal.code];
    return show(request, reply, fresh, { errors: { message } }, 409);
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
    const result = await resumeFromReturn(request, returned);
    return result === 'not_found' ? notFound(request, reply) : reply.redirect(again, 303);
  });
  app.get('/pay/:purchase_uid/return', { schema: { hide: true, params, querystring: returnQuery } }, async (request, reply) => {
    const result = await resumeFromReturn(request, challengeReturnOf(request.query, OURS));
    return result === 'not_found' ? notFound(request, reply) : outcome(request, reply, result.ctx, result.outcome);
  });

  // The payment is this purchase's or nothing (docs/security.md#returns-and-ids): a malformed id,
  // an unknown one and another purchase's are the page's 404, before any query for a malformed one.
  async function resumeFromReturn(request: { params: { purchase_uid: string }; query: { payment: string }; headers: { 'accept-language'?: string } }, returned: ChallengeReturn) {
    const ctx = await load(request);
    if (!ctx) return 'not_found';
    const paymentId = request.query.payment.toLowerCase();
    const result = isUuid(paymentId) ? await resumeLeaderAfterChallenge(payments, ctx.purchase, paymentId, returned) : ({ kind: 'not_found' } as const);
    return result.kind === 'not_found' ? 'not_found' : { ctx, outcome: result };
  }
  function notFound(request: FastifyRequest, reply: FastifyReply) {
    return pageHeaders(reply)
      .code(404)
      .send(notFoundPage(langFromAcceptLanguage(request.headers['accept-language'])));
  }
}
