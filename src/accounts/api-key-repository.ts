import type { Sql } from '../db/database.ts';

/** API keys: the key id, its account and the secret's hash (the secret itself is never stored). */

export async function insertApiKey(tx: Sql, accountId: string, apiKey: string, secretHash: Buffer): Promise<void> {
  await tx.query('INSERT INTO api_keys (id, account_id, secret_hash) VALUES ($1, $2, $3)', [apiKey, accountId, secretHash]);
}

/** Revokes the key (idempotent: an earlier revocation's date stays); `accountId` null: any account's (the operator). */
export async function revokeApiKey(sql: Sql, apiKey: string, accountId: string | null): Promise<Date | undefined> {
  const { rows } = await sql.query<{ revoked_at: Date }>(
    'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND ($2::uuid IS NULL OR account_id = $2) RETURNING revoked_at',
    [apiKey, accountId],
  );
  return rows[0]?.revoked_at;
}

/** Revokes the account's key if it is live; false when there was no live key to revoke. */
export async function revokeLiveApiKey(tx: Sql, apiKey: string, accountId: string): Promise<boolean> {
  const { rows } = await tx.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id', [apiKey, accountId]);
  return rows.length > 0;
}

/** The account's keys, newest first. */
export async function listApiKeys(sql: Sql, accountId: string): Promise<{ id: string; created_at: Date; revoked_at: Date | null }[]> {
  const { rows } = await sql.query<{ id: string; created_at: Date; revoked_at: Date | null }>(
    'SELECT id, created_at, revoked_at FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id',
    [accountId],
  );
  return rows;
}

/** The key's account and secret hash, when the key exists and is not revoked. */
export async function findActiveApiKey(sql: Sql, apiKey: string): Promise<{ account_id: string; secret_hash: Uint8Array } | undefined> {
  const { rows } = await sql.query<{ account_id: string; secret_hash: Uint8Array }>('SELECT account_id, secret_hash FROM api_keys WHERE id = $1 AND revoked_at IS NULL', [
    apiKey,
  ]);
  return rows[0];
}

/** Keys revoked within the last `seconds` (the revocation cache: auth/revoked-keys.ts). */
export async function recentlyRevokedApiKeys(sql: Sql, seconds: number): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(`SELECT id FROM api_keys WHERE revoked_at > now() - make_interval(secs => $1)`, [seconds]);
  return rows.map((r) => r.id);
}
