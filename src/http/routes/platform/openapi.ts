import type { App } from '../../types.ts';

/** The OpenAPI 3.1 document, generated from the same schemas that validate requests. */
export function registerOpenApi(app: App): void {
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
