import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TokenClaims } from '../auth/access-tokens.ts';
import type { Lang } from '../i18n/lang.ts';

/** The Fastify instance every route file registers on, typed by our TypeBox schemas. */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `bearer`: the route needs an access token from POST /api/token. */
    auth?: 'bearer';
    /** A `text/plain` body is read as JSON (src/http/request-input.ts): routes that browsers post to as a CORS simple request. */
    plainTextJson?: boolean;
  }
  interface FastifyRequest {
    /** Set by the bearer guard on routes with `config.auth = 'bearer'`. */
    auth: TokenClaims | null;
    /** Language of user-facing texts: the purchase's when known, else Accept-Language. */
    lang: Lang | null;
  }
}
