/**
 * How a refund is split (docs/purchase-lifecycle.md#refunds), and what a payment can still give
 * back (docs/money-operations.md#refunds-and-disputes). Pure arithmetic on integer minor units, no
 * I/O.
 *
 * 0. What can be refunded on a payment is what it captured, less what was refunded (or is being
 *    refunded), less what lost chargebacks took, less what an open chargeback disputes: a payment
 *    with a chargeback open is held whole until the bank decides, as the PSPs refuse to refund a
 *    disputed transaction (Stripe's `charge_disputed`).
 * 1. Money not collected yet comes first: installments still scheduled are lowered from the last
 *    one backwards (an installment lowered to nothing is cancelled; a deferred hold lowered to
 *    nothing is voided), so that the payer owes less before anything is paid back.
 * 2. The rest is paid back from captured money. On a pot, each contributor (the leader, each
 *    pledger) gets a share proportional to what they still have to be refunded, by the largest
 *    remainder method: exact to the cent, and nobody gets back more than they paid. Within one
 *    contributor the payment created last is refunded first (sources come oldest first). A
 *    payment held by an open chargeback takes no share: a refund the other payments can serve is
 *    allocated around it, one that needs it is refused (`charge_disputed`).
 */

/** A captured payment (one PSP transaction), with what was already given back on it. */
export interface RefundSource {
  paymentId: string;
  /** The leader, or the pledge the payment paid. */
  payer: 'leader' | 'pledger';
  pledgeId?: string;
  capturedCents: number;
  /**
   * What is refunded on it: the refund allocations not refused (pending ones included, so that a
   * refund whose PSP call is under way already counts), or what the PSP refunded when that is
   * more (money given back outside any refund).
   */
  refundedCents: number;
  /** What its lost chargebacks took, as the PSP told them (counted here at most what was left). */
  chargedBackCents: number;
  /** A chargeback is open on it (not decided yet): nothing of it can be refunded meanwhile. */
  chargebackOpen: boolean;
}

/** What the payment still holds: captured − refunded − charged back, never below 0. */
function heldCents(s: RefundSource): number {
  return Math.max(0, s.capturedCents - s.refundedCents - s.chargedBackCents);
}

/** What can be refunded on the payment now: what it holds, or nothing while a chargeback is open on it. */
export function sourceRefundableCents(s: RefundSource): number {
  return s.chargebackOpen ? 0 : heldCents(s);
}

/** What open chargebacks hold out of reach of a refund, over the payments: the whole of each disputed payment. */
export function disputedCents(sources: readonly RefundSource[]): number {
  return sum(sources.map((s) => (s.chargebackOpen ? heldCents(s) : 0)));
}

/** An installment not collected yet, with what is still due on it (amount + fees). */
export interface UncollectedInstallment {
  installmentId: string;
  index: number;
  dueCents: number;
  /** A deferred purchase's hold on the leader's card (captured at the due date), if any. */
  holdPaymentId?: string;
}

export type Allocation =
  | { kind: 'installment'; installmentId: string; paymentId?: string; payer: 'leader'; amountCents: number; remainingCents: number }
  | { kind: 'refund'; paymentId: string; payer: 'leader' | 'pledger'; pledgeId?: string; amountCents: number };

/**
 * A refusal says what is refundable, and what open chargebacks hold besides; `charge_disputed`
 * when the amount asked fits only with the disputed payments (`amount` otherwise).
 */
export type RefundPlan = { ok: true; allocations: Allocation[] } | { ok: false; reason: 'amount' | 'charge_disputed'; refundableCents: number; disputedCents: number };

/**
 * Everything that can be refunded now: what is due but uncollected, plus, per payment, what was
 * captured and not refunded nor charged back, on payments without an open chargeback.
 */
export function refundableCents(sources: readonly RefundSource[], uncollected: readonly UncollectedInstallment[]): number {
  return sum(uncollected.map((u) => u.dueCents)) + sum(sources.map(sourceRefundableCents));
}

/**
 * What a refund without an amount asks for: everything left on the purchase, the payments held
 * by an open chargeback included (so that such a request is refused with `charge_disputed`
 * rather than made in part).
 */
export function everythingCents(sources: readonly RefundSource[], uncollected: readonly UncollectedInstallment[]): number {
  return refundableCents(sources, uncollected) + disputedCents(sources);
}

