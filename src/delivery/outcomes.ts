import { EVENT } from '../domain/events.ts';
import { MOVES } from '../domain/purchase-states.ts';

/**
 * Which events the merchant's back end is told of, and how (docs/webhooks.md#back-mode-notification).
 * The purchase's `paymentNotificationUrl` gets its outcomes only, as the original interface's shop
 * plugins expect (they mark an order paid on the first `completed`, and some cancel it on any
 * `failed` or `voided`, docs/migrating.md): the checkout secured, and what the merchant asked for
 * afterwards (a refund, a cancel). A refused card the leader may still retry, a pot's guarantee
 * released once the friends paid, an installment collected, a hold renewed: the purchase's inner
 * workings, not notified. Pure.
 */

export type BackModeNotification =
  /** The checkout secured the purchase (it left CREATED for LEADER_PROCESSED): one `completed`. */
  | { kind: 'checkout' }
  /** A PSP transaction the merchant asked for (its event carries `outcome: true`), as the PSP answered it. */
  | { kind: 'transaction' };

export interface OutcomeEvent {
  type: string;
  data: Record<string, unknown> | null;
  /** The purchase's state before the event (`from_state`). */
  from_state: string | null;
}

/** The back-mode notification an event makes, if any. */
export function backModeNotificationOf(e: OutcomeEvent): BackModeNotification | undefined {
  if (e.type === MOVES.leaderProcessed.event) return { kind: 'checkout' };
  if (e.type === EVENT.transaction && e.data?.outcome === true) return { kind: 'transaction' };
  return undefined;
}

/**
 * The error notification's state when an event ends the purchase before it was secured (the
 * leader's last attempt refused: FAILED from CREATED), or undefined (docs/webhooks.md#error-notification).
 * `SCORING_KO`: the risk rules or the scoring hook refused the last attempt; `PRIMARY_KO`: the
 * card was (the primary payment). The interface's `VCP_KO` and `CONNECTOR_KO` name failures of a
 * virtual card and of its charge on the merchant's PSP: Chipin makes no virtual card, and a PSP
 * that cannot be reached leaves the purchase payable, so neither is sent.
 */
export function errorStateOf(e: OutcomeEvent): 'PRIMARY_KO' | 'SCORING_KO' | undefined {
  if (e.type !== MOVES.fail.event || e.from_state !== 'CREATED') return undefined;
  return e.data?.reason === 'risk_refused' ? 'SCORING_KO' : 'PRIMARY_KO';
}

/**
 * Whether an event ends a pot (a SHARED purchase leaving LEADER_PROCESSED: every friend paid, or
 * the deadline settled it either way), which the offer's purchase end notification URL is told of
 * (docs/webhooks.md#purchase-end-notification).
 */
export function endsPot(e: OutcomeEvent, offerType: string): boolean {
  return offerType === 'SHARED' && e.from_state === 'LEADER_PROCESSED' && (e.type === MOVES.succeed.event || e.type === MOVES.fail.event);
}

/** The purchase end notification's body: the original interface's, unsigned (it carries identifiers only). */
export function purchaseEndBody(reference: string | null, purchaseUid: string): string {
  return JSON.stringify({ reference: reference ?? '', uid: purchaseUid });
}
