import type { Sql } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { OUTBOX_CHANNEL } from '../domain/events.ts';
import { isUuid } from '../domain/ids.ts';
import { MOVES, defaultComment, type MoveName, type PurchaseState } from '../domain/purchase-states.ts';

export type MoveResult =
  | { ok: true; from: PurchaseState; to: PurchaseState }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'not_allowed'; state: PurchaseState };

/**
 * Applies one lifecycle move inside the caller's transaction: locks the purchase row, checks the
 * move may start from its state, updates it and writes the move's event. Concurrent moves on one
 * purchase serialise on the row lock, so exactly one of two racing aborts succeeds.
 */
export async function applyMove(
  tx: Sql,
  clock: Clock,
  accountId: string,
  purchaseId: string,
  move: MoveName,
  opts: { comment?: string; data?: Record<string, unknown> } = {},
): Promise<MoveResult> {
  if (!isUuid(purchaseId)) return { ok: false, reason: 'not_found' };
  const { rows } = await tx.query<{ state: PurchaseState }>(
    'SELECT state FROM purchases WHERE account_id = $1 AND id = $2 FOR UPDATE',
    [accountId, purchaseId],
  );
  const current = rows[0]?.state;
  if (!current) return { ok: false, reason: 'not_found' };
  const { from, to, event } = MOVES[move];
  if (!(from as readonly PurchaseState[]).includes(current)) return { ok: false, reason: 'not_allowed', state: current };
  const now = clock.now();
  await tx.query('UPDATE purchases SET state = $3, comment = $4, updated_at = $5 WHERE account_id = $1 AND id = $2', [
    accountId,
    purchaseId,
    to,
    opts.comment ?? defaultComment(to),
    now,
  ]);
  await tx.query(
    `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [accountId, purchaseId, event, current, to, JSON.stringify(opts.data ?? {}), now],
  );
  tx.notify(OUTBOX_CHANNEL);
  return { ok: true, from: current, to };
}
