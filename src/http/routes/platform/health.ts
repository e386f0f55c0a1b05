import { Type } from 'typebox';
import { pendingMigrations } from '../../../db/migrate.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';

const Status = Type.Object({ status: Type.String(), reason: Type.Optional(Type.String()) });

/** Liveness, readiness and Prometheus metrics for the operator. */
export function registerHealth(app: App, { db, metrics }: Services): void {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'Liveness: the process serves requests', security: [], response: { 200: Status } } }, async () => ({
    status: 'ok',
  }));

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the database answers and every migration is applied',
        security: [],
        response: { 200: Status, 503: Status },
      },
    },
    async (request, reply) => {
      try {
        const pending = await pendingMigrations(db);
        if (pending.length > 0) return reply.code(503).send({ status: 'not_ready', reason: `migrations pending: ${pending.join(', ')}` });
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
        return reply.code(503).send({ status: 'not_ready', reason: 'database unreachable' });
      }
    },
  );

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
