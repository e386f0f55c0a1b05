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
  /** Until when payouts are held after the IBAN was replaced (the cooling-off); null: not held. */
  holdUntil: Date | null;
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
  const { rows } = await sql.query<{ details_enc: string; updated_at: Date; hold_until: Date | null }>(
    `SELECT details_enc, updated_at, hold_until FROM payout_bank_details WHERE account_id = $1${opts.lock ? ' FOR UPDATE' : ''}`,
    [accountId],
  );
  const row = rows[0];
  return row && { details: open(box, row.details_enc), updatedAt: row.updated_at, holdUntil: row.hold_until };
}

/** The bank details of several accounts, opened, by account id (the pain.001 export reads a batch). */
export async function bankDetailsOf(sql: Sql, box: SecretBox, accountIds: readonly string[]): Promise<Map<string, BankDetails>> {
  if (accountIds.length === 0) return new Map();
  const { rows } = await sql.query<{ account_id: string; details_enc: string }>('SELECT account_id, details_enc FROM payout_bank_details WHERE account_id = ANY($1::uuid[])', [
    [...new Set(accountIds)],
  ]);
  return new Map(rows.map((r) => [r.account_id, open(box, r.details_enc)]));
}

/**
 * Whether a payout run may pay the account now: `none` without bank details, `held` until the
 * cooling-off after an IBAN change ends (`now` on the service clock), else `ok`.
 */
export async function bankDetailsState(sql: Sql, accountId: string, now: Date): Promise<{ kind: 'none' } | { kind: 'held'; until: Date } | { kind: 'ok' }> {
  const { rows } = await sql.query<{ hold_until: Date | null }>('SELECT hold_until FROM payout_bank_details WHERE account_id = $1', [accountId]);
  const row = rows[0];
  if (!row) return { kind: 'none' };
  return row.hold_until && row.hold_until > now ? { kind: 'held', until: row.hold_until } : { kind: 'ok' };
}

/** Sets the account's bank details, replacing any previous ones, with the end of their cooling-off (null: none). */
export async function saveBankDetails(sql: Sql, box: SecretBox, accountId: string, d: BankDetails, now: Date, holdUntil: Date | null): Promise<void> {
  await sql.query(
    `INSERT INTO payout_bank_details (account_id, details_enc, updated_at, hold_until) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) DO UPDATE SET details_enc = EXCLUDED.details_enc, updated_at = EXCLUDED.updated_at, hold_until = EXCLUDED.hold_until`,
    [accountId, sealBankDetails(box, d), now, holdUntil],
  );
}

/** Ends the account's cooling-off now (the operator's early release); the end it had, or undefined when none was running. */
export async function releaseBankDetailsHold(sql: Sql, accountId: string, now: Date): Promise<Date | undefined> {
  const { rows } = await sql.query<{ hold_until: Date }>(
    `UPDATE payout_bank_details d SET hold_until = NULL FROM payout_bank_details old
      WHERE d.account_id = $1 AND old.account_id = d.account_id AND old.hold_until > $2 RETURNING old.hold_until`,
    [accountId, now],
  );
  return rows[0]?.hold_until;
}

/** The e-mail addresses of the account's admins (told of every change of the bank details). */
export async function adminEmails(sql: Sql, accountId: string): Promise<string[]> {
  const { rows } = await sql.query<{ email: string }>("SELECT email FROM dashboard_users WHERE account_id = $1 AND role = 'admin' ORDER BY lower(email)", [accountId]);
  return rows.map((r) => r.email);
}
