import { performance } from 'node:perf_hooks';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { OUTBOX_CHANNEL } from '../domain/events.ts';
import { nextWakeUp } from './delivery-queue-repository.ts';
import type { DeliveryLog } from './worker-deps.ts';

/** See #dueTimerStale: how often a busy worker reads the next due time. */
const DUE_TIMER_BUSY_MS = 250;

/** See DeliveryWorker#wakeForNewWork: how long new work waits for a claim when the last one came back short. */
const NEW_WORK_COALESCE_MS = 10;

/**
 * What tells the worker that new work may be due: a notification (`Database.listen`) when an
 * event or a delivery is committed by any process, a timer at the next due retry or lease end,
 * and a slow safety poll for a missed notification. Each calls `onNewWork`.
 */
export class WakeUps {
  readonly #deps: { db: Database; clock: Clock; log: DeliveryLog };
  readonly #pollMs: number;
  readonly #wallNow: () => Date;
  readonly #onNewWork: () => void;
  /** When the due timer was last computed (`performance.now()`), see #dueTimerStale. */
  #dueTimerArmedAt = -Infinity;
  #stopped = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #newWorkTimer: NodeJS.Timeout | undefined;
  #dueTimer: NodeJS.Timeout | undefined;
  #unlisten: (() => Promise<void>) | undefined;

  constructor(deps: { db: Database; clock: Clock; log: DeliveryLog }, opts: { pollMs: number; wallNow: () => Date }, onNewWork: () => void) {
    this.#deps = deps;
    this.#pollMs = opts.pollMs;
    this.#wallNow = opts.wallNow;
    this.#onNewWork = onNewWork;
  }

  /**
   * Listens for commits and starts the safety poll: a timer of this process's delivery loop, not a
   * durable job, as the outbox rows are the durable queue (docs/jobs-and-clock.md#periodic-work-that-is-not-a-job).
   */
  async start(): Promise<void> {
    try {
      this.#unlisten = await this.#deps.db.listen(OUTBOX_CHANNEL, () => this.#onNewWork());
    } catch (err) {
      this.#deps.log.warn({ err }, 'could not LISTEN for new events: deliveries fall back to polling');
    }
    this.#pollTimer = setInterval(() => this.#onNewWork(), this.#pollMs);
    this.#pollTimer.unref();
  }

  /** Runs `then` NEW_WORK_COALESCE_MS from now, unless a run is already waiting. */
  coalesce(then: () => void): void {
    if (this.#newWorkTimer) return;
    this.#newWorkTimer = setTimeout(() => {
      this.#newWorkTimer = undefined;
      then();
    }, NEW_WORK_COALESCE_MS);
    this.#newWorkTimer.unref();
  }

  /** Stops every timer and the listening. Resolves when the listening has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#pollTimer);
    clearTimeout(this.#dueTimer);
    clearTimeout(this.#newWorkTimer);
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.().catch(() => {});
  }

  /**
   * Whether to read the next due time again at the end of a pass. While attempts are in flight
   * their ends start further passes, so once per DUE_TIMER_BUSY_MS is enough: in a burst, reading
   * it at every pass cost the database more than the claims did (docs/performance.md). Idle: always.
   */
  dueTimerStale(inFlight: boolean): boolean {
    const now = performance.now();
    if (inFlight && now - this.#dueTimerArmedAt < DUE_TIMER_BUSY_MS) return false;
    this.#dueTimerArmedAt = now;
    return true;
  }

  /** A timer at the next due retry or lease end (at most one poll interval away: the clock may be moved). */
  async armDueTimer(): Promise<void> {
    clearTimeout(this.#dueTimer);
    const { retryAt, leaseEndsAt } = await nextWakeUp(this.#deps.db, this.#deps.clock.now(), this.#wallNow());
    if (this.#stopped) return;
    const waits = [...(retryAt ? [retryAt.getTime() - this.#deps.clock.now().getTime()] : []), ...(leaseEndsAt ? [leaseEndsAt.getTime() - this.#wallNow().getTime()] : [])];
    if (waits.length === 0) return;
    const ms = Math.max(Math.min(...waits), 0);
    if (ms >= this.#pollMs) return; // the poll comes first
    this.#dueTimer = setTimeout(() => this.#onNewWork(), ms + 5);
    this.#dueTimer.unref();
  }
}
