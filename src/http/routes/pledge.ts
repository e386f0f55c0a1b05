import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { parsePublicId } from '../../domain/ids.ts';
import { pledgeReturnUrl } from '../../domain/links.ts';
import { readCard } from '../../pages/card-form.ts';
import { pledgeNotFoundPage, pledgePage, type PledgeView } from '../../pages/pledge-page.ts';
import { TEXT } from '../../pages/texts.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import { findPledgeForPage } from '../../payments/pledge-repository.ts';
import { payPledge, resumePledgeAfterChallenge, type PledgeOutcome } from '../../use-cases/pay-pledge.ts';
import { findPurchaseForPage } from '../../purchases/repository.ts';
import type { Services } from '../../services.ts';
import { langFromAcceptLanguage, langOf } from '../../i18n/lang.ts';
import type { App } from '../types.ts';
import { csrfFor, pageHeaders } from './page-support.ts';

/** A pledger's page: `GET /pledge/<plg_uid>` shows it, `POST` pays the share. */
export function registerPledgePages(app: App, services: Services): void {
  const { db, clock, config, payments } = services;
  const csrf = csrfFor(services);
  const params = Type.Object({ pledge_uid: Type.String({ maxLength: 64 }) });

  async function load(request: { params: { pledge_uid: string } }) {
    const id = parsePublicId('plg', request.params.pledge_uid);
    const pledge = id ? await findPledgeForPage(db, id) : undefined;
    if (!pledge || pledge.state === 'draft') return undefined;
    const purchase = await findPurchaseForPage(db, pledge.purchaseId);
    const pay = await loadPayState(db, pledge.accountId, pledge.purchaseId);
    return purchase && pay ? { pledge, purchase, deadline: pay.potDeadlineAt, lang: langOf(purchase.language) } : undefined;
  }

  function doneOf(state: string, reason: string | null): PledgeView['done'] {
    if (state === 'paid') return 'paid';
    if (state === 'closed') return reason === 'pot_full' ? 'full' : 'closed';
    return undefined;
  }

  async function show(request: FastifyRequest, reply: FastifyReply, ctx: NonNullable<Awaited<ReturnType<typeof load>>>, extra: Partial<PledgeView> = {}, status = 200) {
    // The merchant's site may frame the pledge page too (the purchase's callback origin).
    pageHeaders(reply, ctx.purchase.callbackUrl);
    const done = extra.done ?? doneOf(ctx.pledge.state, ctx.pledge.closedReason) ?? (ctx.purchase.state !== 'LEADER_PROCESSED' ? 'closed' : undefined);
    const token = done ? '' : csrf.tokenFor(request, reply, `plg_${ctx.pledge.id}`);
    const frameToken = done ? '' : csrf.frameTokenFor(`plg_${ctx.pledge.id}`);
    return reply.code(status).send(pledgePage({ ...ctx, csrfToken: token, csrfFrameToken: frameToken, ...extra, done }));
  }

  async function outcome(request: FastifyRequest & { params: { pledge_uid: string } }, reply: FastifyReply, result: PledgeOutcome) {
    const ctx = (await load(request))!;
    const t = TEXT[ctx.lang];
    switch (result.kind) {
      case 'challenge':
        return reply.redirect(result.url, 303);
      case 'declined':
        return show(request, reply, ctx, { error: t.errors[result.reason] ?? t.errors.processing_error }, 402);
      case 'in_progress':
        return show(request, reply, ctx, { error: t.inProgress }, 409);
      case 'paid':
      case 'already_paid':
      case 'closed':
        return reply.redirect(`/pledge/plg_${ctx.pledge.id}`, 303);
    }
  }

  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    pageHeaders(reply).code(404).send(pledgeNotFoundPage(langFromAcceptLanguage(request.headers['accept-language'])));

  app.get('/pledge/:pledge_uid', { schema: { hide: true, params } }, async (request, reply) => {
    const ctx = await load(request);
    return ctx ? show(request, reply, ctx) : notFound(request, reply);
  });

  app.post('/pledge/:pledge_uid', { schema: { hide: true, params } }, async (request, reply) => {
    const ctx = await load(request);
    if (!ctx) return notFound(request, reply);
    const t = TEXT[ctx.lang];
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!csrf.verify(request, `plg_${ctx.pledge.id}`, form)) return show(request, reply, ctx, { error: t.expiredForm }, 403);
    const card = readCard(form, clock.now());
    if (!card) return show(request, reply, ctx, { error: t.invalidCard }, 422);
    const result = await payPledge(payments, ctx.pledge, card, (paymentId) => pledgeReturnUrl(config.publicUrl, ctx.pledge.id, paymentId));
    return outcome(request, reply, result);
  });

  app.get(
    '/pledge/:pledge_uid/return',
    { schema: { hide: true, params, querystring: Type.Object({ payment: Type.String({ maxLength: 64 }) }, { additionalProperties: true }) } },
    async (request, reply) => {
      const ctx = await load(request);
      if (!ctx) return notFound(request, reply);
      if (!/^[0-9a-f-]{36}$/.test(request.query.payment)) return reply.redirect(`/pledge/plg_${ctx.pledge.id}`, 303);
      return outcome(request, reply, await resumePledgeAfterChallenge(payments, ctx.pledge, request.query.payment));
    },
  );
}
