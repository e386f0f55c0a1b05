import type { Database } from '../../db/database.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import { findClient, findPurchase, listPurchases, type Client, type PurchaseFilter } from '../../purchases/purchase-repository.ts';

/**
 * A merchant's purchases and clients as its APIs read them (Merchant API v1, the sandbox
 * helpers): only the account's own, another account's id answering as an unknown one
 * (docs/architecture.md#scale-and-tenancy).
 */

/** The account's purchase (bare uuid), or undefined. */
export function merchantPurchase(deps: { db: Database }, accountId: string, purchaseId: string): Promise<Purchase | undefined> {
  return findPurchase(deps.db, accountId, purchaseId);
}

/** The account's purchases under a filter, newest first, by keyset pagination. */
export function merchantPurchases(deps: { db: Database }, accountId: string, filter: PurchaseFilter): Promise<Purchase[]> {
  return listPurchases(deps.db, accountId, filter);
}

/** The account's client with their `limit` newest purchases, or undefined for an unknown client. */
export async function merchantClient(deps: { db: Database }, accountId: string, clientId: string, limit: number): Promise<{ client: Client; purchases: Purchase[] } | undefined> {
  const client = await findClient(deps.db, accountId, clientId);
  if (!client) return undefined;
  return { client, purchases: await listPurchases(deps.db, accountId, { clientId: client.id, limit }) };
}
