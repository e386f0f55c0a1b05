import type { Sql } from '../db/database.ts';
import { processIdentity } from '../db/process-identity.ts';
import { newUuid } from '../domain/ids.ts';
import { releaseMoneyClaim, renewMoneyClaim, takeMoneyClaim, unresolvedMoneyCharge } from '../payments/money-claim-repository.ts';
import { pendingRefundOf } from '../payments/refund-repository.ts';
import type { MoneyDeps } from './deps.ts';

/**
 * One money operation at a time per purchase (docs/money-operations.md#one-money-operation-at-a-time).
 *
 * Every operation that can capture, charge, refund, void, re-authorise or change what a purchase
 * owes takes the purchase's claim in the transaction that reserves its PSP call (under the
 * purchase's row lock, so it also waits for any other writer of the purchase's money), re-reads
 * what it acts on under it, and gives it back once the PSP's answer is recorded. Another operation
 * meanwhile is told `operation_in_progress`: a request waits a little and then answers 409
 * (retryable), a job runs again later. A claim names its process and is renewed while its
 * operation runs ({@link holding}): a claim whose process is gone is taken over at once where that
 * can be seen (the same host), and otherwise when its short lease lapses.
 */

/** The operations that take the claim, as the 409's message and the docs' table name them. */
export type MoneyOperation = 'collection' | 'refund' | 'cancel' | 'reauthorization' | 'pot_settlement' | 'shopper_payment' | 'card_change';

/**
 * How long a claim lives without renewal. Its holder renews it every {@link CLAIM_RENEW_MS} while
 * the operation runs (PSP calls included), so this only bounds how long a claim outlives a
 * holder that stopped renewing it: a process killed on another host, or a run whose give-back
 * failed (the database cut at that moment). Five renewals may fail (a slow database, a blocked
 * event loop) before another operation may take it.
 */
const CLAIM_LEASE_MS = 15_000;
const CLAIM_RENEW_MS = 3_000;
/** This process, as the claims it takes name it (docs/money-operations.md#one-money-operation-at-a-time). */
const SELF = processIdentity();
/** When a job that found the purchase claimed runs again (service clock). */
export const CLAIM_RETRY_MS = 30_000;
/**
 * How long a job waits for another operation's claim before it is rescheduled: jobs due together
 * (a sandbox clock move runs a renewal and the collection of one purchase in one batch) then run
 * one after the other instead of the later one waiting for the next move of the clock.
 */
export const JOB_CLAIM_WAIT_MS = 5_000;
/** How long a request waits for another operation's claim before answering 409, unless the deps say otherwise. */
const DEFAULT_WAIT_MS = 2_000;
const POLL_MS = 40;

/**
 * The operations that may hold the purchase beside one another: collections only. Two collections
 * of one installment's attempt send the same PSP keys (the PSP captures or charges once, the first
 * answer recorded is the one), and collections of different installments change no amount the
 * other reads. A collection retried after its process died therefore goes on at once, beside the
 * dead run's claim, instead of waiting for its lease.
 */
const SHARES_WITH: Partial<Record<MoneyOperation, readonly MoneyOperation[]>> = { collection: ['collection'] };

export interface MoneyClaim {
  accountId: string;
  purchaseId: string;
  operation: MoneyOperation;
  token: string;
}

/** Another operation holds the purchase, or money of it is still in flight. */
export interface InProgress {
  kind: 'operation_in_progress';
  /** What is under way: another operation's name, a charge awaiting its outcome, or a refund not finished. */
  operation: string;
}

export const isInProgress = (x: unknown): x is InProgress => typeof x === 'object' && x !== null && (x as { kind?: unknown }).kind === 'operation_in_progress';

/**
 * Takes the purchase's claim in the caller's transaction, which must hold the purchase's row lock
 * (lockPayState). `unresolvedBlocks`: the operation changes what is owed or refundable, so a
 * charge still awaiting its outcome (which would take the old amount) or a refund not finished
 * (whose allocations are not settled) makes it wait as well. `token`: the claim's, chosen by a
 * caller that gives it back if the transaction fails (its commit may have landed, the answer lost).
 */
