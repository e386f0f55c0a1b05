import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Database } from '../db/database.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Clock } from '../domain/clock.ts';
import type { DueWorkRunner } from '../jobs/due-work.ts';
import type { Mailer } from '../messaging/mailer.ts';
import { dispatchBatch } from './dispatcher.ts';
import { findWebhookEndpoints, type WebhookEndpoint } from './webhook-endpoint-repository.ts';
import { postJson, type HttpAttempt } from './http-sender.ts';
import { DEFAULT_TIMEOUT_MS, retryAfterMs, retryDelay, verdictOf } from './policy.ts';
import { SuccessRecorder } from './success-recorder.ts';
import { claimDue, destinationOf, isPlainSuccess, recordAttempt, cancelClaimed, releaseClaimed, nextWakeUp, dueInFlight, type AttemptRecord, type ClaimedDelivery } from './delivery-queue-repository.ts';
import { toDeliveryUid, type AttemptOutcome } from './delivery.ts';
import type { AddressPolicy } from '../outbound/addresses.ts';
import { standardWebhookSignature, webhookBody, type WebhookMessage } from './webhook-payload.ts';
import { isEmailAddress } from '../domain/email.ts';
import { OUTBOX_CHANNEL } from '../domain/events.ts';

/** See #dueTimerStale: how often a busy worker reads the next due time. */
const DUE_TIMER_BUSY_MS = 250;

/** See #mayClaim: outcomes waiting to be recorded, per slot, beyond which no more is claimed. */
const MAX_RECORDING_PER_SLOT = 4;

/** See #ahead: shares of a destination claimed ahead, beyond those in flight. */
const AHEAD_SHARES = 2;

/** See #wakeForNewWork: how long new work waits for a claim when the last one came back short. */
const NEW_WORK_COALESCE_MS = 10;

const USER_AGENT = 'Chipin-Webhooks/1.0 (+https://www.standardwebhooks.com)';

export interface DeliveryLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Where attempt outcomes and latencies are counted (src/observability/metrics.ts). */
export interface DeliveryMetricsSink {
  observeDeliveryAttempt(kind: string, outcome: string, seconds: number): void;
}

export interface DeliveryWorkerOptions {
  /** Deadline for the answer's status line (ms). 10 s by default (docs/webhooks.md#delivery-policy). */
  timeoutMs?: number;
  /** How long a claim protects a delivery being sent (wall-clock ms). Default: two timeouts + 5 s (claimed ahead, a delivery may wait for one attempt first). */
  leaseMs?: number;
  /** Attempts in flight at once in this process. Default 32. */
  concurrency?: number;
  /**
   * Attempts in flight at once in this process to one destination (a merchant's webhook
   * endpoint, its notification URLs). Default 16: half the slots, so that an endpoint that
   * hangs, or one merchant's burst, always leaves the others room.
   */
  perDestination?: number;
  /** Safety poll (ms) for a missed notification. Default 10 s. */
  pollMs?: number;
  /** Events dispatched per transaction. Default 200. */
  dispatchBatch?: number;
  /** Jitter source in [0, 1) (tests). */
  random?: () => number;
  /** The wall clock of leases and `webhook-timestamp` (tests). */
  wallNow?: () => Date;
}

export interface DeliveryWorkerDeps {
  db: Database;
  box: SecretBox;
  /** The service clock: what is due, and when retries fall due. */
  clock: Clock;
  policy: AddressPolicy;
  mailer: Mailer | undefined;
  metrics?: DeliveryMetricsSink;
  log: DeliveryLog;
}

/** A delivery claimed ahead, with the endpoints read for its claim (`performance.now()` of the read). */
interface Ahead {
  d: ClaimedDelivery;
  endpoints: Map<string, WebhookEndpoint> | undefined;
  readAt: number;
}

/** An attempt whose request has ended: the recording of its outcome, under way. Never rejects. */
interface Sending {
  recorded: Promise<void>;
}

/** What sending came to, whatever the channel. */
export interface Sent extends HttpAttempt {
  /** The channel accepted it (a 2xx; the mail server took it). */
  delivered: boolean;
  mail?: AttemptRecord['mail'];
}

