import type { FastifyError } from 'fastify';
import { ApiError } from './errors.ts';
import { Catalogue } from '../i18n/catalogue.ts';
import de from '../i18n/catalogues/api-errors/de.json' with { type: 'json' };
import en from '../i18n/catalogues/api-errors/en.json' with { type: 'json' };
import es from '../i18n/catalogues/api-errors/es.json' with { type: 'json' };
import fr from '../i18n/catalogues/api-errors/fr.json' with { type: 'json' };
import it from '../i18n/catalogues/api-errors/it.json' with { type: 'json' };
import nl from '../i18n/catalogues/api-errors/nl.json' with { type: 'json' };
import type { Lang } from '../i18n/lang.ts';
import type { ErrorCode } from './errors.ts';

/**
 * The Token API's `info` by error code: what a shopper or a merchant's staff may read (the
 * contract's "user-facing message, localised"), in the six languages
 * (`src/i18n/catalogues/api-errors/`); the request's language is the purchase's when known, else
 * the browser's (`error-handlers.ts`). `debug`, `message` and `error_description` are for
 * developers and stay English.
 */
const INFO = new Catalogue<ErrorCode>('api-errors', { de, en: en satisfies Record<ErrorCode, string>, es, fr, it, nl });

/** The API families of the contract, each with its own error body. */
export type Family = 'oauth' | 'token' | 'v1';

/** The family of a route template, or of a path without its query string. */
export function familyOf(path: string): Family {
  if (path.startsWith('/api/merchants/v1/') || path === '/api/merchants/v1') return 'v1';
  if (path === '/api/token') return 'oauth';
  return 'token';
}

/**
 * The family of a request: that of the route the router matched (docs/security.md#the-one-path-rule),
 * so `/api/merchants/%761/purchases` answers as `/api/merchants/v1/purchases` does; a request no
 * route matched (a 404, a refusal of the router) by its path as the router decodes it.
 */
export function familyOfRequest(request: { routeOptions: { url?: string }; url: string }): Family {
  return familyOf(request.routeOptions.url ?? decodedPath(request.url));
}

/** The path of a request line's target, without query or fragment, percent-decoded as the router decodes it (`%2F` stays encoded). */
export function decodedPath(target: string): string {
  const path = target.split(/[?#]/, 1)[0] ?? '';
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

export function errorBody(family: Family, err: ApiError, lang: Lang, requestId: string): unknown {
  switch (family) {
    case 'oauth':
      return { error: err.code, error_description: err.status >= 500 ? `${err.message} (request id ${requestId})` : err.message };
    case 'v1':
      return err.status >= 500 ? { error: { code: err.code, message: `${err.message} (request id ${requestId})` } } : { error: { code: err.code, message: err.message } };
    case 'token':
      return {
        error: {
          app_error: err.code,
          debug: err.status >= 500 ? `${err.message} (request id ${requestId})` : err.message,
          info: INFO.text(lang, err.code),
        },
      };
  }
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldPath(instancePath: string, extra?: unknown): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (typeof extra === 'string') parts.push(extra);
  return parts
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : p))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** One sentence naming the offending field, from the first schema violation. */
export function describeValidation(errors: AjvError[], context: string | undefined): string {
  const e = errors[0];
  if (!e) return 'invalid input';
  const where = context === 'body' ? '' : `${context ?? 'input'} `;
  switch (e.keyword) {
    case 'required':
      return `${where}field ${fieldPath(e.instancePath, e.params.missingProperty)} is required`;
    case 'additionalProperties':
      return `${where}field ${fieldPath(e.instancePath, e.params.additionalProperty)} is not allowed`;
    default: {
      const path = fieldPath(e.instancePath);
      return path ? `${where}field ${path} ${e.message ?? 'is invalid'}` : `${context ?? 'input'} ${e.message ?? 'is invalid'}`;
    }
  }
}

/** Bad input, as each family answers it: Merchant API v1 406 `invalid_input`, else 400 `invalid_request`. */
export function inputError(family: Family, message: string): ApiError {
  return family === 'v1' ? new ApiError(406, 'invalid_input', message) : new ApiError(400, 'invalid_request', message);
}

/** Maps framework errors (routing, schema validation, body parsing) to our closed set of codes. */
export function fromFrameworkError(err: FastifyError, family: Family): ApiError {
  if (err.validation) return inputError(family, describeValidation(err.validation as AjvError[], err.validationContext));
  switch (err.code) {
    // The router: a path that is not valid percent-encoded UTF-8 (`%ZZ`, `%C0%AE`).
    case 'FST_ERR_BAD_URL':
      return inputError(family, 'the path is not valid percent-encoded UTF-8');
    // The router: find-my-way does not match a parameter longer than its maxParamLength (100).
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(414, family === 'v1' ? 'invalid_input' : 'invalid_request', 'a path parameter is longer than 100 characters');
    case 'CHIPIN_JSON_TOO_DEEP':
      return inputError(family, err.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return family === 'oauth'
        ? new ApiError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded')
        : new ApiError(415, 'unsupported_media_type', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'payload_too_large', 'request body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return inputError(family, 'request body is not valid JSON');
  }
  if (err instanceof SyntaxError || (err.statusCode === 400 && err.code?.startsWith('FST_ERR_CTP'))) {
    return inputError(family, 'request body could not be parsed');
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError(err.statusCode, 'invalid_request', 'the request could not be processed');
  }
  return new ApiError(500, 'internal_error', 'internal error');
}
