import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../../db/database.ts';
import { langFromAcceptLanguage, type Lang } from '../../../i18n/lang.ts';
import { readCookie } from '../../../pages/csrf.ts';
import { SPACE_CSP } from '../../../pages/shopper-space/layout.ts';
import { spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_LANGS, SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import type { ShopperIdentity } from '../../../shopper-space/identity.ts';
import { SHOPPER_SESSION_COOKIE, SHOPPER_SESSION_SECONDS, ShopperSessions, type ShopperSession } from '../../../shopper-space/sessions.ts';
import { shopperParty, type ShopperParty } from '../../../use-cases/shopper-space/shopper-purchases.ts';
import type { Services } from '../../../services.ts';

/**
 * The shopper's space's guard and helpers (docs/shopper-space.md#for-the-routes): every `/space`
 * route but the sign-in ones starts with {@link requireShopper}, and authorises a purchase with
 * {@link shopperPartyTo}.
 */

const sessionsOf = new WeakMap<Services, ShopperSessions>();

/** The space's sessions of this service (one per service: the key is derived once). */
export function shopperSessions(services: Services): ShopperSessions {
  let s = sessionsOf.get(services);
  if (!s) {
    s = new ShopperSessions(services.db, services.config.masterKey, services.clock);
    sessionsOf.set(services, s);
  }
  return s;
}

/** A path of the space the sign-in may return to: ours, under /space, no query, no scheme or host. */
const SPACE_PATH = /^\/space(\/[A-Za-z0-9_-]+)*$/;

export function spacePathOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 200 && SPACE_PATH.test(value) && !value.startsWith('/space/sign-') ? value : undefined;
}

/**
 * A page's language among the space's six, as the hosted pages choose theirs: `?lang=` when it
 * names one of them (the switcher), else `fallback` (a purchase's page: the purchase's language
 * when the merchant set one, see its route), else the browser's Accept-Language.
 */
export function spaceLang(request: FastifyRequest, fallback?: Lang): Lang {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  const chosen = SPACE_LANGS.find((l) => l === asked);
  if (chosen) return chosen;
  return fallback ?? langFromAcceptLanguage(request.headers['accept-language'], SPACE_LANGS);
}

/** Headers of every page of the space: its CSP, never framed, never cached (no sniffing, no referrer: every answer's, docs/security.md#security-headers). */
export function sendSpacePage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', SPACE_CSP)
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .send(page);
}

export function seeOther(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('location', to).header('cache-control', 'no-store').send();
}

/** The form fields of a urlencoded POST; a field sent twice keeps its first value. */
export function spaceForm(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  const out: Record<string, string> = {};
  if (!body || typeof body !== 'object') return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) out[k] = String(Array.isArray(v) ? v[0] : v);
  return out;
}

/** The signed-in shopper of this request, or undefined (nothing sent). */
export function shopperOf(services: Services, request: FastifyRequest): Promise<ShopperSession | undefined> {
  return shopperSessions(services).find(readCookie(request.headers.cookie, SHOPPER_SESSION_COOKIE));
}

/**
 * The signed-in shopper, or undefined once the answer is sent: a 303 to the sign-in form, which
 * brings the shopper back to this page (a GET's path) after signing in.
 */
export async function requireShopper(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<ShopperSession | undefined> {
  const session = await shopperOf(services, request);
  if (session) return session;
  const path = request.method === 'GET' ? spacePathOrUndefined(new URL(request.url, 'http://x').pathname) : undefined;
  // The sign-in speaks the language the page was asked in (`?lang=`, docs/shopper-space.md#pages).
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  const lang = SPACE_LANGS.find((l) => l === asked);
  const query = new URLSearchParams();
  if (path && path !== '/space') query.set('then', path);
  if (lang) query.set('lang', lang);
  const q = query.toString();
  void seeOther(reply, `/space/sign-in${q ? `?${q}` : ''}`);
  return undefined;
}

/**
 * {@link requireShopper} for a form post: the session and the form's fields once its `csrf` field
 * matched the session's token; else undefined, the answer sent (the sign-in redirect, or a 403
 * page: nothing was done).
 */
export async function requireShopperForm(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ session: ShopperSession; form: Record<string, string> } | undefined> {
  const session = await requireShopper(services, request, reply);
  if (!session) return undefined;
  const form = spaceForm(request);
  const site = request.headers['sec-fetch-site'];
  if ((site !== undefined && site !== 'same-origin') || !shopperSessions(services).csrfMatches(session, form.csrf)) {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    void sendSpacePage(reply, 403, spaceMessagePage(lang, t.expiredFormTitle, t.expiredForm));
    return undefined;
  }
  return { session, form };
}

/**
 * The shopper's part in a purchase (bare uuid) — leader, or pledger with their pledge —, or null
 * when they are no party to it: then the purchase is answered 404, as an unknown one.
 */
export async function shopperPartyTo(db: Database, identity: ShopperIdentity, purchaseId: string): Promise<ShopperParty | null> {
  return (await shopperParty({ db }, identity, purchaseId)) ?? null;
}

/** `Secure` unless the service is on loopback (local development over plain http). */
function secureFlag(publicUrl: string): string {
  const host = new URL(publicUrl).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' ? '' : '; Secure';
}

export function shopperSessionCookie(token: string, publicUrl: string): string {
  return `${SHOPPER_SESSION_COOKIE}=${token}; Path=/space; HttpOnly; SameSite=Lax; Max-Age=${SHOPPER_SESSION_SECONDS}${secureFlag(publicUrl)}`;
}

export function clearedShopperSessionCookie(publicUrl: string): string {
  return `${SHOPPER_SESSION_COOKIE}=; Path=/space; HttpOnly; SameSite=Lax; Max-Age=0${secureFlag(publicUrl)}`;
}

/** The cookie naming the browser a sign-in link or code was asked from (a random value; the table keeps its hash). */
export const BROWSER_COOKIE = 'chipin_space_browser';

export function browserCookie(value: string, publicUrl: string): string {
  return `${BROWSER_COOKIE}=${value}; Path=/space; HttpOnly; SameSite=Lax; Max-Age=86400${secureFlag(publicUrl)}`;
}
