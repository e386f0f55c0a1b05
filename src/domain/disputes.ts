/**
 * Disputes (docs/money-operations.md#disputes): how a PSP's notice moves a dispute record. Pure.
 *
 * A dispute is `open` until the merchant's evidence is sent (`evidence_sent`, by staff) and the
 * PSP tells the outcome: a chargeback ends `won` or `lost`; a retrieval request or a fraud
 * warning, which take no money, end `closed`. A late or replayed notice never reopens an ended
 * dispute; an ended chargeback may still change outcome (a reversal, a second chargeback, a
 * pre-arbitration), which is a new outcome of its own.
 */

export type DisputeKind = 'chargeback' | 'retrieval' | 'fraud_warning';
export type DisputeState = 'open' | 'evidence_sent' | 'won' | 'lost' | 'closed';
/** The PSP's status, as the connectors map it (src/psp/connector.ts `NotifiedDispute`). */
export type DisputeNotice = 'opened' | 'evidence_needed' | 'won' | 'lost' | 'closed';

export const DISPUTE_KINDS: readonly DisputeKind[] = ['chargeback', 'retrieval', 'fraud_warning'];
export const DISPUTE_STATES: readonly DisputeState[] = ['open', 'evidence_sent', 'won', 'lost', 'closed'];

export function isEnded(state: DisputeState): boolean {
  return state === 'won' || state === 'lost' || state === 'closed';
}

/** A retrieval request or a fraud warning that turns into a chargeback keeps its record, now a chargeback. */
export function nextDisputeKind(current: DisputeKind | undefined, notified: DisputeKind): DisputeKind {
  if (current === undefined || notified === 'chargeback') return notified;
  return current;
}

/** The state a notice asks for, for a dispute of this kind. */
function noticeState(kind: DisputeKind, notice: DisputeNotice): DisputeState {
  switch (notice) {
    case 'opened':
    case 'evidence_needed':
      return 'open';
    case 'won':
    case 'lost':
      return kind === 'chargeback' ? notice : 'closed';
    case 'closed':
      return 'closed';
  }
}

/** The dispute's state after a notice (`current` undefined: the first notice of it). */
export function nextDisputeState(current: DisputeState | undefined, kind: DisputeKind, notice: DisputeNotice): DisputeState {
  const target = noticeState(kind, notice);
  if (current === undefined) return target;
  if (!isEnded(current)) return target === 'open' ? current : target;
  // Ended: never reopened; a chargeback's outcome may still turn (won ↔ lost, or a closed warning become a lost chargeback).
  if (target === 'won' || target === 'lost') return target;
  return current;
}
