import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { normalizeHost, type TargetPolicy } from './target-policy.ts';

/** What became of one POST. Never an exception: every outcome is data to record. */
export interface HttpAttempt {
  /** Set when a status line arrived within the timeout. */
  statusCode?: number;
  retryAfter?: string;
  /** The first KB of the answer, as text. */
  excerpt?: string;
  /** Why no (complete) answer: network error, timeout, refusal. */
  error?: string;
  /** The target's address was refused by the policy: nothing was sent. */
  refused?: boolean;
  /** Stopped because the process is shutting down. */
  interrupted?: boolean;
  durationMs: number;
}

const EXCERPT_BYTES = 1024;

class RefusedTarget extends Error {}

function describe(err: unknown): string {
  if (err instanceof RefusedTarget) return err.message;
  const e = err as NodeJS.ErrnoException;
  const text = e?.code && !String(e.message).includes(e.code) ? `${e.code}: ${e.message}` : String(e?.message ?? err);
  return text.slice(0, 500);
}

/**
 * A DNS lookup that refuses names resolving to an address the policy forbids: the socket then
 * connects to an address that was checked, never to a second answer of the resolver.
 */
function guardedLookup(policy: TargetPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number | string; hints?: number }, callback: (...args: unknown[]) => void) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : typeof options.family === 'number' ? options.family : 0;
    dnsLookup(hostname, { all: true, family, hints: options.hints }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
      for (const a of addresses) {
        const refusal = policy.refusal(hostname, a.address);
        if (refusal) return callback(new RefusedTarget(refusal));
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * Keep-alive connection pools, one per target policy (a reused connection skips the guarded DNS
 * lookup, so it must have been opened under the same policy); within a pool, one set of
 * connections per receiver (host and port). A burst to one receiver then costs a connection per
 * concurrent attempt, not per attempt. Idle connections close after 4 s, before the 5 s idle
 * timeout of common servers (Node's among them), so a connection the receiver is closing is
 * seldom reused; the worker's concurrency bounds how many are open at once.
 */
const pools = new WeakMap<TargetPolicy, { http: http.Agent; https: https.Agent }>();
const IDLE_MS = 4_000;

function poolOf(policy: TargetPolicy): { http: http.Agent; https: https.Agent } {
  let pool = pools.get(policy);
  if (!pool) {
    pool = { http: new http.Agent({ keepAlive: true, timeout: IDLE_MS }), https: new https.Agent({ keepAlive: true, timeout: IDLE_MS }) };
    pools.set(policy, pool);
  }
  return pool;
}

export interface PostOptions {
  timeoutMs: number;
  policy: TargetPolicy;
  /** Aborts the request (process shutdown). */
  signal?: AbortSignal;
}

/**
 * POSTs `body` to an http(s) URL and reports what happened: status (when it came within the
 * timeout), `Retry-After`, a 1 KB excerpt of the answer, or the error. No redirects followed.
 * Connections are kept alive and reused per receiver (see {@link poolOf}).
 */
export function postJson(target: string, body: string, headers: Record<string, string>, opts: PostOptions): Promise<HttpAttempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve({ error: 'invalid URL', durationMs: 0 });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.resolve({ error: `unsupported scheme ${url.protocol}`, durationMs: 0 });
  const host = normalizeHost(url.hostname);
  if (isIP(host)) {
    const refusal = opts.policy.refusal(host, host);
    if (refusal) return Promise.resolve({ error: refusal, refused: true, durationMs: 0 });
  }
  if (opts.signal?.aborted) return Promise.resolve({ error: 'interrupted: the process is shutting down', interrupted: true, durationMs: 0 });

  return new Promise<HttpAttempt>((resolve) => {
    let settled = false;
    let status: { statusCode: number; retryAfter?: string } | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const excerpt = () => (size > 0 ? Buffer.concat(chunks).toString('utf8') : undefined);
    /** `reusable`: the answer was read to its end, so its connection goes back to the pool. */
    const finish = (extra: Partial<HttpAttempt>, reusable = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (!reusable) req.destroy();
      const out: HttpAttempt = { ...(status ?? {}), ...extra, durationMs: elapsed() };
      const text = excerpt();
      if (text !== undefined) out.excerpt = text;
      resolve(out);
    };
    const onAbort = () => finish({ error: 'interrupted: the process is shutting down', interrupted: true, statusCode: undefined });

    const secure = url.protocol === 'https:';
    const request = secure ? https.request : http.request;
    const pool = poolOf(opts.policy);
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: secure ? pool.https : pool.http,
      lookup: guardedLookup(opts.policy) as unknown as http.RequestOptions['lookup'],
    });
    // Only the status has to come within the timeout; the excerpt is read with what time is left.
    const timer = setTimeout(() => finish(status ? {} : { error: `timed out after ${opts.timeoutMs} ms` }), opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    req.on('response', (res) => {
      const retryAfter = res.headers['retry-after'];
      status = { statusCode: res.statusCode ?? 0, ...(typeof retryAfter === 'string' ? { retryAfter } : {}) };
      res.on('data', (chunk: Buffer) => {
        const room = EXCERPT_BYTES - size;
        if (room > 0) {
          chunks.push(chunk.subarray(0, room));
          size += Math.min(room, chunk.length);
        }
        if (size >= EXCERPT_BYTES) finish({});
      });
      res.on('end', () => finish({}, true));
      res.on('error', () => finish({}));
      res.on('close', () => finish({}));
    });
    req.on('error', (err) => finish(status ? {} : { error: describe(err), ...(err instanceof RefusedTarget ? { refused: true } : {}) }));
    req.end(body);
  });
}
