import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../crypto/keys.ts';

export const CSRF_COOKIE = 'chipin_csrf';
/** A framed form stays valid as long as the cookie would (Max-Age below). */
const FRAME_TOKEN_SECONDS = 86_400;

/**
 * Double-submit CSRF protection for the hosted forms: a random cookie (SameSite=Strict,
 * HttpOnly) and, in the form, an HMAC of that cookie bound to the form's object. A forged
 * cross-site POST has neither the cookie nor a token matching it.
 */
export class Csrf {
  readonly #key: Buffer;
  constructor(masterKey: Buffer) {
    this.#key = deriveKey(masterKey, 'session');
  }

  newCookieValue(): string {
    return randomBytes(24).toString('base64url');
  }

  token(cookie: string, formId: string): string {
    return createHmac('sha256', this.#key).update(`csrf|${cookie}|${formId}`).digest('base64url');
  }

  /**
   * The cookie-less token for a page inside a third-party frame, where browsers withhold our
   * SameSite=Strict cookie: `<expiry seconds>.<HMAC(form id, expiry)>`. It proves the form was
   * issued by us for this purchase or pledge and is recent; the request's fetch metadata must
   * also prove the POST came from our own origin (checked by the caller), since anyone can fetch
   * such a token.
   */
  frameToken(formId: string, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + FRAME_TOKEN_SECONDS;
    return `${expires}.${this.#frameMac(formId, expires)}`;
  }

  verifyFrameToken(formId: string, token: unknown, now = Date.now()): boolean {
    if (typeof token !== 'string') return false;
    const m = /^(\d{10})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!m || Number(m[1]) < now / 1000 || Number(m[1]) > now / 1000 + FRAME_TOKEN_SECONDS) return false;
    const expected = Buffer.from(this.#frameMac(formId, Number(m[1])));
    const given = Buffer.from(m[2]!);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #frameMac(formId: string, expires: number): string {
    return createHmac('sha256', this.#key).update(`csrf-frame|${formId}|${expires}`).digest('base64url');
  }

  verify(cookie: string | undefined, formId: string, token: unknown): boolean {
    if (!cookie || typeof token !== 'string') return false;
    const expected = Buffer.from(this.token(cookie, formId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

export function csrfCookieHeader(value: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=86400${secure ? '; Secure' : ''}`;
}
