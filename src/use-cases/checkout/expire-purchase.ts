import type { Database, Sql } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import { LEADER_PURPOSES } from '../../domain/leader-plan.ts';
import { unresolvedLeaderAttempt } from '../../payments/unresolved-payment-repository.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import { claimDueExpiry, countDueExpiries, dueExpiries, postponeExpiry } from '../../purchases/purchase-repository.ts';
import { applyMove } from '../../purchases/transitions.ts';
import { EXPIRED_COMMENT } from '../../domain/purchase-states.ts';
import type { DueWorkRunner } from '../../jobs/due-work.ts';
import { SerialRuns } from '../../jobs/serial-runs.ts';

/**
 * The job that expires a purchase that has it instead of `purchases.expires_at` (the sweep's
 * column). This build creates none, but its handler stays registered (src/use-cases/jobs.ts):
 * during a rolling upgrade the previous build creates purchases with this job and no
 * `expires_at` (docs/deployment.md#rolling-upgrade), and the jobs of purchases created before the
 * upgrade run too. Remove it one release after the sweep shipped.
 */
export const EXPIRE_JOB = 'purchase.expire';

export type ExpireOutcome = { kind: 'expired' } | { kind: 'not_created' } | { kind: 'wait'; until: Date };

/**
 * How long an expiry waits for a leader attempt still unresolved before it looks again: an attempt
 * in doubt is resolved within seconds, a 3-D Secure challenge left open after 20 minutes
 * (docs/money-operations.md#payments-in-doubt); a few minutes' delay to the expiry is harmless.
 */
const UNRESOLVED_RECHECK_MS = 5 * 60_000;

/**
 * A purchase still CREATED when its offer's `expiry_hours` have passed is CANCELLED ("Expired
 * unpaid.", `purchase.cancelled`): its link stops taking payments. A leader payment under way at
 * that moment (pending, or in 3-D Secure) is let finish or resolved first: the answer is then
 * `wait` until a later time, when the caller tries again. Runs in the caller's transaction and
 * locks the purchase's row.
 */
async function expireIn(tx: Sql, clock: Clock, accountId: string, purchaseId: string): Promise<ExpireOutcome> {
  const locked = await loadPayState(tx, accountId, purchaseId, true);
  if (!locked || locked.state !== 'CREATED') return { kind: 'not_created' };
  const now = clock.now();
  // Whatever its age: an attempt whose PSP outcome is unknown may have taken the money, and
  // cancelling under it would keep that money on a CANCELLED purchase. The reconciliation job
  // resolves it (docs/hosted-payment.md), then the expiry is tried again.
  if (await unresolvedLeaderAttempt(tx, accountId, purchaseId, LEADER_PURPOSES)) return { kind: 'wait', until: new Date(now.getTime() + UNRESOLVED_RECHECK_MS) };
  const moved = await applyMove(tx, clock, accountId, purchaseId, 'cancel', { comment: EXPIRED_COMMENT, data: { reason: 'expired' } });
  return moved.ok ? { kind: 'expired' } : { kind: 'not_created' };
}

/** Expires one purchase in a transaction of its own: the `purchase.expire` job's handler (purchases created without `expires_at`). */
export async function expirePurchase(deps: { db: Database; clock: Clock }, accountId: string, purchaseId: string): Promise<ExpireOutcome> {
  return deps.db.transaction((tx) => expireIn(tx, deps.clock, accountId, purchaseId));
}

/** What the sweep did with one purchase it found due. */
type SweepOutcome = 'expired' | 'postponed' | 'skipped';

export interface ExpirySweepOptions {
  db: Database;
  clock: Clock;
  log?: { warn(obj: object, msg: string): void };
  /** Due purchases read at once (the index's first ones). Default 100. */
  batchSize?: number;
  /** Of those, expired at once by this process (each in its own transaction). Default 4. */
  concurrency?: number;
  /** Purchases one `runDue` call handles at most, so that a backlog cannot hold a caller forever. Default 1,000. */
  maxPerRun?: number;
  /** How long (service clock) an expiry that failed waits before it is tried again. Default 1 min. */
  retryAfterMs?: number;
}

/**
 * Expires the unpaid purchases due at the service clock's now (docs/purchase-lifecycle.md#expiry),
 * across accounts, from the partial index on `purchases.expires_at`: no job row per purchase. A
 * {@link DueWorkRunner}, so the sandbox clock runs it after each move; `start()` polls it.
 *
 * Several processes sweep at once safely: each purchase is taken in its own transaction with
 * `FOR UPDATE SKIP LOCKED`, re-checked CREATED and due under that lock, and expired or postponed
 * in that same transaction. Two sweeps reading the same batch never both act on one purchase: the
 * second skips it while the first holds it, and finds it no longer CREATED (or no longer due)
 * after. A process that dies mid-expiry rolls back and releases the row: the next sweep takes it.
 */
