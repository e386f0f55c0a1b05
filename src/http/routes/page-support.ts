import type { FastifyReply, FastifyRequest } from 'fastify';
import { Csrf, CSRF_COOKIE, csrfCookieHeader, readCookie } from '../../pages/csrf.ts';
import { pageCsp } from '../../pages/html.ts';
import type { Services } from '../../services.ts';

/**
 * Headers of every hosted page: our CSP, no sniffing, no caching of personal pages. A purchase
 * page may be embedded by the merchant's own site: the origin of its callback URL.
 */
export function pageHeaders(reply: FastifyReply, callbackUrl?: string | null): FastifyReply {
  let embedder: string | undefined;
  try {
    embedder = callbackUrl ? new URL(callbackUrl).origin : undefined;
  } catch {
    embedder = undefined;
  }
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', pageCsp(embedder))
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store');
}

/** CSRF tokens for the hosted forms, with the cookie they are bound to. */
export function csrfFor(services: Services) {
  const csrf = new Csrf(services.config.masterKey);
  const secure = services.config.publicUrl.startsWith('https:');
  return {
    tokenFor(request: FastifyRequest, reply: FastifyReply, formId: string): string {
      let cookie = readCookie(request.headers.cookie, CSRF_COOKIE);
      if (!cookie || !/^[A-Za-z0-9_-]{32}$/.test(cookie)) {
        cookie = csrf.newCookieValue();
        void reply.header('set-cookie', csrfCookieHeader(cookie, secure));
      }
      return csrf.token(cookie, formId);
    },
    verify(request: FastifyRequest, formId: string, token: unknown): boolean {
      return csrf.verify(readCookie(request.headers.cookie, CSRF_COOKIE), formId, token);
    },
  };
}
