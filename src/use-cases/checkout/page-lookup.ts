import type { Database } from '../../db/database.ts';
import type { Lang } from '../../i18n/lang.ts';
import { findPledgeForPage, setPledgePageLanguage, type Pledge } from '../../payments/pledge-repository.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import { findPurchaseForPage, setPurchasePageLanguage } from '../../purchases/purchase-repository.ts';

/**
 * What a hosted page shows, found by the id in its address alone: the page's unguessable link is
 * the shopper's access (docs/security.md#who-can-do-what). Every further read of the page is
 * scoped by the account of what is found here.
 */

/** The purchase of `/pay/<uid>` (bare uuid), with its merchant's name and time zone; undefined when unknown. */
export function purchaseForPage(deps: { db: Database }, purchaseId: string): Promise<(Purchase & { merchantName: string; merchantTimeZone: string }) | undefined> {
  return findPurchaseForPage(deps.db, purchaseId);
}

/** The pledge of `/pledge/<uid>` (bare uuid); undefined when unknown. */
export function pledgeForPage(deps: { db: Database }, pledgeId: string): Promise<Pledge | undefined> {
  return findPledgeForPage(deps.db, pledgeId);
}

/**
 * The language of the hosted page a shopper is using, kept for their messages when it changed
 * (src/i18n/shopper-lang.ts): the leader's on the purchase, a friend's on their pledge.
 */
export async function keepPageLanguage(
  deps: { db: Database },
  shown: { accountId: string; purchaseId: string; pledgeId?: string; kept: string | null },
  lang: Lang,
): Promise<void> {
  if (shown.kept === lang) return;
  if (shown.pledgeId) await setPledgePageLanguage(deps.db, shown.accountId, shown.pledgeId, lang);
  else await setPurchasePageLanguage(deps.db, shown.accountId, shown.purchaseId, lang);
}
