import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLsn, pruneSamples, replicaStalenessMs, type LsnSample } from '../../src/db/replica-staleness.ts';

/**
 * The read replica's staleness rule (src/db/replica-staleness.ts, docs/deployment.md#read-replicas):
 * measured against samples of the primary's WAL position, never from the last replayed
 * transaction's timestamp, which grows while the primary is idle.
 */
describe('replica staleness from WAL positions', () => {
  it('parses a pg_lsn as PostgreSQL prints it, and refuses anything else', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(parseLsn('FFFFFFFF/FFFFFFFF')).toBe((1n << 64n) - 1n);
    for (const bad of ['', '16', '16/', 'x/1', '1/2/3', '123456789/0']) expect(() => parseLsn(bad)).toThrow(RangeError);
  });

  it('an idle primary (its position unchanged for a long time) leaves a caught-up replica at 0, not at the age of its last transaction', () => {
    const samples: LsnSample[] = [0, 1000, 2000, 3000].map((at) => ({ at: 1_000_000 + at, lsn: 0x5000n }));
    expect(replicaStalenessMs(samples, 0x5000n, 1_003_010)).toBe(10);
    // Each check samples first, then reads the replica: the newest sample is the check's own.
    const later = pruneSamples([...samples, { at: 1_900_000, lsn: 0x5000n }], 1_900_000, 5_000);
    expect(replicaStalenessMs(later, 0x5000n, 1_900_000)).toBe(0);
  });

  it('a replica behind every sample kept is unknown (too stale), not 0', () => {
    const samples: LsnSample[] = [
      { at: 0, lsn: 10n },
      { at: 1000, lsn: 20n },
    ];
    expect(replicaStalenessMs(samples, 9n, 1500)).toBeUndefined();
    expect(replicaStalenessMs([], 9n, 1500)).toBeUndefined();
    expect(replicaStalenessMs(samples, 10n, 1500)).toBe(1500);
    expect(replicaStalenessMs(samples, 25n, 1500)).toBe(500);
  });

  it('pruning keeps the samples of the window and always the newest', () => {
    const samples: LsnSample[] = [
      { at: 0, lsn: 1n },
      { at: 5000, lsn: 2n },
      { at: 9000, lsn: 3n },
    ];
    expect(pruneSamples(samples, 10_000, 5_000)).toEqual(samples.slice(1));
    expect(pruneSamples(samples, 100_000, 5_000)).toEqual(samples.slice(2));
    expect(pruneSamples([], 100_000, 5_000)).toEqual([]);
  });

  // A model of the primary: commits at increasing times and WAL positions; a sample taken at
  // `at` holds the position of the last commit made before it. The replica has replayed up to
  // some commit's position. Its true staleness is the age of its oldest commit not replayed.
  const history = fc
    .record({
      gaps: fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 40 }),
      sizes: fc.array(fc.integer({ min: 1, max: 1 << 20 }), { minLength: 40, maxLength: 40 }),
      period: fc.integer({ min: 100, max: 1_000 }),
      replayedCount: fc.nat(),
      after: fc.integer({ min: 0, max: 10_000 }),
    })
    .map(({ gaps, sizes, period, replayedCount, after }) => {
      let at = 0;
      let lsn = 0x1000n;
      const commits = gaps.map((gap, i) => {
        at += gap;
        lsn += BigInt(sizes[i]!);
        return { at, lsn };
      });
      const now = at + after;
      const samples: LsnSample[] = [];
      for (let t = 0; t <= now; t += period) {
        const before = commits.filter((c) => c.at < t);
        samples.push({ at: t, lsn: before.length ? before[before.length - 1]!.lsn : 0x1000n });
      }
      const k = replayedCount % (commits.length + 1);
      const replayed = k === 0 ? 0x1000n : commits[k - 1]!.lsn;
      const firstMissing = commits[k];
      return { samples, replayed, now, period, trueStaleness: firstMissing ? now - firstMissing.at : 0 };
    });

  it('never says a replica is fresher than it is, and overstates by at most one sampling period (fast-check)', () => {
    fc.assert(
      fc.property(history, ({ samples, replayed, now, period, trueStaleness }) => {
        const estimate = replicaStalenessMs(samples, replayed, now);
        if (estimate === undefined) return; // behind even the first sample: treated as too stale
        expect(estimate).toBeGreaterThanOrEqual(trueStaleness);
        expect(estimate).toBeLessThanOrEqual(trueStaleness + period);
      }),
      { seed: 37, numRuns: 300 },
    );
  });

  it('a replica that replays more never looks staler (fast-check)', () => {
    fc.assert(
      fc.property(history, fc.bigInt({ min: 0n, max: 1n << 24n }), ({ samples, replayed, now }, more) => {
        const before = replicaStalenessMs(samples, replayed, now) ?? Infinity;
        const after = replicaStalenessMs(samples, replayed + more, now) ?? Infinity;
        expect(after).toBeLessThanOrEqual(before);
      }),
      { seed: 37, numRuns: 300 },
    );
  });
});
