import { randomUUID } from 'node:crypto';
import { PspIntegrationError } from '../connector.ts';
import { fromFetch, PspCallError, pspCallFault, toResponse, type PspAnswer, type PspHttp, type PspMethod } from '../psp-http.ts';

/** Where a connector's PSP calls are logged (a pino logger fits). */
export interface PspLogger {
  debug(fields: Record<string, unknown>, message: string): void;
}

export interface PspClientOptions {
  /** The connector's name, in its faults and log lines. */
  psp: string;
  http: PspHttp;
  timeoutMs: number;
  logger?: PspLogger | undefined;
  /**
   * The request header the PSP documents for a caller's request id (echoed in its logs and
   * support tools). Absent: the id is generated for our log lines only and not sent.
   */
  requestIdHeader?: string;
}

/** One PSP answer, with the id our log lines gave its request. */
export interface PspCallAnswer extends PspAnswer {
  requestId: string;
}

/** Answers worth asking again for a read: the PSP's gateway or server was briefly away. */
const RETRYABLE_STATUS = new Set([502, 503, 504]);

/**
 * The connector kit's HTTP client: every PSP call of a connector goes through it, on the service's
 * one outbound client ({@link PspHttp}: address rules, no redirect followed, the time limit). It
 * adds a request id (sent where the PSP documents a header for it), logs each call at debug
 * level without any header value, body or query string (credentials and card data never reach a
 * log), retries a GET once when it got no answer or a 502/503/504 (a read changes nothing; a POST
 * is never retried here: its replay belongs to the operation log), and turns a call that brought
 * no answer into the contract's fault ({@link pspCallFault}).
 */
export class PspClient {
  constructor(readonly options: PspClientOptions) {}

  /** `r.timeoutMs` and `r.maxBytes` override the client's time limit and the 1 MiB answer cap for one call (a report download). */
  async request(
    what: string,
    url: string,
    r: { method: PspMethod; headers: Record<string, string>; body?: string; timeoutMs?: number; maxBytes?: number; signal?: AbortSignal },
  ): Promise<PspCallAnswer> {
    const { psp, http, timeoutMs, logger, requestIdHeader } = this.options;
    const requestId = randomUUID();
    const headers = requestIdHeader ? { ...r.headers, [requestIdHeader]: requestId } : r.headers;
    const attempts = r.method === 'GET' ? 2 : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await http.request(url, {
          method: r.method,
          headers,
          ...(r.body !== undefined ? { body: r.body } : {}),
          timeoutMs: r.timeoutMs ?? timeoutMs,
          ...(r.maxBytes !== undefined ? { maxBytes: r.maxBytes } : {}),
          ...(r.signal ? { signal: r.signal } : {}),
        });
        logger?.debug({ psp, what, method: r.method, path: pathOf(url), status: answer.status, request_id: requestId, attempt }, 'PSP call answered');
        if (attempt < attempts && RETRYABLE_STATUS.has(answer.status)) continue;
        return { ...answer, requestId };
      } catch (err) {
        logger?.debug(
          { psp, what, method: r.method, path: pathOf(url), failure: err instanceof PspCallError ? err.kind : 'error', request_id: requestId, attempt },
          'PSP call failed',
        );
        const retryable = err instanceof PspCallError && (err.kind === 'network' || err.kind === 'timeout');
        if (attempt < attempts && retryable) continue;
        throw pspCallFault(psp, what, err, r.timeoutMs ?? timeoutMs);
      }
    }
  }

  /**
   * A `fetch` for an SDK that sends through one (src/psp/kit/global-fetch.ts): each request goes
   * through {@link request} as `what`, so with its log line, its GET retry and its time limit;
   * a call that brought no answer rejects with the contract's fault, which the SDK wraps.
   */
  fetchAs(what: string): typeof globalThis.fetch {
    return async (input, init = {}) => {
      const r = fromFetch(input, init);
      return toResponse(
        await this.request(what, r.url, {
          method: r.method,
          headers: r.headers,
          ...(r.body !== undefined ? { body: r.body } : {}),
          ...(init.signal ? { signal: init.signal } : {}),
        }),
      );
    };
  }

  /** A JSON call: the body sent as JSON, the answer given back as is (read it with {@link parseJson}). */
  json(what: string, url: string, r: { method: PspMethod; headers: Record<string, string>; body?: unknown }): Promise<PspCallAnswer> {
    return this.request(what, url, {
      method: r.method,
      headers: { Accept: 'application/json', ...(r.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...r.headers },
      ...(r.body !== undefined ? { body: JSON.stringify(r.body) } : {}),
    });
  }
}

/** The answer's JSON; an answer that is not JSON is the `bad_response` fault. Empty: undefined. */
export function parseJson(psp: string, what: string, answer: { status: number; text: string }): unknown {
  if (answer.text.length === 0) return undefined;
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new PspIntegrationError(psp, 'bad_response', `${what}: the answer (HTTP ${answer.status}) is not JSON`);
  }
}

/** The URL's path, for log lines: no query string (it may carry account names or tokens). */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '?';
  }
}
