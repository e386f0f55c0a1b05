import { createHash } from 'node:crypto';
import type { Sql } from '../db/database.ts';
import type { ShopperHistory } from '../domain/risk-score.ts';

/** How a shopper is recognised across purchases (docs/risk.md#shopper-identity); at least one is set. */
export interface ShopperIdentity {
  /** Normalised: trimmed, lower-case. */
  email?: string;
  /** E.164. */
  phone?: string;
  /** The merchant's own customer id: a client's `ref`. */
  customerId?: string;
  /** Chipin's keyed fingerprint of the card (payment time only). */
  cardFingerprint?: string;
}

/**
 * Every figure the score and the outstanding-credit and velocity rules read, in ONE call of
 * `chipin_shopper_history` (migration 033, docs/risk.md#the-history-query): the shopper's other
 * purchases on this account, found by e-mail or customer id (through their clients), by phone, or
 * by card (the cards of earlier decisions), then their installments, payments and decisions.
 *
 * `decided` is the payment-time decision's: the purchase being decided (left out of the figures)
 * and the advisory lock keys to take first, in the caller's transaction, so that two decisions
 * about one shopper are serialised ({@link shopperLockKeys}). `now` is the service clock.
 */
export async function shopperHistory(
  sql: Sql,
  accountId: string,
  who: ShopperIdentity,
  now: Date,
  decided?: { purchaseId: string; locks: readonly string[] },
): Promise<ShopperHistory> {
  const { rows } = await sql.query<{
    h_completed: number;
    h_failed: number;
    h_first_seen: Date | null;
    h_largest_paid: string | number | null;
    h_plans_hour: number;
    h_plans_day: number;
    h_outstanding: string | number;
    h_reserved: string | number;
    h_declines: number;
  }>('SELECT * FROM chipin_shopper_history($1, $2::bigint[], $3, $4, $5, $6, $7, $8)', [
    accountId,
    decided?.locks ?? [],
    who.email ?? null,
    who.phone ?? null,
    who.customerId ?? null,
    who.cardFingerprint ?? null,
    decided?.purchaseId ?? null,
    now,
  ]);
  const r = rows[0]!;
  return {
    completedPurchases: r.h_completed,
    failedPurchases: r.h_failed,
    recentDeclines: r.h_declines,
    // Chipin receives no dispute notifications yet: docs/risk.md#what-is-not-there-yet.
    chargebacks: 0,
    outstandingCents: Number(r.h_outstanding) + Number(r.h_reserved),
    largestPaidCents: r.h_largest_paid === null ? 0 : Number(r.h_largest_paid),
    firstSeenAt: r.h_first_seen === null ? undefined : new Date(r.h_first_seen),
    plansLastHour: r.h_plans_hour,
    plansLastDay: r.h_plans_day,
  };
}

/**
 * The advisory lock keys of a shopper (one per identity key, scoped by account), as signed 64-bit
 * integers in decimal: the first 8 bytes of SHA-256, so that two keys collide only by chance
 * (a collision serialises two unrelated decisions, nothing worse).
 */
export function shopperLockKeys(accountId: string, who: ShopperIdentity): string[] {
  const parts = [
    who.email !== undefined ? `email|${who.email}` : undefined,
    who.phone !== undefined ? `phone|${who.phone}` : undefined,
    who.customerId !== undefined ? `ref|${who.customerId}` : undefined,
    who.cardFingerprint !== undefined ? `card|${who.cardFingerprint}` : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.map((p) => createHash('sha256').update(`risk|${accountId}|${p}`).digest().readBigInt64BE(0).toString());
}
