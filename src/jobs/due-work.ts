/**
 * Background work that falls due with time (deadlines, installments, deferred captures,
 * delivery retries). Each runner is registered once at start; the scheduler calls them when they
 * may have something to do, and `POST /api/sandbox/clock` calls them all after moving the clock
 * so that what fell due runs before it answers (DESIGN §8).
 */
export interface DueWorkRunner {
  readonly name: string;
  /** Runs what is due at the service clock's now; answers how many items it handled. */
  runDue(): Promise<number>;
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
}
