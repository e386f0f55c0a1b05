import type { FastifyRequest } from 'fastify';
import type { Accounts, DashboardUser } from '../accounts/accounts.ts';
import { adminOnly, operatorOnly, refusedByRole } from './backoffice/roles.ts';
import { SESSION_COOKIE, type DashboardSessions } from '../staff/sessions.ts';
import { readCookie } from '../pages/csrf.ts';
import { BUDGETS, type AttemptBudgets } from '../auth/attempt-budgets.ts';
import { ApiError } from './errors.ts';
import { textProblem } from './input-rules.ts';
import { routeAccess } from './route-access.ts';

/** `user:password` of a Basic header (RFC 7617, UTF-8), or undefined. */
function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = header && /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon).trim(), password: decoded.slice(colon + 1) };
}

/** Whether a request's dashboard credentials let it in; each route words a refusal its own way. */
export type DashboardCheck =
  | ({ ok: true } & DashboardUser)
  | { ok: false; refusal: 'no_credentials' | 'wrong_credentials' }
  /** The e-mail or password breaks the text rule (NUL, unpaired surrogate): `message` names which. */
  | { ok: false; refusal: 'invalid_text'; message: string }
  | { ok: false; refusal: 'throttled'; retryAfter: number };

const BACKOFFICE_CHALLENGE = 'Basic realm="Chipin back office", charset="UTF-8"';

/** Methods that change nothing: the cross-site rule of Basic writes leaves them be. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The Content-Types a page of any site can post without the browser asking the service first (an
 * HTML form's three, which a `no-cors` fetch may send too): never what a JSON API is sent.
 */
const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

const CROSS_SITE =
  "a back-office write with HTTP Basic credentials must not come from a browser on another site, which sends the Basic credentials it keeps with any page's requests";

/**
 * Why a write with HTTP Basic credentials looks like a browser's request made by another site's
 * page, naming the header; undefined when it does not (a script sends neither `Origin` nor
 * `Sec-Fetch-Site`, and JSON or no body). docs/security.md#cross-site-writes-with-basic-credentials.
 */
function crossSiteProblem(headers: FastifyRequest['headers'], ownOrigin: string | undefined): string | undefined {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `${CROSS_SITE} (Sec-Fetch-Site: ${site})`;
  const origin = headers.origin;
  if (origin !== undefined && origin !== ownOrigin) return `${CROSS_SITE} (Origin: ${origin} is not this service's ${ownOrigin ?? 'origin'})`;
  const type = headers['content-type'];
  const media = type?.split(';', 1)[0]?.trim().toLowerCase();
  if (media !== undefined && FORM_TYPES.has(media)) {
    return `a back-office write with HTTP Basic credentials takes JSON (Content-Type: application/json) or no body, never a form's Content-Type (${media}), which any site's page can post`;
  }
  return undefined;
}

/**
 * Whether the request asks for an HTML page first (`Accept` names `text/html` with a weight above
 * 0): a browser's navigation, never curl (any type) nor a script asking for `application/json`.
 */
function asksForHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [range = '', ...params] = part.split(';');
    if (range.trim().toLowerCase() !== 'text/html') return false;
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Merchant dashboard credentials (HTTP Basic: dashboard e-mail and password,
 * docs/authentication.md#back-office-dashboard-credentials-and-the-session-cookie) for every
 * route that accepts them: the back-office API and the sandbox inbox page. Its failure budgets
 * (per user, per address: src/auth/attempt-budgets.ts) are what bound password guessing; they
 * live in the database, shared by every guard of every process, and each attempt is counted
 * before its scrypt, so guesses sent at once gain nothing.
 */
export class DashboardGuard {
  readonly #users = new WeakMap<FastifyRequest, Promise<DashboardUser>>();

  constructor(
    private readonly accounts: Pick<Accounts, 'dashboardUser'>,
    private readonly budgets: AttemptBudgets,
    /** Back-office sessions (cookie); without them only HTTP Basic is accepted. */
    private readonly sessions?: Pick<DashboardSessions, 'find' | 'csrfMatches'>,
    /** The service's own origin: a cookie-authenticated write must come from it (or carry the CSRF header). */
    private readonly ownOrigin?: string,
  ) {}

  /**
   * Seconds before this address may try again, 0 when it may: the one per-address budget of
   * every dashboard-credential route, invitation links included.
   */
  addressWait(ip: string): Promise<number> {
    return this.budgets.wait([{ budget: BUDGETS.dashboardAddress, subject: ip }]);
  }

  /**
   * Counts a failed guess from this address (an invitation link that opens nothing: its token is
   * 256 random bits, looked up by its hash). Answers the wait when it is beyond the budget.
   */
  addressFailed(ip: string): Promise<number> {
    return this.budgets.fail([{ budget: BUDGETS.dashboardAddress, subject: ip }]);
  }

  /** HTTP Basic credentials of the request. */
  async check(request: FastifyRequest): Promise<DashboardCheck> {
    const creds = basicCredentials(request.headers.authorization);
    if (!creds) return this.#nothingToCheck(request.ip);
    return this.#verify(request.ip, creds.user, creds.password, 'of the Authorization header');
  }

  /**
   * A page that takes the back-office session or HTTP Basic (the sandbox inbox): a user signed in
   * to the back office is let in by the session cookie, without being asked for the password
   * again; without a session (a script, another browser), HTTP Basic. Basic wins when both
   * are sent, as on the back-office API. Reads only: a `GET` needs no CSRF proof.
   */
  async checkPage(request: FastifyRequest): Promise<DashboardCheck> {
    if (request.headers.authorization === undefined && this.sessions) {
      const session = await this.sessions.find(readCookie(request.headers.cookie, SESSION_COOKIE));
      if (session) return { ok: true, ...session };
    }
    return this.check(request);
  }

  /**
   * The back office's sign-in form: the same credentials, the same failure budgets (a guesser
   * gains nothing by switching from Basic to the form or back).
   */
  async signIn(ip: string, email: string, password: string): Promise<DashboardCheck> {
    if (!email || !password) return this.#nothingToCheck(ip);
    return this.#verify(ip, email.trim(), password, 'of the form');
  }

  /** No credentials: nothing counted, but an address whose budget is spent hears so first. */
  async #nothingToCheck(ip: string): Promise<DashboardCheck> {
    const wait = await this.addressWait(ip);
    return wait > 0 ? { ok: false, refusal: 'throttled', retryAfter: wait } : { ok: false, refusal: 'no_credentials' };
  }

  async #verify(ip: string, user: string, password: string, where: string): Promise<DashboardCheck> {
    const byAddress = { budget: BUDGETS.dashboardAddress, subject: ip };
    // The text rule, before the database sees them (PostgreSQL refuses a NUL in text), and
    // counted as a failed attempt: otherwise it would be a free, unthrottled probe.
    const problem = textProblem(user) ?? textProblem(password);
    if (problem) {
      const wait = await this.budgets.fail([byAddress]);
      if (wait > 0) return { ok: false, refusal: 'throttled', retryAfter: wait };
      return { ok: false, refusal: 'invalid_text', message: `the ${textProblem(user) ? 'e-mail' : 'password'} ${where} ${problem}` };
    }
    // Counted before the scrypt (src/auth/attempt-budgets.ts): 30 guesses sent at once for one
    // e-mail reach the hash at most 5 times, and the right password after them is throttled.
    const attempt = await this.budgets.reserve([byAddress, { budget: BUDGETS.dashboardUser, subject: user.toLowerCase() }]);
    if (!attempt.ok) return { ok: false, refusal: 'throttled', retryAfter: attempt.retryAfter };
    let found: DashboardUser | undefined;
    try {
      found = await this.accounts.dashboardUser(user, password);
    } catch (err) {
      await attempt.succeeded(); // a fault of ours, not a guess: nothing counted
      throw err;
    }
    if (!found) {
      await attempt.failed();
      return { ok: false, refusal: 'wrong_credentials' };
    }
    await attempt.succeeded();
    return { ok: true, ...found };
  }

  /**
   * A back-office API call made with the session cookie instead of Basic (back-office
   * endpoints accept either: docs/authentication.md). Reads need the session only; a write also
   * needs the CSRF token in `X-CSRF-Token`, or to come provably from our own origin (`Sec-Fetch-Site:
   * same-origin`, or an `Origin` equal to ours): a cross-site page can make the browser send the
   * cookie, never either of those.
   */
  async #sessionUser(request: FastifyRequest): Promise<DashboardUser | undefined> {
    if (!this.sessions) return undefined;
    const session = await this.sessions.find(readCookie(request.headers.cookie, SESSION_COOKIE));
    if (!session) return undefined;
    if (request.method === 'GET' || request.method === 'HEAD') return session;
    const site = request.headers['sec-fetch-site'];
    const sameOrigin = site === 'same-origin' || (site === undefined && this.ownOrigin !== undefined && request.headers.origin === this.ownOrigin);
    if (this.sessions.csrfMatches(session, request.headers['x-csrf-token']) || sameOrigin) return session;
    throw new ApiError(403, 'forbidden', 'a back-office write with the session cookie needs the X-CSRF-Token header (or must come from the dashboard itself)', {
      'cache-control': 'no-store',
    });
  }

  /** The signed-in account of a back-office API call: see {@link userOf}. */
  async accountOf(request: FastifyRequest): Promise<string> {
    return (await this.userOf(request)).accountId;
  }

  /**
   * The back-office API's form: the signed-in user (HTTP Basic, or the back-office session
   * cookie), or an ApiError in the Token API format (401 with `WWW-Authenticate: Basic`, but to a
   * browser asking for a page; 429 with
   * `Retry-After`; 403 for a cookie-authenticated write without CSRF proof, and for a support
   * user on an admin-only route).
   */
  userOf(request: FastifyRequest): Promise<DashboardUser> {
    // Once per request: the role hook and the route ask both, and a Basic check costs one scrypt
    // and, when wrong, one failure of the budget.
    let user = this.#users.get(request);
    if (!user) this.#users.set(request, (user = this.#userOf(request)));
    return user;
  }

  /**
   * The cross-site rule of writes with HTTP Basic credentials, as an `onRequest` hook: before the
   * credentials are checked (a page of another site spends no failure budget), the body read or
   * the route's handler run, on every route taking the back office's credentials (its family in
   * `routeAccess`, by the matched route's template). A browser that once answered the Basic
   * prompt sends the credentials again with any page's requests to the service, a form posted by
   * another site included: such a write is refused with 403 `forbidden`, naming the header
   * (`Sec-Fetch-Site` other than `same-origin` or `none`, an `Origin` other than ours, a form's
   * `Content-Type`). A script sends none of them and is not concerned; a write with the session
   * cookie (no `Authorization` header) has its own rule, the CSRF token ({@link userOf}).
   * docs/security.md#cross-site-writes-with-basic-credentials.
   */
  refuseCrossSiteBasicWrites(request: FastifyRequest): void {
    if (request.headers.authorization === undefined || READS.has(request.method)) return;
    const route = request.routeOptions.url;
    if (route === undefined || routeAccess(request.method, route, request.routeOptions.config.auth).credentials !== 'Basic or session cookie') return;
    const problem = crossSiteProblem(request.headers, this.ownOrigin);
    if (problem) throw new ApiError(403, 'forbidden', problem, { 'cache-control': 'no-store' });
  }

  /**
   * The role rule on the back-office API, as an `onRequest` hook: before the body is parsed and
   * validated, so a support user learns nothing about an admin-only route's input rules.
   */
  async refuseSupportOnAdminRoutes(request: FastifyRequest): Promise<void> {
    // The matched route, never the URL as sent (docs/security.md#the-one-path-rule); a request no
    // route matched is answered 404 without asking who sent it.
    const route = request.routeOptions.url;
    if (route !== undefined && route.startsWith('/api/backoffice/') && (adminOnly(request.method, route) || operatorOnly(route))) await this.userOf(request);
  }

  async #userOf(request: FastifyRequest): Promise<DashboardUser> {
    // Basic wins when both are sent: the caller said explicitly who it is.
    if (request.headers.authorization === undefined) {
      const fromSession = await this.#sessionUser(request);
      if (fromSession) return permitted(request, fromSession);
    }
    const check = await this.check(request);
    if (check.ok) return permitted(request, check);
    switch (check.refusal) {
      case 'throttled':
        throw new ApiError(429, 'too_many_requests', `too many failed sign-ins, retry in ${check.retryAfter} s`, { 'retry-after': String(check.retryAfter) });
      case 'invalid_text':
        throw new ApiError(400, 'invalid_request', check.message);
      case 'no_credentials':
        throw unauthorized(request, 'sign in with HTTP Basic: your merchant dashboard e-mail and password');
      case 'wrong_credentials':
        throw unauthorized(request, 'wrong dashboard e-mail or password');
    }
  }
}

