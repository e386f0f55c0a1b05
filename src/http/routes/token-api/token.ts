import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { apiSecretMatches } from '../../../accounts/api-keys.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../../auth/access-tokens.ts';
import { BUDGETS } from '../../../auth/attempt-budgets.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../errors.ts';
import { findBadText, textProblem } from '../../input-rules.ts';
import type { App } from '../../types.ts';
import { OAuthError } from '../schemas.ts';

const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="chipin", charset="UTF-8"' };

const invalidClient = () => new ApiError(401, 'invalid_client', 'client authentication failed', BASIC_CHALLENGE);

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64; tolerate clients that skip it. */
function formDecode(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, '%20'));
  } catch {
    return part;
  }
}

type TokenBody = { grant_type: string; client_id?: string; client_secret?: string };

/** API key and secret from the Basic header (client_secret_basic) or the body (client_secret_post). */
function clientCredentials(request: FastifyRequest, body: TokenBody): { id: string; secret: string } | undefined {
  const header = request.headers.authorization;
  const inBody = body.client_id !== undefined || body.client_secret !== undefined;
  if (header !== undefined) {
    if (inBody) throw new ApiError(400, 'invalid_request', 'send client credentials in the Authorization header or the body, not both');
    const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
    if (!match?.[1]) return undefined;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  }
  if (body.client_id !== undefined && body.client_secret !== undefined) return { id: body.client_id, secret: body.client_secret };
  return undefined;
}

function throttled(seconds: number): ApiError {
  return new ApiError(429, 'too_many_requests', `too many failed attempts, retry in ${seconds} s`, { 'retry-after': String(seconds) });
}

/** POST /api/token: OAuth 2 client credentials grant (RFC 6749 §4.4). */
export function registerToken(app: App, { accounts, tokens, authBudgets }: Services): void {
  app.post(
    '/api/token',
    {
      schema: {
        tags: ['authentication'],
        summary: 'Obtain an access token (OAuth 2 client credentials)',
        description:
          'HTTP Basic with the API key as user name and the API secret as password, form body `grant_type=client_credentials`. ' +
          'The token is valid for 600 seconds; request a new one when it expires. Repeated failures are throttled (429 with Retry-After).',
        security: [{ apiKeyBasic: [] }],
        // The contract's form body first; a JSON body with the same fields is answered the same way
        // (docs/authentication.md), so clients generated from this document may send either.
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: Type.Object(
          {
            grant_type: Type.String({ description: 'Exactly `client_credentials`', examples: ['client_credentials'] }),
            client_id: Type.Optional(Type.String({ description: 'API key, when not sent with HTTP Basic' })),
            client_secret: Type.Optional(Type.String({ description: 'API secret, when not sent with HTTP Basic' })),
            scope: Type.Optional(Type.String({ description: 'Ignored' })),
          },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Object({
            access_token: Type.String(),
            token_type: Type.Literal('Bearer'),
            expires_in: Type.Integer({ examples: [600] }),
          }),
          400: { ...OAuthError, description: '`invalid_request` or `unsupported_grant_type`' },
          401: { ...OAuthError, description: '`invalid_client`: unknown key, wrong secret or revoked key' },
          429: { ...OAuthError, description: '`too_many_requests`: too many failures for this key or address; see Retry-After' },
        },
      },
    },
    async (request, reply) => {
      const byAddress = { budget: BUDGETS.tokenAddress, subject: request.ip };

      // The text rule (src/http/input-rules.ts) is applied here rather than by the server's hook,
      // so that a credential breaking it counts as a failed attempt: the database never sees it
      // (PostgreSQL refuses a NUL in text) and it cannot be repeated without limit.
      const badField = findBadText(request.body);
      const creds = badField ? undefined : clientCredentials(request, request.body);
      const badCred =
        creds && (textProblem(creds.id) ? `client_id ${textProblem(creds.id)}` : textProblem(creds.secret) ? `client_secret ${textProblem(creds.secret)}` : undefined);
      if (badField || badCred || !creds) {
        const wait = await authBudgets.fail([byAddress]);
        if (wait > 0) throw throttled(wait);
        if (badField) throw new ApiError(400, 'invalid_request', `field ${badField.field} ${badField.problem}`);
        if (badCred) throw new ApiError(400, 'invalid_request', `the ${badCred}`);
        throw invalidClient();
      }

      // The secret (256 random bits, one SHA-256) is compared first; the budgets' answer comes
      // from one atomic statement after it, so guesses sent at once are answered as if sent one
      // by one, and a merchant may ask for tokens on many connections at once
      // (src/auth/attempt-budgets.ts). The budgets are read in the key's own statement: one round
      // trip instead of two on every request.
      const claims = [byAddress, { budget: BUDGETS.tokenKey, subject: creds.id }];
      const budgetRows = authBudgets.rowsOf(claims);
      const key = await accounts.findActiveKey(creds.id, budgetRows);
      if (!key || !apiSecretMatches(creds.secret, key.secretHash)) {
        const wait = await authBudgets.fail(claims);
        throw wait > 0 ? throttled(wait) : invalidClient();
      }
      const wait = authBudgets.waitOf(budgetRows, key.budgets);
      if (wait > 0) throw throttled(wait);
      if (request.body.grant_type !== 'client_credentials') {
        throw new ApiError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
      }

      const { token } = tokens.issue(key.accountId, creds.id);
      void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return { access_token: token, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_TTL_SECONDS };
    },
  );
}
