/**
 * How a refund is split (docs/purchase-lifecycle.md#refunds). Pure arithmetic on integer minor
 * units, no I/O.
 *
 * 1. Money not collected yet comes first: installments still scheduled are lowered from the last
 *    one backwards (an installment lowered to nothing is cancelled; a deferred hold lowered to
 *    nothing is voided), so that the payer owes less before anything is paid back.
 * 2. The rest is paid back from captured money. On a pot, each contributor (the leader, each
 *    pledger) gets a share proportional to what they still have to be refunded, by the largest
 *    remainder method: exact to the cent, and nobody gets back more than they paid. Within one
 *    contributor the payment created last is refunded first (sources come oldest first).
 */

/** A captured payment with what can still be refunded on it (captured − already allocated). */
export interface RefundSource {
  paymentId: string;
  /** The leader, or the pledge the payment paid. */
  payer: 'leader' | 'pledger';
  pledgeId?: string;
  refundableCents: number;
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

export type RefundPlan = { ok: true; allocations: Allocation[] } | { ok: false; refundableCents: number };

/** Everything that can still be refunded: what is due but uncollected, plus what was captured and not refunded. */
export function refundableCents(sources: readonly RefundSource[], uncollected: readonly UncollectedInstallment[]): number {
  return sum(uncollected.map((u) => u.dueCents)) + sum(sources.map((s) => s.refundableCents));
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
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0 || amountCents > refundable) return { ok: false, refundableCents: refundable };
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
    if (s.refundableCents <= 0) continue;
    const key = s.payer === 'leader' ? 'leader' : `pledge:${s.pledgeId ?? s.paymentId}`;
    let c = contributors.find((x) => x.key === key);
    if (!c) contributors.push((c = { key, payer: s.payer, ...(s.pledgeId ? { pledgeId: s.pledgeId } : {}), sources: [] }));
    c.sources.push(s);
  }
  const shares = largestRemainder(
    left,
    contributors.map((c) => sum(c.sources.map((s) => s.refundableCents))),
  );
  contributors.forEach((c, i) => {
    let share = shares[i]!;
    for (const s of [...c.sources].reverse()) {
      if (share === 0) break;
      const take = Math.min(share, s.refundableCents);
      allocations.push({ kind: 'refund', paymentId: s.paymentId, payer: c.payer, ...(c.pledgeId ? { pledgeId: c.pledgeId } : {}), amountCents: take });
      share -= take;
    }
  });
  return { ok: true, allocations };
}

function sum(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0);
}
