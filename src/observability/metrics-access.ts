import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Redacted } from '../domain/redacted.ts';

/**
 * What the main listener does with `GET /metrics` (docs/deployment.md#metrics-and-alerts):
 * - `elsewhere`: METRICS_PORT is set, the second listener serves it; here 404;
 * - `token`: METRICS_TOKEN is set: served to `Authorization: Bearer <token>` only;
 * - `off`: production with neither: 404 (the start says how to turn it on);
 * - `open`: the sandbox with neither: served to anyone.
 */
export type MainListenerMetrics = 'elsewhere' | 'token' | 'off' | 'open';

export function mainListenerMetrics(config: Pick<Config, 'env' | 'metricsListener' | 'metricsToken'>): MainListenerMetrics {
  if (config.metricsListener) return 'elsewhere';
  if (config.metricsToken) return 'token';
  return config.env === 'production' ? 'off' : 'open';
}

/** The warning a production start logs when `/metrics` is served nowhere. */
export const METRICS_OFF_WARNING =
  'GET /metrics is not served (CHIPIN_ENV=production without METRICS_PORT or METRICS_TOKEN): set METRICS_PORT ' +
  '(a listener of its own, on METRICS_HOST, default 127.0.0.1) or METRICS_TOKEN (Bearer token on the main port) to scrape it';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * METRICS_TOKEN's check. Both sides are hashed first, so that `timingSafeEqual` compares two
 * 32-byte digests whatever the lengths: neither the token's length nor a matching prefix shows in
 * the time an answer takes.
 */
export class MetricsToken {
  readonly #digest: Buffer;
  constructor(token: Redacted) {
    this.#digest = digest(token.reveal());
  }

  /** Whether an `Authorization` header carries the token (`Bearer <token>`, the scheme in any case). */
  accepts(authorization: string | undefined): boolean {
    const given = /^Bearer +([^\s]+) *$/i.exec(authorization ?? '')?.[1] ?? '';
    return timingSafeEqual(digest(given), this.#digest) && given !== '';
  }
}

/** The challenge of a 401 on `/metrics` (RFC 6750). */
export const METRICS_CHALLENGE = 'Bearer realm="metrics"';
