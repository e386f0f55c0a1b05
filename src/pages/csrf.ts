import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../crypto/keys.ts';

export const CSRF_COOKIE = 'chipin_csrf';

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
