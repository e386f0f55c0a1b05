import type { FastifyReply, FastifyRequest } from 'fastify';
import { Csrf, CSRF_COOKIE, csrfCookieHeader, readCookie } from '../../../pages/csrf.ts';
import { pageCsp } from '../../../pages/html.ts';
import type { Services } from '../../../services.ts';

/**
 * Headers of every hosted page: our CSP, no caching of personal pages (no sniffing and no
 * referrer: every answer's, docs/security.md#security-headers). A purchase page may be embedded
 * by the merchant's own site: its merchant origin (docs/plugin-integration.md#the-merchant-origin),
 * else the origin of its callback URL; `embedderUrl` is either, a URL or an origin. `stylesheetUrl`:
 * the offer's `css_url`, whose origin the CSP lets serve the page's styles.
 */
export function pageHeaders(reply: FastifyReply, embedderUrl?: string | null, stylesheetUrl?: string | null): FastifyReply {
  let embedder: string | undefined;
  try {
    embedder = embedderUrl ? new URL(embedderUrl).origin : undefined;
  } catch {
    embedder = undefined;
  }
  return reply.type('text/html; charset=utf-8').header('content-security-policy', pageCsp(embedder, stylesheetUrl)).header('cache-control', 'no-store');
}

/** CSRF tokens for the hosted forms, with the cookie they are bound to. */
export function csrfFor(services: Services) {
  const csrf = new Csrf(services.config.masterKey);
  const secure = services.config.publicUrl.startsWith('https:');
  const ownOrigin = new URL(services.config.publicUrl).origin;
  return {
    tokenFor(request: FastifyRequest, reply: FastifyReply, formId: string): string {
      let cookie = readCookie(request.headers.cookie, CSRF_COOKIE);
      if (!cookie || !/^[A-Za-z0-9_-]{32}$/.test(cookie)) {
        cookie = csrf.newCookieValue();
        void reply.header('set-cookie', csrfCookieHeader(cookie, secure));
      }
      return csrf.token(cookie, formId);
    },
    /** The cookie-less token of the same form (`csrf_frame`), for when the page is in a third-party frame. */
    frameTokenFor(formId: string): string {
      return csrf.frameToken(formId);
    },
    /**
     * A form POST is ours when (1) the browser's fetch metadata, if sent, says it came from our
     * own origin (a cross-site or same-site POST is refused even with a valid cookie), and (2)
     * either the cookie-bound token matches (top-level pages, browsers without fetch metadata),
     * or the cookie-less frame token is valid and the request is provably same-origin
     * (`Sec-Fetch-Site: same-origin`, or an `Origin` equal to ours): inside a merchant's frame
     * the browser withholds our SameSite=Strict cookie, but still tells where the POST came from.
     */
    verify(request: FastifyRequest, formId: string, form: Record<string, unknown>): boolean {
      const site = request.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin') return false;
      if (csrf.verify(readCookie(request.headers.cookie, CSRF_COOKIE), formId, form.csrf)) return true;
      const sameOrigin = site === 'same-origin' || request.headers.origin === ownOrigin;
      return sameOrigin && csrf.verifyFrameToken(formId, form.csrf_frame);
    },
  };
}
