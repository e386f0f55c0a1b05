import { CONTRACT_TRIGGERS, EVENT } from '../domain/events.ts';
import { MOVES } from '../domain/purchase-states.ts';

/**
 * Webhook trigger names and the `purchase_events` types they are sent for. The first three are
 * the contract's; the others go beyond it under their own names, for merchants who ask for them.
 */
export const TRIGGERS = {
  // The contract's (CONTRACT_TRIGGERS in src/domain/events.ts; a test keeps the two equal).
  paymentProcessed: MOVES.leaderProcessed.event,
  paymentFailed: EVENT.paymentFailed,
  pledgerContributes: EVENT.pledgePaid,
  purchaseSucceeded: MOVES.succeed.event,
  purchaseCancelled: MOVES.cancel.event,
  purchaseAborted: MOVES.abort.event,
  purchaseFailed: MOVES.fail.event,
  // Every refund, not only the one that makes the purchase REFUNDED (docs/webhooks.md#webhook-payload).
  purchaseRefunded: EVENT.refundMade,
  installmentPaid: EVENT.installmentPaid,
  installmentFailed: EVENT.installmentFailed,
  pledgeRefused: EVENT.pledgeRefused,
  // Renewing a hold before it lapses was refused (docs/money-operations.md#re-authorisation).
  reauthorizationFailed: EVENT.paymentReauthorizationFailed,
  // A new difference with the PSP's records (docs/money-operations.md#reconciliation).
  reconciliationMismatch: EVENT.reconciliationMismatch,
  // Disputes (docs/money-operations.md#disputes).
  purchaseDisputed: EVENT.purchaseDisputed,
  disputeClosed: EVENT.disputeClosed,
  // A hold a cancelled purchase must give back was refused by its PSP: followed up until released
  // (docs/money-operations.md#one-money-operation-at-a-time).
  releaseFailed: EVENT.releaseFailed,
  // A payout of transfer mode was sent to the merchant's bank account (docs/money-operations.md#payouts).
  payoutPaid: EVENT.payoutPaid,
} as const satisfies Record<string, string>;

export type TriggerName = keyof typeof TRIGGERS;

export const TRIGGER_NAMES = Object.keys(TRIGGERS) as TriggerName[];

/**
 * What an endpoint receives when its `events` are not chosen: the contract's three triggers
 * only, because existing integrations expect nothing else.
 */
export const DEFAULT_TRIGGERS: readonly TriggerName[] = ['paymentProcessed', 'paymentFailed', 'pledgerContributes'];

/** The contract's trigger table, as src/domain/events.ts declares it. */
export const CONTRACT_TRIGGER_TABLE = CONTRACT_TRIGGERS;

const BY_EVENT = new Map<string, TriggerName>(TRIGGER_NAMES.map((name) => [TRIGGERS[name], name]));

/** The trigger an event type is sent as, or undefined when no webhook exists for it. */
export function triggerOf(eventType: string): TriggerName | undefined {
  return BY_EVENT.get(eventType);
}

export function isTriggerName(value: string): value is TriggerName {
  return Object.hasOwn(TRIGGERS, value);
}
