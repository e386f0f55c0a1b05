import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Chrome } from '../pages/layout.ts';
import { SESSION_COOKIE, type DashboardSession, type DashboardSessions } from '../../../staff/sessions.ts';
import type { Services } from '../../../services.ts';
import { operatorOnly, refusedByRole } from '../roles.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { langFromAcceptLanguage, type EnFr, EN_FR } from '../../../i18n/lang.ts';
import { readCookie } from '../../../pages/csrf.ts';
import { DEFAULT_TIME_ZONE } from '../../../i18n/format.ts';

/** The account as its pages show it (`Accounts.profileOf`). */
type AccountProfile = NonNullable<Awaited<ReturnType<Services['accounts']['profileOf']>>>;

const LANG_COOKIE = 'chipin_dashboard_lang';
/**
 * The back office's CSP (docs/security.md#content-security-policy): the hosted pages' (our own
 * script and styles only) without their two openings. Forms post, and the redirects after them go,
 * to us only (`form-action 'self'`; the hosted pages need `https:` for the shopper's way back to the
 * merchant, no back-office page does). Never framed, by anyone (`frame-ancestors 'none'`): no
 * clickjacking of its refund and cancel buttons.
 */
const BACK_OFFICE_CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** `?lang=` (remembered in a cookie for the next pages), else that cookie, else Accept-Language. */
export function dashboardLang(request: FastifyRequest, reply: FastifyReply): EnFr {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  if (asked === 'en' || asked === 'fr') {
    void reply.header('set-cookie', `${LANG_COOKIE}=${asked}; Path=/dashboard; SameSite=Lax; Max-Age=31536000`);
    return asked;
  }
  const kept = readCookie(request.headers.cookie, LANG_COOKIE);
  return kept === 'en' || kept === 'fr' ? kept : langFromAcceptLanguage(request.headers['accept-language'], EN_FR);
}

/** Headers of every back-office page: our CSP without framing, never cached (no sniffing, no referrer: every answer's, docs/security.md#security-headers). */
export function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', BACK_OFFICE_CSP)
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .send(page);
}

/** See-other redirect after a form post (or to the sign-in page): the browser then GETs `to`. */
export function seeOther(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('location', to).header('cache-control', 'no-store').send();
}

/** The form fields of a urlencoded POST; a field sent twice keeps its first value. */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  const out: Record<string, string> = {};
  if (!body || typeof body !== 'object') return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) out[k] = String(Array.isArray(v) ? v[0] : v);
  return out;
}

/** The request's back-office session, if its cookie names a live one. */
export function sessionOf(sessions: DashboardSessions, request: FastifyRequest): Promise<DashboardSession | undefined> {
  return sessions.find(readCookie(request.headers.cookie, SESSION_COOKIE));
}

/** 403 page for a form whose CSRF token is missing or wrong: nothing was done. */
export function refuseForm(reply: FastifyReply, lang: EnFr): FastifyReply {
  const t = DASHBOARD_TEXT[lang];
  return sendPage(reply, 403, messagePage(lang, t.expiredTitle, t.expiredForm));
}

/**
 * The session and the chrome of a signed-in page, or (then undefined) the answer already sent on
 * `reply`: the redirect to the sign-in page, or 403 for a role the page is not for (a support user on
 * an admin-only page, anyone but the operator's staff on the operator's pages).
 */
export async function signedIn(
  services: Pick<Services, 'accounts' | 'config'>,
  sessions: DashboardSessions,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ session: DashboardSession; chrome: Chrome; profile: AccountProfile | undefined } | undefined> {
  const lang = dashboardLang(request, reply);
  const session = await sessionOf(sessions, request);
  if (!session) {
    void seeOther(reply, '/dashboard/sign-in');
    return undefined;
  }
  // The role rule of docs/back-office.md#roles, one place for every page (ours and later ones), on
  // the matched route: never the URL as sent, which the router decodes before matching.
  if (refusedByRole(session.role, request.method, request.routeOptions.url)) {
    const t = DASHBOARD_TEXT[lang];
    const why = operatorOnly(request.routeOptions.url)
      ? t.operatorOnly(t.roleNames[session.role])
      : session.role === 'support'
        ? t.adminOnly
        : t.adminOnlyFor(t.roleNames[session.role]);
    void sendPage(reply, 403, messagePage(lang, t.adminOnlyTitle, why));
    return undefined;
  }
  const url = new URL(request.url, 'http://x');
  url.searchParams.delete('lang');
  const path = url.pathname + (url.search || '');
  const account = await services.accounts.profileOf(session.accountId);
  return {
    session,
    // The account's profile, read once a request: a page that shows more of it takes it from here.
    profile: account,
    chrome: {
      lang,
      accountName: account?.name ?? '',
      timeZone: account?.timeZone ?? DEFAULT_TIME_ZONE,
      csrf: session.csrf,
      role: session.role,
      path,
      sandbox: services.config.env === 'sandbox',
    },
  };
}

/**
 * `signedIn` for a form post: the session, the chrome and the form's fields once the form's CSRF
 * token matched the session's; else (then undefined) the answer already sent on `reply`: the
 * sign-in redirect, the admin-only 403, or the 403 of a refused form (nothing was done).
 */
export async function signedInForm(
  services: Pick<Services, 'accounts' | 'config'>,
  sessions: DashboardSessions,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ session: DashboardSession; chrome: Chrome; profile: AccountProfile | undefined; form: Record<string, string> } | undefined> {
  const ctx = await signedIn(services, sessions, request, reply);
  if (!ctx) return undefined;
  const form = formOf(request);
  if (!sessions.csrfMatches(ctx.session, form.csrf)) {
    void refuseForm(reply, ctx.chrome.lang);
    return undefined;
  }
  return { ...ctx, form };
}
