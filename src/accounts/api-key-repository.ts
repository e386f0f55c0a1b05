import { sql as sqlText } from 'kysely';
import type { ThrottleRow } from '../auth/throttle-repository.ts';
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

/** A live key and the stored rows of the failure budgets read with it ({@link findActiveApiKeyWithBudgets}). */
export interface ActiveApiKeyRow {
  account_id: string;
  secret_hash: Uint8Array;
  /** The rows stored for the budgets asked for: a budget without failures in its window may have none. */
  budgets: ThrottleRow[];
}

/**
 * The key's account and secret hash, when the key exists and is not revoked, and the auth_throttle
 * rows of these (scope, subject) pairs (auth/attempt-budgets.ts), in one statement: the token route
 * needs both on every request, and one round trip costs less CPU than two (docs/performance.md,
 * "What limits each row"). The budgets hang off the key's row, so an unknown or revoked key
 * answers nothing: its caller counts a failure and never reads the budgets.
 */
export async function findActiveApiKeyWithBudgets(sql: Sql, apiKey: string, scopes: readonly string[], subjects: readonly string[]): Promise<ActiveApiKeyRow | undefined> {
  const { rows } = await sql.query<{
    account_id: string;
    secret_hash: Uint8Array;
    scope: string | null;
    subject: string | null;
    failures: number | null;
    pending: number | null;
    resets_at: Date | string | null;
  }>(
    `SELECT k.account_id, k.secret_hash, t.scope, t.subject, t.failures, t.pending, t.resets_at
     FROM api_keys k
     LEFT JOIN (unnest($2::text[], $3::text[]) AS r(scope, subject)
                JOIN auth_throttle t ON t.scope = r.scope AND t.subject = r.subject) ON true
     WHERE k.id = $1 AND k.revoked_at IS NULL`,
    [apiKey, scopes, subjects],
  );
  const first = rows[0];
  if (!first) return undefined;
  const budgets: ThrottleRow[] = [];
  for (const r of rows) {
    if (r.scope !== null) budgets.push({ scope: r.scope, subject: r.subject!, failures: r.failures!, pending: r.pending!, resets_at: r.resets_at! });
  }
  return { account_id: first.account_id, secret_hash: first.secret_hash, budgets };
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