/**
 * Sends due deliveries: any number of workers (one per process) share the `deliveries` table.
 *
 * - Woken (`Database.listen`) when an event or a delivery is committed by any process, by a timer at the
 *   next due retry, and by a slow safety poll.
 * - Each wake dispatches new events (a batch; more beside the passes, #dispatchRest), then claims
 *   due deliveries (SKIP LOCKED + lease) while it has free slots, and sends them outside any
 *   transaction; a finished attempt wakes it again, so the next delivery of the same purchase
 *   follows at once.
 * - Fair between destinations: each claim takes every due destination's oldest delivery in turn,
 *   and one destination never has more than `perDestination` of the slots; up to AHEAD_SHARES more
 *   shares per destination are claimed ahead and started as its requests end (#ahead).
 * - A slot is held while the request runs; its outcome is recorded after (#recording).
 * - At-least-once: a process that dies mid-send leaves a lease that runs out, and the delivery is
 *   sent again by whoever takes it next.
 */
export class DeliveryWorker implements DueWorkRunner {
  readonly name = 'deliveries';
  readonly #deps: DeliveryWorkerDeps;
  readonly #dispatchDeps: { db: Database; box: SecretBox; log: DeliveryLog };
  readonly #successes: SuccessRecorder;
  readonly #timeoutMs: number;
  readonly #leaseMs: number;
  readonly #concurrency: number;
  readonly #perDestination: number;
  /** Attempts in flight by destination (`destinationOf`), background and `runDue` alike. */
  readonly #busy = new Map<string, number>();
  /**
   * Claimed ahead, by destination: leased deliveries waiting for a slot of their destination,
   * started as soon as one of its attempts ends, without a claim in between. A claim takes up to
   * AHEAD_SHARES more shares per destination than are in flight: claims run one after another
   * and take longer than a request to a healthy receiver, so with one share ahead a busy
   * destination's slots emptied during each claim, which was the limit of a burst
   * (docs/performance.md). Released at stop.
   */
  readonly #ahead = new Map<string, Ahead[]>();
  #aheadCount = 0;
  /**
   * False after a claim that found less than it asked for (what is due is capped per destination,
   * blocked by its purchase's order, or sent elsewhere): claiming again at every finished attempt
   * would cost a statement per delivery. True again on new work (a notification, a timer, the
   * poll) and when an attempt ends or is recorded with its destination holding
   * AHEAD_SHARES + ½ shares or less (running and claimed ahead).
   */
  #claimable = true;
  /**
   * New events may be waiting for dispatch: set by new work (a notification, a timer, the poll),
   * cleared when a pass dispatches. A pass woken by a finished attempt skips the dispatch query:
   * in a burst, running it at every pass was most of the database's time (docs/performance.md).
   */
  #eventsDue = true;
  /** When the due timer was last computed (`performance.now()`), see #dueTimerStale. */
  #dueTimerArmedAt = -Infinity;
  readonly #pollMs: number;
  readonly #dispatchBatch: number;
  readonly #random: () => number;
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
  /** Events being dispatched beside the passes (#dispatchRest). */
  #dispatching: Promise<unknown> | undefined;
  #again = false;
  #stopped = false;
  #started = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #newWorkTimer: NodeJS.Timeout | undefined;
  #dueTimer: NodeJS.Timeout | undefined;
  #unlisten: (() => Promise<void>) | undefined;

  constructor(deps: DeliveryWorkerDeps, opts: DeliveryWorkerOptions = {}) {
    this.#deps = deps;
    this.#dispatchDeps = { db: deps.db, box: deps.box, log: deps.log };
    this.#successes = new SuccessRecorder(deps.db);
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // A delivery claimed ahead may wait for one attempt of its destination, then make its own; one
    // that would wait longer (two shares ahead) is given back when its lease could not cover it.
    this.#leaseMs = opts.leaseMs ?? 2 * this.#timeoutMs + 5_000;
    this.#concurrency = opts.concurrency ?? 32;
    this.#perDestination = Math.min(opts.perDestination ?? 16, this.#concurrency);
    this.#pollMs = opts.pollMs ?? 10_000;
    this.#dispatchBatch = opts.dispatchBatch ?? 200;
    this.#random = opts.random ?? Math.random;
    this.#wallNow = opts.wallNow ?? (() => new Date());
    // Every attempt in flight listens on it.
    setMaxListeners(0, this.#abort.signal);
  }

  /** Starts background delivery in this process. */
  async start(): Promise<void> {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    try {
      this.#unlisten = await this.#deps.db.listen(OUTBOX_CHANNEL, () => this.#wakeForNewWork());
    } catch (err) {
      this.#deps.log.warn({ err }, 'could not LISTEN for new events: deliveries fall back to polling');
    }
    this.#pollTimer = setInterval(() => this.#wakeForNewWork(), this.#pollMs);
    this.#pollTimer.unref();
    this.wake();
  }

  /**
   * Something new may be due (committed, fallen due, or missed): worth a claim. After a short
   * claim, at most one such claim per NEW_WORK_COALESCE_MS: under a steady stream of commits
   * (a notification each) to a destination at its share, a claim per commit found nothing to
   * take and cost the database 40 % more claim statements (docs/performance.md).
   */
  #wakeForNewWork(): void {
    this.#eventsDue = true;
    if (this.#claimable) return this.wake();
    if (this.#newWorkTimer) return;
    this.#newWorkTimer = setTimeout(() => {
      this.#newWorkTimer = undefined;
      this.#claimable = true;
      this.wake();
    }, NEW_WORK_COALESCE_MS);
    this.#newWorkTimer.unref();
  }

