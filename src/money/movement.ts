import type { Sql } from '../db/database.ts';
import { newUuid } from '../domain/ids.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { findPayment, type PaymentRow } from '../payments/payment-repository.ts';
import { loadPayState, lockPayState, type PurchasePayState } from '../payments/pay-state-repository.ts';
import type { TransactionResult } from '../psp/connector.ts';
import { claimPurchase, holding, isInProgress, releaseAfterFailure, releaseClaim, waitForClaim, type InProgress, type MoneyClaim, type MoneyOperation } from './claim.ts';
import type { MoneyDeps } from './deps.ts';
import { underPaymentLease } from './payment-lease.ts';
import { insertPayment, recordResult, type NewPayment } from './payment-record-repository.ts';
import { callPsp, type PspStep } from './psp-call.ts';

/**
 * The money engine's pipeline (docs/architecture.md#the-money-engine): one money movement on one
 * purchase, from its reservation to its follow-ups, in a fixed order that no use case re-writes:
 *
 * 1. **Reserve**, in one transaction under the purchase's row lock: the use case takes the
 *    purchase's claim (`take`), checks its rules and writes what it reserves (the rows whose ids
 *    make the PSP keys). A refusal gives the claim back in the same transaction.
 * 2. **Call**, holding the claim (renewed) and outside any transaction: the PSP steps, on the
 *    rows reserved (a step may reserve its own payment row first). A PSP fault is the use case's
 *    to handle: what it reserved stays pending for its durable follow-up, and the keys make the
 *    retry safe.
 * 3. **Settle**, in one transaction under the row lock: the use case's rules on the answers, each
 *    answer recorded through `book` (the payment row, its event, the ledger and, in transfer mode,
 *    the merchant's balance: recordResult).
 * 4. **After**, still holding the claim: what follows the commit (messages, a hold released).
 *
 * The claim is given back whatever happened; a reserving transaction that failed (its commit may
 * have landed, the answer lost) gives back the claim it may have taken.
 */
export interface Movement<Go, Out, S extends Step, Made = void> {
  accountId: string;
  purchaseId: string;
  /**
   * The claim's name (the 409's message and docs/money-operations.md's table); `null`: a movement
   * that takes no claim (a friend's pledge: friends pay side by side, each share reserved under
   * the row lock, each payment under its own lease).
   */
  operation: MoneyOperation | null;
  /** What the movement answers when the purchase is not the account's. */
  notFound: Out;
  /** How long to wait for another operation's claim: a request the deps' wait, a job 0 (it runs again later). */
  waitMs?: number;
  /** Step 1, under the row lock: the claim taken through `take`, the rules checked, the reservation written. */
  reserve(tx: Sql, locked: PurchasePayState, take: Take, reservePayment: ReservePayment): Promise<{ refuse: Out } | { go: Go } | InProgress>;
  /**
   * Step 2, once the reservation committed: the PSP calls, each made through `call`, in the order
   * and on the conditions the use case's rules set (a capture refused, then a charge on a new
   * payment row). `call` throws a PSP fault (`PspIntegrationError`): what it leaves pending, and
   * whether the movement goes on, is the use case's rule. What it answers (`made`: facts read on
   * the way, a step skipped) is handed to `settle`. `again` opens a second reserving transaction
   * under the row lock, the claim still held: for a payment row whose reservation needs what can
   * only be read outside a transaction (the saved card), checked and written atomically.
   */
  calls(go: Go, call: Call<S>, again: Again): Promise<Made>;
  /** Step 3, under the row lock: the answers (a step the PSP could not be reached for is left out), booked through `book`. */
  settle(tx: Sql, locked: PurchasePayState, answers: Answer<S>[], book: Book, go: Go, made: Made): Promise<Out>;
  /**
   * The payment row reserved with a lease (a shopper's request: `leased: true`), whose lease then
   * covers steps 2 to 4: renewed while they run, ended at once when one fails, so that a payment
   * in doubt is told from one still running.
   */
  lease?(go: Go): PaymentRow;
  /** Step 4, after the settlement committed, holding the claim. */
  after?(out: Out, go: Go): Promise<void>;
}

