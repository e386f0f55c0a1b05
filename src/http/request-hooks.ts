import type { Logger } from 'pino';
import type { Services } from '../services.ts';
import { bearerClaims } from './bearer-guard.ts';
import { redactUrl } from './redact.ts';
import type { App } from './types.ts';

/**
 * The hooks every request goes through: the security headers and the bearer check on arrival,
 * `Connection: close` while shutting down, and the access-log line and metrics at the end.
 */
export function registerRequestHooks(app: App, services: Services, security: Readonly<Record<string, string>>): void {
  const { metrics } = services;
  // Hooks on every request are callback-style: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    // The security headers of every answer, in this one place (docs/security.md#security-headers):
    // set before anything can refuse the request, so that refusals carry them too.
    reply.header('x-request-id', request.id).headers(security);
    // An empty (or blank) Content-Type is an absent one, before Fastify picks a body parser: a
    // published plugin's HTTP client sends `Content-Type:` with no value on its JSON posts.
    if (request.headers['content-type']?.trim() === '') delete request.headers['content-type'];
    if (request.routeOptions.config.auth !== 'bearer') return done();
    try {
      request.auth = bearerClaims(request, services.tokens, services.revokedKeys);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  // On shutdown, responses still in flight close their connection: `forceCloseConnections`
  // only closes connections idle when shutdown starts, and a kept-alive one would hold the
  // process until the keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    // Successful requests log at debug: at info, one line per request was the largest cost of
    // an authenticated call (docs/performance.md); metrics count them all by route and status.
    // Refusals log at info, failures at warn, so LOG_LEVEL=info keeps every line worth reading.
    const status = reply.statusCode;
    const level = status >= 500 ? 'warn' : status >= 400 ? 'info' : 'debug';
    // Checked first: at a disabled level, not even the line's object is built.
    if ((request.log as Logger).isLevelEnabled(level)) {
      request.log[level]({ method: request.method, url: redactUrl(request.url), route, status, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request completed');
    }
    done();
  });
}
