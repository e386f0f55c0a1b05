import { type ChallengeReturn } from '../../../psp/connector.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { inTestMode, type Offer } from '../../../accounts/offer.ts';
import { isUuid, parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import { computeSchedule, type Schedule, requestedDatesOf } from '../../../domain/schedule.ts';
import { DECLINE_FIELD, declineText } from '../../../pages/card-form.ts';
import type { FormErrors } from '../../../pages/errors.ts';
import { checkoutPage, confirmingPage, notFoundPage, purchaseStatusPage, type CheckoutView, type FallbackChoice } from '../../../pages/checkout-page.ts';
import { TEXT } from '../../../pages/texts.ts';
import { formatIsoDate } from '../../../domain/dates.ts';
import { pledgePageUrl } from '../../../domain/links.ts';
import { offerTerms } from '../../../domain/offer-terms.ts';
import { paidEnvironment, pledgesOf } from '../../../use-cases/checkout/payment-lookup.ts';
import { leaderFrontOutcome, type FrontOutcome } from '../../../use-cases/checkout/leader-front-outcome.ts';
import { shopReturnUrl, type ShopOutcome } from '../../../delivery/shop-return.ts';
import { leaderResultFigures } from '../../../payments/result-figures.ts';
import { merchantOrigin } from '../../../sdk/protocol.ts';
import type { LeaderOutcome } from '../../../use-cases/checkout/leader-outcome.ts';
import { resumeLeaderAfterChallenge } from '../../../use-cases/checkout/resolve-leader-attempt.ts';
import type { Purchase } from '../../../purchases/purchase.ts';
import { keepPageLanguage, purchaseForPage } from '../../../use-cases/checkout/page-lookup.ts';
import type { Services } from '../../../services.ts';
import { langFromAcceptLanguage, type Lang } from '../../../i18n/lang.ts';
import { merchantLanguage, shopperLang } from '../../../i18n/shopper-lang.ts';
import { csrfFor, pageHeaders } from './page-support.ts';

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

/** The page's context: the purchase its address names, its offer, its language and mode. */
export type PageContext = NonNullable<Awaited<ReturnType<CheckoutPages['load']>>>;

/**
 * The leader's checkout as each of its routes shows it (src/http/routes/hosted-pages/checkout.ts):
 * the purchase found from the address, the page or its status page, the outcome of a payment
 * turned into a page or a redirect, the wait while an attempt is in progress.
 */
export class CheckoutPages {
  readonly csrf: ReturnType<typeof csrfFor>;
  readonly #services: Services;
  readonly #db: Services['db'];
  readonly #offers: Services['offers'];
  readonly #clock: Services['clock'];
  readonly #config: Services['config'];
  readonly #payments: Services['payments'];
  readonly #ownOrigin: string;

  constructor(services: Services) {
    this.#services = services;
    ({ db: this.#db, offers: this.#offers, clock: this.#clock, config: this.#config, payments: this.#payments } = services);
    this.csrf = csrfFor(services);
    this.#ownOrigin = new URL(services.config.publicUrl).origin;
  }

  async load(request: { params: { purchase_uid: string }; query?: unknown; headers?: { 'accept-language'?: string } }) {
    const id = parsePublicId('pur', request.params.purchase_uid);
    const purchase = id ? await purchaseForPage(this.#services, id) : undefined;
    const offer = purchase && (await this.#offers.byId(purchase.accountId, purchase.offerId));
    const mode = pageMode((request.query ?? {}) as PageQuery);
    if (!purchase || !offer) return undefined;
    // One rule for the page and the leader's messages (docs/hosted-payment.md#language); the
    // page's language is kept on the purchase for them.
    const lang = shopperLang({
      asked: mode.lang,
      merchant: merchantLanguage(purchase),
      lastPage: purchase.pageLanguage ?? undefined,
      browser: request.headers?.['accept-language'],
      account: offer.accountLanguage,
    });
    await keepPageLanguage(this.#services, { accountId: purchase.accountId, purchaseId: purchase.id, kept: purchase.pageLanguage }, lang);
    return { purchase, offer, lang, mode };
  }

  /** The plan shown is the one the payment will make: on the due dates the purchase asked for, if any. */
  schedule(offer: Offer, purchase: Pick<Purchase, 'amountCents' | 'createdAt' | 'secondInstallmentDate' | 'deferredPaymentDate' | 'balancePaymentDate'>): Schedule | undefined {
    if (offer.type === 'SHARED') return undefined;
    try {
      return computeSchedule(offerTerms(offer), purchase.amountCents, formatIsoDate(purchase.createdAt), requestedDatesOf(purchase));
    } catch {
      return undefined; // the payment itself refuses with the reason
    }
  }

  async show(
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
    const paidOn = ctx.purchase.state === 'CREATED' ? undefined : await paidEnvironment(this.#services, ctx.purchase.accountId, ctx.purchase.id);
    const testMode = paidOn ? paidOn === 'test' : inTestMode(ctx.offer);
    // What an embedding page is told (chipin.js or the merchant's own iframe), posted to the merchant's origin only.
    const message = await leaderFrontOutcome(this.#payments, ctx.purchase, decline);
    const frame =
      message || embed ? { target: merchantOrigin(ctx.purchase.merchantOrigin ?? ctx.purchase.callbackUrl, this.#ownOrigin), purchase_uid: uid, embed, message } : undefined;
    if (ctx.purchase.state !== 'CREATED') {
      const pledges = await pledgesOf(this.#services, ctx.purchase.accountId, ctx.purchase.id);
      const result = await leaderResultFigures(this.#db, ctx.purchase.accountId, ctx.purchase.id);
      // The way back to the shop carries the outcome: the error after a failure, the result after a success.
      const backUrl = shopReturn(ctx.purchase, ctx.purchase.state, message);
      const switchBase = `/pay/${uid}${embed ? '?embed=1' : ''}`;
      return reply
        .code(status)
        .send(purchaseStatusPage({ ...ctx, pledges, frame, embed, backUrl, switchBase, result, testMode }, (pid) => pledgePageUrl(this.#config.publicUrl, pid)));
    }
    const token = this.csrf.tokenFor(request, reply, uid);
    return reply.code(status).send(
      checkoutPage({
        ...ctx,
        csrfToken: token,
        csrfFrameToken: this.csrf.frameTokenFor(uid),
        embed,
        // Cancelling goes back to the shop saying so (`pledg_error` of type abandonment); in a frame the embedding script closes it.
        cancelUrl: !embed && (ctx.purchase.cancelUrl || ctx.purchase.merchantOrigin) ? shopReturnUrl(ctx.purchase, V1_STATE[ctx.purchase.state], { kind: 'cancel' }) : undefined,
        query: ctx.mode.query,
        frame,
        schedule: this.schedule(ctx.offer, ctx.purchase),
        switchBase: `/pay/${uid}${embed ? '?embed=1' : ''}`,
        potDeadline: new Date(this.#clock.now().getTime() + ctx.offer.potDeadlineHours * 3_600_000),
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
  async failedBackToShop(ctx: PageContext, decline: string): Promise<string | undefined> {
    if (ctx.purchase.state === 'CREATED' || ctx.mode.embed || ctx.purchase.merchantOrigin === null) return undefined;
    return shopReturn(ctx.purchase, ctx.purchase.state, await leaderFrontOutcome(this.#payments, ctx.purchase, decline));
  }

  async outcome(request: FastifyRequest, reply: FastifyReply, ctx: PageContext, result: LeaderOutcome, kept: Partial<CheckoutView> = {}) {
    const t = TEXT[ctx.lang];
    switch (result.kind) {
      case 'processed': {
        // Inside chipin.js's overlay the shopper stays on our status page, which posts the result.
        if (ctx.mode.embed) return reply.redirect(`/pay/pur_${ctx.purchase.id}${ctx.mode.query}`, 303);
        // The result, or the error when the card processor did not accept the payment; without a
        // way back to the shop (or anything to tell), our status page.
        const told = await leaderFrontOutcome(this.#payments, { ...ctx.purchase, state: result.state });
        return reply.redirect(shopReturn(ctx.purchase, result.state, told) ?? `/pay/pur_${ctx.purchase.id}`, 303);
      }
      case 'challenge':
        return reply.redirect(result.url, 303);
      case 'not_payable':
        return reply.redirect(`/pay/pur_${ctx.purchase.id}${ctx.mode.query}`, 303);
      case 'in_progress':
        // An attempt of the leader's is under way or in doubt: wait for its outcome rather than
        // an error (docs/hosted-payment.md#an-attempt-in-progress).
        return this.confirming(reply, ctx);
      case 'offer_changed': {
        // A fallback was taken as the leader paid (docs/risk.md#the-fallback): nothing was charged;
        // the new offer's checkout is shown, to be paid on the terms it shows.
        const fresh = (await this.load(request as unknown as { params: { purchase_uid: string }; query: unknown }))!;
        return this.show(request, reply, fresh, { holder: kept.holder, errors: { message: t.offerChanged } }, 409);
      }
      case 'invalid': {
        // The merchant requires a pot: the first friend's row is where to act (docs/hosted-payment.md#rules).
        if (result.problem.code === 'pledger_required')
          return this.show(request, reply, ctx, { ...kept, errors: { message: t.friendRequired, fields: { pledger_email_0: t.friendRequired } } }, 422);
        const message =
          result.problem.code === 'not_shared'
            ? t.notShared
            : result.problem.code === 'schedule' || result.problem.code === 'psp_amount'
              ? result.problem.message
              : t.invalidShares;
        return this.show(request, reply, ctx, { ...kept, errors: { message } }, 422);
      }
      case 'risk_refused': {
        // Not accusing, and no reason told: the reasons are the merchant's (the event and the comment).
        const fresh = (await this.load(request as unknown as { params: { purchase_uid: string }; query: unknown }))!;
        const back = await this.failedBackToShop(fresh, 'risk_refused');
        if (back) return reply.redirect(back, 303);
        const left = fresh.purchase.state === 'CREATED' ? t.attemptsLeft(result.attemptsLeft) : '';
        // The offers the rules accept instead, one button each (docs/risk.md#the-fallback).
        const fallbacks: FallbackChoice[] =
          fresh.purchase.state === 'CREATED' ? result.fallbacks.map((o) => ({ merchantUid: toPublicId('mer', o.id), offer: o, schedule: this.schedule(o, fresh.purchase) })) : [];
        return this.show(request, reply, fresh, { ...kept, errors: { message: `${t.riskRefused} ${left}`.trim() }, fallbacks }, 402, 'risk_refused');
      }
      case 'declined': {
        const fresh = (await this.load(request as unknown as { params: { purchase_uid: string }; query: unknown }))!;
        const back = await this.failedBackToShop(fresh, result.reason);
        if (back) return reply.redirect(back, 303);
        const reason = declineText(t, result);
        const left = fresh.purchase.state === 'CREATED' ? t.attemptsLeft(result.attemptsLeft) : '';
        // A refusal about one field (expired card, wrong CVC, bad number) is that field's message too.
        const field = DECLINE_FIELD[result.reason];
        const errors: FormErrors = { message: `${reason} ${left}`.trim(), fields: field ? { [field]: reason } : {} };
        return this.show(request, reply, fresh, { ...kept, errors }, 402, result.reason);
      }
    }
  }

  confirming(reply: FastifyReply, ctx: PageContext) {
    pageHeaders(reply, ctx.purchase.merchantOrigin ?? ctx.purchase.callbackUrl, ctx.offer.cssUrl);
    return reply.code(202).send(confirmingPage(ctx.lang, `/pay/pur_${ctx.purchase.id}/confirming${ctx.mode.query}`, ctx.offer.cssUrl));
  }

  // The payment is this purchase's or nothing (docs/security.md#returns-and-ids): a malformed id,
  // an unknown one and another purchase's are the page's 404, before any query for a malformed one.
  async resumeFromReturn(request: { params: { purchase_uid: string }; query: { payment: string }; headers: { 'accept-language'?: string } }, returned: ChallengeReturn) {
    const ctx = await this.load(request);
    if (!ctx) return 'not_found';
    const paymentId = request.query.payment.toLowerCase();
    const result = isUuid(paymentId) ? await resumeLeaderAfterChallenge(this.#payments, ctx.purchase, paymentId, returned) : ({ kind: 'not_found' } as const);
    return result.kind === 'not_found' ? 'not_found' : { ctx, outcome: result };
  }
  notFound(request: FastifyRequest, reply: FastifyReply) {
    return pageHeaders(reply)
      .code(404)
      .send(notFoundPage(langFromAcceptLanguage(request.headers['accept-language'])));
  }
}
