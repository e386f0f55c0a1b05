import type { Sql } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { isUuid } from '../domain/ids.ts';
import { MOVES, defaultComment, type MoveName, type PurchaseState } from '../domain/purchase-states.ts';
import { bookPlanCancelled, bookValidated } from '../payments/transfer-booking-repository.ts';
import { insertPurchaseEvent, lockPurchaseState, setPurchaseState } from './purchase-repository.ts';

export type MoveResult = { ok: true; from: PurchaseState; to: PurchaseState } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'not_allowed'; state: PurchaseState };

/**
 * Applies one lifecycle move inside the caller's transaction: locks the purchase row, checks the
 * move may start from its state, updates it and writes the move's event. Concurrent moves on one
 * purchase serialise on the row lock, so exactly one of two racing aborts succeeds.
 *
 * The one place a transfer-mode purchase's state bookings are made, in the move's transaction
 * (docs/money-operations.md#bookings-per-event): `leaderProcessed` validates it (`bookValidated`,
 * with `shopperFeesCents`, the fees of its plan); `cancel` and `refund` of a validated purchase
 * give up what its shopper still owed (`bookPlanCancelled`). A back-mode purchase books nothing.
 */
export async function applyMove(
  tx: Sql,
  clock: Clock,
  accountId: string,
  purchaseId: string,
  move: MoveName,
  opts: { comment?: string; data?: Record<string, unknown>; shopperFeesCents?: number } = {},
): Promise<MoveResult> {
  if (!isUuid(purchaseId)) return { ok: false, reason: 'not_found' };
  const current = await lockPurchaseState(tx, accountId, purchaseId);
  if (!current) return { ok: false, reason: 'not_found' };
  const { from, to, event } = MOVES[move];
  if (!(from as readonly PurchaseState[]).includes(current)) return { ok: false, reason: 'not_allowed', state: current };
  const now = clock.now();
  await setPurchaseState(tx, accountId, purchaseId, to, opts.comment ?? defaultComment(to), now);
  await insertPurchaseEvent(tx, { accountId, purchaseId, type: event, from: current, to, data: opts.data ?? {}, at: now });
  if (move === 'leaderProcessed') await bookValidated(tx, { accountId, purchaseId, feesCents: opts.shopperFeesCents ?? 0, occurredAt: now });
  else if (to === 'CANCELLED' || to === 'REFUNDED') await bookPlanCancelled(tx, accountId, purchaseId, now);
  return { ok: true, from: current, to };
}
