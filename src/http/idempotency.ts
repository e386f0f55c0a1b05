import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import { ApiError } from './errors.ts';

/** How long a key is remembered (DESIGN §7). */
const KEEP_SECONDS = 24 * 3600;
/** A claim without a stored response after this long belongs to a request that died: it may be taken over. */
const ABANDONED_SECONDS = 60;
const KEY = /^[\x21-\x7e]{1,255}$/;

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

export interface IdempotentResult<T> {
  status: number;
  body: T;
}

/**
 * Runs a creation at most once per `Idempotency-Key` (per account and endpoint): the first
 * success is stored and replayed for the same key and body (header `Idempotent-Replayed: true`);
 * the same key with another body answers 422; while the first is still running, 409. A failure is
 * not stored, so the request may be retried with the same key. Keys are kept 24 h.
 */
export async function idempotent<T>(
  db: Database,
  request: FastifyRequest,
  reply: FastifyReply,
  accountId: string,
  run: () => Promise<IdempotentResult<T>>,
  invalidKey: (message: string) => ApiError,
): Promise<T> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return send(reply, await run());
  if (typeof header !== 'string' || !KEY.test(header)) {
    throw invalidKey('header Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  const endpoint = `${request.method} ${request.url.split('?')[0]}`;
  const hash = createHash('sha256').update(canonical(request.body ?? null)).digest('hex');

  const claimed = await db.query(
    `INSERT INTO idempotency_keys AS k (account_id, endpoint, key, request_hash, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
     ON CONFLICT (account_id, endpoint, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, created_at = now(), expires_at = EXCLUDED.expires_at,
           response_status = NULL, response_body = NULL
       WHERE k.expires_at < now()
          OR (k.response_status IS NULL AND k.request_hash = EXCLUDED.request_hash
              AND k.created_at < now() - make_interval(secs => $6))
     RETURNING 1`,
    [accountId, endpoint, header, hash, KEEP_SECONDS, ABANDONED_SECONDS],
  );

  if (claimed.rowCount === 0) {
    const { rows } = await db.query<{ request_hash: string; response_status: number | null; response_body: string | null }>(
      'SELECT request_hash, response_status, response_body FROM idempotency_keys WHERE account_id = $1 AND endpoint = $2 AND key = $3',
      [accountId, endpoint, header],
    );
    const row = rows[0];
    if (row && row.request_hash !== hash) {
      throw new ApiError(422, 'idempotency_key_reused', 'this Idempotency-Key was used with a different request body');
    }
    if (!row || row.response_status === null) {
      throw new ApiError(409, 'idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry later');
    }
    void reply.header('idempotent-replayed', 'true');
    return send(reply, { status: row.response_status, body: JSON.parse(row.response_body!) as T });
  }

  let result: IdempotentResult<T>;
  try {
    result = await run();
  } catch (err) {
    await db.query('DELETE FROM idempotency_keys WHERE account_id = $1 AND endpoint = $2 AND key = $3', [accountId, endpoint, header]);
    throw err;
  }
  await db.query(
    'UPDATE idempotency_keys SET response_status = $4, response_body = $5 WHERE account_id = $1 AND endpoint = $2 AND key = $3',
    [accountId, endpoint, header, result.status, JSON.stringify(result.body)],
  );
  return send(reply, result);
}

function send<T>(reply: FastifyReply, result: IdempotentResult<T>): T {
  void reply.code(result.status);
  return result.body;
}
