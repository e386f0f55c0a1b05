import type { OfferType } from '../domain/offer-terms.ts';
import { collectionJobKey } from '../domain/installment-rules.ts';
import { requestedDatesOf } from '../domain/schedule.ts';
import { pendingRunAt } from '../jobs/job-repository.ts';
import type { Purchase } from '../purchases/purchase.ts';
import type { OfferCache } from '../accounts/offers.ts';
import type { Database } from '../db/database.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import type { CreditTerms } from '../messaging/messenger.ts';
import { offerSummary } from '../messaging/offer-summary.ts';
import { planLines } from '../payments/installment-repository.ts';
import { savedCard } from '../payments/payment-method-repository.ts';
import { findPledge } from '../payments/pledge-repository.ts';
import { findPurchase } from '../purchases/purchase-repository.ts';
import type { ShopperIdentity } from './identity.ts';
import { potOf, receiptsOf, shopperPartyOf } from './shopper-purchase-repository.ts';

/** One payment of the leader's plan: its date, what is charged (fees included), and where it stands. */
interface PlanLineView {
  /** 1-based. */
  number: number;
  dueDate: string;
  amountCents: number;
  /** `refused`: still to collect, its last collection refused (dunning goes on); `failed`: given up. */
  state: 'scheduled' | 'refused' | 'paid' | 'failed';
  /** A refused line's next collection ('yyyy-mm-dd', UTC): the day its pending collection job runs, as recorded. */
  retryOn?: string;
}

/** A purchase as its leader or one of its pledgers sees it in their space (docs/shopper-space.md#what-a-purchase-shows). */
export interface SpacePurchaseView {
  purchaseId: string;
  role: 'leader' | 'pledger';
  /** The pledger's pledge. */
  pledgeId?: string;
  title: string;
  merchantName: string;
  /** The shop's site, from the purchase's return addresses, when it gave one. */
  merchantSite?: string;
  timeZone: string;
  amountCents: number;
  currency: string;
  state: PurchaseState;
  language: string;
  /** Whether the merchant chose `language`; if not, the page follows the shopper's browser (docs/shopper-space.md#what-a-purchase-shows). */
  languageSet: boolean;
  createdAt: Date;
  offerType: OfferType;
  /** The leader's: every payment of an installment or deferred plan, in order (empty before the checkout). */
  plan: PlanLineView[];
  /** The leader's: the card the plan is charged to. */
  card?: { brand: string; last4: string };
  /** The leader's, for a credit (installments, a deferred payment): the disclosure of its cost. */
  credit?: CreditTerms;
  /** A shared purchase with friends: the pot's progress and deadline. */
  pot?: { deadline: Date | null; friends: number; paidFriends: number; pledgedCents: number; collectedCents: number };
  /** The pledger's share and where it stands. */
  pledge?: { amountCents: number; state: string; paidAt: Date | null };
  /** Receipts and notices sent to this shopper about the purchase, newest first. */
  receipts: { id: string; subject: string | null; body: string; sentAt: Date }[];
}

export type SpacePurchaseLookup = { kind: 'found'; view: SpacePurchaseView } | { kind: 'not_found' };

/**
 * A purchase of the shopper's space: found only when the identity is its leader's or a pledger's
 * (another shopper's purchase is `not_found`, as an unknown one); a pledger sees their share, the
 * pot and their receipts, never the leader's card or plan.
 */
export async function spacePurchase(deps: { db: Database; offers: Pick<OfferCache, 'byId'> }, identity: ShopperIdentity, purchaseId: string): Promise<SpacePurchaseLookup> {
  const party = await shopperPartyOf(deps.db, identity, purchaseId);
  if (!party) return { kind: 'not_found' };
  const purchase = await findPurchase(deps.db, party.accountId, purchaseId);
  const offer = purchase && (await deps.offers.byId(party.accountId, purchase.offerId));
  if (!purchase || !offer) return { kind: 'not_found' };
  const leader = party.role === 'leader';
  const [lines, card, pot, pledge, receipts] = await Promise.all([
    leader ? planLines(deps.db, party.accountId, purchaseId) : Promise.resolve([]),
    leader ? savedCard(deps.db, party.accountId, purchaseId) : Promise.resolve(undefined),
    offer.type === 'SHARED' ? potOf(deps.db, party.accountId, purchaseId) : Promise.resolve(undefined),
    party.pledgeId ? findPledge(deps.db, party.accountId, party.pledgeId) : Promise.resolve(undefined),
    receiptsOf(deps.db, party.accountId, purchaseId, identity),
  ]);
  // A refused line's next try is the collection job dunning recorded for it (docs/schedules.md#collection), not a date worked out again here.
  const refused = lines.filter((l) => l.state === 'scheduled' && l.attempts > 0);
  const retries = await pendingRunAt(
    deps.db,
    party.accountId,
    refused.map((l) => collectionJobKey(l.id, l.attempts)),
  );
  const site = siteOf(purchase.callbackUrl ?? purchase.cancelUrl);
  const view: SpacePurchaseView = {
    purchaseId,
    role: party.role,
    ...(party.pledgeId ? { pledgeId: party.pledgeId } : {}),
    title: purchase.title,
    merchantName: offer.accountName,
    ...(site ? { merchantSite: site } : {}),
    timeZone: offer.accountTimeZone,
    amountCents: purchase.amountCents,
    currency: purchase.currency,
    state: purchase.state,
    language: purchase.language,
    languageSet: purchase.languageSet,
    createdAt: purchase.createdAt,
    offerType: offer.type,
    plan: lines.map((l) => {
      const retry = l.state === 'scheduled' && l.attempts > 0 ? retries.get(collectionJobKey(l.id, l.attempts)) : undefined;
      return {
        number: l.index + 1,
        dueDate: l.dueDate,
        amountCents: l.amountCents,
        state: l.state === 'paid' ? 'paid' : l.state === 'failed' ? 'failed' : l.attempts > 0 ? 'refused' : 'scheduled',
        ...(retry ? { retryOn: retry.toISOString().slice(0, 10) } : {}),
      };
    }),
    ...(card ? { card } : {}),
    ...(leader ? creditOf(offer, purchase) : {}),
    ...(pot && pot.friends > 0
      ? { pot: { deadline: pot.deadline_at, friends: pot.friends, paidFriends: pot.paid_friends, pledgedCents: pot.pledged_cents, collectedCents: pot.collected_cents } }
      : {}),
    ...(pledge ? { pledge: { amountCents: pledge.amountCents, state: pledge.state, paidAt: pledge.paidAt } } : {}),
    receipts: receipts.map((r) => ({ id: r.id, subject: r.subject, body: r.body, sentAt: r.created_at })),
  };
  return { kind: 'found', view };
}

/** The credit's disclosure, as the checkout page and the leader's receipt gave it (the same computation). */
function creditOf(offer: Parameters<typeof offerSummary>[0], purchase: Purchase): { credit?: CreditTerms } {
  try {
    const summary = offerSummary(offer, purchase.amountCents, purchase.createdAt, requestedDatesOf(purchase));
    return summary.type === 'SHARED' ? {} : { credit: summary.credit };
  } catch {
    // Purchase creation checked the schedule; an offer edited since to refuse this amount leaves the disclosure out rather than the page.
    return {};
  }
}

function siteOf(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}
