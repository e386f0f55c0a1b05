import { errorCodes, type FastifyRequest } from 'fastify';
import { familyOf, familyOfRequest, inputError } from './error-format.ts';
import { findBadText, jsonTooDeep, MAX_JSON_DEPTH } from './input-rules.ts';
import type { App } from './types.ts';

/** Bytes of a form-encoded body (POST /api/token, the hosted forms). */
const FORM_BODY_LIMIT = 8 * 1024;
/** Bytes of any other body. */
export const BODY_LIMIT = 256 * 1024;

/** "querystring field ref contains ...": the part of the request as schema validation names it. */
function located(part: 'params' | 'querystring' | 'body', bad: { field: string; problem: string } | undefined): string | undefined {
  if (!bad) return undefined;
  if (!bad.field) return `request ${part} ${bad.problem}`;
  return `${part === 'body' ? '' : `${part} `}field ${bad.field} ${bad.problem}`;
}

/** The limit the refused body went over: the form-encoded one, else the route's own or the default. */
export function bodyLimitOf(request: FastifyRequest): number {
  const type = request.headers['content-type'] ?? '';
  return type.startsWith('application/x-www-form-urlencoded') ? FORM_BODY_LIMIT : (request.routeOptions.bodyLimit ?? BODY_LIMIT);
}

/**
 * How a request's body is read, and the text rule checked on every part of it before validation:
 * the body parsers of each content type the API families take (docs/api-conventions.md#input).
 */
export function registerRequestInput(app: App): void {
  // OAuth 2 token requests are form-encoded (RFC 6749 §4.4.2). A parameter given twice is
  // kept as an array, which the schema then rejects (§3.2: parameters MUST NOT repeat).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) => {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of new URLSearchParams(body as string)) {
      const prev = out[k];
      out[k] = prev === undefined ? v : ([] as string[]).concat(prev, v);
    }
    done(null, out);
  });

  // A POST without a body but with `Content-Type: application/json` (abort, say) is common in
  // HTTP clients; treat the empty body as absent instead of failing the JSON parse.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  // Checked on the text, before parsing: no recursive code ever meets a deeper value.
  const parseJson: typeof defaultJson = (req, text, done) => {
    if (jsonTooDeep(text))
      return done(Object.assign(new Error(`request body nests deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 400, code: 'CHIPIN_JSON_TOO_DEEP' }), undefined);
    defaultJson(req, text, done);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(req, body as string, done);
  });

  // The text rule (src/http/input-rules.ts), before validation and so before any handler or
  // database call: NUL and unpaired surrogates are refused, naming the field. POST /api/token
  // applies it in its handler instead, where a credential that breaks it counts as a failed
  // attempt for the throttle.
  app.addHook('preValidation', (request, _reply, done) => {
    const family = familyOfRequest(request);
    if (family === 'oauth') return done();
    const bad = located('params', findBadText(request.params)) ?? located('querystring', findBadText(request.query)) ?? located('body', findBadText(request.body));
    done(bad ? inputError(family, bad) : undefined);
  });

  // A JSON body sent WITHOUT any Content-Type header (a published merchant plugin posts its
  // schedule simulation that way; an empty header counts as none, see the onRequest hook) is read as JSON on the JSON API routes. Fastify hands such
  // requests, and those of a type no parser knows, to this catch-all: an explicit other type,
  // and the form-encoded token endpoint, get 415 / 400, without reading the body.
  app.addContentTypeParser('*', (req, payload, done) => {
    if (req.is404) return done(null, undefined);
    const type = req.headers['content-type'];
    const route = req.routeOptions.url ?? '';
    if (type !== undefined || !route.startsWith('/api/') || familyOf(route) === 'oauth') {
      return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(type ?? ''), undefined);
    }
    readJson(req, payload, done);
  });

  // text/plain is what a browser sends with a string body when the page sets no type, which keeps
  // a cross-origin POST a CORS "simple request" (no preflight): the published shop plugins post
  // their schedule simulation from the checkout page that way. Read as JSON only on the routes
  // that say so (`config.plainTextJson`); elsewhere 415 like any other type, the body unread
  // (docs/api-conventions.md#input). Fastify's own text/plain parser (a string) goes.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', (req, payload, done) => {
    if (req.is404) return done(null, undefined);
    if (req.routeOptions.config.plainTextJson !== true) return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(req.headers['content-type'] ?? ''), undefined);
    readJson(req, payload, done);
  });

  /** The body as JSON, streamed up to the body limit; an empty or blank body is absent. */
  function readJson(req: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: unknown) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      done(err, undefined);
    };
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > app.initialConfig.bodyLimit!) fail(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      else if (!settled) chunks.push(chunk);
    });
    payload.on('error', fail);
    payload.on('end', () => {
      if (settled) return;
      settled = true;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      parseJson(req, text, done);
    });
  }
}
