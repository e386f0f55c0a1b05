/**
 * Reconciliation's matching rule (docs/money-operations.md#reconciliation): Chipin's view of each
 * payment against the PSP's own records of the same transactions. Pure: no I/O.
 *
 * Per transaction, and per money operation (capture, refund, chargeback), the sums are compared:
 * - Chipin > 0 and the PSP 0 → `missing_at_psp`; Chipin 0 and the PSP > 0 → `unknown_to_chipin`;
 *   both > 0 and different → `amount_differs`;
 * - a transaction the PSP does not know at all → `missing_at_psp` (operation `transaction`), one
 *   the PSP knows and no Chipin payment has → `unknown_to_chipin` (operation `transaction`);
 * - statuses that disagree in substance (a hold against a lapsed/voided/declined transaction, a
 *   capture against a hold …) → `status_differs` (operation `transaction`).
 * Payments Chipin still has `pending` or `requires_action` are not compared (nothing settled yet).
 */

/** Transaction statuses as Chipin's payments and the connectors name them. */
export type ReconStatus = 'pending' | 'requires_action' | 'authorized' | 'captured' | 'voided' | 'refunded' | 'declined' | 'expired';

export type MismatchKind = 'missing_at_psp' | 'unknown_to_chipin' | 'amount_differs' | 'status_differs';
export type MismatchOperation = 'transaction' | 'capture' | 'refund' | 'chargeback';

/** Chipin's side of one transaction: its payment's figures, and what lost chargebacks took back. */
export interface ChipinView {
  transactionId: string;
  status: ReconStatus;
  currency: string;
  capturedCents: number;
  refundedCents: number;
  chargedBackCents: number;
}

/** The PSP's side of one transaction (the connector's `PspRecord`). */
export interface PspView {
  transactionId: string;
  status: ReconStatus;
  currency: string;
  capturedCents: number;
  refundedCents: number;
  chargedBackCents: number;
}

export interface Mismatch {
  transactionId: string;
  kind: MismatchKind;
  operation: MismatchOperation;
  /** Chipin's sum for the operation; null for a transaction Chipin does not have. */
  chipinCents: number | null;
  /** The PSP's sum for the operation; null for a transaction the PSP does not have. */
  pspCents: number | null;
  chipinStatus: ReconStatus | null;
  pspStatus: ReconStatus | null;
  currency: string;
}

export interface MatchResult {
  /** Transactions on both sides that agree on everything. */
  matched: string[];
  mismatches: Mismatch[];
}

/** Statuses Chipin does not reconcile yet: nothing has settled. */
export function isUnsettled(status: ReconStatus): boolean {
  return status === 'pending' || status === 'requires_action';
}

type Phase = 'open' | 'held' | 'settled' | 'ended';

/**
 * What a status says in substance: still open, a hold, money taken (fully or partly refunded
 * since: the sums tell), or over without money (voided, declined, lapsed: the same outcome).
 */
function phase(status: ReconStatus): Phase {
  switch (status) {
    case 'pending':
    case 'requires_action':
      return 'open';
    case 'authorized':
      return 'held';
    case 'captured':
    case 'refunded':
      return 'settled';
    case 'voided':
    case 'declined':
    case 'expired':
      return 'ended';
  }
}

/** Whether two statuses disagree in substance (not merely in wording). */
export function statusesDiffer(chipin: ReconStatus, psp: ReconStatus): boolean {
  return phase(chipin) !== phase(psp);
}

const OPERATIONS: readonly { operation: Exclude<MismatchOperation, 'transaction'>; sum: (v: ChipinView | PspView) => number }[] = [
  { operation: 'capture', sum: (v) => v.capturedCents },
  { operation: 'refund', sum: (v) => v.refundedCents },
  { operation: 'chargeback', sum: (v) => v.chargedBackCents },
];

/** The PSP's records of a period, one per transaction (the last appearance holds the current totals). */
export function dedupePspRecords<T extends { transactionId: string }>(records: readonly T[]): T[] {
  const byId = new Map<string, T>();
  for (const r of records) byId.set(r.transactionId, r);
  return [...byId.values()];
}

/** Compares one transaction both sides have; [] when they agree. */
function compareTransaction(chipin: ChipinView, psp: PspView): Mismatch[] {
  const out: Mismatch[] = [];
  const base = { transactionId: chipin.transactionId, chipinStatus: chipin.status, pspStatus: psp.status, currency: chipin.currency };
  for (const { operation, sum } of OPERATIONS) {
    const c = sum(chipin);
    const p = sum(psp);
    if (c === p) continue;
    const kind: MismatchKind = p === 0 ? 'missing_at_psp' : c === 0 ? 'unknown_to_chipin' : 'amount_differs';
    out.push({ ...base, kind, operation, chipinCents: c, pspCents: p });
  }
  if (statusesDiffer(chipin.status, psp.status)) out.push({ ...base, kind: 'status_differs', operation: 'transaction', chipinCents: null, pspCents: null });
  return out;
}

/**
 * Matches Chipin's payments with the PSP's records. `chipin`: the payments to reconcile (one per
 * transaction); `psp`: the PSP's records (deduplicated here). A PSP record whose transaction is
 * not in `chipin` is `unknown_to_chipin` — the caller leaves out records it must not judge (another
 * account's transactions on a platform PSP).
 */
export function reconcile(chipin: readonly ChipinView[], psp: readonly PspView[]): MatchResult {
  const pspById = new Map(dedupePspRecords(psp).map((r) => [r.transactionId, r]));
  const seen = new Set<string>();
  const matched: string[] = [];
  const mismatches: Mismatch[] = [];
  for (const c of chipin) {
    if (seen.has(c.transactionId)) continue;
    seen.add(c.transactionId);
    const p = pspById.get(c.transactionId);
    if (isUnsettled(c.status)) continue;
    if (!p) {
      mismatches.push({
        transactionId: c.transactionId,
        kind: 'missing_at_psp',
        operation: 'transaction',
        chipinCents: c.capturedCents,
        pspCents: null,
        chipinStatus: c.status,
        pspStatus: null,
        currency: c.currency,
      });
      continue;
    }
    const found = compareTransaction(c, p);
    if (found.length === 0) matched.push(c.transactionId);
    else mismatches.push(...found);
  }
  for (const p of pspById.values()) {
    if (seen.has(p.transactionId)) continue;
    mismatches.push({
      transactionId: p.transactionId,
      kind: 'unknown_to_chipin',
      operation: 'transaction',
      chipinCents: null,
      pspCents: p.capturedCents,
      chipinStatus: null,
      pspStatus: p.status,
      currency: p.currency,
    });
  }
  return { matched, mismatches };
}

/** The identity of a mismatch across runs (one record per key). */
export function mismatchKey(m: Pick<Mismatch, 'transactionId' | 'kind' | 'operation'>): string {
  return `${m.transactionId}/${m.operation}/${m.kind}`;
}
