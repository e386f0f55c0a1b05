import type { Sql } from '../db/database.ts';
import { q, run } from '../db/query.ts';

/** How long a key is remembered (docs/api-conventions.md#idempotency-key). */
const KEEP_SECONDS = 24 * 3600;
/**
 * A claim made by a build without leases (`lease_until` NULL) and without a stored response after
 * this long belongs to a request that died: it may be taken over.
 */
const ABANDONED_SECONDS = 60;
/**
 * How long a claim is known to be running without news from its process: the process renews it
 * every {@link LEASE_RENEW_MS} while the request runs (docs/api-conventions.md#idempotency-key).
 * Ten seconds leave three renewals to fail (a slow database, a blocked event loop) before a retry
 * may take the claim over; what a takeover then runs is still guarded by the request key's unique
 * index on what it creates.
 */
const LEASE_SECONDS = 10;
export const LEASE_RENEW_MS = 3_000;

/** One Idempotency-Key of one account in one scope (route and resource: `idempotencyScope` in src/http/idempotency.ts). */
export interface IdempotencyKey {
  accountId: string;
  scope: string;
  key: string;
}

/** What is stored under a key: the request's hash, and its response once it completed. */
export interface IdempotencyRecord {
  requestHash: string;
  response: { status: number; body: string } | undefined;
}

/**
 * Claims the key for a request with this body hash, leased for {@link LEASE_SECONDS}. Succeeds
 * when the key is new, expired, or claimed by a request with the same body that is no longer
 * running (its lease lapsed or was ended; a claim of a build without leases: 60 s), and
 * returns the claim's generation: the same for the first request and every takeover of its
 * claim, a new one when the key is claimed afresh (new, expired, or released after a refusal).
 * It is the key's expiry, which a takeover keeps: a key is kept 24 h from its first request.
 * Undefined when the key is held (in flight, or answered: `findKey`).
 */
export async function claimKey(sql: Sql, k: IdempotencyKey, requestHash: string): Promise<{ generation: string } | undefined> {
  const claimed = await sql.query<{ generation: string }>(
    `INSERT INTO idempotency_keys AS k (account_id, scope, key, request_hash, expires_at, lease_until)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5), now() + make_interval(secs => $7))
     ON CONFLICT (account_id, scope, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, created_at = now(),
           expires_at = CASE WHEN k.expires_at < now() THEN EXCLUDED.expires_at ELSE k.expires_at END,
           lease_until = EXCLUDED.lease_until,
           response_status = NULL, response_body = NULL
       WHERE k.expires_at < now()
          OR (k.response_status IS NULL AND k.request_hash = EXCLUDED.request_hash
              AND COALESCE(k.lease_until, k.created_at + make_interval(secs => $6)) < now())
     RETURNING (floor(extract(epoch FROM k.expires_at) * 1000000))::bigint::text AS generation`,
    [k.accountId, k.scope, k.key, requestHash, KEEP_SECONDS, ABANDONED_SECONDS, LEASE_SECONDS],
  );
  const row = claimed.rows[0];
  return row && { generation: row.generation };
}

export async function findKey(sql: Sql, k: IdempotencyKey): Promise<IdempotencyRecord | undefined> {
  const { rows } = await run(
    sql,
    q
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'response_status', 'response_body'])
      .where('account_id', '=', k.accountId)
      .where('scope', '=', k.scope)
      .where('key', '=', k.key),
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    requestHash: row.request_hash,
    response: row.response_status === null ? undefined : { status: row.response_status, body: row.response_body! },
  };
}

/** Extends the lease of a claim whose request is still running (not once it has its response). */
export async function renewLease(sql: Sql, k: IdempotencyKey): Promise<void> {
  await sql.query(
    `UPDATE idempotency_keys SET lease_until = now() + make_interval(secs => $4)
     WHERE account_id = $1 AND scope = $2 AND key = $3 AND response_status IS NULL`,
    [k.accountId, k.scope, k.key, LEASE_SECONDS],
  );
}

/**
 * Ends the lease of a claim whose request failed after it may have committed: the claim stays
 * (same generation, so a retry's takeover finds what the request committed) but a retry may take
 * it over at once, since nothing runs it any more.
 */
export async function endLease(sql: Sql, k: IdempotencyKey): Promise<void> {
  await sql.query(
    `UPDATE idempotency_keys SET lease_until = now() - interval '1 millisecond'
     WHERE account_id = $1 AND scope = $2 AND key = $3 AND response_status IS NULL`,
    [k.accountId, k.scope, k.key],
  );
}

/** Forgets a claim whose request failed, so that the client may retry with the same key. */
export async function releaseKey(sql: Sql, k: IdempotencyKey): Promise<void> {
  await run(sql, q.deleteFrom('idempotency_keys').where('account_id', '=', k.accountId).where('scope', '=', k.scope).where('key', '=', k.key));
}

/** Stores the response (status and JSON body) that later requests with the key replay. */
export async function storeResponse(sql: Sql, k: IdempotencyKey, status: number, body: string): Promise<void> {
  await run(
    sql,
    q
      .updateTable('idempotency_keys')
      .set({ response_status: status, response_body: body })
      .where('account_id', '=', k.accountId)
      .where('scope', '=', k.scope)
      .where('key', '=', k.key),
  );
}

/**
 * Deletes keys past their expiry, at most `limit` a run (a backlog goes over several runs, never
 * in one long statement). An expired key answers nothing any more: `claimKey` treats it as new.
 * The expiry is checked again on the row being deleted, so a key claimed afresh meanwhile (its
 * expiry moved 24 h on) is kept with its new request. By the database's wall clock, as the expiry.
 */
export async function purgeExpiredIdempotencyKeys(sql: Sql, limit = 10_000): Promise<number> {
  const { rowCount } = await sql.query(
    `DELETE FROM idempotency_keys k
     WHERE (k.account_id, k.scope, k.key) IN (SELECT account_id, scope, key FROM idempotency_keys WHERE expires_at < now() LIMIT $1)
       AND k.expires_at < now()`,
    [limit],
  );
  return rowCount;
}
