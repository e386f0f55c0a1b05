import type { Sql } from '../db/database.ts';
import { isUuid } from '../domain/ids.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { PURCHASE_COLUMNS, toPurchase, type Purchase, type PurchaseRow } from './purchase.ts';

const FROM = `FROM purchases p JOIN clients c ON c.id = p.client_id AND c.account_id = p.account_id`;

/** The account's purchase with this uuid; undefined for malformed, unknown and other accounts' ids alike. */
export async function findPurchase(sql: Sql, accountId: string, id: string): Promise<Purchase | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await sql.query<PurchaseRow>(`SELECT ${PURCHASE_COLUMNS} ${FROM} WHERE p.account_id = $1 AND p.id = $2`, [accountId, id]);
  return rows[0] && toPurchase(rows[0]);
}

/** A purchase by uuid alone: only for pages reached through the purchase's own unguessable link. */
export async function findPurchaseForPage(sql: Sql, id: string): Promise<(Purchase & { merchantName: string }) | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await sql.query<PurchaseRow & { merchant_name: string }>(
    `SELECT ${PURCHASE_COLUMNS}, a.name AS merchant_name ${FROM} JOIN accounts a ON a.id = p.account_id WHERE p.id = $1`,
    [id],
  );
  const row = rows[0];
  return row && { ...toPurchase(row), merchantName: row.merchant_name };
}

export interface PurchaseFilter {
  states?: PurchaseState[];
  ref?: string;
  createdFrom?: Date;
  createdTo?: Date;
  clientId?: string;
  /** Back-office search and filters: one purchase by uuid, the client's e-mail (any case), an offer. */
  id?: string;
  clientEmail?: string;
  offerId?: string;
  /** Keyset cursor: strictly older than this (created_at, id). */
  before?: { createdAt: Date; id: string };
  limit: number;
}

/** The account's purchases, newest first, by keyset pagination (stable under concurrent inserts). */
export async function listPurchases(sql: Sql, accountId: string, f: PurchaseFilter): Promise<Purchase[]> {
  const params: unknown[] = [accountId];
  const where = ['p.account_id = $1'];
  const add = (clause: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (f.states) add((n) => `p.state = ANY(${n}::text[])`, f.states);
  if (f.ref !== undefined) add((n) => `p.ref = ${n}`, f.ref);
  if (f.createdFrom) add((n) => `p.created_at >= ${n}`, f.createdFrom);
  if (f.createdTo) add((n) => `p.created_at < ${n}`, f.createdTo);
  if (f.clientId) add((n) => `p.client_id = ${n}`, f.clientId);
  if (f.id) add((n) => `p.id = ${n}`, f.id);
  if (f.clientEmail !== undefined) add((n) => `lower(c.email) = lower(${n})`, f.clientEmail);
  if (f.offerId) add((n) => `p.offer_id = ${n}`, f.offerId);
  if (f.before) {
    params.push(f.before.createdAt, f.before.id);
    where.push(`(p.created_at, p.id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(f.limit);
  const { rows } = await sql.query<PurchaseRow>(
    `SELECT ${PURCHASE_COLUMNS} ${FROM} WHERE ${where.join(' AND ')} ORDER BY p.created_at DESC, p.id DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map(toPurchase);
}

export interface Client {
  id: string;
  ref: string | null;
  email: string;
  firstName: string | null;
  lastName: string | null;
}

export async function findClient(sql: Sql, accountId: string, id: string): Promise<Client | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await sql.query<{ id: string; ref: string | null; email: string; first_name: string | null; last_name: string | null }>(
    'SELECT id, ref, email, first_name, last_name FROM clients WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  const r = rows[0];
  return r && { id: r.id, ref: r.ref, email: r.email, firstName: r.first_name, lastName: r.last_name };
}
