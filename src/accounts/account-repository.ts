import type { Sql } from '../db/database.ts';
import { q, run } from '../db/query.ts';

/** The accounts table: one row per merchant. */

export async function insertAccount(tx: Sql, id: string, name: string): Promise<void> {
  await run(tx, q.insertInto('accounts').values({ id, name }));
}

export async function accountExists(sql: Sql, id: string): Promise<boolean> {
  const found = await run(sql, q.selectFrom('accounts').select('id').where('id', '=', id));
  return found.rows.length > 0;
}

/** The account's name, or undefined for an unknown account. */
export async function accountName(sql: Sql, id: string): Promise<string | undefined> {
  const { rows } = await run(sql, q.selectFrom('accounts').select('name').where('id', '=', id));
  return rows[0]?.name;
}

export async function countAccounts(sql: Sql): Promise<number> {
  const { rows } = await run(
    sql,
    q.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')),
  );
  return rows[0]?.n ?? 0;
}

/** Locks the account's row until the transaction ends: what serialises one account's invitations. */
export async function lockAccount(tx: Sql, id: string): Promise<void> {
  await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [id]);
}
