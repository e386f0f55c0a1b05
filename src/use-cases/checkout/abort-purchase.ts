import type { Database } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import { findPurchase } from '../../purchases/purchase-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';

export interface AbortPurchaseDeps {
  db: Database;
  clock: Clock;
}

export type AbortPurchaseOutcome =
  | { kind: 'aborted'; purchaseId: string }
  /** `language` is the purchase's, for wording the refusal to its merchant's staff or shopper. */
  | { kind: 'already_aborted'; language: string | undefined }
  | { kind: 'non_abortable'; state: PurchaseState; language: string | undefined }
  /** Malformed, unknown and other accounts' purchases alike. */
  | { kind: 'not_found' };

/**
 * Aborts a purchase of the account on its merchant's request (docs/purchase-lifecycle.md#abort:
 * only CREATED, on which nothing was authorised yet). Racing aborts serialise on the purchase's
 * row lock in `applyMove`, so exactly one of them answers `aborted`.
 */
export async function abortPurchase(deps: AbortPurchaseDeps, input: { accountId: string; purchaseId: string }): Promise<AbortPurchaseOutcome> {
  const { accountId, purchaseId } = input;
  const moved = await deps.db.transaction((tx) => applyMove(tx, deps.clock, accountId, purchaseId, 'abort'));
  if (moved.ok) return { kind: 'aborted', purchaseId };
  if (moved.reason === 'not_found') return { kind: 'not_found' };
  const language = (await findPurchase(deps.db, accountId, purchaseId))?.language;
  return moved.state === 'ABORTED' ? { kind: 'already_aborted', language } : { kind: 'non_abortable', state: moved.state, language };
}
