import { describe, expect, it } from 'vitest';
import { FailureThrottle } from '../../src/auth/failure-throttle.ts';

describe('FailureThrottle', () => {
  it('blocks a subject at the limit until the window ends, then lets it try again', () => {
    let now = 0;
    const t = new FailureThrottle(3, 60_000, () => now);
    for (let i = 0; i < 2; i++) t.fail('k');
    expect(t.retryAfter('k')).toBe(0);
    t.fail('k');
    expect(t.retryAfter('k')).toBe(60);
    now = 59_500;
    expect(t.retryAfter('k')).toBe(1);
    now = 60_000;
    expect(t.retryAfter('k')).toBe(0);
    expect(t.retryAfter('other')).toBe(0);
  });

  it('keeps memory bounded under a flood of distinct subjects', () => {
    const t = new FailureThrottle(1, 60_000, () => 0, 10);
    for (let i = 0; i < 100; i++) t.fail(`s${i}`);
    expect(t.retryAfter('s0')).toBe(0); // evicted
    expect(t.retryAfter('s99')).toBe(60);
  });
});
