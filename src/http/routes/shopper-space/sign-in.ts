import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readCookie } from '../../../pages/csrf.ts';
import { codePage, linkSentPage, signInPage, spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import { parseIdentity } from '../../../shopper-space/identity.ts';
import { CODE_MINUTES, LINK_MINUTES, redeemCode, redeemLink, requestSignIn, type SignedIn, type SignInDeps } from '../../../shopper-space/sign-in.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { csrfFor } from '../hosted-pages/page-support.ts';
import {
  BROWSER_COOKIE,
  browserCookie,
  clearedShopperSessionCookie,
  seeOther,
  sendSpacePage,
  shopperOf,
  shopperSessionCookie,
  shopperSessions,
  spaceForm,
  spaceLang,
  spacePathOrUndefined,
} from './guard.ts';

/** HTML pages: not part of the API reference. */
const PAGE = { schema: { hide: true } };
const SIGN_IN_FORM = 'space-sign-in';
const CODE_FORM = 'space-sign-in-code';
const BROWSER = /^[A-Za-z0-9_-]{32}$/;

/**
 * The shopper's space: sign-in without a password (docs/shopper-space.md#sign-in). The forms
 * before a session are protected by the hosted forms' double-submit CSRF cookie; sign-out by the
 * session's token.
 */
export function registerShopperSignIn(app: App, services: Services): void {
  const csrf = csrfFor(services);
  const { publicUrl } = services.config;
  const sessions = shopperSessions(services);
  const deps: SignInDeps = {
    db: services.db,
    clock: services.clock,
    mailer: services.mailer,
    sms: services.sms,
    budgets: services.authBudgets,
    masterKey: services.config.masterKey,
    publicUrl,
    sandboxInbox: services.config.env !== 'production',
  };
  const country = services.config.merchantCountry ?? 'FR';

  /** The browser's binding cookie, set now when it has none. */
  const browserOf = (request: FastifyRequest, reply: FastifyReply): string => {
    const kept = readCookie(request.headers.cookie, BROWSER_COOKIE);
    if (kept && BROWSER.test(kept)) return kept;
    const fresh = randomBytes(24).toString('base64url');
    void reply.header('set-cookie', browserCookie(fresh, publicUrl));
    return fresh;
  };
  const keptBrowser = (request: FastifyRequest): string | undefined => {
    const kept = readCookie(request.headers.cookie, BROWSER_COOKIE);
    return kept && BROWSER.test(kept) ? kept : undefined;
  };
  const thenOf = (request: FastifyRequest) => spacePathOrUndefined((request.query as Record<string, unknown> | undefined)?.then);
  const switchBase = (request: FastifyRequest) => {
    const then = thenOf(request);
    return `/space/sign-in${then ? `?then=${encodeURIComponent(then)}` : ''}`;
  };
  const throttled = (reply: FastifyReply, lang: 'en' | 'fr', seconds: number) => {
    const t = SPACE_TEXT[lang];
    return sendSpacePage(reply.header('retry-after', String(seconds)), 429, spaceMessagePage(lang, t.signInTitle, t.throttled(seconds)));
  };
  /** A fresh session (a cookie planted before it signs nobody in), and on to the page asked for. */
  const signIn = async (request: FastifyRequest, reply: FastifyReply, done: SignedIn) => {
    const before = await shopperOf(services, request);
    if (before) await sessions.revoke(before.sessionId);
    const { token } = await sessions.create(done.identity);
    void reply.header('set-cookie', shopperSessionCookie(token, publicUrl));
    return seeOther(reply, done.returnPath ?? '/space');
  };

  app.get('/space/sign-in', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    if (await shopperOf(services, request)) return seeOther(reply, thenOf(request) ?? '/space');
    browserOf(request, reply);
    return sendSpacePage(reply, 200, signInPage(lang, { csrf: csrf.tokenFor(request, reply, SIGN_IN_FORM), then: thenOf(request), switchBase: switchBase(request) }));
  });

  app.post('/space/sign-in', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    const form = spaceForm(request);
    if (!csrf.verify(request, SIGN_IN_FORM, form)) return sendSpacePage(reply, 403, spaceMessagePage(lang, t.expiredFormTitle, t.expiredForm));
    const typed = (form.identity ?? '').slice(0, 254);
    const identity = parseIdentity(typed, country);
    if (!identity) {
      const page = signInPage(lang, { csrf: csrf.tokenFor(request, reply, SIGN_IN_FORM), then: thenOf(request), typed, error: t.identityInvalid, switchBase: switchBase(request) });
      return sendSpacePage(reply, 400, page);
    }
    const browser = browserOf(request, reply);
    const asked = await requestSignIn({ ...deps, logger: request.log }, { identity, browser, ip: request.ip, lang, returnPath: thenOf(request) });
    if (asked.kind === 'throttled') return throttled(reply, lang, asked.retryAfter);
    return seeOther(reply, asked.channel === 'email' ? `/space/sign-in/sent?lang=${lang}` : `/space/sign-in/code?lang=${lang}&sent=1`);
  });

  app.get('/space/sign-in/sent', PAGE, async (request, reply) => sendSpacePage(reply, 200, linkSentPage(spaceLang(request), LINK_MINUTES)));

  app.get('/space/sign-in/link/:token', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    const { token } = request.params as { token: string };
    const done = await redeemLink(deps, { token, browser: keptBrowser(request), ip: request.ip });
    switch (done.kind) {
      case 'signed_in':
        return signIn(request, reply, done);
      case 'throttled':
        return throttled(reply, lang, done.retryAfter);
      case 'other_browser':
        return sendSpacePage(reply, 403, spaceMessagePage(lang, t.linkOtherBrowserTitle, t.linkOtherBrowser));
      case 'invalid':
        return sendSpacePage(reply, 410, spaceMessagePage(lang, t.linkInvalidTitle, t.linkInvalid));
    }
  });

  app.get('/space/sign-in/code', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const sent = (request.query as Record<string, unknown> | undefined)?.sent === '1';
    return sendSpacePage(reply, 200, codePage(lang, { csrf: csrf.tokenFor(request, reply, CODE_FORM), minutes: CODE_MINUTES, sent }));
  });

  app.post('/space/sign-in/code', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    const form = spaceForm(request);
    if (!csrf.verify(request, CODE_FORM, form)) return sendSpacePage(reply, 403, spaceMessagePage(lang, t.expiredFormTitle, t.expiredForm));
    const done = await redeemCode(deps, { code: (form.code ?? '').slice(0, 20), browser: keptBrowser(request), ip: request.ip });
    const again = (status: number, error: string) =>
      sendSpacePage(reply, status, codePage(lang, { csrf: csrf.tokenFor(request, reply, CODE_FORM), minutes: CODE_MINUTES, sent: false, error }));
    switch (done.kind) {
      case 'signed_in':
        return signIn(request, reply, done);
      case 'throttled':
        return throttled(reply, lang, done.retryAfter);
      case 'malformed':
        return again(400, t.codeMalformed);
      case 'wrong':
        return again(400, t.codeWrong(done.triesLeft));
      case 'no_code':
        return sendSpacePage(reply, 410, spaceMessagePage(lang, t.linkInvalidTitle, t.codeNone));
    }
  });

  app.post('/space/sign-out', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    const session = await shopperOf(services, request);
    const cleared = () => reply.header('set-cookie', clearedShopperSessionCookie(publicUrl));
    if (!session) return seeOther(cleared(), '/space/sign-in');
    if (!sessions.csrfMatches(session, spaceForm(request).csrf)) return sendSpacePage(reply, 403, spaceMessagePage(lang, t.expiredFormTitle, t.expiredForm));
    await sessions.revoke(session.sessionId);
    return seeOther(cleared(), `/space/sign-in?lang=${lang}`);
  });
}
