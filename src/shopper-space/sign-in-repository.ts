import type { Sql } from '../db/database.ts';
import type { RowType } from '../db/row-types.ts';

/**
 * shopper_sign_in_requests: the links and codes a shopper asked for to sign in to their space.
 * Only hashes are kept (docs/shopper-space.md#sign-in).
 */

export type SignInRequestRow = RowType<
  'shopper_sign_in_requests',
  {
    id: string;
    identity_kind: 'email' | 'phone';
    identity: string;
    token_hash: Uint8Array;
    browser_hash: Uint8Array;
    return_path: string | null;
    attempts: number;
    expires_at: Date;
    used_at: Date | null;
  }
>;

const COLUMNS = 'id, identity_kind, identity, token_hash, browser_hash, return_path, attempts, expires_at, used_at';

export async function insertSignInRequest(
  sql: Sql,
  r: { id: string; kind: 'email' | 'phone'; identity: string; tokenHash: Buffer; browserHash: Buffer; returnPath: string | null; now: Date; expiresAt: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO shopper_sign_in_requests (id, identity_kind, identity, token_hash, browser_hash, return_path, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [r.id, r.kind, r.identity, r.tokenHash, r.browserHash, r.returnPath, r.now, r.expiresAt],
  );
}

/** The request of a link's token, used or not, expired or not (the caller says which). */
export async function findSignInRequestByToken(sql: Sql, tokenHash: Buffer): Promise<SignInRequestRow | undefined> {
  const { rows } = await sql.query<SignInRequestRow>(`SELECT ${COLUMNS} FROM shopper_sign_in_requests WHERE token_hash = $1`, [tokenHash]);
  return rows[0];
}

/**
 * Marks the request used, once: true for the one caller that did it while it was unused,
 * unexpired at `now` and asked from this browser (two clicks at once sign in once).
 */
export async function useSignInRequest(sql: Sql, id: string, browserHash: Buffer, now: Date): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE shopper_sign_in_requests SET used_at = $3
      WHERE id = $1 AND browser_hash = $2 AND used_at IS NULL AND expires_at > $3`,
    [id, browserHash, now],
  );
  return rowCount === 1;
}

/**
 * Counts one try at the newest unused, unexpired code request of this browser, if it has tries
 * left (`maxAttempts`), in one statement: tries sent at once are counted one by one. Answers the
 * request as it is after the count, or undefined when there is none to try.
 */
export async function tryCodeRequest(sql: Sql, browserHash: Buffer, now: Date, maxAttempts: number): Promise<SignInRequestRow | undefined> {
  const { rows } = await sql.query<SignInRequestRow>(
    `UPDATE shopper_sign_in_requests SET attempts = attempts + 1
      WHERE id = (SELECT id FROM shopper_sign_in_requests
                   WHERE browser_hash = $1 AND identity_kind = 'phone' AND used_at IS NULL AND expires_at > $2
                   ORDER BY created_at DESC LIMIT 1)
        AND attempts < $3
      RETURNING ${COLUMNS}`,
    [browserHash, now, maxAttempts],
  );
  return rows[0];
}
