/**
 * Background work that falls due with time (deadlines, installments, deferred captures,
 * delivery retries). Each runner is registered once at start; the scheduler calls them when they
 * may have something to do, and `POST /api/sandbox/clock` calls them all after moving the clock
 * so that what fell due runs before it answers (docs/jobs-and-clock.md#the-service-clock).
 */
export interface DueWorkRunner {
  readonly name: string;
  /** Runs what is due at the service clock's now; answers how many items it handled. */
  runDue(): Promise<number>;
  /**
   * Items already due that some process (this one or another) is handling right now; `settle`
   * waits for them. Optional: a runner without it is never waited for.
   */
  dueInProgress?(): Promise<number>;
}

export class DueWork {
  readonly #runners: DueWorkRunner[] = [];

  register(runner: DueWorkRunner): void {
    this.#runners.push(runner);
  }

  /** Runs every runner until none has anything left to do (bounded: `maxRounds`). */
  async drain(maxRounds = 50): Promise<number> {
    let total = 0;
    for (let round = 0; round < maxRounds; round++) {
      let handled = 0;
      for (const r of this.#runners) handled += await r.runDue();
      total += handled;
      if (handled === 0) break;
    }
    return total;
  }

  /**
   * Drains, then waits (up to `timeoutMs`) for the due items other processes had claimed, draining
   * again after each wait for what their outcome made due: when it resolves, what was due has run
   * wherever it ran (the sandbox clock answers after this). Answers the items handled here.
   */
  async settle(timeoutMs = 10_000, pollMs = 100): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    let total = await this.drain();
    while (Date.now() < deadline && (await this.#inProgress()) > 0) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      total += await this.drain();
    }
    return total;
  }

  async #inProgress(): Promise<number> {
    let n = 0;
    for (const r of this.#runners) n += r.dueInProgress ? await r.dueInProgress() : 0;
    return n;
  }
}
