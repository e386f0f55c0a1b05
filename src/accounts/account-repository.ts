import type { Sql } from '../db/database.ts';

/** The accounts table: one row per merchant. */

export async function insertAccount(tx: Sql, id: string, name: string): Promise<void> {
  await tx.query('INSERT INTO accounts (id, name) VALUES ($1, $2)', [id, name]);
}

export async function accountExists(sql: Sql, id: string): Promise<boolean> {
  const found = await sql.query('SELECT 1 FROM accounts WHERE id = $1', [id]);
  return found.rows.length > 0;
}

/** The account's name, or undefined for an unknown account. */
export async function accountName(sql: Sql, id: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ name: string }>('SELECT name FROM accounts WHERE id = $1', [id]);
  return rows[0]?.name;
}

export async function countAccounts(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('SELECT count(*) AS n FROM accounts');
  return rows[0]?.n ?? 0;
}
