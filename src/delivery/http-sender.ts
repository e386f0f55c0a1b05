import type { AddressPolicy } from '../outbound/addresses.ts';
import { sendRequest } from '../outbound/http-request.ts';

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

export interface PostOptions {
  timeoutMs: number;
  policy: AddressPolicy;
  /** Aborts the request (process shutdown). */
  signal?: AbortSignal;
}

/**
 * POSTs a webhook or notification body through the service's one outbound client
 * (src/outbound/http-request.ts: address checked, no redirect followed, timeout) and reports
 * what happened: status (when it came within the timeout), `Retry-After`, a 1 KB excerpt of the
 * answer, or the error. Only the status has to come within the timeout; the excerpt is read with
 * what time is left.
 */
export async function postJson(target: string, body: string, headers: Record<string, string>, opts: PostOptions): Promise<HttpAttempt> {
  const a = await sendRequest(target, {
    method: 'POST',
    headers,
    body,
    policy: opts.policy,
    timeoutMs: opts.timeoutMs,
    ...(opts.signal ? { signal: opts.signal } : {}),
    read: { excerpt: EXCERPT_BYTES },
  });
  const retryAfter = a.headers?.['retry-after'];
  return {
    ...(a.statusCode !== undefined ? { statusCode: a.statusCode } : {}),
    ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
    ...(a.body ? { excerpt: a.body.toString('utf8') } : {}),
    // The worker aborts only when the process stops.
    ...(a.interrupted ? { error: 'interrupted: the process is shutting down' } : a.error !== undefined ? { error: a.error } : {}),
    ...(a.refused ? { refused: true } : {}),
    ...(a.interrupted ? { interrupted: true } : {}),
    durationMs: a.durationMs,
  };
}
