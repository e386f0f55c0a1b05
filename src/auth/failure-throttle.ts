/**
 * Counts events per subject (a client address) in a fixed window and refuses the subject once it
 * reaches the limit, until the window ends. In memory, per process: with N processes a client
 * gets at most N times the limit. The public schedule simulation's rate limit uses it; credential
 * checks do not: their budgets must hold across processes and under concurrency, so they live in
 * the database (./attempt-budgets.ts).
 */
export class FailureThrottle {
  readonly #entries = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    // Bounds memory under a flood of distinct subjects: the oldest entries go first.
    private readonly maxEntries = 100_000,
  ) {}

  /** Seconds until the subject may try again, or 0 when it may try now. */
  retryAfter(subject: string): number {
    const entry = this.#entries.get(subject);
    if (!entry) return 0;
    const left = entry.resetAt - this.now();
    if (left <= 0) {
      this.#entries.delete(subject);
      return 0;
    }
    return entry.count >= this.limit ? Math.ceil(left / 1000) : 0;
  }

  fail(subject: string): void {
    const now = this.now();
    const entry = this.#entries.get(subject);
    if (entry && entry.resetAt > now) {
      entry.count++;
      return;
    }
    if (entry) this.#entries.delete(subject);
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(subject, { count: 1, resetAt: now + this.windowMs });
  }
}
