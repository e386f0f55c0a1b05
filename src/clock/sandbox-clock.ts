import type { Sql } from '../db/database.ts';
import { addClockOffset, readClockOffset } from './clock-repository.ts';
import type { Clock } from '../domain/clock.ts';

/** Largest single move of `advance` (a year), as `POST /api/sandbox/clock` accepts it. */
export const MAX_ADVANCE_SECONDS = 31_536_000;
/** How far ahead of the wall clock the sandbox may ever be: dates stay within yyyy-mm-dd years. */
export const MAX_OFFSET_MS = 100 * 365 * 86_400_000;

/** The move would put the clock more than {@link MAX_OFFSET_MS} ahead. */
export class ClockLimitError extends Error {
  override readonly name = 'ClockLimitError';
}

export interface SandboxClockOptions {
  /** How often the shared offset is re-read (ms); other processes' moves show within this. */
  refreshMs?: number;
  /** Called when a background refresh fails; the last known offset stays in use. */
  onError?: (err: unknown) => void;
  /** The wall clock (tests). */
  wallNow?: () => number;
}

/**
 * The service clock of a sandbox (docs/jobs-and-clock.md#the-service-clock): wall time plus an
 * offset that only grows, stored in the database (`sandbox_clock`) so that every process of the
 * service shows the same time. `now()` is synchronous and reads a cached offset, re-read every
 * second in the background and at once in the process that moves it.
 */
export class SandboxClock implements Clock {
  #offsetMs = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #refreshMs: number;
  readonly #onError: (err: unknown) => void;
  readonly #wallNow: () => number;

  private constructor(
    private readonly sql: Sql,
    opts: SandboxClockOptions,
  ) {
    this.#refreshMs = opts.refreshMs ?? 1_000;
    this.#onError = opts.onError ?? (() => {});
    this.#wallNow = opts.wallNow ?? Date.now;
  }

  /** A clock with the stored offset already read (the `sandbox_clock` table must exist). */
  static async open(sql: Sql, opts: SandboxClockOptions = {}): Promise<SandboxClock> {
    const clock = new SandboxClock(sql, opts);
    await clock.refresh();
    return clock;
  }

  now(): Date {
    return new Date(this.#wallNow() + this.#offsetMs);
  }

  /** Milliseconds the clock is ahead of the wall clock, as last read. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Re-reads the shared offset. Never moves this process's clock backwards. */
  async refresh(): Promise<void> {
    this.#accept(await readClockOffset(this.sql));
  }

  /**
   * Moves the clock forward by `seconds` for the whole service (one atomic update, so concurrent
   * moves add up) and answers the new offset in ms.
   * @throws RangeError when `seconds` is not an integer in 1..{@link MAX_ADVANCE_SECONDS}.
   * @throws ClockLimitError when the clock would end up more than {@link MAX_OFFSET_MS} ahead.
   */
  async advance(seconds: number): Promise<number> {
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_ADVANCE_SECONDS) {
      throw new RangeError(`the clock moves forward by 1 to ${MAX_ADVANCE_SECONDS} seconds at a time, got ${seconds}`);
    }
    const offsetMs = await addClockOffset(this.sql, seconds * 1000, MAX_OFFSET_MS);
    if (offsetMs === undefined) throw new ClockLimitError(`the sandbox clock cannot be more than ${MAX_OFFSET_MS / 86_400_000} days ahead of real time`);
    this.#accept(offsetMs);
    return this.#offsetMs;
  }

  /**
   * Starts the background refresh (unref'd: it never keeps the process alive): each process
   * refreshes its own copy of the offset, hence a timer and not a durable job
   * (docs/jobs-and-clock.md#periodic-work-that-is-not-a-job).
   */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.refresh().catch(this.#onError), this.#refreshMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #accept(offsetMs: number): void {
    // Offsets only grow; a stale read racing a local advance must not undo it.
    if (offsetMs > this.#offsetMs) this.#offsetMs = offsetMs;
  }
}
