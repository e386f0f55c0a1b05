import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { inTestMode } from '../../../accounts/offer.ts';
import { isUuid, parsePublicId } from '../../../domain/ids.ts';
import { DECLINE_FIELD, declineText } from '../../../pages/card-form.ts';
import { confirmingPage } from '../../../pages/checkout-page.ts';
import { pledgeNotFoundPage, pledgePage, type PledgeView } from '../../../pages/pledge-page.ts';
import { TEXT } from '../../../pages/texts.ts';
import { keepPageLanguage, pledgeForPage, purchaseForPage } from '../../../use-cases/checkout/page-lookup.ts';
import { paidEnvironment, paymentOf, paymentWithLease, payStateOf } from '../../../use-cases/checkout/payment-lookup.ts';
import { resumePledgeAfterChallenge, type PledgeOutcome } from '../../../use-cases/pot/pay-pledge.ts';
import type { Services } from '../../../services.ts';
import { langFromAcceptLanguage } from '../../../i18n/lang.ts';
import { merchantLanguage, shopperLang } from '../../../i18n/shopper-lang.ts';
import type { ChallengeReturn } from '../../../psp/connector.ts';
import { readCookie } from '../../../pages/csrf.ts';
import { csrfFor, pageHeaders } from './page-support.ts';

/** The pledge page's address, `/pledge/<plg_uid>`, and its own query: `lang`. */
export const PledgeParams = Type.Object({ pledge_uid: Type.String({ maxLength: 64 }) });
export const PledgeQuery = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 16 })) }, { additionalProperties: true });

/** The page's context: the pledge its address names, its purchase and offer, its language. */
type PledgeContext = NonNullable<Awaited<ReturnType<PledgePages['load']>>>;

function doneOf(state: string, reason: string | null): PledgeView['done'] {
  if (state === 'paid') return 'paid';
  if (state === 'closed') return reason === 'pot_full' ? 'full' : 'closed';
  return undefined;
}

/** The cardholder's name a friend typed, kept through 3-D Secure (one cookie, the pledge's path, 30 minutes). */
const HOLDER_COOKIE = 'chipin_holder';

function holderCookie(pledgeId: string, holder: string, secure: boolean): string {
  // SameSite=Lax: the issuer's return is a top-level navigation from another site.
  return `${HOLDER_COOKIE}=${encodeURIComponent(holder)}; Path=/pledge/plg_${pledgeId}; HttpOnly; SameSite=Lax; Max-Age=${holder ? 1800 : 0}${secure ? '; Secure' : ''}`;
}

/** The name kept by {@link holderCookie}: the browser sends it on the pledge's own path only. */
function holderKept(request: FastifyRequest): string | undefined {
  const raw = readCookie(request.headers.cookie, HOLDER_COOKIE);
  if (!raw) return undefined;
  try {
    return decodeURIComponent(raw).slice(0, 100) || undefined;
  } catch {
    return undefined;
  }
}

/** `?lang=xx` when the shopper chose the page's language, kept through the form and 3-D Secure. */
export function langQuery(request: FastifyRequest): string {
  const lang = (request.query as { lang?: unknown } | undefined)?.lang;
  return typeof lang === 'string' && /^(de|en|es|fr|it|nl)$/.test(lang) ? `?lang=${lang}` : '';
}

/**
 * A pledger's page as each of its routes shows it (src/http/routes/hosted-pages/pledge.ts): the
 * pledge found from the address, the page, the outcome of a payment turned into a page or a
 * redirect, the wait while a payment is in progress.
 */
export class PledgePages {
  readonly csrf: ReturnType<typeof csrfFor>;
  readonly #services: Services;
  readonly #clock: Services['clock'];
  readonly #payments: Services['payments'];
  readonly #offers: Services['offers'];
  readonly #secure: boolean;

