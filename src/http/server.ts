import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { errorCodes, LogController, type FastifyBaseLogger, type FastifyError, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Socket } from 'node:net';
import type { Services } from '../services.ts';
import { API_DOCS_UI } from './api-docs-page.ts';
import { bearerClaims } from './bearer-guard.ts';
import { decodedPath, errorBody, familyOf, familyOfRequest, fromFrameworkError, inputError, type Family } from './error-format.ts';
import { ApiError, pspError } from './errors.ts';
import { PspIntegrationError } from '../psp/connector.ts';
import { langFromAcceptLanguage, langOf, type Lang } from '../i18n/lang.ts';
import { findBadText, jsonTooDeep, MAX_JSON_DEPTH } from './input-rules.ts';
import { storableDate } from '../domain/dates.ts';
import { requestLogger } from '../observability/request-logger.ts';
import { redactUrl } from './redact.ts';
import { responseSerializer } from './response-serializer.ts';
import { routeAccess, type RouteAccess } from './route-access.ts';
import { securityHeaders } from './security-headers.ts';
import { registerRoutes } from './routes/index.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
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

const VERSION = '0.1.0';
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Schema validators. Bodies are validated strictly: no type coercion ("100" is not an amount)
 * and unknown fields rejected rather than silently dropped. Query strings and path parameters
 * arrive as text, so those coerce.
 */
function validators() {
  const common = { allErrors: false, useDefaults: true, removeAdditional: false as const, strict: false };
  const strict = withStorableDates(addFormats.default(new Ajv({ ...common, coerceTypes: false })));
  const coercing = withStorableDates(addFormats.default(new Ajv({ ...common, coerceTypes: true })));
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) => (httpPart === 'body' ? strict : coercing).compile(schema);
}

/**
 * `date-time` and `date` as ajv-formats checks them, and also an instant JS and PostgreSQL can
 * hold (src/domain/dates.ts): ajv-formats accepts a leap second (`23:59:60Z`, which `new Date`
 * cannot read) and year 0000 (which PostgreSQL has not).
 */
function withStorableDates(ajv: Ajv): Ajv {
  for (const name of ['date-time', 'date'] as const) {
    const base = ajv.formats[name] as { validate: (s: string) => boolean };
    ajv.addFormat(name, { type: 'string', validate: (s: string) => base.validate(s) && storableDate(name === 'date' ? `${s}T00:00:00Z` : s) !== undefined });
  }
  return ajv;
}

/** Bytes of a form-encoded body (POST /api/token, the hosted forms). */
const FORM_BODY_LIMIT = 8 * 1024;
/** Bytes of any other body. */
const BODY_LIMIT = 256 * 1024;

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

/** "querystring field ref contains ...": the part of the request as schema validation names it. */
function located(part: 'params' | 'querystring' | 'body', bad: { field: string; problem: string } | undefined): string | undefined {
  if (!bad) return undefined;
  if (!bad.field) return `request ${part} ${bad.problem}`;
  return `${part === 'body' ? '' : `${part} `}field ${bad.field} ${bad.problem}`;
}

function bodyLimitOf(request: FastifyRequest): number {
  const type = request.headers['content-type'] ?? '';
  return type.startsWith('application/x-www-form-urlencoded') ? FORM_BODY_LIMIT : (request.routeOptions.bodyLimit ?? BODY_LIMIT);
}

/**
 * Refusals the router makes before any route or hook runs (bad percent-encoding, a path parameter
 * over 100 characters; Fastify's `frameworkErrors`): in the API family's format, with a request id
 * and the security headers of every answer (docs/security.md#security-headers).
 */
function routerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, security: Readonly<Record<string, string>>): void {
  void reply.header('x-request-id', request.id).headers(security);
  const family = familyOfRequest(request);
  const err = fromFrameworkError(error, family);
  void reply
    .code(err.status)
    .headers(err.headers)
    .send(errorBody(family, err, langFromAcceptLanguage(request.headers['accept-language']), request.id));
}

/** `METHOD /path HTTP/1.1` at the start of what the client sent, for its API family. */
function familyOfPacket(raw: unknown): Family {
  const line = Buffer.isBuffer(raw) ? raw.subarray(0, 2048).toString('latin1') : '';
  const target = /^[A-Z]+ (\S+)/.exec(line)?.[1];
  return target ? familyOf(decodedPath(target)) : 'token';
}

/**
 * Node's HTTP parser refused the request (Fastify's `clientErrorHandler`): answer in the API
 * family's format with a request id and the security headers of every answer, then close, as
 * Fastify's default handler does.
 */