/**
 * One PSP call of a movement, with whatever the use case's settlement needs of it: on a payment
 * row that exists, or on one the engine reserves first (`reserve`: its row written, in a
 * transaction of its own, before the call that carries its key).
 */
export type Step = { payment: PaymentRow; call: PspStep; latest?: TransactionResult } | { reserve: NewPayment; call: PspStep };

export interface Answer<S extends Step> {
  step: S;
  /** The payment the call was made on (the reserved one's row, for a `reserve` step). */
  payment: PaymentRow;
  result: TransactionResult;
}

/** Makes one step's PSP call: its answer, also handed to the settlement. */
export type Call<S extends Step> = (step: S) => Promise<TransactionResult>;

/**
 * A second reservation during the calls: `reserve` runs in a transaction under the row lock, with
 * `reservePayment` to write a payment row there; an answer in progress (another operation's charge
 * still unresolved) is tried again for the movement's wait, as a claim is, and then answered.
 */
export type Again = <T>(reserve: (tx: Sql, locked: PurchasePayState, reservePayment: ReservePayment) => Promise<T | InProgress>) => Promise<T | InProgress>;

/** Writes a payment row in the reserving transaction, before the PSP call that carries its key. */
export type ReservePayment = (payment: NewPayment) => Promise<PaymentRow>;

/** Takes the purchase's claim in the reserving transaction (`unresolvedBlocks`: see claimPurchase). */
export type Take = (options?: { unresolvedBlocks?: boolean }) => Promise<MoneyClaim | InProgress>;

/**
 * Records a PSP answer on its payment, in the settling transaction. `current`: the row is read
 * again under the lock first and the larger of the two views of the PSP's totals kept (they only
 * grow): another operation may have recorded on the payment since the step was planned.
 */
export type Book = (payment: PaymentRow, result: TransactionResult, options?: BookOptions) => Promise<boolean>;

export interface BookOptions {
  /** The transaction is one the merchant asked for (a refund, a cancel's void): its back-mode notification is sent. */
  outcome?: boolean;
  /** Transfer mode: the money given back is the merchant's refund, which the merchant bears. */
  merchantRefund?: boolean;
  /** Written without an event: a pledge's money given back is never announced. */
  notify?: boolean;
  /** A hold's renewal, or the release of the hold it replaced: never the checkout's result. */
  reauth?: boolean;
  current?: boolean;
}

/** Runs `movement` through the pipeline above; answers its outcome, or that another operation holds the purchase. */
export async function runMovement<Go, Out, S extends Step, Made = void>(deps: MoneyDeps, movement: Movement<Go, Out, S, Made>): Promise<Out | InProgress> {
  const { accountId, purchaseId } = movement;
  const token = newUuid();
  const reserved = await waitForClaim(deps, () => reserve(deps, movement, token), movement.waitMs).catch(async (err: unknown) => {
    await releaseAfterFailure(deps, accountId, purchaseId, token);
    throw err;
  });
  if (isInProgress(reserved)) return reserved;
  if (!('go' in reserved)) return reserved.out;
  const { go, claim } = reserved;
  const run = async () => {
    const answers: Answer<S>[] = [];
    const call: Call<S> = async (step) => {
      const payment = 'reserve' in step ? await insertPayment(deps.db, step.reserve, deps.clock.now()) : step.payment;
      const result = await callPsp(deps, payment, step.call, 'latest' in step ? step.latest : undefined);
      answers.push({ step, payment, result });
      return result;
    };
    const again: Again = (reserveAgain) =>
      waitForClaim(
        deps,
        () =>
          deps.db.transaction(async (tx) => {
            const locked = await lockPayState(tx, accountId, purchaseId);
            return reserveAgain(tx, locked, (p) => insertPayment(tx, p, deps.clock.now()));
          }),
        movement.waitMs,
      );
    const made = await movement.calls(go, call, again);
    const out = await deps.db.transaction(async (tx) => {
      const locked = await lockPayState(tx, accountId, purchaseId);
      return movement.settle(tx, locked, answers, booker(deps, tx, locked.state), go, made);
    });
    await movement.after?.(out, go);
    return out;
  };
  // A shopper's request runs on a leased payment row: the lease covers the calls, the settlement
  // and what follows, and ends at once when any of them fails (docs/money-operations.md#payments-in-doubt).
  const leased = movement.lease?.(go);
  const runLeased = () => (leased ? underPaymentLease(deps, leased, run) : run());
  return claim ? holding(deps, claim, runLeased) : runLeased();
}

