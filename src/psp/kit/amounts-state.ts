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
