import type { Sql } from '../db/database.ts';
import { assertOutsideTransactions } from '../db/transaction-scope.ts';
import { parsePublicId } from '../domain/ids.ts';
import type { Offer } from './offer.ts';
import { listOffers, offerAccountId } from './offer-repository.ts';

/**
 * Offers change rarely and are read on every purchase creation, so each process keeps an
 * account's offers for a few seconds (short-lived, never the only copy:
 * docs/architecture.md#scale-and-tenancy).
 */
export class OfferCache {
  readonly #entries = new Map<string, { offers: Promise<Offer[]>; expiresAt: number }>();
  /** Offer id → account id, for the credential-less lookup; an offer never changes account. */
  readonly #accountOf = new Map<string, string>();

  /**
   * `creditLender`: the deployment's lender (`CREDIT_LENDER`), shown on the credit offers that name
   * none of their own; without it, the merchant (docs/schedules.md#credit-mentions).
   */
  constructor(
    private readonly sql: Sql,
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
    private readonly creditLender?: string,
  ) {}

  #offers(accountId: string): Promise<Offer[]> {
    assertOutsideTransactions('the offer cache'); // a miss queries outside the caller's transaction
    const hit = this.#entries.get(accountId);
    if (hit && hit.expiresAt > this.now()) return hit.offers;
    const lender = this.creditLender;
    const offers = listOffers(this.sql, accountId).then((list) => (lender === undefined ? list : list.map((o) => (o.creditLender === null ? { ...o, lender } : o))));
    this.#entries.set(accountId, { offers, expiresAt: this.now() + this.ttlMs });
    offers.catch(() => this.#entries.delete(accountId)); // never cache a failure
    if (this.#entries.size > 10_000) this.#entries.delete(this.#entries.keys().next().value!);
    return offers;
  }

  /** The account's offer with this `mer_<uuid>`; undefined for malformed, unknown or other accounts' ids. */
  async find(accountId: string, merchantUid: string): Promise<Offer | undefined> {
    const id = parsePublicId('mer', merchantUid);
    return id === undefined ? undefined : (await this.#offers(accountId)).find((o) => o.id === id);
  }

  /** The account's offer with this bare uuid (as stored on purchases). */
  async byId(accountId: string, id: string): Promise<Offer | undefined> {
    return (await this.#offers(accountId)).find((o) => o.id === id);
  }

  /**
   * The offer with this `mer_<uuid>`, whatever its account: only for the public, credential-less
   * schedule simulation, which must show nothing of the account beyond the offer's own terms.
   */
  async findPublic(merchantUid: string): Promise<Offer | undefined> {
    const id = parsePublicId('mer', merchantUid);
    if (id === undefined) return undefined;
    assertOutsideTransactions('the offer cache');
    let accountId = this.#accountOf.get(id);
    if (accountId === undefined) {
      accountId = await offerAccountId(this.sql, id);
      if (accountId === undefined) return undefined;
      if (this.#accountOf.size >= 10_000) this.#accountOf.delete(this.#accountOf.keys().next().value!);
      this.#accountOf.set(id, accountId);
    }
    return this.byId(accountId, id);
  }

  /** Drops this process's copy of the account's offers (after an offer changed here). */
  forget(accountId: string): void {
    this.#entries.delete(accountId);
  }

  /** Every offer of the account, oldest first (the sandbox demo shop picks its offers from them). */
  async list(accountId: string): Promise<Offer[]> {
    return this.#offers(accountId);
  }

  /** The offer a purchase uses when none is named: the account's first SHARED offer. */
  async defaultOffer(accountId: string): Promise<Offer | undefined> {
    return (await this.#offers(accountId)).find((o) => o.type === 'SHARED');
  }
}