  constructor(services: Services) {
    this.#services = services;
    this.#secure = services.config.publicUrl.startsWith('https:');
    ({ clock: this.#clock, payments: this.#payments, offers: this.#offers } = services);
    this.csrf = csrfFor(services);
  }

  async load(request: { params: { pledge_uid: string }; query?: unknown; headers?: { 'accept-language'?: string } }) {
    const services = this.#services;
    const id = parsePublicId('plg', request.params.pledge_uid);
    const pledge = id ? await pledgeForPage(services, id) : undefined;
    if (!pledge || pledge.state === 'draft') return undefined;
    const purchase = await purchaseForPage(services, pledge.purchaseId);
    const pay = await payStateOf(services, pledge.accountId, pledge.purchaseId);
    if (!purchase || !pay) return undefined;
    const offer = await this.#offers.byId(purchase.accountId, purchase.offerId);
    // One rule for the page and the friend's messages (docs/hosted-payment.md#language): the
    // friend's pick (`?lang=`), the merchant's, the friend's last page's, the browser's, the
    // leader's, the account's; the page's language is kept on the pledge for the messages.
    const asked = (request.query as { lang?: unknown } | undefined)?.lang;
    const lang = shopperLang({
      asked: typeof asked === 'string' && /^(de|en|es|fr|it|nl)$/.test(asked) ? asked : undefined,
      merchant: merchantLanguage(purchase),
      lastPage: pledge.pageLanguage ?? undefined,
      browser: request.headers?.['accept-language'],
      inviter: purchase.pageLanguage ?? undefined,
      account: offer?.accountLanguage,
    });
    await keepPageLanguage(services, { accountId: pledge.accountId, purchaseId: pledge.purchaseId, pledgeId: pledge.id, kept: pledge.pageLanguage }, lang);
    // A paid share partly or fully refunded since: the page tells the refund and the net.
    const payment = pledge.state === 'paid' && pledge.paymentId ? await paymentOf(services, pledge.accountId, pledge.paymentId) : undefined;
    // Once the share was paid, the banner follows the PSP account its payment ran on.
    const paidOn = payment ? await paidEnvironment(services, pledge.accountId, pledge.purchaseId, pledge.id) : undefined;
    const testMode = paidOn ? paidOn === 'test' : !offer || inTestMode(offer);
    return { pledge, purchase, deadline: pay.potDeadlineAt, lang, refundedCents: payment ? Number(payment.refunded_cents) : 0, testMode, ...(offer ? { offer } : {}) };
  }

  async show(request: FastifyRequest, reply: FastifyReply, ctx: PledgeContext, extra: Partial<PledgeView> = {}, status = 200) {
    // The merchant's site may frame the pledge page too (the purchase's callback origin).
    pageHeaders(reply, ctx.purchase.merchantOrigin ?? ctx.purchase.callbackUrl, ctx.offer?.cssUrl);
    const done = extra.done ?? doneOf(ctx.pledge.state, ctx.pledge.closedReason) ?? (ctx.purchase.state !== 'LEADER_PROCESSED' ? 'closed' : undefined);
    const token = done ? '' : this.csrf.tokenFor(request, reply, `plg_${ctx.pledge.id}`);
    const frameToken = done ? '' : this.csrf.frameTokenFor(`plg_${ctx.pledge.id}`);
    const switchBase = `/pledge/plg_${ctx.pledge.id}`;
    return reply.code(status).send(pledgePage({ ...ctx, csrfToken: token, csrfFrameToken: frameToken, switchBase, ...extra, done }));
  }

  async outcome(request: FastifyRequest & { params: { pledge_uid: string } }, reply: FastifyReply, result: PledgeOutcome, typed?: string) {
    const ctx = (await this.load(request))!;
    const t = TEXT[ctx.lang];
    const here = `/pledge/plg_${ctx.pledge.id}${langQuery(request)}`;
    // Back from 3-D Secure the form has nothing typed: the name the friend typed before the
    // challenge, kept in a cookie of the pledge's own path, is shown again (never the name the
    // leader gave the friend, nor anyone else's).
    const holder = typed ?? holderKept(request);
    switch (result.kind) {
      case 'challenge':
        if (typed) void reply.header('set-cookie', holderCookie(ctx.pledge.id, typed, this.#secure));
        return reply.redirect(result.url, 303);
      case 'declined': {
        const reason = declineText(t, result);
        const field = DECLINE_FIELD[result.reason];
        return this.show(request, reply, ctx, { holder, errors: { message: reason, fields: field ? { [field]: reason } : {} } }, 402);
      }
      case 'risk_refused':
        return this.show(request, reply, ctx, { holder, errors: { message: t.riskRefused } }, 402);
      case 'in_progress':
        // The pledger's payment is under way or in doubt: wait for its outcome rather than an
        // error (docs/hosted-payment.md#an-attempt-in-progress).
        return this.confirming(request, reply, ctx);
      case 'paid':
      case 'already_paid':
      case 'closed':
        if (readCookie(request.headers.cookie, HOLDER_COOKIE)) void reply.header('set-cookie', holderCookie(ctx.pledge.id, '', this.#secure));
        return reply.redirect(here, 303);
    }
  }

  /**
   * "Your payment is being confirmed", reloading the pledge's status address. A payment without a
   * lease waits for the reservation's end (docs/money-operations.md#payments-in-doubt): the page
   * then says how long that can be; a leased one is resolved within seconds of its request's end.
   */
  async confirming(request: FastifyRequest, reply: FastifyReply, ctx: PledgeContext) {
    pageHeaders(reply, ctx.purchase.merchantOrigin ?? ctx.purchase.callbackUrl, ctx.offer?.cssUrl);
    const until = ctx.pledge.state === 'paying' && ctx.pledge.paymentId ? ctx.pledge.payingUntil : null;
    const unleased = until && (await paymentWithLease(this.#services, ctx.pledge.accountId, ctx.pledge.paymentId!))?.lease === null;
    const minutesLeft = until && unleased ? Math.max(1, Math.ceil((until.getTime() - this.#clock.now().getTime()) / 60_000)) : undefined;
    return reply.code(202).send(confirmingPage(ctx.lang, `/pledge/plg_${ctx.pledge.id}/confirming${langQuery(request)}`, ctx.offer?.cssUrl, minutesLeft));
  }

  // The payment is this pledge's or nothing (docs/security.md#returns-and-ids): a malformed id,
  // an unknown one and another pledge's are the page's 404, before any query for a malformed one.
  async resumeFromReturn(request: { params: { pledge_uid: string }; query: { payment: string } }, returned: ChallengeReturn): Promise<PledgeOutcome | { kind: 'not_found' }> {
    const ctx = await this.load(request);
    if (!ctx) return { kind: 'not_found' };
    const paymentId = request.query.payment.toLowerCase();
    return isUuid(paymentId) ? resumePledgeAfterChallenge(this.#payments, ctx.pledge, paymentId, returned) : { kind: 'not_found' };
  }

  notFound(request: FastifyRequest, reply: FastifyReply) {
    return pageHeaders(reply)
      .code(404)
      .send(pledgeNotFoundPage(langFromAcceptLanguage(request.headers['accept-language'])));
  }
}
