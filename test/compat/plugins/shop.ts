/**
 * What the re-stated plugin handlers share: a shop's order as the plugin sees it, and the answer
 * its notification controller gives. Each plugin's file re-states that plugin's own decision
 * logic (its PHP), citing file and line of the repository and commit named in
 * test/compat/README.md; nothing here is Chipin's code.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface HandlerAnswer {
  status: number;
  body: string;
}

/** One notification as the plugin's controller saw it, and what it did. */
export interface Handled {
  path: string;
  body: string;
  answer: HandlerAnswer;
  /** What the order became, e.g. `paid`, `cancelled`, `failed`, `unchanged`. */
  effect: string;
}

export const json = (status: number, value: unknown): HandlerAnswer => ({ status, body: JSON.stringify(value) });

/** PHP's `strtoupper(hash('sha256', $s))`. */
export const sha256Upper = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex').toUpperCase();

/** PHP's string conversion of a decoded JSON value, as `'key=' . $value` does it. */
export function phpString(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (v === true) return '1';
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : 'Array';
}

/** firebase/php-jwt 5 `JWT::decode($jwt, $key, ['HS256'])`: header alg HS256, signature, exp/nbf with no leeway. Answers the claims or throws. */
export function phpJwtDecode(token: string, secret: string, nowSeconds: number): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error('Wrong number of segments');
  const [h, p, s] = parts as [string, string, string];
  const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: string };
  if (header.alg !== 'HS256') throw new Error('Algorithm not allowed');
  const expected = createHmac('sha256', secret).update(`${h}.${p}`).digest();
  const given = Buffer.from(s, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error('Signature verification failed');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
  if (typeof claims.nbf === 'number' && claims.nbf > nowSeconds) throw new Error('Cannot handle token prior to nbf');
  if (typeof claims.exp === 'number' && nowSeconds >= claims.exp) throw new Error('Expired token');
  return claims;
}
