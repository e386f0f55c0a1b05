import { Type } from 'typebox';
import { langFromAcceptLanguage } from '../../../i18n/lang.ts';
import { challengeRelayCsp, challengeRelayGonePage, challengeRelayPage } from '../../../pages/challenge-relay-page.ts';
import { CHALLENGE_RELAY_PATH } from '../../../psp/challenge-relay.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';

/** The page that answers a relay link we did not seal: framable by any site, as the relay is (it is shown in the same overlay). */
const GONE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors *";

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
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
      if (!form) return reply.code(404).header('content-security-policy', GONE_CSP).send(challengeRelayGonePage(lang));
      return reply.header('content-security-policy', challengeRelayCsp(form)).send(challengeRelayPage(form, lang));
    },
  );
}
