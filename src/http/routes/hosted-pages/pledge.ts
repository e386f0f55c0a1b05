import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { inTestMode } from '../../../accounts/offer.ts';
import { isUuid, parsePublicId } from '../../../domain/ids.ts';
import { pledgeReturnUrl } from '../../../domain/links.ts';
import { checkCard, DECLINE_FIELD, typedHolder } from '../../../pages/card-form.ts';
import { confirmingPage } from '../../../pages/checkout-page.ts';
import { pledgeNotFoundPage, pledgePage, type PledgeView } from '../../../pages/pledge-page.ts';
import { TEXT } from '../../../pages/texts.ts';
import { pledgeForPage, purchaseForPage } from '../../../use-cases/page-lookup.ts';
import { paidEnvironment, paymentOf, paymentWithLease, payStateOf } from '../../../use-cases/payment-lookup.ts';
import { confirmPledgePayment, payPledge, resumePledgeAfterChallenge, type PledgeOutcome } from '../../../use-cases/pay-pledge.ts';
import type { Services } from '../../../services.ts';
import { langFromAcceptLanguage, pageLang } from '../../../i18n/lang.ts';
import type { ChallengeReturn } from '../../../psp/connector.ts';
import type { App } from '../../types.ts';
import { CHALLENGE_RETURN_BODY_LIMIT, challengeReturnOf } from '../../challenge-return.ts';
import { csrfFor, pageHeaders } from './page-support.ts';

