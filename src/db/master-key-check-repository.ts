import type { Sql } from './database.ts';

/**
 * The master key's check value (migration 023) and a sample of what the database holds sealed.
 * Service-wide on purpose: the master key is the deployment's, not a merchant's.
 */

export async function readKeyCheck(sql: Sql): Promise<Buffer | undefined> {
  const { rows } = await sql.query<{ kcv: Uint8Array }>('SELECT kcv FROM master_key_check WHERE id');
  return rows[0] ? Buffer.from(rows[0].kcv) : undefined;
}

/** Records `kcv` unless a check value is already there (a concurrent start's): read it back after. */
export async function recordKeyCheck(sql: Sql, kcv: Buffer): Promise<void> {
  await sql.query('INSERT INTO master_key_check (id, kcv) VALUES (true, $1) ON CONFLICT (id) DO NOTHING', [kcv]);
}

/** One sealed secret of each kind the database holds (offers, PSP accounts, webhook endpoints), if any. */
export async function sealedSamples(sql: Sql): Promise<string[]> {
  const { rows } = await sql.query<{ sealed: string }>(
    `(SELECT signing_secret_enc AS sealed FROM offers LIMIT 1)
     UNION ALL (SELECT credentials_enc FROM psp_accounts LIMIT 1)
     UNION ALL (SELECT secret_enc FROM webhook_endpoints LIMIT 1)`,
  );
  return rows.map((r) => r.sealed);
}
