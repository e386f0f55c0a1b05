import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { FailureThrottle } from '../../../auth/failure-throttle.ts';
import { DEFAULT_MERCHANT_COUNTRY } from '../../../config.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { langFromAcceptLanguage, langOf, languageTag } from '../../../i18n/lang.ts';
import { directPaidPage, directRefusedPage } from '../../../pages/direct-call-page.ts';
import type { Services } from '../../../services.ts';
import { createPluginPurchase } from '../../../use-cases/checkout/create-plugin-purchase.ts';
import type { App } from '../../types.ts';
import { pageHeaders } from './page-support.ts';

/**
 * The direct call of the front (docs/plugin-integration.md): `GET /purchase` (the shop plugins'
 * path) and `GET /purchases` (the provider's documented one) take the purchase's settings in the
 * query, or signed in `signature`, create the purchase (or find the unpaid one of the same call)
 * and answer 303 to its hosted checkout, keeping `embed=1` for the Pledg script's iframe. A wrong
 * setting, signature or reference is an HTML page naming it (400), never a purchase.
 */
export function registerDirectCall(app: App, services: Services): void {
  const { config } = services;
  // Requests per client address per minute, whatever their outcome: the unsigned call is public
  // input that writes (docs/security.md#the-direct-call-of-the-front). In memory, per process, as
  // the public simulation's (the same SIMULATION_RATE_LIMIT, a counter of its own).
  const throttle = new FailureThrottle(config.simulationRateLimit ?? 60, 60_000);
  const deps = { ...services, merchantCountry: config.merchantCountry ?? DEFAULT_MERCHANT_COUNTRY };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const embed = query.embed === '1';
    const parentOrigin = typeof query.parent_origin === 'string' && query.parent_origin !== '' ? query.parent_origin : undefined;
    const browserLang = langFromAcceptLanguage(request.headers['accept-language']);
    // The Pledg script's frame shows the refusal too: the page it is in may frame it.
    const frameable = embed ? parentOrigin : undefined;
    const wait = throttle.retryAfter(request.ip);
    if (wait > 0) {
      return pageHeaders(reply, frameable)
        .code(429)
        .header('retry-after', String(wait))
        .send(directRefusedPage(browserLang, `too many payment requests from this address, retry in ${wait} s`, frameable));
    }
    throttle.fail(request.ip);

    const outcome = await createPluginPurchase(deps, { query, embed, parentOrigin, fallbackLang: languageTag(browserLang), now: new Date() });
    switch (outcome.kind) {
      case 'ready': {
        const next = new URLSearchParams();
        if (embed) next.set('embed', '1');
        const q = next.toString();
        return reply.header('cache-control', 'no-store').redirect(`/pay/${toPublicId('pur', outcome.purchase.id)}${q ? `?${q}` : ''}`, 303);
      }
      case 'already_paid':
        return pageHeaders(reply, frameable)
          .code(409)
          .send(directPaidPage(outcome.lang ? langOf(outcome.lang) : browserLang, frameable));
      case 'refused':
        return pageHeaders(reply, frameable)
          .code(400)
          .send(directRefusedPage(outcome.lang ? langOf(outcome.lang) : browserLang, outcome.message, frameable));
    }
  };

  const schema = { hide: true, querystring: Type.Object({}, { additionalProperties: true }) };
  app.get('/purchase', { schema }, handler);
  app.get('/purchases', { schema }, handler);
}
