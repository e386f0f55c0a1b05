import { Type } from 'typebox';
import { toPublicId } from '../../../domain/ids.ts';
import type { App } from '../../types.ts';
import { BearerErrors } from '../schemas.ts';

/** Tells an integration which account and key its token speaks for: the cheapest authenticated call. */
export function registerWhoami(app: App): void {
  app.get(
    '/api/whoami',
    {
      config: { auth: 'bearer' },
      schema: {
        tags: ['authentication'],
        summary: 'The account and API key behind the access token',
        security: [{ bearerToken: [] }],
        response: {
          200: Type.Object({
            account_id: Type.String({ examples: ['acc_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
            api_key: Type.String(),
            expires_at: Type.String({ format: 'date-time' }),
          }),
          ...BearerErrors,
        },
      },
    },
    async (request) => {
      const auth = request.auth!;
      return {
        account_id: toPublicId('acc', auth.accountId),
        api_key: auth.apiKey,
        expires_at: new Date(auth.expiresAt * 1000).toISOString(),
      };
    },
  );
}
