/**
 * The run-and-poll loop the background runners of a process share (the durable job scheduler and
 * the purchase expiry sweep, docs/jobs-and-clock.md#running): their runs, asked for by the
 * sandbox clock or by the poll, never overlap within one process, a poll tick finding a run in
 * progress is skipped, and stopping waits for the run in progress so that the database can be
 * closed after.
 */
export class SerialRuns {
  readonly #run: () => Promise<number>;
  readonly #onPollError: (err: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  /** The run in progress (or the last one); the next starts after it. */
  #current: Promise<unknown> = Promise.resolve();
  #busy = false;
  #stopped = false;

  /** `run` does one pass and answers how many items it handled; `onPollError` hears the poll's failed runs. */
  constructor(run: () => Promise<number>, onPollError: (err: unknown) => void) {
    this.#run = run;
    this.#onPollError = onPollError;
  }

  /** One run, started when the run in progress (if any) has ended; answers its count. */
  runNext(): Promise<number> {
    const run = this.#current.then(async () => {
      this.#busy = true;
      try {
        return await this.#run();
      } finally {
        this.#busy = false;
      }
    });
    this.#current = run.catch(() => {});
    return run;
  }

  /**
   * Runs every `intervalMs` (an unref'd timer: it never keeps the process alive); a tick is skipped
   * while a run is in progress, or when `idle()` says there is nothing this process could run.
   */
  start(intervalMs: number, idle: () => boolean = () => false): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => {
      if (this.#busy || idle()) return;
      this.runNext().catch(this.#onPollError);
    }, intervalMs);
    this.#timer.unref();
  }

  /** Stops polling for good and waits for the run in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#current;
  }
}
