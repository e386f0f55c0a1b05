import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { errorCodes, LogController, type FastifyError, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Services } from '../services.ts';
import { bearerClaims } from './bearer-guard.ts';
import { errorBody, familyOf, fromFrameworkError } from './error-format.ts';
import { ApiError } from './errors.ts';
import { langFromAcceptLanguage, langOf, type Lang } from '../i18n/lang.ts';
import { redactUrl } from './redact.ts';
import { registerRoutes } from './routes/index.ts';
import type { App } from './types.ts';

const VERSION = '0.1.0';
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Schema validators. Bodies are validated strictly: no type coercion ("100" is not an amount)
 * and unknown fields rejected rather than silently dropped. Query strings and path parameters
 * arrive as text, so those coerce.
 */
function validators() {
  const common = { allErrors: false, useDefaults: true, removeAdditional: false as const, strict: false };
  const strict = addFormats.default(new Ajv({ ...common, coerceTypes: false }));
  const coercing = addFormats.default(new Ajv({ ...common, coerceTypes: true }));
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema);
}

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

/** A route as registered: one entry per method, with the auth its config declares. */
export interface RegisteredRoute {
  method: string;
  url: string;
  /** `routeOptions.config.auth` (`'bearer'`), undefined for routes that check nothing or check in the handler. */
  auth: string | undefined;
}

const routeTables = new WeakMap<object, RegisteredRoute[]>();

/**
 * Every route registered on a server built by `buildServer`, in registration order (Fastify's
 * automatic HEAD routes included). Read by the auth sweep test (test/http/auth-sweep.test.ts),
 * which fails when a route is added without being classified there.
 */
export function registeredRoutes(app: object): readonly RegisteredRoute[] {
  return routeTables.get(app) ?? [];
}

export async function buildServer(services: Services, logger: FastifyServerOptions['loggerInstance']): Promise<App> {
  const { config, metrics } = services;
  const app = Fastify({
    loggerInstance: logger,
    // One access-log line per request (onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: 256 * 1024,
    forceCloseConnections: 'idle',
    // Fastify accepts a hop count at run time; its typings omit numbers.
    trustProxy: config.trustProxy as boolean | string,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Recorded before any plugin or route is registered, so that the list is complete.
  const routeTable: RegisteredRoute[] = [];
  routeTables.set(app, routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of ([] as string[]).concat(route.method)) routeTable.push({ method, url: route.url, auth: route.config?.auth });
  });

  app.setValidatorCompiler(validators());
  app.decorateRequest('auth', null);
  app.decorateRequest('lang', null);

  // OAuth 2 token requests are form-encoded (RFC 6749 §4.4.2). A parameter given twice is
  // kept as an array, which the schema then rejects (§3.2: parameters MUST NOT repeat).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 8 * 1024 }, (_req, body, done) => {
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
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    defaultJson(req, body as string, done);
  });

  // A JSON body sent WITHOUT any Content-Type header (a published merchant plugin posts its
  // schedule simulation that way) is read as JSON on the JSON API routes. Fastify hands such
  // requests, and those of a type no parser knows, to this catch-all: an explicit other type,
  // and the form-encoded token endpoint, still get 415 / 400 as before, without reading the body.
  app.addContentTypeParser('*', (req, payload, done) => {
    if (req.is404) return done(null, undefined);
    const type = req.headers['content-type'];
    if (type !== undefined || !req.url.startsWith('/api/') || familyOf(req.url) === 'oauth') {
      return done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(type ?? ''), undefined);
    }
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
      defaultJson(req, text, done);
    });
  });

  // Hooks on every request are callback-style: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
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
    const family = familyOf(request.url);
    const err = error instanceof ApiError ? error : fromFrameworkError(error, family);
    if (err.status >= 500) request.log.error({ err: error }, 'unhandled error');
    void reply.code(err.status).headers(err.headers).send(errorBody(family, err, requestLang(request), request.id));
  });

  app.setNotFoundHandler((request, reply) => {
    const family = familyOf(request.url);
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
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true } });

  registerRoutes(app, services);
  return app;
}
