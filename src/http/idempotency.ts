import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import { runOnce, type StoredAnswer } from '../idempotency/run-once.ts';
import { ApiError, type ErrorCode } from './errors.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Refusals that say "not now" rather than "not this": another operation on the purchase (maybe
 * this request's own first attempt, its claim not yet given back) or a payment still running, a
 * rate limit. The request is not refused, it is to be sent again, so its key keeps its claim: a
 * key released on such a 409 let a retry that came after the wait make a second refund.
 */
const RETRY_LATER: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['operation_in_progress', 'payment_in_progress', 'too_many_requests']);

/** JSON with object keys sorted, so that the same body always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export type IdempotentResult<T> = StoredAnswer<T>;

/**
 * What a key is scoped to besides the account: the method, the matched route's template and the
 * resource it acts on, e.g. `POST /api/merchants/v1/purchases/:id/refunds id=<uuid>`. Never the
 * URL as sent: the router decodes `…/refund%73` and `…/purchase%73/…` to the same route, and a
 * scope on the raw URL gave each spelling its own key, so one key refunded three times
 * (docs/security.md#idempotency-scope). `resource` holds the decoded path parameters, in the
 * spelling the route resolves them to (`pur_<UUID>` and `<uuid>` are one purchase); values are
 * percent-encoded so that no value can spell another scope. A route without parameters has the
 * scope `METHOD /template`, what the raw URL was for its one spelling.
 */
function idempotencyScope(method: string, route: string, resource: Readonly<Record<string, string>>): string {
  const parts = Object.keys(resource)
    .sort()
    .map((name) => ` ${name}=${encodeURIComponent(resource[name]!)}`);
  return `${method} ${route}${parts.join('')}`;
}

/**
 * Runs a creation at most once per `Idempotency-Key` (per account, route and resource: see
 * {@link idempotencyScope}), docs/api-conventions.md#idempotency-key: the first success is stored
 * and replayed for the same key and body (header `Idempotent-Replayed: true`); the same key with
 * another body answers 422; while the first is still running, 409. A refusal is not stored, so
 * the corrected request may be sent with the same key; a "retry later" ({@link RETRY_LATER}) is
 * not a refusal and keeps the key's claim. While the first runs, its process renews the
 * claim's lease; after any other failure the key stays claimed, its lease ended, and the next retry
 * takes it over (a claim whose process died: once its lease lapses, 10 s). That failure may have
 * followed a commit whose answer was lost, so `run` gets the request's key (undefined without an Idempotency-Key) and
 * stores it on what it creates; run again by the takeover, it finds what the first attempt
 * committed and answers it rather than creating it twice (refunds and purchases). Keys are kept
 * 24 h.
 */
export async function idempotent<T>(
  db: Database,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: {
    accountId: string;
    /** The resource the route acts on, as it resolves it; default: the decoded path parameters. */
    resource?: Record<string, string>;
  },
  run: (requestKey: string | undefined) => Promise<IdempotentResult<T>>,
  invalidKey: (message: string) => ApiError,
): Promise<T> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return send(reply, await run(undefined));
  if (typeof header !== 'string' || !KEY.test(header)) {
    throw invalidKey('header Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  const route = request.routeOptions.url;
  // Only a matched route's handler gets here; the check keeps a scope from ever being the raw URL.
  if (route === undefined) throw new Error('idempotent() outside a matched route');
  const resource = scope.resource ?? (request.params as Record<string, string> | undefined) ?? {};
  const hash = createHash('sha256')
    .update(canonical(request.body ?? null))
    .digest('hex');
  const key = { accountId: scope.accountId, scope: idempotencyScope(request.method, route, resource), key: header };

  // A refusal (an ApiError below 500, not a "retry later") changed nothing: the key is free for the
  // corrected request. Any other failure (the database lost mid-request, a fault) may have come
  // after a commit (a refund reserved and sent to its PSP, its recording cut off).
  const outcome = await runOnce(db, key, hash, run, (err) => err instanceof ApiError && err.status < 500 && !RETRY_LATER.has(err.code));
  if (outcome.kind === 'reused') throw new ApiError(422, 'idempotency_key_reused', 'this Idempotency-Key was used with a different request body');
  if (outcome.kind === 'in_use') throw new ApiError(409, 'idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry later');
  if (outcome.kind === 'replayed') void reply.header('idempotent-replayed', 'true');
  return send(reply, outcome.answer);
}

function send<T>(reply: FastifyReply, result: IdempotentResult<T>): T {
  void reply.code(result.status);
  return result.body;
}
