import type { Sql } from '../db/database.ts';
import type { RowType } from '../db/row-types.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { Redacted } from '../domain/redacted.ts';
import type { PspEnvironment } from '../psp/definition.ts';
import type { StoredPspAccount } from '../psp/registry.ts';

/**
 * The PSP accounts aggregate (back mode, docs/psp-connectors.md#psp-accounts): a merchant account's
 * own PSP accounts, their credentials sealed with the secret box (one JSON object, AES-256-GCM),
 * and which offers point at them. Every query is scoped by `account_id`, except the notification
 * lookup by id ({@link pspAccountOwner}), whose caller then scopes everything by the owner it
 * answers. The operator's collecting accounts (transfer mode, `account_id` NULL,
 * docs/money-operations.md#transfer-mode) have their own functions, for the operator's CLI only:
 * `account_id = $1` never matches NULL, so no merchant's query ever finds one.
 */

export type PspAccountRow = RowType<
  'psp_accounts',
  {
    id: string;
    /** null: an operator's collecting account (docs/money-operations.md#transfer-mode). */
    account_id: string | null;
    psp: string;
    environment: PspEnvironment;
    label: string;
    credentials_enc: string;
    endpoint_url: string | null;
    verified_at: Date | null;
    created_at: Date;
    updated_at: Date;
  }
>;

/** Opens the sealed credentials; the values stay in a Redacted (logging it prints `[redacted]`). */
export function openCredentials(box: SecretBox, row: PspAccountRow): Redacted<Record<string, string>> {
  return new Redacted(JSON.parse(box.open(row.credentials_enc).reveal()) as Record<string, string>);
}

export function sealCredentials(box: SecretBox, credentials: Readonly<Record<string, string>>): string {
  return box.seal(JSON.stringify(credentials));
}

export function toStored(box: SecretBox, row: PspAccountRow): StoredPspAccount {
  return {
    id: row.id,
    accountId: row.account_id,
    psp: row.psp,
    environment: row.environment,
    credentials: openCredentials(box, row),
    endpointUrl: row.endpoint_url,
    updatedAt: new Date(row.updated_at),
  };
}

export async function insertPspAccount(
  sql: Sql,
  a: { id: string; accountId: string | null; psp: string; environment: PspEnvironment; label: string; credentialsEnc: string; endpointUrl: string | null; verifiedAt: Date | null },
  now: Date,
): Promise<PspAccountRow> {
  const { rows } = await sql.query<PspAccountRow>(
    `INSERT INTO psp_accounts (id, account_id, psp, environment, label, credentials_enc, endpoint_url, verified_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING *`,
    [a.id, a.accountId, a.psp, a.environment, a.label, a.credentialsEnc, a.endpointUrl, a.verifiedAt, now],
  );
  return rows[0]!;
}

