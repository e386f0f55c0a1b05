/**
 * The dispute state rule (src/domain/disputes.ts, docs/money-operations.md#disputes): any sequence
 * of PSP notices, delivered in any order and any number of times, never reopens an ended dispute,
 * repeats to no change, and ends a retrieval request or fraud warning `closed`, never won or lost.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DISPUTE_KINDS, isEnded, nextDisputeKind, nextDisputeState, type DisputeKind, type DisputeNotice, type DisputeState } from '../../src/domain/disputes.ts';

const NOTICES: readonly DisputeNotice[] = ['opened', 'evidence_needed', 'won', 'lost', 'closed'];
const notice = fc.record({ kind: fc.constantFrom(...DISPUTE_KINDS), status: fc.constantFrom(...NOTICES) });

/** The record after each notice, as applyDisputeNotice folds them (staff's `evidence_sent` may come between). */
function fold(notices: { kind: DisputeKind; status: DisputeNotice }[], evidenceAt: number): { kind: DisputeKind; state: DisputeState }[] {
  const seen: { kind: DisputeKind; state: DisputeState }[] = [];
  let current: { kind: DisputeKind; state: DisputeState } | undefined;
  notices.forEach((n, i) => {
    const kind = nextDisputeKind(current?.kind, n.kind);
    let state = nextDisputeState(current?.state, kind, n.status);
    if (i === evidenceAt && state === 'open') state = 'evidence_sent';
    current = { kind, state };
    seen.push(current);
  });
  return seen;
}

describe('the dispute state rule', () => {
  it('never reopens an ended dispute, and a second delivery of the same notice changes nothing', () => {
    fc.assert(
      fc.property(fc.array(notice, { minLength: 1, maxLength: 12 }), fc.nat(12), (notices, evidenceAt) => {
        const states = fold(notices, evidenceAt);
        states.forEach((s, i) => {
          const before = states[i - 1];
          if (before && isEnded(before.state)) expect(isEnded(s.state)).toBe(true);
          // Redelivered at once: the same state.
          expect(nextDisputeState(s.state, s.kind, notices[i]!.status)).toBe(nextDisputeState(nextDisputeState(s.state, s.kind, notices[i]!.status), s.kind, notices[i]!.status));
        });
      }),
      { numRuns: 50 },
    );
  });

  it('ends a retrieval request or a fraud warning closed, and only a chargeback won or lost', () => {
    fc.assert(
      fc.property(fc.array(notice, { minLength: 1, maxLength: 12 }), (notices) => {
        for (const s of fold(notices, -1)) if (s.state === 'won' || s.state === 'lost') expect(s.kind).toBe('chargeback');
      }),
      { numRuns: 50 },
    );
  });

  it('keeps the evidence sent while the PSP still says it awaits it, and lets a chargeback outcome turn', () => {
    expect(nextDisputeState('evidence_sent', 'chargeback', 'evidence_needed')).toBe('evidence_sent');
    expect(nextDisputeState('evidence_sent', 'chargeback', 'won')).toBe('won');
    expect(nextDisputeState('lost', 'chargeback', 'won')).toBe('won');
    expect(nextDisputeState('won', 'chargeback', 'lost')).toBe('lost');
    expect(nextDisputeState('lost', 'chargeback', 'opened')).toBe('lost');
    expect(nextDisputeState('closed', 'retrieval', 'won')).toBe('closed');
    expect(nextDisputeKind('retrieval', 'chargeback')).toBe('chargeback');
    expect(nextDisputeKind('chargeback', 'retrieval')).toBe('chargeback');
  });
});
