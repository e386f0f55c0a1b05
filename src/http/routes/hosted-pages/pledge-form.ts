import { pledgeReturnUrl } from '../../../domain/links.ts';
import { checkCard, typedHolder } from '../../../pages/card-form.ts';
import { TEXT } from '../../../pages/texts.ts';
import { payPledge } from '../../../use-cases/pot/pay-pledge.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { PledgeParams, PledgeQuery, type PledgePages } from './pledge-view.ts';

/** The pledge page: `GET /pledge/<plg_uid>` shows it, `POST` pays the share. */
export function registerPledgeForm(app: App, services: Services, page: PledgePages): void {
  const { clock, config, payments } = services;
  const { csrf } = page;

  app.get('/pledge/:pledge_uid', { schema: { hide: true, params: PledgeParams, querystring: PledgeQuery } }, async (request, reply) => {
    const ctx = await page.load(request);
    return ctx ? page.show(request, reply, ctx) : page.notFound(request, reply);
  });

  app.post('/pledge/:pledge_uid', { schema: { hide: true, params: PledgeParams, querystring: PledgeQuery } }, async (request, reply) => {
    const ctx = await page.load(request);
    if (!ctx) return page.notFound(request, reply);
    const t = TEXT[ctx.lang];
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!csrf.verify(request, `plg_${ctx.pledge.id}`, form)) return page.show(request, reply, ctx, { errors: { message: t.expiredForm } }, 403);
    const holder = typedHolder(form);
    const checked = checkCard(form, clock.now());
    if (!checked.ok) {
      const fields: Record<string, string> = Object.fromEntries(checked.fields.map((f) => [f, t.fieldErrors[f] ?? t.invalidCard]));
      return page.show(request, reply, ctx, { holder, errors: { message: t.invalidCard, fields } }, 422);
    }
    // The 3-D Secure return carries the page's language: the sandbox's challenge page speaks it too.
    const returnUrl = (paymentId: string) => `${pledgeReturnUrl(config.publicUrl, ctx.pledge.id, paymentId)}&lang=${ctx.lang}`;
    const result = await payPledge(payments, ctx.pledge, checked.card, returnUrl, { ip: request.ip });
    return page.outcome(request, reply, result, holder);
  });
}