export async function claimPurchase(
  tx: Sql,
  accountId: string,
  purchaseId: string,
  operation: MoneyOperation,
  opts: { unresolvedBlocks?: boolean; token?: string } = {},
): Promise<MoneyClaim | InProgress> {
  if (opts.unresolvedBlocks) {
    const charge = await unresolvedMoneyCharge(tx, accountId, purchaseId);
    if (charge) return { kind: 'operation_in_progress', operation: `${charge.purpose}_charge` };
    if (await pendingRefundOf(tx, accountId, purchaseId)) return { kind: 'operation_in_progress', operation: 'refund' };
  }
  const claim: MoneyClaim = { accountId, purchaseId, operation, token: opts.token ?? newUuid() };
  const taken = await takeMoneyClaim(tx, { ...claim, holder: SELF.holder }, CLAIM_LEASE_MS, SHARES_WITH[operation] ?? [], SELF.mayBeAlive);
  return taken.taken ? claim : { kind: 'operation_in_progress', operation: taken.heldBy };
}

/**
 * Runs `attempt` (one reserving transaction) again while it answers in progress, for at most the
 * deps' wait: a request arriving a moment after another operation on the same purchase is served
 * once that one ends instead of refused. Jobs pass no wait (`waitMs` 0): they run again later.
 */
export async function waitForClaim<T>(deps: Pick<MoneyDeps, 'claimWaitMs'>, attempt: () => Promise<T>, waitMs = deps.claimWaitMs ?? DEFAULT_WAIT_MS): Promise<T> {
  const until = Date.now() + waitMs;
  for (;;) {
    const outcome = await attempt();
    if (!isInProgress(outcome) || Date.now() + POLL_MS > until) return outcome;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Runs `work` (the PSP calls and their recording) holding the claim a reserving transaction
 * took: the claim is renewed every {@link CLAIM_RENEW_MS} while it runs, and given back after,
 * whatever happened. A give-back that fails (the database cut at that moment) is not the
 * operation's failure: its outcome is recorded, and the claim, no longer renewed, lapses within
 * {@link CLAIM_LEASE_MS}. The renewal is the run's heartbeat, a timer and not a durable job
 * (docs/jobs-and-clock.md#periodic-work-that-is-not-a-job).
 */
export async function holding<T>(deps: Pick<MoneyDeps, 'db' | 'logger'>, claim: MoneyClaim, work: () => Promise<T>): Promise<T> {
  let renewal: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    // A renewal that fails (the database away) is left to the next one, or to the lease's end.
    renewal = renewMoneyClaim(deps.db, claim, CLAIM_LEASE_MS).catch(() => undefined);
  }, CLAIM_RENEW_MS);
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    // A renewal under way must not land after the give-back.
    await renewal;
    await releaseMoneyClaim(deps.db, claim).catch((err: unknown) =>
      deps.logger.warn({ err, account_id: claim.accountId, purchase_id: claim.purchaseId }, 'could not give back a money claim: it lapses by itself'),
    );
  }
}

/** Gives the claim back in the reserving transaction, when the operation reserved nothing (a refusal). */
export async function releaseClaim(tx: Sql, claim: MoneyClaim): Promise<void> {
  await releaseMoneyClaim(tx, claim);
}

/**
 * Gives back, if it was taken, the claim `token` of a reserving transaction that failed: its commit
 * may have landed with the answer lost (a connection cut), leaving a claim nobody runs. Without
 * this, the request's retry would wait for its lease. Best effort: with the database away it lapses.
 */
export async function releaseAfterFailure(deps: Pick<MoneyDeps, 'db'>, accountId: string, purchaseId: string, token: string): Promise<void> {
  await releaseMoneyClaim(deps.db, { accountId, purchaseId, token }).catch(() => undefined);
}

/** The message of the 409 every API family answers for {@link InProgress}. */
export function inProgressMessage(p: InProgress): string {
  return `another operation on this purchase is in progress (${p.operation}): retry in a few seconds`;
}
