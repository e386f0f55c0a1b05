import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mismatchKey, reconcile, statusesDiffer, type ChipinView, type Mismatch, type PspView, type ReconStatus } from '../../src/domain/reconciliation.ts';

const SETTLED: ReconStatus[] = ['authorized', 'captured', 'refunded', 'voided', 'declined', 'expired'];

/** A consistent transaction: captured ≥ refunded + charged back, status matching the sums. */
const transaction = fc
  .record({
    captured: fc.integer({ min: 0, max: 100_000 }),
    refundShare: fc.integer({ min: 0, max: 100 }),
    chargebackShare: fc.integer({ min: 0, max: 100 }),
    ended: fc.constantFrom<ReconStatus>('voided', 'declined', 'expired'),
    currency: fc.constantFrom('EUR', 'USD'),
  })
  .map(({ captured, refundShare, chargebackShare, ended, currency }) => {
    const refunded = Math.floor((captured * refundShare) / 100);
    const chargedBack = Math.floor(((captured - refunded) * chargebackShare) / 100);
    const status: ReconStatus = captured === 0 ? ended : refunded > 0 ? 'refunded' : 'captured';
    return { status, currency, capturedCents: captured, refundedCents: refunded, chargedBackCents: chargedBack };
  });

type Injection =
  | { type: 'drop_at_psp' }
  | { type: 'unknown_at_psp' }
  | { type: 'change'; field: 'capturedCents' | 'refundedCents' | 'chargedBackCents'; to: number }
  | { type: 'status'; to: ReconStatus };

const injection: fc.Arbitrary<Injection | null> = fc.oneof(
  fc.constant(null),
  fc.constant(null),
  fc.constant<Injection>({ type: 'drop_at_psp' }),
  fc.constant<Injection>({ type: 'unknown_at_psp' }),
  fc.record({
    type: fc.constant('change' as const),
    field: fc.constantFrom('capturedCents' as const, 'refundedCents' as const, 'chargedBackCents' as const),
    to: fc.integer({ min: 0, max: 100_000 }),
  }),
  fc.record({ type: fc.constant('status' as const), to: fc.constantFrom(...SETTLED) }),
);

const OP = { capturedCents: 'capture', refundedCents: 'refund', chargedBackCents: 'chargeback' } as const;

describe('reconcile', () => {
  it('reports exactly the injected differences and matches everything else', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(transaction, injection), { maxLength: 30 }), fc.boolean(), (rows, duplicatePsp) => {
        const chipin: ChipinView[] = [];
        const psp: PspView[] = [];
        const expected: Mismatch[] = [];
        const expectMatched: string[] = [];
        rows.forEach(([t, inj], i) => {
          const transactionId = `t${i}`;
          const view = { transactionId, ...t };
          if (inj?.type === 'unknown_at_psp') {
            psp.push(view);
            expected.push({
              transactionId,
              kind: 'unknown_to_chipin',
              operation: 'transaction',
              chipinCents: null,
              pspCents: t.capturedCents,
              chipinStatus: null,
              pspStatus: t.status,
              currency: t.currency,
            });
            return;
          }
          chipin.push(view);
          if (inj?.type === 'drop_at_psp') {
            expected.push({
              transactionId,
              kind: 'missing_at_psp',
              operation: 'transaction',
              chipinCents: t.capturedCents,
              pspCents: null,
              chipinStatus: t.status,
              pspStatus: null,
              currency: t.currency,
            });
            return;
          }
          const at = { ...view };
          if (inj?.type === 'change') at[inj.field] = inj.to;
          if (inj?.type === 'status') at.status = inj.to;
          psp.push(at);
          if (duplicatePsp) psp.unshift({ ...at, capturedCents: at.capturedCents + 1 }); // an older appearance: the later one counts
          let found = false;
          if (inj?.type === 'change' && inj.to !== t[inj.field]) {
            const c = t[inj.field];
            const kind = inj.to === 0 ? 'missing_at_psp' : c === 0 ? 'unknown_to_chipin' : 'amount_differs';
            expected.push({ transactionId, kind, operation: OP[inj.field], chipinCents: c, pspCents: inj.to, chipinStatus: t.status, pspStatus: t.status, currency: t.currency });
            found = true;
          }
          if (inj?.type === 'status' && statusesDiffer(t.status, inj.to)) {
            expected.push({
              transactionId,
              kind: 'status_differs',
              operation: 'transaction',
              chipinCents: null,
              pspCents: null,
              chipinStatus: t.status,
              pspStatus: inj.to,
              currency: t.currency,
            });
            found = true;
          }
          if (!found) expectMatched.push(transactionId);
        });
        const result = reconcile(chipin, psp);
        const sort = (ms: Mismatch[]) => [...ms].sort((a, b) => mismatchKey(a).localeCompare(mismatchKey(b)));
        expect(sort(result.mismatches)).toEqual(sort(expected));
        expect([...result.matched].sort()).toEqual([...expectMatched].sort());
      }),
      { numRuns: 50 },
    );
  });

  it('leaves aside payments still pending or awaiting 3-D Secure, whatever the PSP says', () => {
    const chipin: ChipinView[] = [{ transactionId: 'a', status: 'requires_action', currency: 'EUR', capturedCents: 0, refundedCents: 0, chargedBackCents: 0 }];
    const psp: PspView[] = [{ transactionId: 'a', status: 'captured', currency: 'EUR', capturedCents: 500, refundedCents: 0, chargedBackCents: 0 }];
    expect(reconcile(chipin, psp)).toEqual({ matched: [], mismatches: [] });
  });

  it('takes wording for substance: voided, declined and expired agree; a hold against a lapse does not', () => {
    expect(statusesDiffer('voided', 'expired')).toBe(false);
    expect(statusesDiffer('captured', 'refunded')).toBe(false);
    expect(statusesDiffer('authorized', 'expired')).toBe(true);
    expect(statusesDiffer('captured', 'authorized')).toBe(true);
  });
});
