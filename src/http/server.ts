import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Socket } from 'node:net';
import type { Services } from '../services.ts';
import { decodedPath, errorBody, familyOf, familyOfRequest, fromFrameworkError, type Family } from './error-format.ts';
import { ApiError } from './errors.ts';
import { langFromAcceptLanguage } from '../i18n/lang.ts';
import { storableDate } from '../domain/dates.ts';
import { requestLogger } from '../observability/request-logger.ts';
import { responseSerializer } from './response-serializer.ts';
import { routeAccess, type RouteAccess } from './route-access.ts';
import { securityHeaders } from './security-headers.ts';
import { registerRoutes } from './routes/index.ts';
import { lazyValidator } from './lazy-compile.ts';
import { registerApiDocs } from './openapi-document.ts';
import { registerErrorHandlers } from './error-handlers.ts';
import { registerRequestHooks } from './request-hooks.ts';
import { BODY_LIMIT, registerRequestInput } from './request-input.ts';
import type { App } from './types.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Schema validators. Bodies are validated strictly: no type coercion ("100" is not an amount)
 * and unknown fields rejected rather than silently dropped. Query strings and path parameters
 * arrive as text, so those coerce. One pair of Ajv instances per process: Ajv keeps what it
 * compiled per schema object, and the routes' schemas are module constants, so a second server
 * built in the same process (the test suite builds hundreds) reuses the first one's validators.
 */
const validatorCompiler = (() => {
  const common = { allErrors: false, useDefaults: true, removeAdditional: false as const, strict: false };
  const strict = withStorableDates(addFormats.default(new Ajv({ ...common, coerceTypes: false })));
  const coercing = withStorableDates(addFormats.default(new Ajv({ ...common, coerceTypes: true })));
  // Compiled at the route's first request, not at start (http/lazy-compile.ts).
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) => lazyValidator(() => (httpPart === 'body' ? strict : coercing).compile(schema));
})();

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
  const { config } = services;
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

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializer);
  app.decorateRequest('auth', null);
  app.decorateRequest('lang', null);

  registerRequestInput(app);
  registerRequestHooks(app, services, security);
  registerErrorHandlers(app);
  await registerApiDocs(app, config.publicUrl);

  registerRoutes(app, services);
  return app;
}