  /**
   * Stops: no new claims; attempts in flight are interrupted (recorded as such and due again at
   * once, for another process or the next start). Resolves when nothing touches the database.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#pollTimer);
    clearTimeout(this.#dueTimer);
    clearTimeout(this.#newWorkTimer);
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.().catch(() => {});
    this.#abort.abort();
    await this.#pumping;
    await this.#dispatching;
    await Promise.allSettled([...this.#inFlight]);
    await Promise.allSettled([...this.#recording]);
    await this.#releaseAhead();
  }

  /** Gives the deliveries claimed ahead back (due at once, for any process). */
  async #releaseAhead(): Promise<void> {
    const all = [...this.#ahead.values()].flat().map((a) => a.d);
    this.#ahead.clear();
    this.#aheadCount = 0;
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
    let handled = await this.#dispatchAll();
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

  async #pump(): Promise<void> {
    do {
      this.#again = false;
      if (this.#eventsDue && !this.#dispatching) {
        this.#eventsDue = false;
        const n = await this.#dispatchOnce().catch((err: unknown) => {
          this.#eventsDue = true; // still due at the next pass, whatever wakes it
          throw err;
        });
        if (n === this.#dispatchBatch) this.#dispatchRest();
      }
      // Claims in batches: only when half the slots or more are free (or none is busy), so a
      // burst costs one claim statement per half-batch of attempts instead of one per attempt.
      while (!this.#stopped && this.#mayClaim()) {
        const asked = 2 * this.#concurrency - this.#inFlight.size - this.#aheadCount;
        const claimed = await this.#claim(asked, (1 + AHEAD_SHARES) * this.#perDestination);
        this.#claimable = claimed.length === asked;
        if (claimed.length === 0) break;
        const endpoints = await this.#endpointsOf(claimed);
        const readAt = performance.now();
        for (const d of claimed) {
          const key = destinationOf(d);
          const queue = this.#ahead.get(key);
          if (queue || !this.#hasSlot(key)) {
            if (queue) queue.push({ d, endpoints, readAt });
            else this.#ahead.set(key, [{ d, endpoints, readAt }]);
            this.#aheadCount++;
          } else this.#track(this.#run(d, endpoints));
        }
        this.#startAhead(); // what queued behind its destination's queue while a slot was free
      }
    } while (this.#again && !this.#stopped);
    if (!this.#stopped && this.#dueTimerStale()) await this.#armDueTimer();
  }

  /**
   * Whether to read the next due time again at the end of a pass. While attempts are in flight
   * their ends start further passes, so once per DUE_TIMER_BUSY_MS is enough: in a burst, reading
   * it at every pass cost the database more than the claims did (docs/performance.md). Idle: always.
   */
  #dueTimerStale(): boolean {
    const now = performance.now();
    if (this.#inFlight.size > 0 && now - this.#dueTimerArmedAt < DUE_TIMER_BUSY_MS) return false;
    this.#dueTimerArmedAt = now;
    return true;
  }

  #mayClaim(): boolean {
    // Records waiting on a slow database: no more work until they are written.
    if (this.#recording.size >= MAX_RECORDING_PER_SLOT * this.#concurrency) return false;
    const free = this.#concurrency - this.#inFlight.size;
    const room = free + this.#concurrency - this.#aheadCount;
    return room > 0 && (this.#inFlight.size === 0 || (this.#claimable && free >= this.#concurrency / 2));
  }

  #hasSlot(key: string): boolean {
    return this.#inFlight.size < this.#concurrency && (this.#busy.get(key) ?? 0) < this.#perDestination;
  }

  /** Starts what was claimed ahead, as far as slots allow; a lease too short for an attempt goes back. */
  #startAhead(): void {
    if (this.#aheadCount === 0 || this.#stopped) return;
    const expired: ClaimedDelivery[] = [];
    const wallNow = this.#wallNow().getTime();
    for (const [key, queue] of this.#ahead) {
      while (queue.length > 0 && this.#hasSlot(key)) {
        const next = queue.shift()!;
        this.#aheadCount--;
        if (next.d.leaseEndsAt.getTime() - wallNow < this.#timeoutMs + 1_000) expired.push(next.d);
        // Endpoints read more than a second ago may have changed: the attempt reads its own.
        else this.#track(this.#run(next.d, performance.now() - next.readAt < 1_000 ? next.endpoints : undefined));
      }
      if (queue.length === 0) this.#ahead.delete(key);
    }
    if (expired.length > 0) {
      void releaseClaimed(this.#deps.db, expired, this.#deps.clock.now()).catch(() => {}); // else its lease runs out
    }
  }

  /** One attempt, counted against its destination's share until its request ends. */
  async #run(d: ClaimedDelivery, endpoints?: Map<string, WebhookEndpoint>): Promise<Sending> {
    const key = destinationOf(d);
    this.#busy.set(key, (this.#busy.get(key) ?? 0) + 1);
    let sending: Sending | undefined;
    try {
      sending = await this.#attempt(d, endpoints);
    } finally {
      const left = (this.#busy.get(key) ?? 1) - 1;
      if (left === 0) this.#busy.delete(key);
      else this.#busy.set(key, left);
      this.#noteRoom(key);
    }
    // Recorded, the delivery is no longer pending: the purchase's next one may be claimed.
    return { recorded: sending.recorded.then(() => this.#noteRoom(key)) };
  }

  /** Once what a destination has claimed ahead is mostly running, claim for it again. */
  #noteRoom(key: string): void {
    const held = (this.#busy.get(key) ?? 0) + (this.#ahead.get(key)?.length ?? 0);
    if (held <= (AHEAD_SHARES + 0.5) * this.#perDestination) this.#claimable = true;
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

  /** A timer at the next due retry or lease end (at most one poll interval away: the clock may be moved). */
  async #armDueTimer(): Promise<void> {
    clearTimeout(this.#dueTimer);
    const { retryAt, leaseEndsAt } = await nextWakeUp(this.#deps.db, this.#deps.clock.now(), this.#wallNow());
    if (this.#stopped) return;
    const waits = [
      ...(retryAt ? [retryAt.getTime() - this.#deps.clock.now().getTime()] : []),
      ...(leaseEndsAt ? [leaseEndsAt.getTime() - this.#wallNow().getTime()] : []),
    ];
    if (waits.length === 0) return;
    const ms = Math.max(Math.min(...waits), 0);
    if (ms >= this.#pollMs) return; // the poll comes first
    this.#dueTimer = setTimeout(() => this.#wakeForNewWork(), ms + 5);
    this.#dueTimer.unref();
  }

  /** One batch of events dispatched: how many. */
  #dispatchOnce(): Promise<number> {
    return dispatchBatch(this.#dispatchDeps, this.#deps.clock.now(), this.#dispatchBatch);
  }

  /** Dispatches batch after batch until one comes back short; `afterBatch` sees each batch's count. */
  async #dispatchAll(afterBatch?: (n: number) => void): Promise<number> {
    let total = 0;
    while (!this.#stopped) {
      const n = await this.#dispatchOnce();
      total += n;
      afterBatch?.(n);
      if (n < this.#dispatchBatch) break;
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
  #dispatchRest(): void {
    this.#dispatching = this.#dispatchAll((n) => {
      if (n === 0) return;
      this.#claimable = true;
      this.wake();
    })
      .catch((err: unknown) => {
        this.#eventsDue = true;
        this.#deps.log.warn({ err }, 'dispatching events failed; retrying at the next wake-up');
      })
      .finally(() => {
        this.#dispatching = undefined;
        this.wake();
      });
  }

  /** Claims what is due, counting against each destination what this process holds (running or ahead). */
  #claim(limit: number, perDestination: number): Promise<ClaimedDelivery[]> {
    const held = new Map(this.#busy);
    for (const [key, queue] of this.#ahead) held.set(key, (held.get(key) ?? 0) + queue.length);
    return claimDue(this.#deps.db, {
      now: this.#deps.clock.now(),
      wallNow: this.#wallNow(),
      limit,
      leaseMs: this.#leaseMs,
      perDestination,
      busy: held,
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

  /**
   * One attempt of a claimed delivery: resolves when its request has ended, with the recording of
   * its outcome under way. Never rejects.
   */
  async #attempt(d: ClaimedDelivery, endpoints?: Map<string, WebhookEndpoint>): Promise<Sending> {
    const { log } = this.#deps;
    const context = { delivery_id: toDeliveryUid(d.id), account_id: d.accountId, kind: d.kind, event_id: d.eventId };
    try {
      const startedAt = this.#deps.clock.now();
      const request = await this.#prepare(d, endpoints);
      if ('cancel' in request) {
        await cancelClaimed(this.#deps.db, d, request.cancel, this.#deps.clock.now());
        this.#deps.metrics?.observeDeliveryAttempt(d.kind, 'cancelled', 0);
        log.info({ ...context, reason: request.cancel }, 'delivery cancelled');
        return { recorded: Promise.resolve() };
      }
      const sent = request.url.startsWith('mailto:') ? await this.#mail(request.url, request.body) : await this.#post(request);
      return { recorded: this.#record(d, request.url, startedAt, sent, context) };
    } catch (err) {
      // Database trouble: the lease runs out and the delivery is taken again.
      log.error({ ...context, err }, 'delivery attempt could not be completed');
      return { recorded: Promise.resolve() };
    }
  }

  /** Records an attempt's outcome and what follows from it. Never rejects. */
  async #record(d: ClaimedDelivery, url: string, startedAt: Date, sent: Sent, context: object): Promise<void> {
    const { log, metrics } = this.#deps;
    try {
      const now = this.#deps.clock.now();
      const { outcome, nextAttemptAt } = this.#decide(d, sent, now);
      const a: AttemptRecord = {
        url,
        startedAt,
        durationMs: sent.durationMs,
        ...(sent.statusCode === undefined ? {} : { statusCode: sent.statusCode }),
        ...(sent.excerpt === undefined ? {} : { excerpt: sent.excerpt }),
        ...(sent.error === undefined ? {} : { error: sent.error }),
        outcome,
        ...(nextAttemptAt ? { nextAttemptAt } : {}),
        now,
        ...(sent.mail ? { mail: sent.mail } : {}),
      };
      // Successes (the bulk of a burst) are written in groups; the rest one by one.
      if (isPlainSuccess(a)) await this.#successes.record({ d, a });
      else await recordAttempt(this.#deps.db, d, a);
      metrics?.observeDeliveryAttempt(d.kind, outcome, sent.durationMs / 1000);
      const fields = { ...context, attempt: d.attempts + 1, status_code: sent.statusCode, ms: sent.durationMs, outcome };
      if (outcome === 'succeeded') log.debug(fields, 'delivery sent');
      else if (outcome === 'retry_scheduled') log.info({ ...fields, error: sent.error, next_attempt_at: nextAttemptAt?.toISOString() }, 'delivery attempt failed: will retry');
      else if (outcome !== 'interrupted') log.warn({ ...fields, error: sent.error }, 'delivery given up');
    } catch (err) {
      // Database trouble: the lease runs out and the delivery is taken again.
      log.error({ ...context, err }, 'delivery attempt could not be recorded');
    }
  }

  async #prepare(
    d: ClaimedDelivery,
    endpoints: Map<string, WebhookEndpoint> | undefined,
  ): Promise<{ url: string; body: string; headers: Record<string, string> } | { cancel: string }> {
    const msgId = toDeliveryUid(d.id);
    const base = { 'content-type': 'application/json', 'user-agent': USER_AGENT, 'webhook-id': msgId };
    if (d.kind === 'notification') return { url: d.url, body: d.payload, headers: base };
    const endpoint = (endpoints ?? (await findWebhookEndpoints(this.#deps.db, this.#deps.box, [d.accountId]))).get(d.accountId);
    if (!endpoint) return { cancel: 'the webhook endpoint was removed' };
    if (endpoint.disabledAt) return { cancel: `the webhook endpoint is disabled: ${endpoint.disabledReason ?? ''}`.trim() };
    return this.#webhookRequest(endpoint, msgId, JSON.parse(d.payload) as WebhookMessage);
  }

  /** A webhook as it is sent: the endpoint's current token in the body, signed with its secret (Standard Webhooks headers). */
  #webhookRequest(endpoint: WebhookEndpoint, msgId: string, message: WebhookMessage): { url: string; body: string; headers: Record<string, string> } {
    const body = webhookBody(message, endpoint.token.reveal());
    // Real time, not the service clock: receivers compare it with their own clock.
    const timestamp = Math.floor(this.#wallNow().getTime() / 1000);
    return {
      url: endpoint.url,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': msgId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': standardWebhookSignature(endpoint.secret.reveal(), msgId, timestamp, body),
      },
    };
  }

  /**
   * Sends one webhook now, outside the delivery tables (the back office's test event): the same
   * body, signature, timeout and target policy as every delivery, and nothing recorded or retried.
   */
  async sendNow(endpoint: WebhookEndpoint, msgId: string, message: WebhookMessage): Promise<Sent> {
    return this.#post(this.#webhookRequest(endpoint, msgId, message));
  }

  async #post(r: { url: string; body: string; headers: Record<string, string> }): Promise<Sent> {
    const res = await postJson(r.url, r.body, r.headers, { timeoutMs: this.#timeoutMs, policy: this.#deps.policy, signal: this.#abort.signal });
    return { ...res, delivered: !res.interrupted && verdictOf(res.statusCode) === 'succeeded' };
  }

  /** A `mailto:` notification: the same JSON body, as the text of an e-mail. */
  async #mail(url: string, body: string): Promise<Sent> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const to = mailtoAddress(url);
    if (!to) return { delivered: false, error: 'invalid mailto: address', durationMs: 0 };
    let reference = '';
    try {
      reference = String((JSON.parse(body) as { reference?: unknown }).reference ?? '');
    } catch {
      /* the body is ours: always JSON */
    }
    const subject = reference ? `Payment notification ${reference}` : 'Payment notification';
    const mailer = this.#deps.mailer;
    if (!mailer) return { delivered: false, error: 'no mailer configured', durationMs: 0 };
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<{ accepted: false; error: string; messageId?: string }>((resolve) => {
      timer = setTimeout(() => resolve({ accepted: false, error: `timed out after ${this.#timeoutMs} ms` }), this.#timeoutMs);
    });
    const result = await Promise.race([mailer.send({ to, subject, text: body }), late]).finally(() => clearTimeout(timer));
    const error = result.accepted ? null : (result.error ?? 'not accepted');
    return {
      delivered: result.accepted,
      ...(error ? { error } : {}),
      durationMs: elapsed(),
      mail: { recipient: to, subject, body, accepted: result.accepted, error, providerId: result.messageId ?? null },
    };
  }

  #decide(d: ClaimedDelivery, sent: Sent, now: Date): { outcome: AttemptOutcome; nextAttemptAt?: Date } {
    if (sent.interrupted) return { outcome: 'interrupted' };
    if (sent.delivered) return { outcome: 'succeeded' };
    if (sent.statusCode === 410) return { outcome: 'endpoint_gone' };
    const failures = d.failures + 1;
    const scheduled = retryDelay(failures, this.#random);
    if (scheduled === undefined) return { outcome: 'gave_up' };
    const asked = sent.statusCode === undefined ? undefined : retryAfterMs(sent.retryAfter, this.#wallNow().getTime());
    return { outcome: 'retry_scheduled', nextAttemptAt: new Date(now.getTime() + (asked ?? scheduled)) };
  }
}

/** The single address of a `mailto:` URL, or undefined. */
export function mailtoAddress(url: string): string | undefined {
  if (!url.toLowerCase().startsWith('mailto:')) return undefined;
  let address: string;
  try {
    address = decodeURIComponent(url.slice('mailto:'.length).split('?')[0]!).trim();
  } catch {
    return undefined;
  }
  return isEmailAddress(address) ? address : undefined;
}
