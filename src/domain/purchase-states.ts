/**
 * Purchase lifecycle (docs/purchase-lifecycle.md, which draws the same tables): internal states,
 * what Merchant API v1 shows for each, and the moves between them.
 */
export type PurchaseState = 'CREATED' | 'ABORTED' | 'LEADER_PROCESSED' | 'SUCCESSFUL' | 'FAILED' | 'CANCELLED' | 'REFUNDED';

export type V1State = 'INITIALIZED' | 'CANCELLED' | 'FAILED' | 'REFUNDED' | 'LEADER_PROCESSED' | 'SUCCESSFUL';

const PURCHASE_STATES: readonly PurchaseState[] = ['CREATED', 'ABORTED', 'LEADER_PROCESSED', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED'];

/** v1 has no ABORTED: an aborted purchase reads as CANCELLED, its comment says by whom. */
export const V1_STATE: Record<PurchaseState, V1State> = {
  CREATED: 'INITIALIZED',
  ABORTED: 'CANCELLED',
  LEADER_PROCESSED: 'LEADER_PROCESSED',
  SUCCESSFUL: 'SUCCESSFUL',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
  REFUNDED: 'REFUNDED',
};

/** Internal states behind one v1 state, for filtering lists by the state a merchant sees. */
export function internalStatesOf(v1: V1State): PurchaseState[] {
  return PURCHASE_STATES.filter((s) => V1_STATE[s] === v1);
}

/** A named move of the lifecycle: where it may start, where it ends, the event it records. */
export interface Move {
  from: readonly PurchaseState[];
  to: PurchaseState;
  event: string;
}

/**
 * Every move a purchase can make. Nothing else changes a purchase's state: each move is applied
 * by one function that also writes its event in the same transaction (src/purchases/transitions.ts).
 */
export const MOVES = {
  /** The merchant aborts before anything was authorised (POST /api/purchases/<uid>/abort). */
  abort: { from: ['CREATED'], to: 'ABORTED', event: 'purchase.aborted' },
  /** The leader's card is authorised (3-D Secure included). */
  leaderProcessed: { from: ['CREATED'], to: 'LEADER_PROCESSED', event: 'purchase.leader_processed' },
  /** The full amount (plus fees) is collected. */
  succeed: { from: ['LEADER_PROCESSED'], to: 'SUCCESSFUL', event: 'purchase.succeeded' },
  /** Payment could not be completed: card refused past the offer's attempts, or dunning exhausted. */
  fail: { from: ['CREATED', 'LEADER_PROCESSED'], to: 'FAILED', event: 'purchase.failed' },
  /** Expired unpaid, or cancelled after authorisation (holds voided, pledgers refunded). */
  cancel: { from: ['CREATED', 'LEADER_PROCESSED'], to: 'CANCELLED', event: 'purchase.cancelled' },
  /** Everything collected was paid back. */
  refund: { from: ['LEADER_PROCESSED', 'SUCCESSFUL'], to: 'REFUNDED', event: 'purchase.refunded' },
} as const satisfies Record<string, Move>;

export type MoveName = keyof typeof MOVES;

/** Why the merchant's cancel is refused: money was captured (refund instead), or the purchase is settled. */
export type CancelBar = 'captured' | 'not_cancellable';

/**
 * The merchant's cancel (docs/purchase-lifecycle.md#cancel): possible from the states the `cancel`
 * move starts from while nothing was captured on the purchase; a SUCCESSFUL purchase has its money
 * (refund instead). `undefined` when the cancel may go ahead. One rule for the cancel itself
 * (src/use-cases/checkout/cancel-purchase.ts, under the purchase's lock) and the back office's purchase page,
 * which offers the action only when it holds (docs/back-office.md).
 */
export function cancelBar(state: PurchaseState, captured: boolean): CancelBar | undefined {
  if (!(MOVES.cancel.from as readonly PurchaseState[]).includes(state)) return state === 'SUCCESSFUL' ? 'captured' : 'not_cancellable';
  return captured ? 'captured' : undefined;
}

/** The `comment` of a purchase CANCELLED because it stayed unpaid past its offer's `expiry_hours`. */
export const EXPIRED_COMMENT = 'Expired unpaid.';

/** The one-sentence `comment` v1 shows for a state, until a move sets a more precise one. */
export function defaultComment(state: PurchaseState): string {
  switch (state) {
    case 'CREATED':
      return 'Waiting for the leader to pay.';
    case 'ABORTED':
      return 'Aborted by the merchant.';
    case 'LEADER_PROCESSED':
      return "The leader's payment is authorised.";
    case 'SUCCESSFUL':
      return 'The full amount is collected.';
    case 'FAILED':
      return 'The payment could not be completed.';
    case 'CANCELLED':
      return 'Cancelled.';
    case 'REFUNDED':
      return 'Fully refunded.';
  }
}
