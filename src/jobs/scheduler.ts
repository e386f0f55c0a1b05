/**
 * Durable jobs (docs/jobs-and-clock.md#jobs, docs/architecture.md#scale-and-tenancy): work that
 * falls due at a service-clock time (an installment, a pot deadline, a deferred capture, a retry),
 * stored in the `jobs` table so that it survives restarts and runs in exactly one of any number of
 * processes.
 *
 * - {@link scheduleJob} adds a job, idempotent by key, inside the caller's transaction.
 * - {@link JobScheduler} claims due jobs (`FOR UPDATE SKIP LOCKED`, plus a lease), runs their
 *   handler outside the claiming transaction, then marks them done, reschedules them, or records
 *   the error and retries with backoff. A process that dies mid-job loses its lease, and another
 *   process takes the job over when the lease ends.
 *
 * Guarantees and their limits: docs/jobs-and-clock.md.
 */
import { randomUUID } from 'node:crypto';
import type { Database, Sql } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { DueWorkRunner } from './due-work.ts';
import { SerialRuns } from './serial-runs.ts';
import {
  abandonJob,
  cancelUnclaimedJob,
  claimDueJobs,
  countDueLeased,
  finishJob,
  insertJob,
  oldestUnclaimedDueJob,
  renewLease,
  rescheduleJob,
  retryJobLater,
} from './job-repository.ts';

/** A job as its handler sees it. */
export interface Job {
  id: number;
  kind: string;
  /** The dedupe key it was scheduled with. */
  key: string;
  /** Owning merchant account (uuid), or null for service-wide work. */
  accountId: string | null;
  /** When it fell due, in service-clock time. */
  runAt: Date;
  payload: Record<string, unknown>;
  /** 1 on the first run; counts runs since it was scheduled or last rescheduled by its handler. */
  attempt: number;
}

/** What a handler may use besides the job. */
interface JobContext {
  /** The database, outside any transaction: open one with `db.transaction` as needed. */
  db: Database;
  clock: Clock;
  /** The service clock when the job was claimed. */
  now: Date;
}

/**
 * Does the job's work. Resolving finishes it; resolving `{ retryAt }` runs it again at that
 * service-clock time (not a failure: the attempt count starts over); throwing is a failure,
 * retried with backoff until the kind's `maxAttempts`.
 *
 * Handlers must be idempotent: a process that dies after the work but before recording it done
 * leaves the job to be run again by another process once its lease ends.
 */
export type JobHandler = (job: Job, ctx: JobContext) => Promise<void | { retryAt: Date }>;

export interface HandlerOptions {
  /** Failed runs before the job is abandoned (`failed_at` set). Default 20. */
  maxAttempts?: number;
  /** Delay after the n-th failure (ms, before ±20 % jitter). Default 5 s × 2^(n−1), at most 1 h. */
  backoffMs?: (attempt: number) => number;
}

export interface NewJob {
  kind: string;
  /** Unique across all jobs: scheduling an existing key does nothing. */
  key: string;
  /** Service-clock time at which it falls due. */
  runAt: Date;
  payload?: Record<string, unknown>;
  accountId?: string | null;
}

const MAX_KEY_LENGTH = 500;
const MAX_ERROR_LENGTH = 2_000;

/**
 * Adds a job unless one with the same key exists. Pass the caller's transaction handle to commit
 * the job with the change that makes it due. Answers whether a job was added.
 */
export async function scheduleJob(sql: Sql, job: NewJob): Promise<boolean> {
  if (job.kind.length === 0 || job.kind.length > 100) throw new RangeError(`job kind must be 1 to 100 characters, got ${JSON.stringify(job.kind)}`);
  if (job.key.length === 0 || job.key.length > MAX_KEY_LENGTH) throw new RangeError(`job key must be 1 to ${MAX_KEY_LENGTH} characters`);
  if (Number.isNaN(job.runAt.getTime())) throw new RangeError('job runAt is not a valid date');
  return insertJob(sql, { accountId: job.accountId ?? null, kind: job.kind, key: job.key, runAt: job.runAt, payload: job.payload ?? {} });
}

