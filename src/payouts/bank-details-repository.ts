import type { SecretBox } from '../crypto/secret-box.ts';
import type { Sql } from '../db/database.ts';
import type { BankDetails } from './bank-details.ts';

/**
 * The merchants' payout bank details (`payout_bank_details`, migration 059): holder, IBAN and BIC
 * sealed together as one JSON text with the master key (src/crypto/secret-box.ts), opened only to
 * show them masked and to write the pain.001 file.
 */

export interface StoredBankDetails {
  details: BankDetails;
  updatedAt: Date;
}

function open(box: SecretBox, sealed: string): BankDetails {
  const parsed = JSON.parse(box.open(sealed).reveal()) as { holder_name: string; iban: string; bic: string };
  return { holderName: parsed.holder_name, iban: parsed.iban, bic: parsed.bic };
}

function sealBankDetails(box: SecretBox, d: BankDetails): string {
  return box.seal(JSON.stringify({ holder_name: d.holderName, iban: d.iban, bic: d.bic }));
}

/** The account's bank details, opened; undefined when none are set. `lock`: FOR UPDATE, in the caller's transaction. */
export async function findBankDetails(sql: Sql, box: SecretBox, accountId: string, opts: { lock?: boolean } = {}): Promise<StoredBankDetails | undefined> {
  const { rows } = await sql.query<{ details_enc: string; updated_at: Date }>(
    `SELECT details_enc, updated_at FROM payout_bank_details WHERE account_id = $1${opts.lock ? ' FOR UPDATE' : ''}`,
    [accountId],
  );
  const row = rows[0];
  return row && { details: open(box, row.details_enc), updatedAt: row.updated_at };
}

/** The bank details of several accounts, opened, by account id (the pain.001 export reads a batch). */
export async function bankDetailsOf(sql: Sql, box: SecretBox, accountIds: readonly string[]): Promise<Map<string, BankDetails>> {
  if (accountIds.length === 0) return new Map();
  const { rows } = await sql.query<{ account_id: string; details_enc: string }>('SELECT account_id, details_enc FROM payout_bank_details WHERE account_id = ANY($1::uuid[])', [
    [...new Set(accountIds)],
  ]);
  return new Map(rows.map((r) => [r.account_id, open(box, r.details_enc)]));
}

/** Whether the account has bank details (a payout run needs to know no more). */
export async function hasBankDetails(sql: Sql, accountId: string): Promise<boolean> {
  const { rows } = await sql.query('SELECT 1 FROM payout_bank_details WHERE account_id = $1', [accountId]);
  return rows.length > 0;
}

/** Sets the account's bank details, replacing any previous ones. */
export async function saveBankDetails(sql: Sql, box: SecretBox, accountId: string, d: BankDetails, now: Date): Promise<void> {
  await sql.query(
    `INSERT INTO payout_bank_details (account_id, details_enc, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (account_id) DO UPDATE SET details_enc = EXCLUDED.details_enc, updated_at = EXCLUDED.updated_at`,
    [accountId, sealBankDetails(box, d), now],
  );
}
