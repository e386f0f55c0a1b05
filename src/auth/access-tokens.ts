import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../crypto/keys.ts';

/** Lifetime fixed by the contract. */
export const ACCESS_TOKEN_TTL_SECONDS = 600;

/** Who a valid access token speaks for. */
export interface TokenClaims {
  /** Account uuid (bare). */
  accountId: string;
  /** API key id (`key_<uuid>`) the token was issued to. */
  apiKey: string;
  /** Expiry, Unix seconds. */
  expiresAt: number;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: 'malformed' | 'expired' };

const PREFIX = 'ct1';

/**
 * Self-contained access tokens: `ct1.<payload>.<HMAC-SHA256>` (base64url). Checking one needs
 * no database round trip, and any process sharing the master key accepts it. Revocation is
 * checked separately, against {@link RevokedKeys}.
 */
export class AccessTokens {
  readonly #key: Buffer;
  /**
   * Tokens already verified, so a busy integration's repeated token costs a map lookup instead
   * of an HMAC. Bounded; expiry is still checked on every use; revocation is checked by the caller.
   */
  readonly #verified = new Map<string, TokenClaims>();
  constructor(
    masterKey: Buffer,
    private readonly now: () => number = Date.now,
  ) {
    this.#key = deriveKey(masterKey, 'access-token');
  }

  #mac(signed: string): Buffer {
    return createHmac('sha256', this.#key).update(signed).digest();
  }

  issue(accountId: string, apiKey: string): { token: string; claims: TokenClaims } {
    const expiresAt = Math.floor(this.now() / 1000) + ACCESS_TOKEN_TTL_SECONDS;
    // The nonce makes every token distinct, even two issued in the same second.
    const payload = [accountId, apiKey, expiresAt, randomBytes(9).toString('base64url')].join('|');
    const signed = `${PREFIX}.${Buffer.from(payload).toString('base64url')}`;
    return { token: `${signed}.${this.#mac(signed).toString('base64url')}`, claims: { accountId, apiKey, expiresAt } };
  }

  verify(token: string): TokenCheck {
    const known = this.#verified.get(token);
    if (known) {
      if (known.expiresAt * 1000 > this.now()) return { ok: true, claims: known };
      this.#verified.delete(token);
      return { ok: false, reason: 'expired' };
    }
    const check = this.#verifyMac(token);
    if (check.ok) {
      if (this.#verified.size >= 10_000) this.#verified.delete(this.#verified.keys().next().value!);
      this.#verified.set(token, check.claims);
    }
    return check;
  }

  #verifyMac(token: string): TokenCheck {
    const dot = token.lastIndexOf('.');
    if (dot <= PREFIX.length || !token.startsWith(PREFIX + '.') || token.length > 512) return { ok: false, reason: 'malformed' };
    const signed = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = this.#mac(signed);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'malformed' };
    const [accountId, apiKey, exp] = Buffer.from(signed.slice(PREFIX.length + 1), 'base64url')
      .toString('utf8')
      .split('|');
    const expiresAt = Number(exp);
    if (!accountId || !apiKey || !Number.isSafeInteger(expiresAt)) return { ok: false, reason: 'malformed' };
    if (expiresAt * 1000 <= this.now()) return { ok: false, reason: 'expired' };
    return { ok: true, claims: { accountId, apiKey, expiresAt } };
  }
}
