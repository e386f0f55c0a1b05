import type { Sql } from '../db/database.ts';
import { q, run } from '../db/query.ts';

/** The accounts table: one row per merchant. */

export async function insertAccount(tx: Sql, id: string, name: string, timeZone?: string, country?: string, language?: string): Promise<void> {
  await run(tx, q.insertInto('accounts').values({ id, name, ...(timeZone ? { time_zone: timeZone } : {}), ...(country ? { country } : {}), ...(language ? { language } : {}) }));
}

export async function accountExists(sql: Sql, id: string): Promise<boolean> {
  const found = await run(sql, q.selectFrom('accounts').select('id').where('id', '=', id));
  return found.rows.length > 0;
}

/** The account's name, time zone and country (null: the deployment's), or undefined for an unknown account. */
export async function accountProfile(sql: Sql, id: string): Promise<{ name: string; time_zone: string; country: string | null } | undefined> {
  const { rows } = await run(sql, q.selectFrom('accounts').select(['name', 'time_zone', 'country']).where('id', '=', id));
  return rows[0];
}

/** Sets the account's time zone and, unless undefined, its country (in a transaction): the previous ones, or undefined for an unknown account. */
export async function setAccountSettings(
  tx: Sql,
  id: string,
  settings: { timeZone: string; country?: string | null },
): Promise<{ time_zone: string; country: string | null } | undefined> {
  const { rows } = await tx.query<{ time_zone: string; country: string | null }>('SELECT time_zone, country FROM accounts WHERE id = $1 FOR UPDATE', [id]);
  if (!rows[0]) return undefined;
  const country = settings.country === undefined ? {} : { country: settings.country };
  await run(
    tx,
    q
      .updateTable('accounts')
      .set({ time_zone: settings.timeZone, ...country })
      .where('id', '=', id),
  );
  return rows[0];
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
