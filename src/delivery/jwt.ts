import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Compact JWS with HS256 (RFC 7515 / 7519), the only algorithm the contract uses (the
 * front-end result; `trigger_capture` signatures). Hand-rolled on node:crypto: a dozen lines do
 * not justify a dependency, and accepting one fixed algorithm closes the `alg` confusion holes
 * general libraries must guard against. Pure.
 */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function mac(input: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(input, 'utf8').digest();
}

export function signHs256(payload: Readonly<Record<string, unknown>>, secret: string): string {
  const input = `${HEADER}.${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')}`;
  return `${input}.${mac(input, secret).toString('base64url')}`;
}

/**
 * The payload of a token signed with `secret` under HS256, or undefined when it is malformed,
 * uses another algorithm, or its signature does not match. Claims (`exp`, ...) are the caller's,
 * or {@link verifyHs256Claims}'.
 */
export function verifyHs256(token: string, secret: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  try {
    const h = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown };
    if (h.alg !== 'HS256') return undefined;
    const given = Buffer.from(signature, 'base64url');
    const expected = mac(`${header}.${payload}`, secret);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const body: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Why a token was refused by {@link verifyHs256Claims}. */
export type JwtRefusal = 'invalid' | 'expired' | 'not_yet_valid';

/**
 * {@link verifyHs256}, then its time claims at `now`: `exp` (RFC 7519 §4.1.4) and `nbf` (§4.1.5)
 * when present, each a number of seconds, with `leewaySeconds` of clock skew between the
 * signer and us. A time claim that is not a number makes the token invalid.
 */
export function verifyHs256Claims(
  token: string,
  secret: string,
  now: Date,
  leewaySeconds = 30,
): { ok: true; payload: Record<string, unknown> } | { ok: false; reason: JwtRefusal } {
  const payload = verifyHs256(token, secret);
  if (!payload) return { ok: false, reason: 'invalid' };
  const t = now.getTime() / 1000;
  const { exp, nbf } = payload;
  if ((exp !== undefined && typeof exp !== 'number') || (nbf !== undefined && typeof nbf !== 'number')) return { ok: false, reason: 'invalid' };
  if (typeof exp === 'number' && t > exp + leewaySeconds) return { ok: false, reason: 'expired' };
  if (typeof nbf === 'number' && t < nbf - leewaySeconds) return { ok: false, reason: 'not_yet_valid' };
  return { ok: true, payload };
}

/**
 * The payload of a compact JWS read WITHOUT checking its signature: only to learn which key
 * verifies it (the offer a signed direct call names). Nothing read here may be trusted before
 * {@link verifyHs256} accepted the token with that key.
 */
export function unverifiedPayload(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const body: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