/**
 * The role rule of the back office, on the matched route's template ({@link adminOnly}): a support
 * user's call to an admin-only route is refused with 403 (their credentials are right, their role
 * is not enough), before the route reads or changes anything.
 */
function permitted<U extends { role: DashboardUser['role'] }>(request: FastifyRequest, user: U): U {
  const route = request.routeOptions.url;
  if (refusedByRole(user.role, request.method, route)) {
    const message = operatorOnly(route)
      ? `your role (${user.role}) may not use this: it is for the operator's staff`
      : `your role (${user.role}) may not use this: ask an admin of the account`;
    throw new ApiError(403, 'forbidden', message, { 'cache-control': 'no-store' });
  }
  return user;
}

/**
 * 401 with the Basic challenge, except to a browser asking for a page: it would prompt for the
 * password and keep it, to send again with any site's requests; in a browser the back office's
 * session opens this API (docs/authentication.md#back-office-dashboard-credentials-and-the-session-cookie).
 */
function unauthorized(request: FastifyRequest, message: string): ApiError {
  if (asksForHtml(request.headers.accept)) {
    return new ApiError(401, 'invalid_client', `${message}; in a browser, sign in to the back office at /dashboard/sign-in, whose session opens this API`, {
      'cache-control': 'no-store',
    });
  }
  return new ApiError(401, 'invalid_client', message, { 'www-authenticate': BACKOFFICE_CHALLENGE, 'cache-control': 'no-store' });
}