/**
 * What each lost chargeback of one payment takes, in the order they were opened: its amount, at
 * most what the payment still held after its refunds and the chargebacks before it, so that the
 * refunds and the chargebacks together never give back more than was captured. `lostCents` is a
 * lost chargeback's amount as the PSP told it, 0 for any other dispute (open, won). Σ result =
 * min(Σ lost, captured − refunded) (0 when refunded ≥ captured).
 */
export function chargebackTakes(capturedCents: number, refundedCents: number, lostCents: readonly number[]): number[] {
  let left = Math.max(0, capturedCents - refundedCents);
  return lostCents.map((lost) => {
    const take = Math.min(Math.max(0, lost), left);
    left -= take;
    return take;
  });
}

/**
 * Splits `amountCents` over `weights` in proportion, by the largest remainder method: each gets
 * the floor of its exact share, and the cents left go one each to the largest fractional parts
 * (ties: the larger weight, then the earlier position). Σ result = amount; with amount ≤ Σ
 * weights, no part exceeds its weight. BigInt: amount × weight may pass 2^53.
 */
export function largestRemainder(amountCents: number, weights: readonly number[]): number[] {
  const total = sum(weights);
  if (amountCents === 0 || total === 0) return weights.map(() => 0);
  const a = BigInt(amountCents);
  const t = BigInt(total);
  const parts = weights.map((w, i) => {
    const exact = a * BigInt(w);
    return { i, w, floor: exact / t, rem: exact % t };
  });
  let left = amountCents - Number(parts.reduce((s, p) => s + p.floor, 0n));
  const order = [...parts].sort((x, y) => (x.rem === y.rem ? (x.w === y.w ? x.i - y.i : y.w - x.w) : x.rem > y.rem ? -1 : 1));
  const out = parts.map((p) => Number(p.floor));
  for (const p of order) {
    if (left === 0) break;
    out[p.i]! += 1;
    left -= 1;
  }
  return out;
}

/**
 * The allocations of a refund of `amountCents`, or the refusal with what is refundable. The
 * sources are given oldest first; contributors are ordered by their first payment.
 */
export function planRefund(amountCents: number, sources: readonly RefundSource[], uncollected: readonly UncollectedInstallment[]): RefundPlan {
  const refundable = refundableCents(sources, uncollected);
  const disputed = disputedCents(sources);
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0 || amountCents > refundable) {
    // More than the other payments hold, not more than they and the disputed ones do: it needs a disputed payment.
    const needsDisputed = Number.isSafeInteger(amountCents) && amountCents > refundable && amountCents <= refundable + disputed;
    return { ok: false, reason: needsDisputed ? 'charge_disputed' : 'amount', refundableCents: refundable, disputedCents: disputed };
  }
  const allocations: Allocation[] = [];
  let left = amountCents;

  for (const u of [...uncollected].sort((x, y) => y.index - x.index)) {
    if (left === 0) break;
    const take = Math.min(left, u.dueCents);
    if (take === 0) continue;
    allocations.push({
      kind: 'installment',
      installmentId: u.installmentId,
      ...(u.holdPaymentId ? { paymentId: u.holdPaymentId } : {}),
      payer: 'leader',
      amountCents: take,
      remainingCents: u.dueCents - take,
    });
    left -= take;
  }
  if (left === 0) return { ok: true, allocations };

  // Contributors in the order of their first payment: the leader usually comes first.
  const contributors: { key: string; payer: 'leader' | 'pledger'; pledgeId?: string; sources: RefundSource[] }[] = [];
  for (const s of sources) {
    if (sourceRefundableCents(s) <= 0) continue;
    const key = s.payer === 'leader' ? 'leader' : `pledge:${s.pledgeId ?? s.paymentId}`;
    let c = contributors.find((x) => x.key === key);
    if (!c) contributors.push((c = { key, payer: s.payer, ...(s.pledgeId ? { pledgeId: s.pledgeId } : {}), sources: [] }));
    c.sources.push(s);
  }
  const shares = largestRemainder(
    left,
    contributors.map((c) => sum(c.sources.map(sourceRefundableCents))),
  );
  contributors.forEach((c, i) => {
    let share = shares[i]!;
    for (const s of [...c.sources].reverse()) {
      if (share === 0) break;
      const take = Math.min(share, sourceRefundableCents(s));
      allocations.push({ kind: 'refund', paymentId: s.paymentId, payer: c.payer, ...(c.pledgeId ? { pledgeId: c.pledgeId } : {}), amountCents: take });
      share -= take;
    }
  });
  return { ok: true, allocations };
}

function sum(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0);
}
