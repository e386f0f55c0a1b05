import type { AmountOperation, Operation, TransactionRef, TransactionResult, TransactionStatus } from '../connector.ts';
import { reviveTransaction, type PspOperations } from './operations.ts';

/**
 * Why a capture, void or refund is refused on the transaction as it stands, before any call to the
 * PSP. The refusal and its message are the same for every connector; the decline code (or
 * reason) each one gives it is its own.
 */
export type MaintenanceRefusal = 'expired' | 'nothing_held' | 'more_than_held' | 'captured' | 'more_than_left';

export const REFUSAL_MESSAGES: Record<MaintenanceRefusal, string> = {
  expired: 'The authorisation hold has expired.',
  nothing_held: 'Nothing is held on this transaction.',
  more_than_held: 'The amount is larger than what is held.',
  captured: 'The payment is captured: refund it instead.',
  more_than_left: 'The amount is larger than what is left to refund.',
};

interface Standing {
  status: TransactionStatus;
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
}

/** A capture's refusal (a lapsed hold, nothing held, more than held), or undefined: it can be sent. */
export function captureRefusal(before: Standing, amountCents: number): MaintenanceRefusal | undefined {
  if (before.status === 'expired') return 'expired';
  if (before.status !== 'authorized') return 'nothing_held';
  if (amountCents > before.amountCents) return 'more_than_held';
  return undefined;
}

/**
 * A void's refusal (a lapsed hold, a payment past `voidable`), `unchanged` for a payment already
 * voided or declined (answered as it stands, nothing sent), or undefined: it can be sent.
 */
export function voidRefusal(before: Standing, voidable: readonly TransactionStatus[] = ['authorized', 'requires_action']): 'expired' | 'captured' | 'unchanged' | undefined {
  if (before.status === 'expired') return 'expired';
  if (before.status === 'voided' || before.status === 'declined') return 'unchanged';
  if (!voidable.includes(before.status)) return 'captured';
  return undefined;
}

/** What a refund may still take back: what was captured less what was refunded. */
export function leftToRefund(before: Standing): number {
  return before.status === 'captured' || before.status === 'refunded' ? before.capturedCents - before.refundedCents : 0;
}

/** A refund's refusal (more than is left to refund), or undefined: it can be sent. */
export function refundRefusal(before: Standing, amountCents: number): 'more_than_left' | undefined {
  return amountCents > leftToRefund(before) ? 'more_than_left' : undefined;
}

/**
 * The refusal of a capture, void or refund on the transaction as it stands (see
 * {@link captureRefusal}, {@link voidRefusal}, {@link refundRefusal}), or undefined: it can be sent.
 */
export function maintenanceRefusal(
  op: 'capture' | 'void' | 'refund',
  before: Standing,
  amountCents: number | undefined,
  voidable?: readonly TransactionStatus[],
): MaintenanceRefusal | 'unchanged' | undefined {
  if (op === 'void') return voidRefusal(before, voidable);
  return op === 'capture' ? captureRefusal(before, amountCents!) : refundRefusal(before, amountCents!);
}

/** Whether a refund whose outcome was unknown took effect: the refunded amount grew by at least its amount. */
export function refundHappened(amountCents: number): (before: { refundedCents: number }, now: TransactionResult) => boolean {
  return (before, now) => now.refundedCents >= before.refundedCents + amountCents;
}

/** The transaction as it stands with a refusal: no challenge to open any more. */
export function refusedAsItStands(before: TransactionResult, decline: NonNullable<TransactionResult['decline']>): TransactionResult {
  const r: TransactionResult = { ...before, decline };
  delete r.challengeForm;
  delete r.challengeUrl;
  return r;
}

/** A capture, void or refund as the connectors take it: the idempotency key, the transaction and (but a void) the amount. */
export type MaintenanceInput = Operation & Partial<Pick<AmountOperation, 'amountCents'>>;

/** How a maintenance call whose outcome is unknown is reconciled with the PSP. */
interface MaintenanceReconcile<B> {
  /** What the caller stored before the call; undefined: nothing tells this call's effect from an earlier one's, and it is sent again. */
  before: () => B | undefined;
  /** The transaction as the PSP shows it now. */
  now: (transaction: TransactionRef) => Promise<TransactionResult>;
  /** Whether the call took effect: then it is answered from `now` and not sent again. */
  happened: (before: B, now: TransactionResult) => boolean;
}

/**
 * One capture, void or refund, once per (operation, key) through the operation log (which checks
 * the key), its
 * parameters being the transaction id and the amount; a call whose outcome is unknown is
 * reconciled by comparing what was stored before it with the transaction now.
 */
export function maintainOnce<B>(
  operations: PspOperations,
  op: 'capture' | 'void' | 'refund',
  input: MaintenanceInput,
  send: () => Promise<TransactionResult>,
  r: MaintenanceReconcile<B>,
): Promise<TransactionResult> {
  const reconcile = async (): Promise<TransactionResult | undefined> => {
    const before = r.before();
    if (!before) return undefined;
    const now = await r.now(input.transaction);
    return r.happened(before, now) ? now : undefined;
  };
  return operations.once(
    op,
    input.idempotencyKey,
    [input.transaction.transactionId, op === 'void' ? null : (input.amountCents ?? null)],
    send,
    reconcile,
    reviveTransaction<TransactionResult>,
  );
}
