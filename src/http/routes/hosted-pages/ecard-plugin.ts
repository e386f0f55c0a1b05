import { pledgBundle } from '../../../sdk/build.ts';
import type { App } from '../../types.ts';

/**
 * The Pledg script (src/sdk/pledg.ts) at the paths of the original provider's plugin.min.js:
 * a shop plugin's script URL is pointed here unchanged but for the host
 * (docs/front-end.md#the-pledg-script-plugins-of-the-original-provider). `master` (production)
 * and `staging` (what a merchant's test shop points at) serve the same bytes; the Chipin they talk
 * to is the origin they are loaded from. These paths are not versioned, so the cache is short.
 * Served to any origin, as chipin.js is. Not in the OpenAPI document.
 */
export function registerEcardPlugin(app: App): void {
  for (const branch of ['master', 'staging']) {
    app.get(`/ecard-plugin/${branch}/plugin.min.js`, { schema: { hide: true } }, async (_request, reply) => {
      const { code, integrity } = pledgBundle();
      return reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('x-chipin-integrity', integrity)
        .send(code);
    });
  }
}
