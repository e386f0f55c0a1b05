import type { FastifyError, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { langFromAcceptLanguage, langOf, type Lang } from '../i18n/lang.ts';
import { PspIntegrationError } from '../psp/connector.ts';
import { errorBody, familyOfRequest, fromFrameworkError } from './error-format.ts';
import { ApiError, pspError } from './errors.ts';
import { bodyLimitOf } from './request-input.ts';
import type { App } from './types.ts';

/**
 * A request the database could not serve (a failover, a restart: src/db/unavailable.ts): 503 and
 * Retry-After, never a 500. Not "nothing happened": a request may run several transactions, and
 * a commit may have landed with its answer lost, so a write may have been made. A write is retried
 * with the same Idempotency-Key, which replays it, answers 409 while its first attempt's claim is
 * still leased (up to 10 s), or after the takeover finds the refund or purchase the first attempt committed
 * (docs/api-conventions.md#errors-during-a-failover).
 */
const DATABASE_UNAVAILABLE = new ApiError(
  503,
  'service_unavailable',
  'the database is briefly unavailable (a failover or a restart); a write may or may not have been made: ' +
    'retry it with the same Idempotency-Key, which never makes it twice (409 idempotency_key_in_use for up to 10 s, then its outcome)',
  { 'retry-after': '2' },
);

/**
 * Language of error texts: the purchase's when the handler knew it, else the language a
 * purchase-creating body asks for (its validation fails before the handler runs), else
 * Accept-Language.
 */
function requestLang(request: FastifyRequest): Lang {
  if (request.lang) return request.lang;
  const language = (request.body as { data?: { language?: unknown } } | undefined)?.data?.language;
  if (typeof language === 'string' && /^[a-z]{2}_[A-Z]{2}$/.test(language)) return langOf(language);
  return langFromAcceptLanguage(request.headers['accept-language']);
}

/** What a route's failure and an unknown route answer, in the API family's error format. */
export function registerErrorHandlers(app: App): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const family = familyOfRequest(request);
    const err =
      error instanceof ApiError
        ? error
        : error instanceof PspIntegrationError
          ? pspError(error)
          : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? new ApiError(413, 'payload_too_large', `request body is larger than ${bodyLimitOf(request)} bytes`)
            : isDatabaseUnavailable(error)
              ? DATABASE_UNAVAILABLE
              : fromFrameworkError(error, family);
    if (error instanceof PspIntegrationError) request.log.warn({ psp: error.connector, psp_error: error.code, err: error }, 'PSP fault');
    else if (err === DATABASE_UNAVAILABLE) request.log.warn({ err: error }, 'database unavailable: answered 503, retryable');
    else if (err.status >= 500) request.log.error({ err: error }, 'unhandled error');
    void reply
      .code(err.status)
      .headers(err.headers)
      .header('x-request-id', request.id)
      .send(errorBody(family, err, requestLang(request), request.id));
  });

  app.setNotFoundHandler((request, reply) => {
    const family = familyOfRequest(request);
    const err = new ApiError(404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`);
    const lang = langFromAcceptLanguage(request.headers['accept-language']);
    void reply.code(404).send(errorBody(family, err, lang, request.id));
  });
}
