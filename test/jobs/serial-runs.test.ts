import { describe, expect, it } from 'vitest';
import { SerialRuns } from '../../src/jobs/serial-runs.ts';

/** A run that stays in progress until the test lets it end. */
function gatedRun() {
  let inFlight = 0;
  let maxInFlight = 0;
  let started = 0;
  const gates: (() => void)[] = [];
  const run = async () => {
    started++;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise<void>((resolve) => gates.push(resolve));
    inFlight--;
    return started;
  };
  return {
    run,
    get started() {
      return started;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    openNext: () => gates.shift()?.(),
    waiting: () => gates.length,
  };
}

describe('the serial runs shared by the job scheduler and the expiry sweep', () => {
  it('never overlaps two runs of one process: the second asked starts when the first ends, each answers its own count', async () => {
    const g = gatedRun();
    const runs = new SerialRuns(g.run, () => {});
    const first = runs.runNext();
    const second = runs.runNext();
    await expect.poll(() => g.waiting()).toBe(1);
    expect(g.started).toBe(1);
    g.openNext();
    expect(await first).toBe(1);
    await expect.poll(() => g.waiting()).toBe(1);
    g.openNext();
    expect(await second).toBe(2);
    expect(g.maxInFlight).toBe(1);
  });

  it('a failed run rejects its caller only; the next run still starts', async () => {
    let n = 0;
    const runs = new SerialRuns(
      async () => {
        if (++n === 1) throw new Error('database gone');
        return n;
      },
      () => {},
    );
    await expect(runs.runNext()).rejects.toThrow('database gone');
    expect(await runs.runNext()).toBe(2);
  });

  it('polls while started, skips ticks while idle or while a run is in progress, reports failed polls, and stop waits for the run in progress', async () => {
    const g = gatedRun();
    const errors: unknown[] = [];
    let idle = true;
    const runs = new SerialRuns(g.run, (err) => errors.push(err));
    runs.start(5, () => idle);
    await new Promise((r) => setTimeout(r, 40));
    expect(g.started).toBe(0); // idle: every tick skipped
    idle = false;
    await expect.poll(() => g.started).toBe(1);
    await new Promise((r) => setTimeout(r, 40));
    expect(g.started).toBe(1); // in progress: ticks skipped, none queued behind it
    let stopped = false;
    const stopping = runs.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false);
    g.openNext();
    await stopping;
    await new Promise((r) => setTimeout(r, 40));
    expect(g.started).toBe(1); // no tick after stop
    runs.start(5); // stopped for good
    await new Promise((r) => setTimeout(r, 40));
    expect(g.started).toBe(1);
    expect(errors).toEqual([]);
  });

  it("hands a failed poll's error to its listener", async () => {
    const errors: unknown[] = [];
    const runs = new SerialRuns(
      () => Promise.reject(new Error('no connection')),
      (err) => errors.push(err),
    );
    runs.start(5);
    await expect.poll(() => errors.length).toBeGreaterThan(0);
    await runs.stop();
    expect(String(errors[0])).toContain('no connection');
  });
});