/** A pledger's page: `GET /pledge/<plg_uid>` shows it, `POST` pays the share. */
export function registerPledgePages(app: App, services: Services): void {
  const { clock, config, payments, offers } = services;
  const csrf = csrfFor(services);
  const params = Type.Object({ pledge_uid: Type.String({ maxLength: 64 }) });

  async function load(request: { params: { pledge_uid: string }; query?: unknown; headers?: { 'accept-language'?: string } }) {
    const id = parsePublicId('plg', request.params.pledge_uid);
    const pledge = id ? await pledgeForPage(services, id) : undefined;
    if (!pledge || pledge.state === 'draft') return undefined;
    const purchase = await purchaseForPage(services, pledge.purchaseId);
    const pay = await payStateOf(services, pledge.accountId, pledge.purchaseId);
    // The shopper's choice (`?lang=`, the switcher), else the purchase's language, or the browser's when the merchant set none.
    const asked = (request.query as { lang?: unknown } | undefined)?.lang;
    const lang = pageLang(typeof asked === 'string' && /^(en|fr)$/.test(asked) ? asked : undefined, purchase, request.headers?.['accept-language']);
    if (!purchase || !pay) return undefined;
    const offer = await offers.byId(purchase.accountId, purchase.offerId);
    // A paid share partly or fully refunded since: the page tells the refund and the net.
    const payment = pledge.state === 'paid' && pledge.paymentId ? await paymentOf(services, pledge.accountId, pledge.paymentId) : undefined;
    // Once the share was paid, the banner follows the PSP account its payment ran on.
    const paidOn = payment ? await paidEnvironment(services, pledge.accountId, pledge.purchaseId, pledge.id) : undefined;
    const testMode = paidOn ? paidOn === 'test' : !offer || inTestMode(offer);
    return { pledge, purchase, deadline: pay.potDeadlineAt, lang, refundedCents: payment ? Number(payment.refunded_cents) : 0, testMode, ...(offer ? { offer } : {}) };
  }

  function doneOf(state: string, reason: string | null): PledgeView['done'] {
    if (state === 'paid') return 'paid';
    if (state === 'closed') return reason === 'pot_full' ? 'full' : 'closed';
    return undefined;
  }

  async function show(request: FastifyRequest, reply: FastifyReply, ctx: NonNullable<Awaited<ReturnType<typeof load>>>, extra: Partial<PledgeView> = {}, status = 200) {
    // The merchant's site may frame the pledge page too (the purchase's callback origin).
    pageHeaders(reply, ctx.purchase.merchantOrigin ?? ctx.purchase.callbackUrl, ctx.offer?.cssUrl);
    const done = extra.done ?? doneOf(ctx.pledge.state, ctx.pledge.closedReason) ?? (ctx.purchase.state !== 'LEADER_PROCESSED' ? 'closed' : undefined);
    const token = done ? '' : csrf.tokenFor(request, reply, `plg_${ctx.pledge.id}`);
    const frameToken = done ? '' : csrf.frameTokenFor(`plg_${ctx.pledge.id}`);
    const switchBase = `/pledge/plg_${ctx.pledge.id}`;
    return reply.code(status).send(pledgePage({ ...ctx, csrfToken: token, csrfFrameToken: frameToken, switchBase, ...extra, done }));
  }

  async function outcome(request: FastifyRequest & { params: { pledge_uid: string } }, reply: FastifyReply, result: PledgeOutcome, holder?: string) {
    const ctx = (await load(request))!;
    const t = TEXT[ctx.lang];
    const here = `/pledge/plg_${ctx.pledge.id}${langQuery(request)}`;
    switch (result.kind) {
      case 'challenge':
        return reply.redirect(result.url, 303);
      case 'declined': {
        const reason = t.errors[result.reason] ?? t.errors.processing_error!;
        const field = DECLINE_FIELD[result.reason];
        return show(request, reply, ctx, { holder, errors: { message: reason, fields: field ? { [field]: reason } : {} } }, 402);
      }
      case 'risk_refused':
        return show(request, reply, ctx, { holder, errors: { message: t.riskRefused } }, 402);
      case 'in_progress':
        // The pledger's payment is under way or in doubt: wait for its outcome rather than an
        // error (docs/hosted-payment.md#an-attempt-in-progress).
        return confirming(request, reply, ctx);
      case 'paid':
      case 'already_paid':
      case 'closed':
        return reply.redirect(here, 303);
    }
  }

  /**
   * "Your payment is being confirmed", reloading the pledge's status address. A payment without a
   * lease waits for the reservation's end (docs/money-operations.md#payments-in-doubt): the page
   * then says how long that can be; a leased one is resolved within seconds of its request's end.
   */
  async function confirming(request: FastifyRequest, reply: FastifyReply, ctx: NonNullable<Awaited<ReturnType<typeof load>>>) {
    pageHeaders(reply, ctx.purchase.merchantOrigin ?? ctx.purchase.callbackUrl, ctx.offer?.cssUrl);
    const until = ctx.pledge.state === 'paying' && ctx.pledge.paymentId ? ctx.pledge.payingUntil : null;
    const unleased = until && (await paymentWithLease(services, ctx.pledge.accountId, ctx.pledge.paymentId!))?.lease === null;
    const minutesLeft = until && unleased ? Math.max(1, Math.ceil((until.getTime() - clock.now().getTime()) / 60_000)) : undefined;
    return reply.code(202).send(confirmingPage(ctx.lang, `/pledge/plg_${ctx.pledge.id}/confirming${langQuery(request)}`, ctx.offer?.cssUrl, minutesLeft));
  }

  /** `?lang=xx` when the shopper chose the page's language, kept through the form and 3-D Secure. */
  function langQuery(request: FastifyRequest): string {
    const lang = (request.query as { lang?: unknown } | undefined)?.lang;
    return typeof lang === 'string' && /^(en|fr)$/.test(lang) ? `?lang=${lang}` : '';
  }

  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    pageHeaders(reply)
      .code(404)
      .send(pledgeNotFoundPage(langFromAcceptLanguage(request.headers['accept-language'])));

  const querystring = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 16 })) }, { additionalProperties: true });

  app.get('/pledge/:pledge_uid', { schema: { hide: true, params, querystring } }, async (request, reply) => {
    const ctx = await load(request);
    return ctx ? show(request, reply, ctx) : notFound(request, reply);
  });

  app.post('/pledge/:pledge_uid', { schema: { hide: true, params, querystring } }, async (request, reply) => {
    const ctx = await load(request);
    if (!ctx) return notFound(request, reply);
    const t = TEXT[ctx.lang];
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!csrf.verify(request, `plg_${ctx.pledge.id}`, form)) return show(request, reply, ctx, { errors: { message: t.expiredForm } }, 403);
    const holder = typedHolder(form);
    const checked = checkCard(form, clock.now());
    if (!checked.ok) {
      const fields: Record<string, string> = Object.fromEntries(checked.fields.map((f) => [f, t.fieldErrors[f] ?? t.invalidCard]));
      return show(request, reply, ctx, { holder, errors: { message: t.invalidCard, fields } }, 422);
    }
    // The 3-D Secure return carries the page's language: the sandbox's challenge page speaks it too.
    const returnUrl = (paymentId: string) => `${pledgeReturnUrl(config.publicUrl, ctx.pledge.id, paymentId)}&lang=${ctx.lang}`;
    const result = await payPledge(payments, ctx.pledge, checked.card, returnUrl, { ip: request.ip });
    return outcome(request, reply, result, holder);
  });

  // The wait's status address: the outcome once known, the wait again before
  // (docs/hosted-payment.md#an-attempt-in-progress). Resolving a payment in doubt here is what the
  // pledger's next submit or the reconciliation would do: its own PSP key, never a second charge.
  app.get('/pledge/:pledge_uid/confirming', { schema: { hide: true, params, querystring } }, async (request, reply) => {
    const ctx = await load(request);
    if (!ctx) return notFound(request, reply);
    const result = await confirmPledgePayment(payments, ctx.pledge);
    if (!result) return reply.redirect(`/pledge/plg_${ctx.pledge.id}${langQuery(request)}`, 303);
    return outcome(request, reply, result);
  });

  const returnQuery = Type.Object({ payment: Type.String({ maxLength: 64 }) }, { additionalProperties: true });
  const OURS = ['payment', 'lang'];
  // An issuer's form POST back (3-D Secure's TermUrl): the posted fields go to the PSP that needs
  // them, then a redirect to the same address as a GET, as on the leader's return (checkout.ts).
  app.post('/pledge/:pledge_uid/return', { schema: { hide: true, params, querystring: returnQuery }, bodyLimit: CHALLENGE_RETURN_BODY_LIMIT }, async (request, reply) => {
    const again = `/pledge/${encodeURIComponent(request.params.pledge_uid)}/return?${new URLSearchParams(request.query as Record<string, string>).toString()}`;
    const returned = challengeReturnOf(request.body, OURS);
    if (Object.keys(returned).length === 0) return reply.redirect(again, 303);
    const result = await resumeFromReturn(request, returned);
    return result.kind === 'not_found' ? notFound(request, reply) : reply.redirect(again, 303);
  });
  app.get('/pledge/:pledge_uid/return', { schema: { hide: true, params, querystring: returnQuery } }, async (request, reply) => {
    const result = await resumeFromReturn(request, challengeReturnOf(request.query, OURS));
    return result.kind === 'not_found' ? notFound(request, reply) : outcome(request, reply, result);
  });

  // The payment is this pledge's or nothing (docs/security.md#returns-and-ids): a malformed id,
  // an unknown one and another pledge's are the page's 404, before any query for a malformed one.
  async function resumeFromReturn(
    request: { params: { pledge_uid: string }; query: { payment: string } },
    returned: ChallengeReturn,
  ): Promise<PledgeOutcome | { kind: 'not_found' }> {
    const ctx = await load(request);
    if (!ctx) return { kind: 'not_found' };
    const paymentId = request.query.payment.toLowerCase();
    return isUuid(paymentId) ? resumePledgeAfterChallenge(payments, ctx.pledge, paymentId, returned) : { kind: 'not_found' };
  }
}
