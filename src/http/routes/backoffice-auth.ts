import type { FastifyRequest } from 'fastify';
import { FailureThrottle } from '../../auth/failure-throttle.ts';
import { generatePassword, hashPassword, verifyPassword } from '../../crypto/passwords.ts';
import type { Database } from '../../db/database.ts';
import { ApiError } from '../errors.ts';

/**
 * Merchant dashboard credentials (HTTP Basic: dashboard e-mail and password, DESIGN §7), shared
 * by the back-office API and the sandbox inbox page.
 */

/** `user:password` of a Basic header (RFC 7617, UTF-8), or undefined. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = header && /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon).trim(), password: decoded.slice(colon + 1) };
}

let dummyHash: Promise<string> | undefined;

/**
 * The account of the dashboard user named in the Basic header, or undefined. An unknown e-mail
 * costs one scrypt as a known one does, so response times do not tell which e-mails exist.
 */
export async function dashboardAccount(db: Database, creds: { user: string; password: string }): Promise<string | undefined> {
  if (creds.user.length > 254 || creds.password.length > 1024) return undefined;
  const { rows } = await db.query<{ account_id: string; password_hash: string }>(
    'SELECT account_id, password_hash FROM dashboard_users WHERE lower(email) = lower($1)',
    [creds.user],
  );
  const row = rows[0];
  if (!row) {
    await verifyPassword(creds.password, await (dummyHash ??= hashPassword(generatePassword())));
    return undefined;
  }
  return (await verifyPassword(creds.password, row.password_hash)) ? row.account_id : undefined;
}

const BACKOFFICE_CHALLENGE = 'Basic realm="Chipin back office", charset="UTF-8"';

/**
 * The back-office guard: the account of the request's dashboard credentials, or an ApiError in
 * the Token API format (401 with `WWW-Authenticate: Basic`; 429 with `Retry-After` once an
 * address or a user has failed too often, since each try costs one scrypt).
 */
export class DashboardGuard {
  readonly #byUser = new FailureThrottle(5, 60_000);
  readonly #byAddress = new FailureThrottle(20, 60_000);

  constructor(private readonly db: Database) {}

  async accountOf(request: FastifyRequest): Promise<string> {
    const wait = this.#byAddress.retryAfter(request.ip);
    if (wait > 0) throw tooMany(wait);
    const creds = basicCredentials(request.headers.authorization);
    if (!creds) throw unauthorized('sign in with HTTP Basic: your merchant dashboard e-mail and password');
    const userKey = creds.user.toLowerCase();
    const userWait = this.#byUser.retryAfter(userKey);
    if (userWait > 0) throw tooMany(userWait);
    const accountId = await dashboardAccount(this.db, creds);
    if (!accountId) {
      this.#byAddress.fail(request.ip);
      this.#byUser.fail(userKey);
      throw unauthorized('wrong dashboard e-mail or password');
    }
    return accountId;
  }
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, 'invalid_client', message, { 'www-authenticate': BACKOFFICE_CHALLENGE, 'cache-control': 'no-store' });
}

function tooMany(seconds: number): ApiError {
  return new ApiError(429, 'too_many_requests', `too many failed sign-ins, retry in ${seconds} s`, { 'retry-after': String(seconds) });
}
