import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { deriveKey } from '../crypto/keys.ts';
import { newUuid } from '../domain/ids.ts';
import { identityOf, type ShopperIdentity } from './identity.ts';
import { findLiveShopperSession, insertShopperSession, revokeShopperSession } from './session-repository.ts';

export const SHOPPER_SESSION_COOKIE = 'chipin_space';
/**
 * Absolute lifetime: long enough to read a plan and pay an installment, short enough on a phone
 * that is lent or shared; then the shopper asks for a new link.
 */
export const SHOPPER_SESSION_SECONDS = 2 * 3600;

/** A signed-in shopper. */
export interface ShopperSession {
  sessionId: string;
  identity: ShopperIdentity;
  /** The CSRF token of every form of this session. */
  csrf: string;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function sha256(text: string): Buffer {
  // Enough for 256 random bits (not a password a KDF would have to slow down).
  return createHash('sha256').update(text).digest();
}

/**
 * Sessions of the shopper's space, as the back office's (src/staff/sessions.ts): stored
 * server-side (shopper_sessions), the cookie a random token, the table its hash; the CSRF token
 * an HMAC of the session token, compared in constant time. Times are the service clock's.
 */
export class ShopperSessions {
  readonly #key: Buffer;

  constructor(
    private readonly db: Database,
    masterKey: Buffer,
    private readonly clock: Clock,
  ) {
    this.#key = deriveKey(masterKey, 'shopper-session');
  }

  /** A new session; the token goes into the cookie and is kept nowhere. */
  async create(identity: ShopperIdentity): Promise<{ token: string; session: ShopperSession }> {
    const token = randomBytes(32).toString('base64url');
    const id = newUuid();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + SHOPPER_SESSION_SECONDS * 1000);
    await insertShopperSession(this.db, { id, tokenHash: sha256(token), kind: identity.kind, identity: identity.value, now, expiresAt });
    return { token, session: { sessionId: id, identity, csrf: this.#csrf(token) } };
  }

  /** The session of this cookie value, if it exists, has not expired and was not revoked. */
  async find(token: string | undefined): Promise<ShopperSession | undefined> {
    if (!token || !TOKEN.test(token)) return undefined;
    const row = await findLiveShopperSession(this.db, sha256(token), this.clock.now());
    return row && { sessionId: row.id, identity: identityOf(row.identity_kind, row.identity), csrf: this.#csrf(token) };
  }

  /** Ends the session (sign-out). Idempotent. */
  async revoke(sessionId: string): Promise<void> {
    await revokeShopperSession(this.db, sessionId, this.clock.now());
  }

  /** Whether `given` is the session's CSRF token, in constant time. */
  csrfMatches(session: ShopperSession, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(session.csrf);
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  #csrf(token: string): string {
    return createHmac('sha256', this.#key).update(`shopper-csrf|${token}`).digest('base64url');
  }
}
