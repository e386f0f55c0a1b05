import { Type } from 'typebox';

/** Error body of the Token API family: `{error: {app_error, debug, info}}`. */
export const TokenApiError = Type.Object(
  {
    error: Type.Object({
      app_error: Type.String({ description: 'Machine-readable code' }),
      debug: Type.String({ description: 'Explanation for the developer' }),
      info: Type.String({ description: 'Message for the user, localised (fr, en)' }),
    }),
  },
  { title: 'TokenApiError' },
);

/** Error body of Merchant API v1: `{error: {code, message}}`. */
export const V1Error = Type.Object({ error: Type.Object({ code: Type.String(), message: Type.String() }) }, { title: 'Error' });

/** Error body of POST /api/token (RFC 6749 §5.2). */
export const OAuthError = Type.Object({ error: Type.String(), error_description: Type.Optional(Type.String()) }, { title: 'OAuthError' });

export const BearerErrors = {
  401: { ...TokenApiError, description: 'Missing, malformed, expired or revoked access token (WWW-Authenticate: Bearer error="invalid_token")' },
};
