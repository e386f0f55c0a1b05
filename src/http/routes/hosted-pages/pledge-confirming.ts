import { confirmPledgePayment } from '../../../use-cases/pot/pay-pledge.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { langQuery, PledgeParams, PledgeQuery, type PledgePages } from './pledge-view.ts';

/**
 * The wait's status address: the outcome once known, the wait again before
 * (docs/hosted-payment.md#an-attempt-in-progress). Resolving a payment in doubt here is what the
 * pledger's next submit or the reconciliation would do: its own PSP key, never a second charge.
 */
export function registerPledgeConfirming(app: App, services: Services, page: PledgePages): void {
  const { payments } = services;

  app.get('/pledge/:pledge_uid/confirming', { schema: { hide: true, params: PledgeParams, querystring: PledgeQuery } }, async (request, reply) => {
    const ctx = await page.load(request);
    if (!ctx) return page.notFound(request, reply);
    const result = await confirmPledgePayment(payments, ctx.pledge);
    if (!result) return reply.redirect(`/pledge/plg_${ctx.pledge.id}${langQuery(request)}`, 303);
    return page.outcome(request, reply, result);
  });
}
