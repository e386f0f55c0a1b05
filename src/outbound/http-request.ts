import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { normalizeHost, type AddressPolicy } from './addresses.ts';

/**
 * The one HTTP client of every outbound call: PSP connectors (src/psp/psp-http.ts) and webhook /
 * notification deliveries (src/delivery/attempt-channels.ts). Its rules (docs/security.md):
 * - the target's address is checked against the caller's {@link AddressPolicy} — an IP literal
 *   before anything else, a name on every address it resolves to — and the socket connects to
 *   the address checked, never to a second answer of the resolver (no DNS rebinding);
 * - redirects are never followed: a 3xx is the answer;
 * - a timeout bounds the whole exchange.
 * Nothing here throws: every outcome is data the caller records or turns into its own error.
 */

/** What became of one request. */
export interface OutboundAttempt {
  /** Set when a status line arrived within the timeout. */
  statusCode?: number;
  /** The answer's headers, with the status. */
  headers?: http.IncomingHttpHeaders;
  /** What was read of the answer (see {@link OutboundRequest.read}). */
  body?: Buffer;
  /** Why no (complete) answer: network error, timeout, refusal, an answer over the size limit. */
  error?: string;
  /** The target's address was refused by the policy: nothing was sent, no connection was opened. */
  refused?: boolean;
  /** The time limit passed before the answer was complete. */
  timedOut?: boolean;
  /** Stopped because the caller aborted (its `signal`: process shutdown, a deadline of its own). */
  interrupted?: boolean;
  durationMs: number;
}

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  policy: AddressPolicy;
  timeoutMs: number;
  /** Aborts the request (process shutdown, a caller's own deadline). */
  signal?: AbortSignal;
  /**
   * How much of the answer to read. `excerpt`: its first N bytes, and only the status has to
   * come within the timeout (a webhook's receiver owes us no body). `whole`: all of it within
   * the timeout, at most N bytes (a PSP's answer is read in full or not at all).
   */
  read: { excerpt: number } | { whole: number };
}

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
function guardedLookup(policy: AddressPolicy) {
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
 * Keep-alive connection pools, one per address policy (a reused connection skips the guarded DNS
 * lookup, so it must have been opened under the same policy); within a pool, one set of
 * connections per target (host and port). A burst to one receiver then costs a connection per
 * concurrent request, not per request. Idle connections close after 4 s, before the 5 s idle
 * timeout of common servers (Node's among them), so a connection the other side is closing is
 * seldom reused; the callers' concurrency bounds how many are open at once.
 */
const pools = new WeakMap<AddressPolicy, { http: http.Agent; https: https.Agent }>();
const IDLE_MS = 4_000;

function poolOf(policy: AddressPolicy): { http: http.Agent; https: https.Agent } {
  let pool = pools.get(policy);
  if (!pool) {
    const lookup = guardedLookup(policy) as unknown as http.AgentOptions['lookup'];
    pool = { http: new http.Agent({ keepAlive: true, timeout: IDLE_MS, lookup }), https: new https.Agent({ keepAlive: true, timeout: IDLE_MS, lookup }) };
    pools.set(policy, pool);
  }
  return pool;
}

/** Sends one request under the policy and reports what happened; never throws, never follows a redirect. */
export function sendRequest(target: string, opts: OutboundRequest): Promise<OutboundAttempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    // The WHATWG parser writes every IPv4 spelling (2130706433, 0x7f.1, 127.1) as a.b.c.d and
    // IPv6 in its compressed form: the checks below and the connection see that one form.
    url = new URL(target);
  } catch {
    return Promise.resolve({ error: 'invalid URL', durationMs: 0 });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.resolve({ error: `unsupported scheme ${url.protocol}`, durationMs: 0 });
  const host = normalizeHost(url.hostname);
  if (isIP(host)) {
    // An address literal is never looked up: checked here, before any socket exists.
    const refusal = opts.policy.refusal(host, host);
    if (refusal) return Promise.resolve({ error: refusal, refused: true, durationMs: 0 });
  }
  if (opts.signal?.aborted) return Promise.resolve({ error: 'interrupted: the request was aborted', interrupted: true, durationMs: 0 });
  const limit = 'excerpt' in opts.read ? opts.read.excerpt : opts.read.whole;
  const whole = 'whole' in opts.read;

  return new Promise<OutboundAttempt>((resolve) => {
    let settled = false;
    let status: { statusCode: number; headers: http.IncomingHttpHeaders } | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    /** `reusable`: the answer was read to its end, so its connection goes back to the pool. */
    const finish = (extra: Partial<OutboundAttempt>, reusable = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (!reusable) req.destroy();
      // A whole answer that failed, or an interrupted request, reports no status: nothing of it counts.
      const failed = extra.error !== undefined && (whole || extra.interrupted === true);
      const out: OutboundAttempt = { ...(failed ? {} : status), ...extra, durationMs: elapsed() };
      if (size > 0 && !failed) out.body = Buffer.concat(chunks);
      resolve(out);
    };
    const onAbort = () => finish({ error: 'interrupted: the request was aborted', interrupted: true });

    const secure = url.protocol === 'https:';
    const request = secure ? https.request : http.request;
    const pool = poolOf(opts.policy);
    const headers = opts.body === undefined ? opts.headers : { ...opts.headers, 'content-length': String(Buffer.byteLength(opts.body)) };
    const req = request(url, { method: opts.method, headers, agent: secure ? pool.https : pool.http });
    const timer = setTimeout(() => {
      if (status && !whole) return finish({}); // an excerpt: what came in time is enough
      finish({ error: `timed out after ${opts.timeoutMs} ms`, timedOut: true });
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    req.on('response', (res) => {
      status = { statusCode: res.statusCode ?? 0, headers: res.headers };
      res.on('data', (chunk: Buffer) => {
        const room = limit - size;
        if (room > 0) {
          chunks.push(chunk.subarray(0, room));
          size += Math.min(room, chunk.length);
        }
        if (whole && chunk.length > room) return finish({ error: `the answer is larger than ${limit} bytes` });
        if (!whole && size >= limit) finish({});
      });
      res.on('end', () => finish({}, true));
      res.on('error', () => finish(whole ? { error: 'the answer was cut off' } : {}));
      res.on('close', () => finish(whole ? { error: 'the answer was cut off' } : {}));
    });
    req.on('error', (err) => finish(status && !whole ? {} : { error: describe(err), ...(err instanceof RefusedTarget ? { refused: true } : {}) }));
    req.end(opts.body);
  });
}