function clientError(this: { log: FastifyBaseLogger }, err: Error & { code?: string; rawPacket?: unknown }, socket: Socket, security: Readonly<Record<string, string>>): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const id = randomUUID();
  const [status, reason, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'the request took too long to arrive']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'the request headers are larger than 16 KB']
        : [400, 'Bad Request', 'the request is not valid HTTP'];
  const family = familyOfPacket(err.rawPacket);
  const apiError = new ApiError(status, family === 'v1' ? 'invalid_input' : 'invalid_request', message);
  const body = JSON.stringify(errorBody(family, apiError, 'en', id));
  this.log.info({ request_id: id, status, err_code: err.code }, 'request refused by the HTTP parser');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${id}\r\n${Object.entries(security)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** A route as registered: one entry per method, with the auth its config declares and who may call it. */
export interface RegisteredRoute {
  method: string;
  url: string;
  /** `routeOptions.config.auth` (`'bearer'`), undefined for routes that check nothing or check in the handler. */
  auth: string | undefined;
  /** Who may call it and with what (./route-access.ts): the rows of docs/security.md's table. */
  access: RouteAccess;
}

const routeTables = new WeakMap<object, RegisteredRoute[]>();

/**
 * Every route registered on a server built by `buildServer`, in registration order (Fastify's
 * automatic HEAD routes included). Read by the auth sweep test (test/http/auth-sweep.test.ts),
 * which fails when a route is added without being classified there, by the walk of every route
 * with encoded paths (test/http/route-walk.test.ts), and by the test that generates
 * docs/security.md's table of who may call what.
 */
export function registeredRoutes(app: object): readonly RegisteredRoute[] {
  return routeTables.get(app) ?? [];
}

export async function buildServer(services: Services, logger: FastifyServerOptions['loggerInstance']): Promise<App> {
  const { config, metrics } = services;
  const security = securityHeaders(config.publicUrl);
  const app = Fastify({
    loggerInstance: logger,
    // One access-log line per request (onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: BODY_LIMIT,
    childLoggerFactory: requestLogger,
    forceCloseConnections: 'idle',
    frameworkErrors: (error, request, reply) => routerError(error, request, reply, security),
    // Refusals of Node's HTTP parser (malformed request line or header, headers over 16 KB):
    // there is no request object, so the answer is written on the socket here.
    clientErrorHandler: function (this: { log: FastifyBaseLogger }, err, socket) {
      clientError.call(this, err, socket, security);
    },
    // Fastify accepts a hop count at run time; its typings omit numbers.
    trustProxy: config.trustProxy,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Recorded before any plugin or route is registered, so that the list is complete.
  const routeTable: RegisteredRoute[] = [];
  routeTables.set(app, routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of ([] as string[]).concat(route.method)) {
      routeTable.push({ method, url: route.url, auth: route.config?.auth, access: routeAccess(method, route.url, route.config?.auth) });
    }
  });

  app.setValidatorCompiler(validators());
  app.setSerializerCompiler(responseSerializer);
  app.decorateRequest('auth', null);
  app.decorateRequest('lang', null);

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
  // and the form-encoded token endpoint, still get 415 / 400 as before, without reading the body.
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

  // Hooks on every request are callback-style: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    // The security headers of every answer, in this one place (docs/security.md#security-headers):
    // set before anything can refuse the request, so that refusals carry them too.
    reply.header('x-request-id', request.id).headers(security);
    // An empty (or blank) Content-Type is an absent one, before Fastify picks a body parser: a
    // published plugin's HTTP client sends `Content-Type:` with no value on its JSON posts.
    if (request.headers['content-type']?.trim() === '') delete request.headers['content-type'];
    if (request.routeOptions.config.auth !== 'bearer') return done();
    try {
      request.auth = bearerClaims(request, services.tokens, services.revokedKeys);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  // On shutdown, responses still in flight close their connection: `forceCloseConnections`
  // only closes connections idle when shutdown starts, and a kept-alive one would hold the
  // process until the keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    // Successful requests log at debug: at info, one line per request was the largest cost of
    // an authenticated call (docs/performance.md); metrics count them all by route and status.
    // Refusals log at info, failures at warn, so LOG_LEVEL=info keeps every line worth reading.
    const status = reply.statusCode;
    const level = status >= 500 ? 'warn' : status >= 400 ? 'info' : 'debug';
    // Checked first: at a disabled level, not even the line's object is built.
    if ((request.log as Logger).isLevelEnabled(level)) {
      request.log[level]({ method: request.method, url: redactUrl(request.url), route, status, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request completed');
    }
    done();
  });

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
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          apiKeyBasic: { type: 'http', scheme: 'basic', description: 'API key as user name, API secret as password' },
          bearerToken: { type: 'http', scheme: 'bearer', description: 'Access token from POST /api/token (600 s)' },
        },
      },
    },
  });
  await app.register(swaggerUi, API_DOCS_UI);

  registerRoutes(app, services);
  return app;
}
