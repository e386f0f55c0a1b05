import { sql as sqlText } from 'kysely';
import type { Sql } from '../db/database.ts';
import { q, run } from '../db/query.ts';

/** API keys: the key id, its account and the secret's hash (the secret itself is never stored). */

export async function insertApiKey(tx: Sql, accountId: string, apiKey: string, secretHash: Buffer): Promise<void> {
  await run(tx, q.insertInto('api_keys').values({ id: apiKey, account_id: accountId, secret_hash: secretHash }));
}

/** Revokes the key (idempotent: an earlier revocation's date stays); `accountId` null: any account's (the operator). */
export async function revokeApiKey(sql: Sql, apiKey: string, accountId: string | null): Promise<Date | undefined> {
  const { rows } = await run(
    sql,
    q
      .updateTable('api_keys')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', sqlText<Date>`now()`) }))
      .where('id', '=', apiKey)
      .$if(accountId !== null, (qb) => qb.where('account_id', '=', accountId!))
      .returning('revoked_at'),
  );
  return rows[0]?.revoked_at ?? undefined;
}

/** Revokes the account's key if it is live; false when there was no live key to revoke. */
export async function revokeLiveApiKey(tx: Sql, apiKey: string, accountId: string): Promise<boolean> {
  const { rows } = await run(
    tx,
    q
      .updateTable('api_keys')
      .set({ revoked_at: sqlText<Date>`now()` })
      .where('id', '=', apiKey)
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .returning('id'),
  );
  return rows.length > 0;
}

/** The account's keys, newest first. */
export async function listApiKeys(sql: Sql, accountId: string): Promise<{ id: string; created_at: Date; revoked_at: Date | null }[]> {
  const { rows } = await run(
    sql,
    q.selectFrom('api_keys').select(['id', 'created_at', 'revoked_at']).where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id'),
  );
  return rows;
}

/** The key's account and secret hash, when the key exists and is not revoked. */
export async function findActiveApiKey(sql: Sql, apiKey: string): Promise<{ account_id: string; secret_hash: Uint8Array } | undefined> {
  const { rows } = await run(sql, q.selectFrom('api_keys').select(['account_id', 'secret_hash']).where('id', '=', apiKey).where('revoked_at', 'is', null));
  return rows[0];
}

/** Keys revoked within the last `seconds` (the revocation cache: auth/revoked-keys.ts). */
export async function recentlyRevokedApiKeys(sql: Sql, seconds: number): Promise<string[]> {
  const { rows } = await run(
    sql,
    q
      .selectFrom('api_keys')
      .select('id')
      .where('revoked_at', '>', sqlText<Date>`now() - make_interval(secs => ${seconds})`),
  );
  return rows.map((r) => r.id);
}