export async function findPspAccount(sql: Sql, accountId: string, id: string, lock = false): Promise<PspAccountRow | undefined> {
  const { rows } = await sql.query<PspAccountRow>(`SELECT * FROM psp_accounts WHERE account_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0];
}

/**
 * A PSP account a merchant account's payments may run on: its own, or an operator's collecting
 * account (transfer mode, `account_id` NULL), never another merchant's; `accountId` null: an
 * operator's account only. The registry's loader: which account an offer or a payment may name is
 * kept by the database's trigger (migration 056), so this finds what they name.
 */
export async function findPaymentPspAccount(sql: Sql, accountId: string | null, id: string): Promise<PspAccountRow | undefined> {
  const { rows } =
    accountId === null
      ? await sql.query<PspAccountRow>('SELECT * FROM psp_accounts WHERE id = $1 AND account_id IS NULL', [id])
      : await sql.query<PspAccountRow>('SELECT * FROM psp_accounts WHERE id = $2 AND (account_id = $1 OR account_id IS NULL)', [accountId, id]);
  return rows[0];
}

export async function listPspAccounts(sql: Sql, accountId: string): Promise<PspAccountRow[]> {
  const { rows } = await sql.query<PspAccountRow>('SELECT * FROM psp_accounts WHERE account_id = $1 ORDER BY created_at, id', [accountId]);
  return rows;
}

/**
 * Who a PSP account belongs to: only for inbound notifications, whose URL names the PSP account
 * alone. `{ accountId: null }`: an operator's collecting account, whose transactions are several
 * merchants' (each notified transaction's payment then tells whose); undefined: no such account.
 */
export async function pspAccountOwner(sql: Sql, id: string): Promise<{ accountId: string | null } | undefined> {
  const { rows } = await sql.query<{ account_id: string | null }>('SELECT account_id FROM psp_accounts WHERE id = $1', [id]);
  return rows[0] && { accountId: rows[0].account_id };
}

export async function updatePspAccount(
  sql: Sql,
  accountId: string,
  id: string,
  a: { environment: PspEnvironment; label: string; credentialsEnc: string; endpointUrl: string | null; verifiedAt: Date | null },
  now: Date,
): Promise<PspAccountRow | undefined> {
  // updated_at always moves forward: the registry rebuilds a cached connector when it changes.
  const { rows } = await sql.query<PspAccountRow>(
    `UPDATE psp_accounts SET environment = $3, label = $4, credentials_enc = $5, endpoint_url = $6, verified_at = $7,
       updated_at = GREATEST($8::timestamptz, updated_at + interval '1 millisecond')
     WHERE account_id = $1 AND id = $2 RETURNING *`,
    [accountId, id, a.environment, a.label, a.credentialsEnc, a.endpointUrl, a.verifiedAt, now],
  );
  return rows[0];
}

/** Whether an offer or a payment still points at the PSP account (its captures and refunds need it). */
export async function pspAccountUse(sql: Sql, accountId: string, id: string): Promise<{ offers: number; payments: number }> {
  const { rows } = await sql.query<{ offers: number; payments: number }>(
    `SELECT (SELECT count(*) FROM offers WHERE account_id = $1 AND psp_account_id = $2)::int AS offers,
            (SELECT count(*) FROM payments WHERE account_id = $1 AND psp_account_id = $2)::int AS payments`,
    [accountId, id],
  );
  return rows[0]!;
}

export async function deletePspAccount(sql: Sql, accountId: string, id: string): Promise<boolean> {
  const { rows } = await sql.query('DELETE FROM psp_accounts WHERE account_id = $1 AND id = $2 RETURNING 1', [accountId, id]);
  return rows.length > 0;
}

/** Every connector name a stored offer or PSP account names, sorted (checked against the build at boot). */
export async function pspNamesInUse(sql: Sql): Promise<string[]> {
  const { rows } = await sql.query<{ psp: string }>('SELECT psp FROM offers UNION SELECT psp FROM psp_accounts ORDER BY psp');
  return rows.map((r) => r.psp);
}

/** Offers that would pay through the built-in sandbox PSP (no PSP account, or one of the sandbox connector): refused in production. */
export async function offersOnSandboxPsp(sql: Sql, sandboxPsp: string): Promise<{ accountId: string; offerId: string }[]> {
  const { rows } = await sql.query<{ account_id: string; id: string }>(
    `SELECT o.account_id, o.id FROM offers o LEFT JOIN psp_accounts p ON p.id = o.psp_account_id
     WHERE o.psp_account_id IS NULL OR p.psp = $1 ORDER BY o.account_id, o.created_at, o.id`,
    [sandboxPsp],
  );
  return rows.map((r) => ({ accountId: r.account_id, offerId: r.id }));
}

/** The operator's collecting accounts (transfer mode), oldest first: the operator's CLI only. */
export async function listOperatorPspAccounts(sql: Sql): Promise<PspAccountRow[]> {
  const { rows } = await sql.query<PspAccountRow>('SELECT * FROM psp_accounts WHERE account_id IS NULL ORDER BY created_at, id');
  return rows;
}

export async function findOperatorPspAccount(sql: Sql, id: string, lock = false): Promise<PspAccountRow | undefined> {
  const { rows } = await sql.query<PspAccountRow>(`SELECT * FROM psp_accounts WHERE account_id IS NULL AND id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

export async function updateOperatorPspAccount(
  sql: Sql,
  id: string,
  a: { environment: PspEnvironment; label: string; credentialsEnc: string; endpointUrl: string | null; verifiedAt: Date | null },
  now: Date,
): Promise<PspAccountRow | undefined> {
  // updated_at always moves forward: every process's registry rebuilds its connectors when it changes.
  const { rows } = await sql.query<PspAccountRow>(
    `UPDATE psp_accounts SET environment = $2, label = $3, credentials_enc = $4, endpoint_url = $5, verified_at = $6,
       updated_at = GREATEST($7::timestamptz, updated_at + interval '1 millisecond')
     WHERE account_id IS NULL AND id = $1 RETURNING *`,
    [id, a.environment, a.label, a.credentialsEnc, a.endpointUrl, a.verifiedAt, now],
  );
  return rows[0];
}

/** How many offers and payments, of every merchant, use an operator's collecting account (a payment's captures and refunds need it). */
export async function operatorPspAccountUse(sql: Sql, id: string): Promise<{ offers: number; payments: number }> {
  const { rows } = await sql.query<{ offers: number; payments: number }>(
    `SELECT (SELECT count(*) FROM offers WHERE psp_account_id = $1)::int AS offers,
            (SELECT count(*) FROM payments WHERE psp_account_id = $1)::int AS payments`,
    [id],
  );
  return rows[0]!;
}

export async function deleteOperatorPspAccount(sql: Sql, id: string): Promise<boolean> {
  const { rows } = await sql.query('DELETE FROM psp_accounts WHERE account_id IS NULL AND id = $1 RETURNING 1', [id]);
  return rows.length > 0;
}
