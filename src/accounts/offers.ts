import type { Sql } from '../db/database.ts';
import { parsePublicId } from '../domain/ids.ts';

/** An offer ("merchant uid") as the purchase rules need it. */
export interface Offer {
  id: string;
  accountId: string;
  type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED';
  installments: number;
  deferredDays: number;
  currency: string;
  minAmountCents: number;
  maxAmountCents: number;
  accountName: string;
}

interface OfferRow {
  id: string;
  account_id: string;
  type: Offer['type'];
  installments: number;
  deferred_days: number;
  currency: string;
  min_amount_cents: number;
  max_amount_cents: number;
  account_name: string;
}

const SELECT = `SELECT o.id, o.account_id, o.type, o.installments, o.deferred_days, o.currency,
  o.min_amount_cents, o.max_amount_cents, a.name AS account_name
  FROM offers o JOIN accounts a ON a.id = o.account_id`;

function toOffer(r: OfferRow): Offer {
  return {
    id: r.id,
    accountId: r.account_id,
    type: r.type,
    installments: r.installments,
    deferredDays: r.deferred_days,
    currency: r.currency,
    minAmountCents: r.min_amount_cents,
    maxAmountCents: r.max_amount_cents,
    accountName: r.account_name,
  };
}

/** Every offer of the account, oldest first. */
export async function listOffers(sql: Sql, accountId: string): Promise<Offer[]> {
  const { rows } = await sql.query<OfferRow>(`${SELECT} WHERE o.account_id = $1 ORDER BY o.created_at, o.id`, [accountId]);
  return rows.map(toOffer);
}

/**
 * Offers change rarely and are read on every purchase creation, so each process keeps an
 * account's offers for a few seconds (DESIGN §9: short-lived, never the only copy).
 */
export class OfferCache {
  readonly #entries = new Map<string, { offers: Promise<Offer[]>; expiresAt: number }>();

  constructor(
    private readonly sql: Sql,
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  #offers(accountId: string): Promise<Offer[]> {
    const hit = this.#entries.get(accountId);
    if (hit && hit.expiresAt > this.now()) return hit.offers;
    const offers = listOffers(this.sql, accountId);
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

  /** The offer a purchase uses when none is named: the account's first SHARED offer. */
  async defaultOffer(accountId: string): Promise<Offer | undefined> {
    return (await this.#offers(accountId)).find((o) => o.type === 'SHARED');
  }
}