/** Withdraws a job that has not run yet (the purchase it served was aborted, say). Answers whether one was. */
export async function cancelJob(sql: Sql, key: string, now: Date): Promise<boolean> {
  return cancelUnclaimedJob(sql, key, now, new Date());
}

export interface JobSchedulerOptions {
  db: Database;
  /** The service clock: a job is due when its run_at is at or before `clock.now()`. */
  clock: Clock;
  /** Where handler failures and lost leases are reported. */
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** How long a claim protects a running job (wall-clock ms); renewed while the handler runs. Default 60 s. */
  leaseMs?: number;
  /** Jobs claimed at once, and run concurrently, by one process. Default 10. */
  batchSize?: number;
  /** Jobs one `runDue` call handles at most, so that a backlog cannot hold a caller forever. Default 1,000. */
  maxPerRun?: number;
  /** The wall clock leases are measured on (tests). */
  wallNow?: () => Date;
}

const defaultBackoff = (attempt: number) => Math.min(5_000 * 2 ** (attempt - 1), 3_600_000);

/**
 * Runs the due jobs of the kinds it has a handler for. One instance per process; it is a
 * {@link DueWorkRunner}, so the sandbox clock drains it after each move, and `start()` polls it
 * in the background.
 */
export class JobScheduler implements DueWorkRunner {
  readonly name = 'jobs';
  readonly #handlers = new Map<string, { handler: JobHandler; maxAttempts: number; backoffMs: (attempt: number) => number }>();
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #log: NonNullable<JobSchedulerOptions['log']>;
  readonly #leaseMs: number;
  readonly #batchSize: number;
  readonly #maxPerRun: number;
  readonly #wallNow: () => Date;
  /** Runs never overlap in one process: the next `runDue` starts after the one in progress. */
  readonly #runs: SerialRuns;

