import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.ts';
import { METRICS_CHALLENGE, type MetricsToken } from './metrics-access.ts';

/**
 * The second listener of METRICS_PORT (docs/deployment.md#metrics-and-alerts): `GET` (and `HEAD`)
 * `/metrics` and nothing else, in the same process as the main listener, on an address the
 * balancer does not forward to (METRICS_HOST, default 127.0.0.1). The path is compared whole,
 * after the query string: `/metrics/`, `//metrics` or `/%6Detrics` are 404 like any other.
 * With METRICS_TOKEN set it asks for the token too.
 */
export class MetricsListener {
  readonly #server: Server;
  readonly #metrics: Metrics;
  readonly #token: MetricsToken | undefined;
  readonly #log: Logger;
  readonly #where: { port: number; host: string };

  constructor(metrics: Metrics, where: { port: number; host: string }, token: MetricsToken | undefined, log: Logger) {
    this.#metrics = metrics;
    this.#where = where;
    this.#token = token;
    this.#log = log;
    this.#server = createServer((req, res) => void this.#answer(req, res));
    // A scraper keeps its connection between scrapes; nothing else should linger.
    this.#server.keepAliveTimeout = 65_000;
    this.#server.requestTimeout = 10_000;
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('cache-control', 'no-store');
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return this.#text(res, 404, 'not found: this listener serves GET /metrics only\n');
    if (this.#token && !this.#token.accepts(req.headers.authorization)) {
      res.setHeader('www-authenticate', METRICS_CHALLENGE);
      return this.#text(res, 401, 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>\n');
    }
    try {
      const body = await this.#metrics.registry.metrics();
      res.setHeader('content-type', this.#metrics.registry.contentType);
      res.setHeader('content-length', Buffer.byteLength(body));
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      this.#log.warn({ err }, 'metrics scrape failed');
      this.#text(res, 500, 'metrics could not be collected\n');
    }
  }

  #text(res: ServerResponse, status: number, text: string): void {
    res.statusCode = status;
    res.setHeader('content-type', 'text/plain; charset=utf-8');
    res.end(text);
  }

  /** Starts listening; rejects with the listen error (EADDRINUSE...) as `net` gives it. */
  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      const failed = (err: Error) => reject(err);
      this.#server.once('error', failed);
      this.#server.listen(this.#where.port, this.#where.host, () => {
        this.#server.off('error', failed);
        resolve(this.#server.address() as AddressInfo);
      });
    });
  }

  /** Stops listening and ends its connections (a scrape in flight is cut: the next one goes elsewhere). */
  close(): Promise<void> {
    if (!this.#server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
