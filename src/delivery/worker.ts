import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { DueWorkRunner } from '../jobs/due-work.ts';
import type { Sent } from './attempt-channels.ts';
import { Attempts, type Sending } from './attempts.ts';
import { AHEAD_SHARES, DestinationSlots } from './destination-slots.ts';
import { EventDispatch } from './event-dispatch.ts';
import { DEFAULT_TIMEOUT_MS } from './policy.ts';
import { claimDue, destinationOf, dueInFlight, releaseClaimed, type ClaimedDelivery } from './delivery-queue-repository.ts';
import { WakeUps } from './wake-ups.ts';
import { findWebhookEndpoints, type WebhookEndpoint } from './webhook-endpoint-repository.ts';
import type { WebhookMessage } from './webhook-payload.ts';
import type { DeliveryWorkerDeps, DeliveryWorkerOptions } from './worker-deps.ts';

/** See #mayClaim: outcomes waiting to be recorded, per slot, beyond which no more is claimed. */
const MAX_RECORDING_PER_SLOT = 4;

/**
 * Sends due deliveries: any number of workers (one per process) share the `deliveries` table.
 * This file holds the loop; beside it, what wakes it (wake-ups.ts), the events it dispatches
 * (event-dispatch.ts), what it holds per destination (destination-slots.ts) and one attempt from
 * request to record (attempts.ts).
 *
 * - Woken (`Database.listen`) when an event or a delivery is committed by any process, by a timer at the
 *   next due retry, and by a slow safety poll.
 * - Each wake dispatches new events (a batch; more beside the passes, EventDispatch), then claims
 *   due deliveries (SKIP LOCKED + lease) while it has free slots, and sends them outside any
 *   transaction; a finished attempt wakes it again, so the next delivery of the same purchase
 *   follows at once.
 * - Fair between destinations: each claim takes every due destination's oldest delivery in turn,
 *   and one destination never has more than `perDestination` of the slots; up to AHEAD_SHARES more
 *   shares per destination are claimed ahead and started as its requests end (DestinationSlots).
 * - A slot is held while the request runs; its outcome is recorded after (#recording).
 * - At-least-once: a process that dies mid-send leaves a lease that runs out, and the delivery is
 *   sent again by whoever takes it next.
 */
export class DeliveryWorker implements DueWorkRunner {
  readonly name = 'deliveries';
  readonly #deps: DeliveryWorkerDeps;
  readonly #attempts: Attempts;
  readonly #slots: DestinationSlots;
  readonly #wakeUps: WakeUps;
  readonly #events: EventDispatch;
  readonly #timeoutMs: number;
  readonly #leaseMs: number;
  readonly #concurrency: number;
  readonly #perDestination: number;
  /**
   * False after a claim that found less than it asked for (what is due is capped per destination,
   * blocked by its purchase's order, or sent elsewhere): claiming again at every finished attempt
   * would cost a statement per delivery. True again on new work (a notification, a timer, the
   * poll) and when an attempt ends or is recorded with its destination holding
   * AHEAD_SHARES + ½ shares or less (running and claimed ahead).
   */
  #claimable = true;
  readonly #wallNow: () => Date;
  readonly #abort = new AbortController();
  /** Attempts whose request is under way: what `concurrency` and `perDestination` count. */
  readonly #inFlight = new Set<Promise<Sending>>();
  /**
   * Outcomes being recorded, their request over. Not counted as in flight: a slot is the
   * receiver's, and holding it through the commit of the record made the database's latency the
   * limit of a burst (docs/performance.md). A later delivery of the same purchase still waits for
   * the record: the claim takes a purchase's deliveries only once those before are no longer pending.
   */
  readonly #recording = new Set<Promise<void>>();
  #pumping: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #started = false;

