import { Type } from 'typebox';
import { pendingMigrations } from '../../../db/migrate.ts';
import { mainListenerMetrics, METRICS_CHALLENGE, MetricsToken } from '../../../observability/metrics-access.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../errors.ts';
import type { App } from '../../types.ts';

const Status = Type.Object({ status: Type.String(), reason: Type.Optional(Type.String()) });

/** Liveness, readiness and Prometheus metrics for the operator. */
export function registerHealth(app: App, { db, metrics, config, readiness }: Services): void {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'Liveness: the process serves requests', security: [], response: { 200: Status } } }, async () => ({
    status: 'ok',
  }));

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the process takes new requests (not draining before a shutdown, no migration of its build pending)',
        description:
          'A database it cannot reach does not make it unready: every request then answers 503 with Retry-After itself, and this answers 200 with `reason` saying so (docs: deployment.md#draining).',
        security: [],
        response: { 200: Status, 503: Status },
      },
    },
    async (request, reply) => {
      if (readiness.draining) return reply.code(503).send({ status: 'draining', reason: 'shutting down: finishing in-flight requests' });
      try {
        const pending = await pendingMigrations(db);
        if (pending.length > 0) return reply.code(503).send({ status: 'not_ready', reason: `migrations pending: ${pending.join(', ')}` });
        return { status: 'ready' };
      } catch (err) {
        // Its own answers say it (503 with Retry-After); taking every process out of the balancer
        // at once would only replace them with the balancer's (docs/deployment.md#draining).
        request.log.warn({ err }, 'readiness: database unreachable');
        return { status: 'ready', reason: 'database unreachable: requests answer 503 with Retry-After until it is back' };
      }
    },
  );

  // Decided here, on the matched route, never on the request's URL: every spelling the router
  // takes for /metrics (a query string, percent-encoding) meets the same rule
  // (docs/deployment.md#metrics-and-alerts).
  const access = mainListenerMetrics(config);
  const token = access === 'token' && config.metricsToken ? new MetricsToken(config.metricsToken) : undefined;
  const refused = new ApiError(401, 'invalid_token', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', { 'www-authenticate': METRICS_CHALLENGE });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (access === 'elsewhere' || access === 'off') {
      reply.callNotFound();
      return reply;
    }
    if (token && !token.accepts(request.headers.authorization)) throw refused;
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
