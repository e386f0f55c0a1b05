/**
 * HSTS's lifetime: a year, the value browsers' preload lists ask for at the least, without the
 * `preload` token (that is the operator's choice for the whole domain). `includeSubDomains`: the
 * hosts under the service's own (`PUBLIC_URL`'s host) are https too
 * (docs/security.md#security-headers).
 */
const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * The headers every answer of the service carries, pages, documents and API answers alike, set
 * in one place: the server's first `onRequest` hook (and its refusals made before any hook):
 *
 * - `X-Content-Type-Options: nosniff`: a browser takes an answer for its declared type only;
 * - `Referrer-Policy: no-referrer`: no page of ours tells where the browser came from (a payment
 *   or sign-in link carries its capability in its path);
 * - `Strict-Transport-Security` ({@link HSTS}) when `PUBLIC_URL` is https: a browser that once
 *   reached the service never again asks for it over plain http; none when it is http
 *   (development, a sandbox on loopback), where it would mean nothing.
 *
 * Each page family keeps its own Content-Security-Policy and framing rule beside its pages
 * (docs/security.md#content-security-policy).
 */
export function securityHeaders(publicUrl: string): Readonly<Record<string, string>> {
  return Object.freeze({
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    ...(new URL(publicUrl).protocol === 'https:' ? { 'strict-transport-security': HSTS } : {}),
  });
}
