import type { IncomingHttpHeaders } from 'node:http';
import { hostOf, type AddressPolicy } from '../outbound/addresses.ts';
import { sendRequest } from '../outbound/http-request.ts';
import { PspIntegrationError } from './connector.ts';

/** The largest answer a PSP call reads unless it says otherwise: PSP answers are small JSON or XML documents. */
const MAX_ANSWER_BYTES = 1_048_576;

export type PspCallFailure = 'refused' | 'timeout' | 'network' | 'redirect' | 'too_large';

/** A PSP call that brought no answer to read: the request was refused, failed, or was answered with a redirect. */
export class PspCallError extends Error {
  override readonly name = 'PspCallError';
  constructor(
    readonly kind: PspCallFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface PspAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** The methods PSP APIs use (Mercado Pago captures with a PUT, some refund or cancel with a DELETE). */
export type PspMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface PspRequest {
  method: PspMethod;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The largest answer read, when larger than an API answer's 1 MiB (a report file). */
  maxBytes?: number;
}

const PSP_METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] satisfies PspMethod[];
const isPspMethod = (m: string): m is PspMethod => PSP_METHODS.includes(m);

/**
 * How a PSP connector reaches its PSP: through the service's one outbound client
 * (src/outbound/http-request.ts: address checked and connected to as checked, redirects never
 * followed, a time limit) and, in production, only to hosts its PSP publishes for the account's
 * environment or that the operator listed in PSP_ENDPOINT_ALLOWLIST. The registry builds one per
 * PSP account (src/psp/endpoints.ts); tests build one on the sandbox policy for their local fakes.
 */
export class PspHttp {
  constructor(
    readonly policy: AddressPolicy,
    /** Why a host may not be called, or undefined when it may (production: published hosts and the allowlist). */
    readonly hostRefusal: (host: string) => string | undefined = () => undefined,
  ) {}

  /** One request, read in full; throws {@link PspCallError} when there is no answer to read, a 3xx included. */
  async request(url: string, r: PspRequest): Promise<PspAnswer> {
    const host = hostOf(url);
    if (host === undefined) throw new PspCallError('refused', 'refused: not an absolute URL');
    const refusal = this.hostRefusal(host);
    if (refusal) throw new PspCallError('refused', refusal);
    const a = await sendRequest(url, {
      method: r.method,
      headers: r.headers,
      ...(r.body !== undefined ? { body: r.body } : {}),
      policy: this.policy,
      timeoutMs: r.timeoutMs,
      ...(r.signal ? { signal: r.signal } : {}),
      read: { whole: r.maxBytes ?? MAX_ANSWER_BYTES },
    });
    if (a.statusCode === undefined) {
      const kind: PspCallFailure = a.refused ? 'refused' : a.timedOut ? 'timeout' : a.error?.startsWith('the answer is larger') ? 'too_large' : 'network';
      const error = new PspCallError(kind, a.error ?? 'no answer');
      if (a.interrupted) Object.defineProperty(error, 'name', { value: 'AbortError' });
      throw error;
    }
    // A PSP answers its API calls itself: a redirect would send credentials and card data to
    // wherever it points, so it is a fault, never followed.
    if (a.statusCode >= 300 && a.statusCode < 400) throw new PspCallError('redirect', `answered HTTP ${a.statusCode} (a redirect, not followed)`);
    return { status: a.statusCode, headers: a.headers ?? {}, text: a.body?.toString('utf8') ?? '' };
  }

  /**
   * A `fetch` for SDKs that take one (Stripe's `createFetchHttpClient`): the same rules, the
   * answer as a `Response`. Failures reject as `fetch` does (the SDK reports a connection error,
   * with our {@link PspCallError} as its cause); the SDK's own abort signal is honoured.
   */
  fetchWith(timeoutMs: number): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
    return async (input, init = {}) => {
      const r = fromFetch(input, init);
      return toResponse(
        await this.request(r.url, {
          method: r.method,
          headers: r.headers,
          ...(r.body !== undefined ? { body: r.body } : {}),
          timeoutMs,
          ...(init.signal ? { signal: init.signal } : {}),
        }),
      );
    };
  }
}

/** A `fetch` call's request in {@link PspHttp}'s terms (a text body); a method no PSP is called with is refused. */
export function fromFetch(input: string | URL | Request, init: RequestInit): { url: string; method: PspMethod; headers: Record<string, string>; body?: string } {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, key) => {
    headers[key] = value;
  });
  const method = (init.method ?? 'GET').toUpperCase();
  if (!isPspMethod(method)) throw new PspCallError('refused', `refused: method ${method} is not used with a PSP`);
  const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : String(init.body);
  return { url: String(input instanceof Request ? input.url : input), method, headers, ...(body !== undefined ? { body } : {}) };
}

/** A PSP's answer as the `Response` a `fetch` caller reads. */
export function toResponse(a: PspAnswer): Response {
  const out = new Headers();
  for (const [k, v] of Object.entries(a.headers)) {
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one);
  }
  const empty = a.status === 204 || a.status === 205 || a.status === 304 || a.status < 200;
  return new Response(empty ? null : a.text, { status: a.status < 200 ? 502 : a.status, headers: out });
}

/**
 * A failed PSP call as the connector contract's fault: no answer (refused address or host,
 * network, timeout) is `unreachable` — the caller replays with the same key or reconciles —; an
 * answer we will not read (a redirect, one too large) is `bad_response`. Never a credential in it.
 */
export function pspCallFault(psp: string, what: string, err: unknown, timeoutMs: number): PspIntegrationError {
  if (err instanceof PspIntegrationError) return err;
  if (!(err instanceof PspCallError)) return new PspIntegrationError(psp, 'unreachable', `${what}: the call failed`);
  switch (err.kind) {
    case 'timeout':
      return new PspIntegrationError(psp, 'unreachable', `${what}: no answer within ${timeoutMs} ms`);
    case 'network':
      return new PspIntegrationError(psp, 'unreachable', `${what}: could not be reached (${err.message})`);
    case 'refused':
      return new PspIntegrationError(psp, 'unreachable', `${what}: ${err.message}`);
    case 'redirect':
    case 'too_large':
      return new PspIntegrationError(psp, 'bad_response', `${what}: ${err.message}`);
  }
}
