import type { Sql } from '../db/database.ts';
import type { HookDecision } from '../domain/scoring-hook.ts';

/** An account's external scoring hook as stored: its secret still sealed (docs/risk.md#the-external-scoring-hook). */
export interface StoredScoringHook {
  url: string;
  /** The signing secret sealed by the SecretBox: open it only to sign or to show its last characters. */
  secretEnc: string;
  timeoutMs: number;
  onError: HookDecision;
  enabled: boolean;
  updatedAt: Date;
}

interface HookRow {
  url: string;
  secret_enc: string;
  timeout_ms: number;
  on_error: string;
  enabled: boolean;
  updated_at: Date;
}

const toHook = (r: HookRow): StoredScoringHook => ({
  url: r.url,
  secretEnc: r.secret_enc,
  timeoutMs: r.timeout_ms,
  onError: r.on_error === 'refuse' ? 'refuse' : 'accept',
  enabled: r.enabled,
  updatedAt: r.updated_at,
});

/** The account's hook, or undefined when it has none: one indexed read (the primary key). */
export async function findScoringHook(sql: Sql, accountId: string): Promise<StoredScoringHook | undefined> {
  const { rows } = await sql.query<HookRow>('SELECT url, secret_enc, timeout_ms, on_error, enabled, updated_at FROM risk_scoring_hooks WHERE account_id = $1', [accountId]);
  return rows[0] && toHook(rows[0]);
}

/**
 * Locks the account for an edit of its hook and reads the hook: the account's row, so that two
 * edits run one after the other (and each audits what it really replaced) even when no hook exists yet.
 */
export async function lockScoringHook(tx: Sql, accountId: string): Promise<StoredScoringHook | undefined> {
  await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  return findScoringHook(tx, accountId);
}

/** Writes the account's hook, replacing the one there. */
export async function saveScoringHook(tx: Sql, accountId: string, hook: StoredScoringHook): Promise<void> {
  await tx.query(
    `INSERT INTO risk_scoring_hooks (account_id, url, secret_enc, timeout_ms, on_error, enabled, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (account_id) DO UPDATE SET url = EXCLUDED.url, secret_enc = EXCLUDED.secret_enc, timeout_ms = EXCLUDED.timeout_ms,
       on_error = EXCLUDED.on_error, enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at`,
    [accountId, hook.url, hook.secretEnc, hook.timeoutMs, hook.onError, hook.enabled, hook.updatedAt],
  );
}

/** Removes the account's hook; whether there was one. */
export async function deleteScoringHook(tx: Sql, accountId: string): Promise<boolean> {
  const { rows } = await tx.query<{ account_id: string }>('DELETE FROM risk_scoring_hooks WHERE account_id = $1 RETURNING account_id', [accountId]);
  return rows.length > 0;
}
