import type { Database } from '../../db/database.ts';
import type { ShopperIdentity } from '../../shopper-space/identity.ts';
import { listShopperPurchases, shopperPartyOf, type ShopperParty, type ShopperPurchaseRow } from '../../shopper-space/shopper-purchase-repository.ts';

export type { ShopperParty };

/**
 * The purchases a shopper is party to across accounts, as their space lists and authorises them
 * (docs/shopper-space.md#who-sees-what): every read is filtered by the shopper's identity.
 */

/** Every purchase the identity is party to, newest first, with their part in it. */
export function shopperPurchases(deps: { db: Database }, identity: ShopperIdentity): Promise<ShopperPurchaseRow[]> {
  return listShopperPurchases(deps.db, identity);
}

/** The shopper's part in this purchase (bare uuid): leader, or pledger with their pledge; undefined when they are no party to it. */
export function shopperParty(deps: { db: Database }, identity: ShopperIdentity, purchaseId: string): Promise<ShopperParty | undefined> {
  return shopperPartyOf(deps.db, identity, purchaseId);
}
