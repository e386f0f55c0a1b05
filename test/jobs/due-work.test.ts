import { describe, expect, it } from 'vitest';
import { DueWork, type DueWorkRunner } from '../../src/jobs/due-work.ts';

/** A runner with `items` due now; each run handles one, and may make another due. */
function runner(name: string, items: number, opts: { busyFor?: number } = {}): DueWorkRunner & { ran: number } {
  const busyUntil = Date.now() + (opts.busyFor ?? 0);
  const r = {
    name,
    ran: 0,
    async runDue() {
      if (items === 0) return 0;
      items--;
      r.ran++;
      return 1;
    },
    dueInProgress: async () => (Date.now() < busyUntil ? 1 : 0),
  };
  return r;
}

describe('DueWork', () => {
  it('drain runs every runner until none has anything left', async () => {
    const work = new DueWork();
    const [a, b] = [runner('a', 3), runner('b', 1)];
    work.register(a);
    work.register(b);
    expect(await work.drain()).toBe(4);
    expect([a.ran, b.ran]).toEqual([3, 1]);
  });

  it('settle also waits for due items other processes are handling, within its timeout', async () => {
    const work = new DueWork();
    work.register(runner('elsewhere', 0, { busyFor: 300 }));
    const t0 = Date.now();
    expect(await work.settle(5_000, 20)).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);

    const stuck = new DueWork();
    stuck.register(runner('stuck', 0, { busyFor: 60_000 }));
    const t1 = Date.now();
    await stuck.settle(200, 20);
    expect(Date.now() - t1).toBeLessThan(2_000);
  });
});
