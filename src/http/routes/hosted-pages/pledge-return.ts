import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { CHALLENGE_RETURN_BODY_LIMIT, challengeReturnOf } from '../../challenge-return.ts';
import { PledgeParams, type PledgePages } from './pledge-view.ts';

const returnQuery = Type.Object({ payment: Type.String({ maxLength: 64 }) }, { additionalProperties: true });
const OURS = ['payment', 'lang'];

/** The return from 3-D Secure to a pledge's page, posted by the issuer or followed as a link. */
export function registerPledgeReturn(app: App, page: PledgePages): void {
  // An issuer's form POST back (3-D Secure's TermUrl): the posted fields go to the PSP that needs
  // them, then a redirect to the same address as a GET, as on the leader's return (checkout.ts).
  app.post(
    '/pledge/:pledge_uid/return',
    { schema: { hide: true, params: PledgeParams, querystring: returnQuery }, bodyLimit: CHALLENGE_RETURN_BODY_LIMIT },
    async (request, reply) => {
      const again = `/pledge/${encodeURIComponent(request.params.pledge_uid)}/return?${new URLSearchParams(request.query as Record<string, string>).toString()}`;
      const returned = challengeReturnOf(request.body, OURS);
      if (Object.keys(returned).length === 0) return reply.redirect(again, 303);
      const result = await page.resumeFromReturn(request, returned);
      return result.kind === 'not_found' ? page.notFound(request, reply) : reply.redirect(again, 303);
    },
  );
  app.get('/pledge/:pledge_uid/return', { schema: { hide: true, params: PledgeParams, querystring: returnQuery } }, async (request, reply) => {
    const result = await page.resumeFromReturn(request, challengeReturnOf(request.query, OURS));
    return result.kind === 'not_found' ? page.notFound(request, reply) : page.outcome(request, reply, result);
  });
}
