import type { Sql } from '../../db/database.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import { listPurchases, listPurchasesForExport, type PurchaseExportRow, type PurchaseFilter } from '../../purchases/purchase-repository.ts';

/**
 * The account's purchases as the back office lists them (docs/back-office.md): the Purchases
 * page's search and filters, newest first by keyset, and the same list's CSV export with only the
 * file's columns (docs/performance.md#the-csv-export).
 */

/** The account's purchases matching `filter`, newest first, `filter.limit` after `filter.before`. */
export function purchaseList(db: Sql, accountId: string, filter: PurchaseFilter): Promise<Purchase[]> {
  return listPurchases(db, accountId, filter);
}

/** The same list's rows as the CSV export shows them. */
export function purchasesForExport(db: Sql, accountId: string, filter: PurchaseFilter): Promise<PurchaseExportRow[]> {
  return listPurchasesForExport(db, accountId, filter);
}
