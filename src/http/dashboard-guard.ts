import type { FastifyRequest } from 'fastify';
import type { Accounts } from '../accounts/accounts.ts';
import { FailureThrottle } from '../auth/failure-throttle.ts';
import { ApiError } from './errors.ts';
import { textProblem } from './input-rules.ts';

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
  | { ok: true; accountId: string }
  | { ok: false; refusal: 'no_credentials' | 'wrong_credentials' }
  /** The e-mail or password breaks the text rule (NUL, unpaired surrogate): `message` names which. */
  | { ok: false; refusal: 'invalid_text'; message: string }
  | { ok: false; refusal: 'throttled'; retryAfter: number };

const BACKOFFICE_CHALLENGE = 'Basic realm="Chipin back office", charset="UTF-8"';

/**
 * Merchant dashboard credentials (HTTP Basic: dashboard e-mail and password, DESIGN §7) for every
 * route that accepts them: the back-office API and the sandbox inbox page. Build ONE per server:
 * its failure budgets (per user, per address) are what bound password guessing, and each guess
 * costs one scrypt, so a second guard would hand a guesser a second budget.
 */
export class DashboardGuard {
  readonly #byUser = new FailureThrottle(5, 60_000);
  readonly #byAddress = new FailureThrottle(20, 60_000);

  constructor(private readonly accounts: Pick<Accounts, 'dashboardAccount'>) {}

  async check(request: FastifyRequest): Promise<DashboardCheck> {
    const wait = this.#byAddress.retryAfter(request.ip);
    if (wait > 0) return { ok: false, refusal: 'throttled', retryAfter: wait };
    const creds = basicCredentials(request.headers.authorization);
    if (!creds) return { ok: false, refusal: 'no_credentials' };
    // The text rule, before the database sees them (PostgreSQL refuses a NUL in text), and
    // counted as a failed attempt: otherwise it would be a free, unthrottled probe.
    const problem = textProblem(creds.user) ?? textProblem(creds.password);
    if (problem) {
      this.#byAddress.fail(request.ip);
      return { ok: false, refusal: 'invalid_text', message: `the ${textProblem(creds.user) ? 'e-mail' : 'password'} of the Authorization header ${problem}` };
    }
    const userKey = creds.user.toLowerCase();
    const userWait = this.#byUser.retryAfter(userKey);
    if (userWait > 0) return { ok: false, refusal: 'throttled', retryAfter: userWait };
    const accountId = await this.accounts.dashboardAccount(creds.user, creds.password);
    if (!accountId) {
      this.#byAddress.fail(request.ip);
      this.#byUser.fail(userKey);
      return { ok: false, refusal: 'wrong_credentials' };
    }
    return { ok: true, accountId };
  }

  /**
   * The back-office API's form: the signed-in account, or an ApiError in the Token API format
   * (401 with `WWW-Authenticate: Basic`; 429 with `Retry-After`).
   */
  async accountOf(request: FastifyRequest): Promise<string> {
    const check = await this.check(request);
    if (check.ok) return check.accountId;
    switch (check.refusal) {
      case 'throttled':
        throw new ApiError(429, 'too_many_requests', `too many failed sign-ins, retry in ${check.retryAfter} s`, { 'retry-after': String(check.retryAfter) });
      case 'invalid_text':
        throw new ApiError(400, 'invalid_request', check.message);
      case 'no_credentials':
        throw unauthorized('sign in with HTTP Basic: your merchant dashboard e-mail and password');
      case 'wrong_credentials':
        throw unauthorized('wrong dashboard e-mail or password');
    }
  }
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, 'invalid_client', message, { 'www-authenticate': BACKOFFICE_CHALLENGE, 'cache-control': 'no-store' });
}
