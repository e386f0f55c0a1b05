import type { OfferCache } from '../../accounts/offers.ts';
import type { Offer } from '../../accounts/offer.ts';
import type { Sql } from '../../db/database.ts';
import { formatIsoDate } from '../../domain/dates.ts';
import { plannedCharges, planLeaderPayment } from '../../domain/leader-plan.ts';
import { offerTerms } from '../../domain/offer-terms.ts';
import { computeSchedule, ScheduleError } from '../../domain/schedule.ts';
import { amountStepRefusal, firstOffStep } from '../../psp/definition.ts';
import type { PspRegistry } from '../../psp/registry.ts';
import type { Clock } from '../../domain/clock.ts';
import { findPurchaseByRequestKey, insertPurchase, type NewPurchase } from '../../purchases/purchase-repository.ts';
import type { Purchase } from '../../purchases/purchase.ts';
import { checkAmount, type Violation } from '../../purchases/validate.ts';

export interface CreatePurchaseDeps {
  db: Sql;
  clock: Clock;
  offers: Pick<OfferCache, 'find' | 'defaultOffer' | 'byId'>;
  psps: Pick<PspRegistry, 'definition'>;
}

/** A purchase to create, as either API family parsed it (schema-valid; business rules unchecked). */
export interface CreatePurchaseInput extends Omit<NewPurchase, 'offer' | 'currency' | 'metadata' | 'products'> {
  accountId: string;
  /** The offer (`mer_...`); without it, the account's default (SHARED) offer. */
  merchantUid?: string;
  /**
   * The offer `merchantUid` names (of this account), when the caller has read it already: then
   * the offer cache is not read. A caller inside a transaction must give it, since a cache miss
   * there queries outside the transaction, and on the embedded database waits for that very
   * transaction (docs/architecture.md#conventions).
   */
  resolvedOffer?: Offer;
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
 * offer within the account, checks amount and currency against its terms and what its PSP can
 * charge (docs/psp-connectors.md#currencies), stores the purchase
 * with its client and its `purchase.created` event.
 *
 * `requestKey` (a request sent with an Idempotency-Key: src/http/idempotency.ts) is stored on the
 * purchase. When a purchase with that key is already there, an earlier attempt of this very
 * request created it and lost its answer (docs/api-conventions.md#idempotency-key): that purchase
 * is answered, as it is now, and none is created.
 */
export async function createPurchase(deps: CreatePurchaseDeps, input: CreatePurchaseInput): Promise<CreatePurchaseOutcome> {
  const { accountId, merchantUid, resolvedOffer, currency: asked, metadata = {}, products = [], ...rest } = input;
  const earlier = input.requestKey === undefined ? undefined : await earlierPurchase(deps, accountId, input.requestKey);
  if (earlier) return earlier;
  const offer = resolvedOffer ?? (merchantUid === undefined ? await deps.offers.defaultOffer(accountId) : await deps.offers.find(accountId, merchantUid));
  if (!offer) return { kind: 'no_offer', merchantUid };
  const currency = asked ?? offer.currency;
  const violation = checkAmount(offer, rest.amountCents, currency, products);
  if (violation) return { kind: 'invalid', ...violation };
  const offStep = offPspStep(deps, offer, currency, rest.amountCents);
  if (offStep) return { kind: 'invalid', field: 'amount', message: offStep };
  const balanceDate = balanceDateRefusal(offer, rest.amountCents, deps.clock.now(), rest.balancePaymentDate);
  if (balanceDate) return { kind: 'invalid', field: 'balance_payment_date', message: balanceDate };
  let purchase: Purchase;
  try {
    // Onto `rest`, a copy already: spreading it into another object cost 5-8 µs per create
    // (docs/performance.md#the-create-part-by-part).
    purchase = await insertPurchase(deps.db, Object.assign(rest, { offer, currency, metadata, products }), deps.clock.now());
  } catch (err) {
    // The key's claim guards against two attempts at once; should one still run late while a
    // takeover creates (a first attempt whose lease lapsed while it still ran), the unique request key
    // makes the later insert fail: it answers the purchase the other made.
    const other = input.requestKey !== undefined && (err as { code?: unknown }).code === '23505' ? await earlierPurchase(deps, accountId, input.requestKey) : undefined;
    if (!other) throw err;
    return other;
  }
  return { kind: 'created', purchase, offer };
}

/** The purchase an earlier attempt of the request with this key created, with its offer. */
async function earlierPurchase(deps: CreatePurchaseDeps, accountId: string, requestKey: string): Promise<CreatePurchaseOutcome | undefined> {
  const purchase = await findPurchaseByRequestKey(deps.db, accountId, requestKey);
  if (!purchase) return undefined;
  const offer = await deps.offers.byId(accountId, purchase.offerId);
  if (!offer) throw new Error(`purchase ${purchase.id}: its offer ${purchase.offerId} is not the account's`);
  return { kind: 'created', purchase, offer };
}

/**
 * Why the balance's due date asked for a DOWN_PAYMENT offer cannot be the plan's (not after the
 * purchase's creation, or after the offer's maximum balance delay: docs/schedules.md#down-payment),
 * told now to the merchant rather than to the shopper at the payment. Other offers ignore it.
 */
function balanceDateRefusal(offer: Offer, amountCents: number, now: Date, balanceDate: string | undefined): string | undefined {
  if (balanceDate === undefined || offer.type !== 'DOWN_PAYMENT') return undefined;
  try {
    computeSchedule(offerTerms(offer), amountCents, formatIsoDate(now), { balanceDate });
  } catch (err) {
    if (!(err instanceof ScheduleError)) throw err;
    if (err.code === 'invalid_balance_payment_date') return `is not possible for this offer: ${err.message}`;
  }
  return undefined;
}

/**
 * What the offer's PSP could not charge as it is (Midtrans: sen in an IDR amount), in the amount
 * or in what the leader's plan derives from it (the first installment with its fees, the later
 * ones): refused here, before the purchase exists, never rounded (docs/psp-connectors.md#currencies).
 * A pot's shares are the leader's choice, checked when the leader pays.
 */
function offPspStep(deps: CreatePurchaseDeps, offer: Offer, currency: string, amountCents: number): string | undefined {
  const definition = offer.pspAccountId === null ? undefined : deps.psps.definition(offer.psp);
  if (!definition) return undefined;
  const own = amountStepRefusal(definition, currency, amountCents);
  if (own) return own;
  const plan = planLeaderPayment(offer, amountCents, [], deps.clock.now());
  if ('problem' in plan) return undefined; // the leader's checkout tells the schedule's own refusal
  const off = firstOffStep(definition, currency, plannedCharges(plan, []));
  return off && `would make ${off.charge.what} ${off.charge.amountCents}, which ${off.refused}`;
}
