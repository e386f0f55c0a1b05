import type { FastifyReply } from 'fastify';
import { sdkBundle } from '../../../sdk/build.ts';
import type { App } from '../../types.ts';

/**
 * chipin.js for merchants' pages (docs/front-end.md). `/sdk/v1/chipin.js` is the versioned,
 * immutable copy a shop pins with its SRI hash; `/sdk/chipin.js` is the same script under a short
 * cache, for trying things out. Served to any origin (CORS), since `<script integrity>` on another
 * origin needs a CORS-enabled answer (`crossorigin="anonymous"`). Not in the OpenAPI document.
 */
export function registerSdk(app: App): void {
  const send = (reply: FastifyReply, cache: string) => {
    const { code, integrity } = sdkBundle();
    return reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', cache)
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-chipin-integrity', integrity)
      .send(code);
  };
  app.get('/sdk/v1/chipin.js', { schema: { hide: true } }, async (_request, reply) => send(reply, 'public, max-age=31536000, immutable'));
  app.get('/sdk/chipin.js', { schema: { hide: true } }, async (_request, reply) => send(reply, 'public, max-age=300'));
}
