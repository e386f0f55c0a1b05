import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { deriveKey } from '../crypto/keys.ts';
import { newUuid } from '../domain/ids.ts';
import type { Role } from '../domain/roles.ts';
import { findLiveSession, insertSession, revokeSession } from './session-repository.ts';

export const SESSION_COOKIE = 'chipin_dashboard';
/** Absolute lifetime: a back-office session is a working day, then the staff signs in again. */
const SESSION_SECONDS = 12 * 3600;

/** The signed-in user of a valid session. */
export interface DashboardSession {
  id: string;
  accountId: string;
  userId: string;
  /** The user's e-mail and role, read at every request: a role change or removal applies at once. */
  email: string;
  role: Role;
  /** The CSRF token of every form (and of the `X-CSRF-Token` header) of this session. */
  csrf: string;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function hashOf(token: string): Buffer {
  // SHA-256 is enough: the token is 256 random bits, not a password a KDF would have to slow down.
  return createHash('sha256').update(token).digest();
}

/**
 * Back-office sessions, stored server-side (table dashboard_sessions): the cookie carries a random
 * token, the table only its hash, so sign-out (or an operator's UPDATE) ends a session at once.
 * Lookup is by the hash of the token: nothing secret is compared byte by byte, and the CSRF token,
 * an HMAC of the session token, is compared in constant time.
 */
export class DashboardSessions {
  readonly #key: Buffer;

  constructor(
    private readonly db: Database,
    masterKey: Buffer,
  ) {
    this.#key = deriveKey(masterKey, 'dashboard-session');
  }

  /** A new session for the user; the token goes into the cookie and is not kept anywhere. */
  async create(user: { userId: string; accountId: string; email: string; role: Role }): Promise<{ token: string; session: DashboardSession }> {
    const token = randomBytes(32).toString('base64url');
    const id = newUuid();
    await insertSession(this.db, { id, tokenHash: hashOf(token), accountId: user.accountId, userId: user.userId, seconds: SESSION_SECONDS });
    return { token, session: { id, accountId: user.accountId, userId: user.userId, email: user.email, role: user.role, csrf: this.#csrf(token) } };
  }

  /** The session of this cookie value, if it exists, has not expired and was not revoked. */
  async find(token: string | undefined): Promise<DashboardSession | undefined> {
    if (!token || !TOKEN.test(token)) return undefined;
    const row = await findLiveSession(this.db, hashOf(token));
    return row && { id: row.id, accountId: row.account_id, userId: row.user_id, email: row.email, role: row.role, csrf: this.#csrf(token) };
  }

  /** Ends the session (sign-out). Idempotent. */
  async revoke(sessionId: string): Promise<void> {
    await revokeSession(this.db, sessionId);
  }

  /** Whether `given` is the session's CSRF token, in constant time. */
  csrfMatches(session: DashboardSession, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(session.csrf);
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  #csrf(token: string): string {
    return createHmac('sha256', this.#key).update(`dashboard-csrf|${token}`).digest('base64url');
  }
}

/** `Secure` unless the service is served on loopback (local development over plain http). */
export function sessionCookie(token: string, publicUrl: string): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_SECONDS}${secureFlag(publicUrl)}`;
}

export function clearedSessionCookie(publicUrl: string): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secureFlag(publicUrl)}`;
}

function secureFlag(publicUrl: string): string {
  const host = new URL(publicUrl).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' ? '' : '; Secure';
}
