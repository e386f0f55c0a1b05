import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { claimKey, endLease, findKey, LEASE_RENEW_MS, releaseKey, renewLease, storeResponse, type IdempotencyKey } from './idempotency-repository.ts';

/** An answer as it is stored for replay: a status and a JSON body. */
export interface StoredAnswer<T> {
  status: number;
  body: T;
}

/** What became of a keyed request: run now, replayed, or refused (another body, or the first still running). */
export type KeyedOutcome<T> = { kind: 'ran'; answer: StoredAnswer<T> } | { kind: 'replayed'; answer: StoredAnswer<T> } | { kind: 'reused' } | { kind: 'in_use' };

/**
 * The request identity a creation stores on what it makes (a refund's, a purchase's `request_key`):
 * a hash of the account, the scope, the key and the claim's generation (`claimKey`), the same
 * for a request and each retry that takes its claim over, another once the key was released or
 * expired and is used afresh.
 */
function requestKey(key: IdempotencyKey, generation: string): string {
  return createHash('sha256')
    .update(JSON.stringify([key.accountId, key.scope, key.key, generation]))
    .digest('hex');
}

/**
 * Runs `run` at most once per key (docs/api-conventions.md#idempotency-key), below HTTP: the first
 * answer is stored and replayed for the same body (`hash`); another body is `reused`; while the
 * first runs, `in_use`. While it runs, its process renews the key's lease. When `run` fails, `frees`
 * says whether the failure changed nothing (a refusal: the key is released for the corrected
 * request); any other failure may have followed a commit whose answer was lost, so the claim stays
 * with its generation and only its lease ends: the retry takes it over and `run` gets the same
 * request key, to find what the first attempt committed rather than create it twice.
 */
export async function runOnce<T>(
  db: Database,
  key: IdempotencyKey,
  hash: string,
  run: (requestKey: string) => Promise<StoredAnswer<T>>,
  frees: (err: unknown) => boolean,
): Promise<KeyedOutcome<T>> {
  const claim = await claimKey(db, key, hash);
  if (!claim) {
    const stored = await findKey(db, key);
    if (stored && stored.requestHash !== hash) return { kind: 'reused' };
    if (!stored?.response) return { kind: 'in_use' };
    return { kind: 'replayed', answer: { status: stored.response.status, body: JSON.parse(stored.response.body) as T } };
  }
  // The lease says this request is still running (a heartbeat that lives and dies with the request,
  // not periodic work: docs/jobs-and-clock.md#periodic-work-that-is-not-a-job); a renewal that fails
  // (the database away) is left to the next one, or to the lease's end.
  const renewal = setInterval(() => void renewLease(db, key).catch(() => undefined), LEASE_RENEW_MS);
  renewal.unref();
  try {
    const answer = await run(requestKey(key, claim.generation));
    await storeResponse(db, key, answer.status, JSON.stringify(answer.body));
    return { kind: 'ran', answer };
  } catch (err) {
    // With the database away, ending the lease fails too and the lease lapses by itself.
    if (frees(err)) await releaseKey(db, key);
    else await endLease(db, key).catch(() => undefined);
    throw err;
  } finally {
    clearInterval(renewal);
  }
}