type Reserved<Go, Out> = { out: Out } | { go: Go; claim: MoneyClaim | undefined };

async function reserve<Go, Out, S extends Step, Made>(deps: MoneyDeps, movement: Movement<Go, Out, S, Made>, token: string): Promise<Reserved<Go, Out> | InProgress> {
  const { accountId, purchaseId, operation } = movement;
  return deps.db.transaction(async (tx): Promise<Reserved<Go, Out> | InProgress> => {
    const locked = await loadPayState(tx, accountId, purchaseId, true);
    if (!locked) return { out: movement.notFound };
    let claim: MoneyClaim | undefined;
    const take: Take = async (options = {}) => {
      if (operation === null) throw new TypeError('a movement without a claim took one');
      const taken = await claimPurchase(tx, accountId, purchaseId, operation, { ...options, token });
      if (!isInProgress(taken)) claim = taken;
      return taken;
    };
    const decided = await movement.reserve(tx, locked, take, (p) => insertPayment(tx, p, deps.clock.now()));
    // In progress (another operation's money in flight, seen after the claim was taken): answered
    // as such and waited for by waitForClaim, the claim given back in this transaction.
    if (isInProgress(decided)) {
      if (claim) await releaseClaim(tx, claim);
      return decided;
    }
    if ('refuse' in decided) {
      if (claim) await releaseClaim(tx, claim);
      return { out: decided.refuse };
    }
    if (!claim && operation !== null) throw new TypeError(`${operation}: a movement reserved without taking the purchase's claim`);
    return { go: decided.go, claim };
  });
}

function booker(deps: MoneyDeps, tx: Sql, state: PurchaseState): Book {
  return async (payment, result, options = {}) => {
    const { current, ...record } = options;
    if (!current) return recordResult(tx, payment, result, state, deps.clock.now(), record);
    const row = (await findPayment(tx, payment.account_id, payment.id)) ?? payment;
    const latest = { ...result, capturedCents: Math.max(result.capturedCents, row.captured_cents), refundedCents: Math.max(result.refundedCents, row.refunded_cents) };
    return recordResult(tx, row, latest, state, deps.clock.now(), record);
  };
}

/**
 * Step 3 alone, for a use case whose PSP calls were made through {@link callPsp} without a
 * reservation of their own (money given back, a hold released): one transaction under the
 * purchase's row lock, the answers booked through `book`.
 */
export async function settleAlone<T>(
  deps: MoneyDeps,
  payment: Pick<PaymentRow, 'account_id' | 'purchase_id'>,
  settle: (tx: Sql, locked: PurchasePayState, book: Book) => Promise<T>,
): Promise<T> {
  return deps.db.transaction(async (tx) => {
    const locked = await lockPayState(tx, payment.account_id, payment.purchase_id);
    return settle(tx, locked, booker(deps, tx, locked.state));
  });
}

/**
 * One PSP step on a payment and its answer booked, for a step that needs no reservation and no
 * claim of its own (a pot's guarantee released once the purchase no longer needs it; under the
 * caller's claim where it holds one). A PSP fault is thrown: nothing was recorded.
 */
export async function callAndBook(deps: MoneyDeps, payment: PaymentRow, call: PspStep, options: BookOptions = {}): Promise<{ result: TransactionResult; recorded: boolean }> {
  const result = await callPsp(deps, payment, call);
  const recorded = await settleAlone(deps, payment, (_tx, _locked, book) => book(payment, result, options));
  return { result, recorded };
}
