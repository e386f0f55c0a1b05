import type { OfferCache } from '../accounts/offers.ts';
import type { Offer } from '../accounts/offer.ts';
import type { Sql } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { insertPurchase, type NewPurchase } from '../purchases/purchase-repository.ts';
import type { Purchase } from '../purchases/purchase.ts';
import { checkAmount, type Violation } from '../purchases/validate.ts';

export interface CreatePurchaseDeps {
  db: Sql;
  clock: Clock;
  offers: Pick<OfferCache, 'find' | 'defaultOffer'>;
}

/** A purchase to create, as either API family parsed it (schema-valid; business rules unchecked). */
export interface CreatePurchaseInput extends Omit<NewPurchase, 'offer' | 'currency' | 'metadata' | 'products'> {
  accountId: string;
  /** The offer (`mer_...`); without it, the account's default (SHARED) offer. */
  merchantUid?: string;
  /** ISO 4217; the offer's currency when left out. */
  currency?: string;
  metadata?: Record<string, unknown>;
  products?: NewPurchase['products'];
}

export type CreatePurchaseOutcome =
  | { kind: 'created'; purchase: Purchase; offer: Offer }
  /** `merchantUid` names no offer of the account (unknown, malformed or another account's), or none was given and the account has no default offer. */
  | { kind: 'no_offer'; merchantUid: string | undefined }
  /** A business rule is broken (amount or currency against the offer); nothing was stored. */
  | ({ kind: 'invalid' } & Violation);

/**
 * Creates a purchase for the Token API's purchase link and Merchant API v1 alike: resolves the
 * offer within the account, checks amount and currency against its terms, stores the purchase
 * with its client and its `purchase.created` event.
 */
export async function createPurchase(deps: CreatePurchaseDeps, input: CreatePurchaseInput): Promise<CreatePurchaseOutcome> {
  const { accountId, merchantUid, currency: asked, metadata = {}, products = [], ...rest } = input;
  const offer = merchantUid === undefined ? await deps.offers.defaultOffer(accountId) : await deps.offers.find(accountId, merchantUid);
  if (!offer) return { kind: 'no_offer', merchantUid };
  const currency = asked ?? offer.currency;
  const violation = checkAmount(offer, rest.amountCents, currency, products);
  if (violation) return { kind: 'invalid', ...violation };
  const purchase = await insertPurchase(deps.db, { ...rest, offer, currency, metadata, products }, deps.clock.now());
  return { kind: 'created', purchase, offer };
}
