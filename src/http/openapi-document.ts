import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { API_DOCS_UI } from './api-docs-page.ts';
import type { App } from './types.ts';

const VERSION = '0.1.0';

/** The OpenAPI 3.1 document, generated from the routes' schemas, and its reading page. */
export async function registerApiDocs(app: App, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Chipin',
        version: VERSION,
        description:
          'Shared payments, installments and deferred payment. Token API (`/api/...`) and Merchant API v1 (`/api/merchants/v1/...`). ' +
          'Obtain an access token from `POST /api/token` with your API key and secret, then send `Authorization: Bearer <token>`.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          apiKeyBasic: { type: 'http', scheme: 'basic', description: 'API key as user name, API secret as password' },
          bearerToken: { type: 'http', scheme: 'bearer', description: 'Access token from POST /api/token (600 s)' },
        },
      },
    },
  });
  await app.register(swaggerUi, API_DOCS_UI);
}
