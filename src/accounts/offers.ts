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
  /** PSP connector name (registry key): the PSP account's connector, `sandbox` without one. */
  psp: string;
  /** The merchant PSP account the offer pays through (back mode); null: the built-in sandbox PSP. */
  pspAccountId: string | null;
  /** Card refusals a leader may have before the purchase goes FAILED. */
  maxAttempts: number;
  /** How long pledgers have to pay, from the leader's payment (SHARED). */
  potDeadlineHours: number;
  /** How long a purchase may stay unpaid (CREATED) before it expires. */
  expiryHours: number;
  /** Schedule terms (docs/schedules.md#rules): fee in basis points of the amount, plus a fixed fee. */
  feeRateBps: number;
  fixedFeeCents: number;
  /** Nominal annual interest rate in basis points (`debit_rate`). */
  debitRateBps: number;
  /** Largest credit on one purchase; null = no cap. */
  fundingCapCents: number | null;
  /** Legal ceiling on the TAEG in basis points; null = none. */
  usuryCeilingBps: number | null;
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
  psp: string;
  psp_account_id: string | null;
  max_attempts: number;
  pot_deadline_hours: number;
  expiry_hours: number;
  fee_rate_bps: number;
  fixed_fee_cents: number;
  debit_rate_bps: number;
  funding_cap_cents: number | null;
  usury_ceiling_bps: number | null;
}

const SELECT = `SELECT o.id, o.account_id, o.type, o.installments, o.deferred_days, o.currency,
  o.min_amount_cents, o.max_amount_cents, a.name AS account_name, o.psp, o.psp_account_id, o.max_attempts, o.pot_deadline_hours, o.expiry_hours,
  o.fee_rate_bps, o.fixed_fee_cents, o.debit_rate_bps, o.funding_cap_cents, o.usury_ceiling_bps
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
    psp: r.psp,
    pspAccountId: r.psp_account_id,
    maxAttempts: r.max_attempts,
    potDeadlineHours: r.pot_deadline_hours,
    expiryHours: r.expiry_hours,
    feeRateBps: r.fee_rate_bps,
    fixedFeeCents: r.fixed_fee_cents,
    debitRateBps: r.debit_rate_bps,
    fundingCapCents: r.funding_cap_cents,
    usuryCeilingBps: r.usury_ceiling_bps,
  };
}

/** Every offer of the account, oldest first. */
async function listOffers(sql: Sql, accountId: string): Promise<Offer[]> {
  const { rows } = await sql.query<OfferRow>(`${SELECT} WHERE o.account_id = $1 ORDER BY o.created_at, o.id`, [accountId]);
  return rows.map(toOffer);
}

/** The offer, its row locked until the transaction ends (an edit reads and writes it there). */
export async function lockOffer(tx: Sql, accountId: string, id: string): Promise<Offer | undefined> {
  const { rows } = await tx.query<OfferRow>(`${SELECT} WHERE o.account_id = $1 AND o.id = $2 FOR UPDATE OF o`, [accountId, id]);
  return rows[0] && toOffer(rows[0]);
}

/** The terms the back office edits (src/use-cases/edit-offer.ts holds their rules). */
export type EditableTerms = Pick<Offer, 'feeRateBps' | 'fixedFeeCents' | 'minAmountCents' | 'maxAmountCents' | 'expiryHours' | 'potDeadlineHours' | 'pspAccountId' | 'psp'>;

export async function updateOfferTerms(tx: Sql, accountId: string, id: string, t: EditableTerms): Promise<void> {
  await tx.query(
    `UPDATE offers SET fee_rate_bps = $3, fixed_fee_cents = $4, min_amount_cents = $5, max_amount_cents = $6, expiry_hours = $7,
       pot_deadline_hours = $8, psp_account_id = $9, psp = $10 WHERE account_id = $1 AND id = $2`,
    [accountId, id, t.feeRateBps, t.fixedFeeCents, t.minAmountCents, t.maxAmountCents, t.expiryHours, t.potDeadlineHours, t.pspAccountId, t.psp],
  );
}

/** How many of the offer's purchases the leader has not paid yet (CREATED): their schedule still reads the offer (editOffer). */
export async function unpaidPurchaseCount(tx: Sql, accountId: string, offerId: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM purchases WHERE account_id = $1 AND offer_id = $2 AND state = 'CREATED'",
    [accountId, offerId],
  );
  return rows[0]!.n;
}

/**
 * Offers change rarely and are read on every purchase creation, so each process keeps an
 * account's offers for a few seconds (short-lived, never the only copy:
 * docs/architecture.md#scale-and-tenancy).
 */
export class OfferCache {
  readonly #entries = new Map<string, { offers: Promise<Offer[]>; expiresAt: number }>();
  /** Offer id → account id, for the credential-less lookup; an offer never changes account. */
  readonly #accountOf = new Map<string, string>();

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
    let accountId = this.#accountOf.get(id);
    if (accountId === undefined) {
      const { rows } = await this.sql.query<{ account_id: string }>('SELECT account_id FROM offers WHERE id = $1', [id]);
      accountId = rows[0]?.account_id;
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