  constructor(opts: JobSchedulerOptions) {
    this.#db = opts.db;
    this.#clock = opts.clock;
    this.#log = opts.log ?? { warn: () => {}, error: () => {} };
    this.#leaseMs = opts.leaseMs ?? 60_000;
    this.#batchSize = opts.batchSize ?? 10;
    this.#maxPerRun = opts.maxPerRun ?? 1_000;
    this.#wallNow = opts.wallNow ?? (() => new Date());
    this.#runs = new SerialRuns(
      () => this.#runAll(),
      (err) => this.#log.warn({ err }, 'job polling failed'),
    );
  }

  /** Registers the handler of a kind of job; this process then claims jobs of that kind. */
  register(kind: string, handler: JobHandler, opts: HandlerOptions = {}): void {
    if (this.#handlers.has(kind)) throw new Error(`a handler for job kind "${kind}" is already registered`);
    const maxAttempts = opts.maxAttempts ?? 20;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
    this.#handlers.set(kind, { handler, maxAttempts, backoffMs: opts.backoffMs ?? defaultBackoff });
  }

  /**
   * Runs the jobs due at the service clock's now, batch after batch until none is left (or
   * `maxPerRun` were handled), and answers how many ran, failed ones included. Calls made
   * while a run is in progress start when it ends.
   */
  runDue(): Promise<number> {
    return this.#runs.runNext();
  }

  /**
   * How many jobs are due but leased by a running process (this one or another): what a caller
   * that needs everything due to be finished (the sandbox clock) waits for.
   */
  async dueInProgress(): Promise<number> {
    if (this.#handlers.size === 0) return 0;
    return countDueLeased(this.#db, this.#clock.now(), [...this.#handlers.keys()], this.#wallNow());
  }

  /**
   * How long (seconds, service clock) the oldest due job of a handled kind has waited unclaimed:
   * 0 when none waits. What /metrics shows as `chipin_job_oldest_due_age_seconds`.
   */
  async oldestDueAgeSeconds(): Promise<number> {
    if (this.#handlers.size === 0) return 0;
    const now = this.#clock.now();
    const oldest = await oldestUnclaimedDueJob(this.#db, now, [...this.#handlers.keys()], this.#wallNow());
    return oldest === null ? 0 : Math.max(0, (now.getTime() - oldest.getTime()) / 1000);
  }

  /** Polls for due jobs every `intervalMs` (unref'd timer); a tick is skipped while a run is in progress. */
  start(intervalMs = 1_000): void {
    this.#runs.start(intervalMs, () => this.#handlers.size === 0);
  }

  /** Stops polling and waits for the run in progress, so that the database can be closed after. */
  stop(): Promise<void> {
    return this.#runs.stop();
  }

  async #runAll(): Promise<number> {
    if (this.#handlers.size === 0) return 0;
    let total = 0;
    while (total < this.#maxPerRun) {
      const claimed = await this.#claim(Math.min(this.#batchSize, this.#maxPerRun - total));
      if (claimed.jobs.length === 0) break;
      await this.#runBatch(claimed.leaseId, claimed.jobs);
      total += claimed.jobs.length;
    }
    return total;
  }

  /** One statement, so one short transaction: the row locks are held only while leases are written. */
  async #claim(limit: number): Promise<{ leaseId: string; jobs: Job[] }> {
    const leaseId = randomUUID();
    const wall = this.#wallNow();
    const rows = await claimDueJobs(this.#db, {
      now: this.#clock.now(),
      kinds: [...this.#handlers.keys()],
      wall,
      limit,
      lockedUntil: new Date(wall.getTime() + this.#leaseMs),
      leaseId,
    });
    const jobs = rows
      .map((r) => ({
        id: Number(r.id),
        kind: r.kind,
        key: r.dedupe_key,
        accountId: r.account_id,
        runAt: new Date(r.run_at),
        payload: typeof r.payload === 'string' ? (JSON.parse(r.payload) as Record<string, unknown>) : r.payload,
        attempt: r.attempts,
      }))
      .sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || a.id - b.id);
    return { leaseId, jobs };
  }

  async #runBatch(leaseId: string, jobs: Job[]): Promise<void> {
    // Renew the lease while handlers run, so that a slow handler is not taken over.
    const renew = setInterval(
      () => {
        const wall = this.#wallNow();
        renewLease(this.#db, leaseId, new Date(wall.getTime() + this.#leaseMs), wall).catch((err: unknown) => this.#log.warn({ err }, 'could not renew job leases'));
      },
      Math.max(this.#leaseMs / 3, 10),
    );
    renew.unref();
    try {
      await Promise.all(jobs.map((job) => this.#runOne(leaseId, job)));
    } finally {
      clearInterval(renew);
    }
  }

  async #runOne(leaseId: string, job: Job): Promise<void> {
    const entry = this.#handlers.get(job.kind)!;
    let outcome: void | { retryAt: Date };
    try {
      outcome = await entry.handler(job, { db: this.#db, clock: this.#clock, now: this.#clock.now() });
    } catch (err) {
      await this.#recordFailure(leaseId, job, entry, err);
      return;
    }
    const recorded =
      outcome && outcome.retryAt instanceof Date ? await rescheduleJob(this.#db, job.id, leaseId, outcome.retryAt) : await finishJob(this.#db, job.id, leaseId, this.#clock.now());
    if (!recorded) this.#lostLease(job);
  }

  async #recordFailure(leaseId: string, job: Job, entry: { maxAttempts: number; backoffMs: (attempt: number) => number }, err: unknown): Promise<void> {
    const message = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, MAX_ERROR_LENGTH);
    const now = this.#clock.now();
    const giveUp = job.attempt >= entry.maxAttempts;
    const jitter = 0.8 + Math.random() * 0.4;
    const retryAt = new Date(now.getTime() + Math.round(entry.backoffMs(job.attempt) * jitter));
    const recorded = giveUp ? await abandonJob(this.#db, job.id, leaseId, now, message) : await retryJobLater(this.#db, job.id, leaseId, retryAt, message);
    const context = { err, job_id: job.id, kind: job.kind, attempt: job.attempt };
    if (giveUp) this.#log.error(context, 'job failed too many times: abandoned');
    else this.#log.warn({ ...context, retry_at: retryAt.toISOString() }, 'job failed: will retry');
    if (!recorded) this.#lostLease(job);
  }

  #lostLease(job: Job): void {
    // Another process took the job over after our lease ended (we were too slow, or paused):
    // its outcome stands. The handler ran twice, which idempotent handlers make harmless.
    this.#log.warn({ job_id: job.id, kind: job.kind }, 'job lease lost before the job finished: its outcome was not recorded');
  }
}