  constructor(deps: DeliveryWorkerDeps, opts: DeliveryWorkerOptions = {}) {
    this.#deps = deps;
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // A delivery claimed ahead may wait for one attempt of its destination, then make its own; one
    // that would wait longer (two shares ahead) is given back when its lease could not cover it.
    this.#leaseMs = opts.leaseMs ?? 2 * this.#timeoutMs + 5_000;
    this.#concurrency = opts.concurrency ?? 32;
    this.#perDestination = Math.min(opts.perDestination ?? 16, this.#concurrency);
    this.#wallNow = opts.wallNow ?? (() => new Date());
    this.#slots = new DestinationSlots(this.#perDestination);
    this.#attempts = new Attempts(deps, { timeoutMs: this.#timeoutMs, random: opts.random ?? Math.random, wallNow: this.#wallNow, signal: this.#abort.signal });
    this.#wakeUps = new WakeUps(deps, { pollMs: opts.pollMs ?? 10_000, wallNow: this.#wallNow }, () => this.#wakeForNewWork());
    this.#events = new EventDispatch(deps, opts.dispatchBatch ?? 200, () => this.#stopped);
    // Every attempt in flight listens on it.
    setMaxListeners(0, this.#abort.signal);
  }

  /** Starts background delivery in this process. */
  async start(): Promise<void> {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    await this.#wakeUps.start();
    this.wake();
  }

  /**
   * Something new may be due (committed, fallen due, or missed): worth a claim. After a short
   * claim, at most one such claim per NEW_WORK_COALESCE_MS (wake-ups.ts): under a steady stream
   * of commits (a notification each) to a destination at its share, a claim per commit found
   * nothing to take and cost the database 40 % more claim statements (docs/performance.md).
   */
  #wakeForNewWork(): void {
    this.#events.markDue();
    if (this.#claimable) return this.wake();
    this.#wakeUps.coalesce(() => {
      this.#claimable = true;
      this.wake();
    });
  }

  /**
   * Stops: no new claims; attempts in flight are interrupted (recorded as such and due again at
   * once, for another process or the next start). Resolves when nothing touches the database.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#wakeUps.stop();
    this.#abort.abort();
    await this.#pumping;
    await this.#events.settled();
    await Promise.allSettled([...this.#inFlight]);
    await Promise.allSettled([...this.#recording]);
    await this.#releaseAhead();
  }

  /** Gives the deliveries claimed ahead back (due at once, for any process). */
  async #releaseAhead(): Promise<void> {
    const all = this.#slots.takeAllAhead();
    if (all.length === 0) return;
    await releaseClaimed(this.#deps.db, all, this.#deps.clock.now()).catch((err: unknown) =>
      this.#deps.log.warn({ err, deliveries: all.length }, 'could not release deliveries claimed ahead: their leases run out instead'),
    );
  }

  /** Something may be due: run a pass now, or right after the one in progress. */
  wake(): void {
    if (this.#stopped || !this.#started) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#pump()
      .catch((err: unknown) => this.#deps.log.warn({ err }, 'delivery pass failed; retrying at the next wake-up'))
      .finally(() => {
        this.#pumping = undefined;
        if (this.#again) this.wake();
      });
  }

  /**
   * Dispatches every new event and sends every due delivery, waiting for the attempts it makes
   * (the sandbox clock calls it after a move, docs/jobs-and-clock.md). Answers how many events and
   * attempts it handled. Safe alongside the background worker and other processes.
   */
  async runDue(maxAttempts = 1_000): Promise<number> {
    let handled = await this.#events.all();
    while (!this.#stopped && handled < maxAttempts) {
      const claimed = await this.#claim(this.#concurrency, this.#perDestination);
      if (claimed.length === 0) break;
      const endpoints = await this.#endpointsOf(claimed);
      await Promise.all(claimed.map(async (d) => (await this.#run(d, endpoints)).recorded));
      this.#startAhead(); // its attempts' ends made room that no background attempt's end saw
      handled += claimed.length;
    }
    return handled;
  }

  /** Due deliveries being sent right now by some process (leased), which a caller may wait for. */
  async dueInProgress(): Promise<number> {
    return dueInFlight(this.#deps.db, this.#deps.clock.now(), this.#wallNow());
  }

  /**
   * Sends one webhook now, outside the delivery tables (the back office's test event): the same
   * body, signature, timeout and target policy as every delivery, and nothing recorded or retried.
   */
  async sendNow(endpoint: WebhookEndpoint, msgId: string, message: WebhookMessage): Promise<Sent> {
    return this.#attempts.sendNow(endpoint, msgId, message);
  }

  async #pump(): Promise<void> {
    do {
      this.#again = false;
      if (this.#events.due) {
        await this.#events.pass(
          () => {
            this.#claimable = true;
            this.wake();
          },
          () => this.wake(),
        );
      }
      // Claims in batches: only when half the slots or more are free (or none is busy), so a
      // burst costs one claim statement per half-batch of attempts instead of one per attempt.
      while (!this.#stopped && this.#mayClaim()) {
        const asked = 2 * this.#concurrency - this.#inFlight.size - this.#slots.aheadCount;
        const claimed = await this.#claim(asked, (1 + AHEAD_SHARES) * this.#perDestination);
        this.#claimable = claimed.length === asked;
        if (claimed.length === 0) break;
        const endpoints = await this.#endpointsOf(claimed);
        const readAt = performance.now();
        for (const d of claimed) {
          const key = destinationOf(d);
          if (this.#slots.isQueued(key) || !this.#hasSlot(key)) this.#slots.queue(key, { d, endpoints, readAt });
          else this.#track(this.#run(d, endpoints));
        }
        this.#startAhead(); // what queued behind its destination's queue while a slot was free
      }
    } while (this.#again && !this.#stopped);
    if (!this.#stopped && this.#wakeUps.dueTimerStale(this.#inFlight.size > 0)) await this.#wakeUps.armDueTimer();
  }

  #mayClaim(): boolean {
    // Records waiting on a slow database: no more work until they are written.
    if (this.#recording.size >= MAX_RECORDING_PER_SLOT * this.#concurrency) return false;
    const free = this.#concurrency - this.#inFlight.size;
    const room = free + this.#concurrency - this.#slots.aheadCount;
    return room > 0 && (this.#inFlight.size === 0 || (this.#claimable && free >= this.#concurrency / 2));
  }

  #hasSlot(key: string): boolean {
    return this.#inFlight.size < this.#concurrency && this.#slots.hasRoom(key);
  }

  /** Starts what was claimed ahead, as far as slots allow; a lease too short for an attempt goes back. */
  #startAhead(): void {
    if (this.#slots.aheadCount === 0 || this.#stopped) return;
    const expired: ClaimedDelivery[] = [];
    const wallNow = this.#wallNow().getTime();
    this.#slots.takeAhead(
      (key) => this.#hasSlot(key),
      (next) => {
        if (next.d.leaseEndsAt.getTime() - wallNow < this.#timeoutMs + 1_000) expired.push(next.d);
        // Endpoints read more than a second ago may have changed: the attempt reads its own.
        else this.#track(this.#run(next.d, performance.now() - next.readAt < 1_000 ? next.endpoints : undefined));
      },
    );
    if (expired.length > 0) {
      void releaseClaimed(this.#deps.db, expired, this.#deps.clock.now()).catch(() => {}); // else its lease runs out
    }
  }

  /** One attempt, counted against its destination's share until its request ends. */
  async #run(d: ClaimedDelivery, endpoints?: Map<string, WebhookEndpoint>): Promise<Sending> {
    const key = destinationOf(d);
    this.#slots.enter(key);
    let sending: Sending | undefined;
    try {
      sending = await this.#attempts.attempt(d, endpoints);
    } finally {
      this.#slots.leave(key);
      this.#noteRoom(key);
    }
    // Recorded, the delivery is no longer pending: the purchase's next one may be claimed.
    return { recorded: sending.recorded.then(() => this.#noteRoom(key)) };
  }

  /** Once what a destination has claimed ahead is mostly running, claim for it again. */
  #noteRoom(key: string): void {
    if (this.#slots.wantsMore(key)) this.#claimable = true;
  }

  #track(p: Promise<Sending>): void {
    this.#inFlight.add(p);
    void p.then(({ recorded }) => {
      this.#inFlight.delete(p);
      this.#recording.add(recorded);
      void recorded.then(() => {
        this.#recording.delete(recorded);
        this.wake();
      });
      this.#startAhead();
      this.wake();
    });
  }

  /** Claims what is due, counting against each destination what this process holds (running or ahead). */
  #claim(limit: number, perDestination: number): Promise<ClaimedDelivery[]> {
    return claimDue(this.#deps.db, {
      now: this.#deps.clock.now(),
      wallNow: this.#wallNow(),
      limit,
      leaseMs: this.#leaseMs,
      perDestination,
      busy: this.#slots.held(),
    });
  }

  /**
   * The webhook endpoints of a claimed batch, read in one query just before its attempts start
   * (not one query per delivery). Undefined when that read fails: each attempt then reads its own.
   */
  async #endpointsOf(claimed: ClaimedDelivery[]): Promise<Map<string, WebhookEndpoint> | undefined> {
    const accountIds = claimed.filter((d) => d.kind === 'webhook').map((d) => d.accountId);
    if (accountIds.length === 0) return new Map();
    try {
      return await findWebhookEndpoints(this.#deps.db, this.#deps.box, accountIds);
    } catch (err) {
      this.#deps.log.warn({ err }, 'could not read the webhook endpoints of a claimed batch; each attempt reads its own');
      return undefined;
    }
  }
}