export class ExpirySweep implements DueWorkRunner {
  readonly name = 'purchase expiry';
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #log: NonNullable<ExpirySweepOptions['log']>;
  readonly #batchSize: number;
  readonly #concurrency: number;
  readonly #maxPerRun: number;
  readonly #retryAfterMs: number;
  /** Runs of one process never overlap: the next `runDue` starts after the one in progress. */
  readonly #runs: SerialRuns;

  constructor(opts: ExpirySweepOptions) {
    this.#db = opts.db;
    this.#clock = opts.clock;
    this.#log = opts.log ?? { warn: () => {} };
    this.#batchSize = opts.batchSize ?? 100;
    this.#concurrency = opts.concurrency ?? 4;
    this.#maxPerRun = opts.maxPerRun ?? 1_000;
    this.#retryAfterMs = opts.retryAfterMs ?? 60_000;
    this.#runs = new SerialRuns(
      () => this.#runAll(),
      (err) => this.#log.warn({ err }, 'purchase expiry sweep failed'),
    );
  }

  /**
   * Expires (or postpones, when a payment is under way) the purchases due now, batch after batch,
   * and answers how many it acted on. Purchases another process holds are left to it.
   */
  runDue(): Promise<number> {
    return this.#runs.runNext();
  }

  /**
   * Unpaid purchases due now and still CREATED. Called after a drain (`DueWork.settle`), these
   * are the ones another process (or a payment's transaction) holds: the sandbox clock waits for
   * them. One count on the partial index.
   */
  dueInProgress(): Promise<number> {
    return countDueExpiries(this.#db, this.#clock.now());
  }

  /**
   * Sweeps every `intervalMs` (unref'd timer; a tick is skipped while a run is in progress). Each
   * tick reads the front of the partial index, so a purchase is seen within one interval after
   * its `expires_at` whatever the number of purchases: when none is due that read stops at the
   * first entry (the next expiry).
   */
  start(intervalMs = 1_000): void {
    this.#runs.start(intervalMs);
  }

  /** Stops polling and waits for the run in progress, so that the database can be closed after. */
  stop(): Promise<void> {
    return this.#runs.stop();
  }

  async #runAll(): Promise<number> {
    let total = 0;
    while (total < this.#maxPerRun) {
      const now = this.#clock.now();
      const due = await dueExpiries(this.#db, now, Math.min(this.#batchSize, this.#maxPerRun - total));
      if (due.length === 0) break;
      const outcomes = await this.#sweep(due, now);
      const acted = outcomes.filter((o) => o !== 'skipped').length;
      total += acted;
      // All held elsewhere: their holders finish them; reading the batch again would find the same.
      if (acted === 0) break;
    }
    return total;
  }

  /** The batch, `concurrency` purchases at a time, each in its own transaction. */
  async #sweep(due: { accountId: string; purchaseId: string }[], now: Date): Promise<SweepOutcome[]> {
    const outcomes: SweepOutcome[] = [];
    let next = 0;
    const lane = async () => {
      while (next < due.length) {
        const item = due[next++]!;
        outcomes.push(await this.#expireOne(item.accountId, item.purchaseId, now));
      }
    };
    // Every lane ends before the run does (a failed one stops only itself), so runs never overlap.
    const lanes = await Promise.allSettled(Array.from({ length: Math.min(this.#concurrency, due.length) }, lane));
    const failed = lanes.find((l) => l.status === 'rejected');
    if (failed) throw failed.reason;
    return outcomes;
  }

  async #expireOne(accountId: string, purchaseId: string, now: Date): Promise<SweepOutcome> {
    try {
      return await this.#db.transaction(async (tx): Promise<SweepOutcome> => {
        if (!(await claimDueExpiry(tx, accountId, purchaseId, now))) return 'skipped';
        const outcome = await expireIn(tx, this.#clock, accountId, purchaseId);
        if (outcome.kind === 'wait') {
          // Tried again then, by whichever process sweeps first.
          await postponeExpiry(tx, accountId, purchaseId, outcome.until);
          return 'postponed';
        }
        return outcome.kind === 'expired' ? 'expired' : 'skipped';
      });
    } catch (err) {
      // One purchase that cannot expire now must not stop the others, nor be retried at once.
      const retryAt = new Date(this.#clock.now().getTime() + this.#retryAfterMs);
      this.#log.warn({ err, account_id: accountId, purchase_id: purchaseId, retry_at: retryAt.toISOString() }, 'could not expire a purchase: will retry');
      await postponeExpiry(this.#db, accountId, purchaseId, retryAt);
      return 'postponed';
    }
  }
}
