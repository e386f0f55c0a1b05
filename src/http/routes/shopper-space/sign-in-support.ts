import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Lang } from '../../../i18n/lang.ts';
import { readCookie } from '../../../pages/csrf.ts';
import { spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import type { SignedIn, SignInDeps } from '../../../shopper-space/sign-in.ts';
import type { Services } from '../../../services.ts';
import { csrfFor } from '../hosted-pages/page-support.ts';
import { BROWSER_COOKIE, browserCookie, seeOther, sendSpacePage, shopperOf, shopperSessionCookie, shopperSessions, spacePathOrUndefined } from './guard.ts';

/** HTML pages: not part of the API reference. */
export const PAGE = { schema: { hide: true } };
export const SIGN_IN_FORM = 'space-sign-in';
export const CODE_FORM = 'space-sign-in-code';
const BROWSER = /^[A-Za-z0-9_-]{32}$/;

/** What the sign-in routes share, built once for all of them (one CSRF helper, one session store). */
export type SignInKit = ReturnType<typeof signInKit>;

/**
 * The sign-in's shared parts (docs/shopper-space.md#sign-in): the use case's dependencies, the
 * browser's binding cookie, the page asked for after signing in, the throttled answer and the
 * start of a session.
 */
export function signInKit(services: Services) {
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
  const throttled = (reply: FastifyReply, lang: Lang, seconds: number) => {
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

  return { csrf, publicUrl, sessions, deps, country, browserOf, keptBrowser, thenOf, switchBase, throttled, signIn };
}
