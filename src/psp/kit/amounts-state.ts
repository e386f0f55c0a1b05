import type { PspState, TransactionRef, TransactionResult } from '../connector.ts';

/**
 * The `pspState` of a connector whose PSP can be read by transaction id (Lyra, Ogone, HiPay): the
 * id finds everything, so all it keeps is the status and amounts of the last result. A capture,
 * void or refund whose outcome is unknown (`started` in the operation log) compares the
 * transaction as the PSP now shows it with these, the amounts before the call, to tell whether
 * the call took effect (src/psp/kit/operations.ts).
 */
export interface Amounts {
  status: TransactionResult['status'];
  capturedCents: number;
  refundedCents: number;
}

/** The result with its amounts as its `pspState`. */
export function withAmounts<R extends TransactionResult>(r: R): R {
  const state: PspState = { status: r.status, capturedCents: r.capturedCents, refundedCents: r.refundedCents };
  return { ...r, pspState: state };
}

/** The amounts the caller stored before this call; undefined for a payment whose row holds none (written by a build that did not store them). */
export function amountsBefore(ref: TransactionRef): Amounts | undefined {
  const s = ref.pspState;
  if (!s || typeof s.status !== 'string' || !Number.isSafeInteger(s.capturedCents) || !Number.isSafeInteger(s.refundedCents)) return undefined;
  return { status: s.status as Amounts['status'], capturedCents: s.capturedCents as number, refundedCents: s.refundedCents as number };
}

/**
 * The `reconcile` of a capture or refund whose answer was lost, for a PSP read by transaction id:
 * the transaction as `read` finds it now when its captured (or refunded) amount grew past what the
 * caller stored before the call, so the call took effect; undefined when it did not, or when the
 * caller stored no amounts (nothing tells then), for the operation log to send it again.
 */
export async function readIfGrown(ref: TransactionRef, field: 'capturedCents' | 'refundedCents', read: () => Promise<TransactionResult>): Promise<TransactionResult | undefined> {
  const before = amountsBefore(ref);
  const after = await read();
  return before && after[field] > before[field] ? after : undefined;
}
