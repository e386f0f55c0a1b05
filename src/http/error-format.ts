import type { FastifyError } from 'fastify';
import { ApiError } from './errors.ts';
import type { Lang } from '../i18n/lang.ts';
import { infoText } from './error-texts.ts';

/** The API families of the contract, each with its own error body. */
export type Family = 'oauth' | 'token' | 'v1';

export function familyOf(url: string): Family {
  if (url.startsWith('/api/merchants/v1/') || url === '/api/merchants/v1') return 'v1';
  if (url === '/api/token' || url.startsWith('/api/token?')) return 'oauth';
  return 'token';
}

export function errorBody(family: Family, err: ApiError, lang: Lang, requestId: string): unknown {
  switch (family) {
    case 'oauth':
      return { error: err.code, error_description: err.message };
    case 'v1':
      return err.status >= 500
        ? { error: { code: err.code, message: `${err.message} (request id ${requestId})` } }
        : { error: { code: err.code, message: err.message } };
    case 'token':
      return {
        error: {
          app_error: err.code,
          debug: err.status >= 500 ? `${err.message} (request id ${requestId})` : err.message,
          info: infoText(err.code, lang),
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
  return parts.map((p) => (/^\d+$/.test(p) ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
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

/** Maps framework errors (schema validation, body parsing) to our closed set of codes. */
export function fromFrameworkError(err: FastifyError, family: Family): ApiError {
  if (err.validation) {
    const message = describeValidation(err.validation as AjvError[], err.validationContext);
    return family === 'v1' ? new ApiError(406, 'invalid_input', message) : new ApiError(400, 'invalid_request', message);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return family === 'oauth'
        ? new ApiError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded')
        : new ApiError(415, 'unsupported_media_type', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'payload_too_large', 'request body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(family === 'v1' ? 406 : 400, family === 'v1' ? 'invalid_input' : 'invalid_request', 'request body is not valid JSON');
  }
  if (err instanceof SyntaxError || (err.statusCode === 400 && err.code?.startsWith('FST_ERR_CTP'))) {
    return new ApiError(family === 'v1' ? 406 : 400, family === 'v1' ? 'invalid_input' : 'invalid_request', 'request body could not be parsed');
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError(err.statusCode, 'invalid_request', 'the request could not be processed');
  }
  return new ApiError(500, 'internal_error', 'internal error');
}
