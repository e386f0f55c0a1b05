import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { dispatchBatch } from './dispatcher.ts';
import type { DeliveryLog } from './worker-deps.ts';

/**
 * The worker's side of dispatch (dispatcher.ts): new events turned into deliveries, a batch per
 * transaction, at a pass when new events may wait, and beside the passes when more wait than a
 * batch holds.
 */
export class EventDispatch {
  readonly #deps: { db: Database; box: SecretBox; log: DeliveryLog };
  readonly #clock: Clock;
  readonly #batch: number;
  readonly #stopped: () => boolean;
  /**
   * New events may be waiting for dispatch: set by new work (a notification, a timer, the poll),
   * cleared when a pass dispatches. A pass woken by a finished attempt skips the dispatch query:
   * in a burst, running it at every pass was most of the database's time (docs/performance.md).
   */
  #due = true;
  /** Events being dispatched beside the passes (#dispatchRest). */
  #dispatching: Promise<unknown> | undefined;

  constructor(deps: { db: Database; box: SecretBox; log: DeliveryLog; clock: Clock }, batch: number, stopped: () => boolean) {
    this.#deps = { db: deps.db, box: deps.box, log: deps.log };
    this.#clock = deps.clock;
    this.#batch = batch;
    this.#stopped = stopped;
  }

  /** New work came in: events may wait. */
  markDue(): void {
    this.#due = true;
  }

  /** Whether a pass should dispatch: events may wait, and none are being dispatched beside the passes. */
  get due(): boolean {
    return this.#due && !this.#dispatching;
  }

  /**
   * A pass's dispatch (when `due`): one batch; a full batch starts the rest beside the passes
   * (`onBatch` after each batch that found events, `onDone` when the rest is done).
   */
  async pass(onBatch: () => void, onDone: () => void): Promise<void> {
    this.#due = false;
    const n = await this.#dispatchOnce().catch((err: unknown) => {
      this.#due = true; // still due at the next pass, whatever wakes it
      throw err;
    });
    if (n === this.#batch) this.#dispatchRest(onBatch, onDone);
  }

  /** Resolves when the dispatch beside the passes, if any, has ended. */
  async settled(): Promise<void> {
    await this.#dispatching;
  }

  /** One batch of events dispatched: how many. */
  #dispatchOnce(): Promise<number> {
    return dispatchBatch(this.#deps, this.#clock.now(), this.#batch);
  }

  /** Dispatches batch after batch until one comes back short; `afterBatch` sees each batch's count. */
  async all(afterBatch?: (n: number) => void): Promise<number> {
    let total = 0;
    while (!this.#stopped()) {
      const n = await this.#dispatchOnce();
      total += n;
      afterBatch?.(n);
      if (n < this.#batch) break;
    }
    return total;
  }

  /**
   * A full batch was dispatched, so more events may wait: the rest are dispatched beside the
   * passes, not inside one. A pass that dispatched everything before claiming sent nothing while
   * a burst was being committed and dispatched: its first webhook left 3 s after its commit
   * (docs/performance.md). Each batch makes the passes claim again; when the rest is done, a pass
   * dispatches what came in meanwhile.
   */
  #dispatchRest(onBatch: () => void, onDone: () => void): void {
    this.#dispatching = this.all((n) => {
      if (n === 0) return;
      onBatch();
    })
      .catch((err: unknown) => {
        this.#due = true;
        this.#deps.log.warn({ err }, 'dispatching events failed; retrying at the next wake-up');
      })
      .finally(() => {
        this.#dispatching = undefined;
        onDone();
      });
  }
}
