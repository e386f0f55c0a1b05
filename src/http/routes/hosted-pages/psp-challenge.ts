import { Type } from 'typebox';
import { langFromAcceptLanguage } from '../../../i18n/lang.ts';
import { challengeRelayCsp, challengeRelayGonePage, challengeRelayPage } from '../../../pages/challenge-relay-page.ts';
import { CHALLENGE_RELAY_PATH } from '../../../psp/challenge-relay.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';

const HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

/**
 * The 3-D Secure relay: a PSP whose issuer page wants a form POST (Ogone, Lyra, Adyen's POST
 * redirects) gets a `challenge_url` here; the page posts that form from the shopper's browser.
 * The URL carries the form sealed with a key of ours: another site cannot make this page post
 * anything else (an unsealed or altered URL answers 404).
 */
export function registerPspChallenge(app: App, { psps }: Services): void {
  app.get(
    CHALLENGE_RELAY_PATH,
    { schema: { hide: true, querystring: Type.Object({ f: Type.Optional(Type.String({ maxLength: 8_000 })), s: Type.Optional(Type.String({ maxLength: 100 })) }) } },
    async (request, reply) => {
      const lang = langFromAcceptLanguage(request.headers['accept-language']);
      const form = psps.challengeRelay?.open(request.query.f, request.query.s);
      reply.type('text/html; charset=utf-8').headers(HEADERS);
      if (!form) return reply.code(404).header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'").send(challengeRelayGonePage(lang));
      return reply.header('content-security-policy', challengeRelayCsp(form)).send(challengeRelayPage(form, lang));
    },
  );
}
