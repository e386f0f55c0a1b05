import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which database's transaction the running code is inside, for the check of reads made outside
 * it (docs/architecture.md#conventions): on the embedded database, a query on the database's own
 * handle from inside one of its transactions waits for that very transaction, forever (PGlite
 * has one connection); on PostgreSQL it takes a second pooled connection, the same deadlock once
 * every connection is held. A cache that queries on a miss does that without it showing, and
 * only when its copy lapses mid-flow: the check refuses the read itself, hit or miss.
 *
 * The embedded database's transactions mark their bodies (db/pglite.ts); what runs under them is
 * the same code on PostgreSQL, so checking there adds nothing. Off unless
 * {@link checkTransactionScope} turned it on (the test suite does): AsyncLocalStorage on Node 20
 * runs a hook on every promise of the process.
 */
let scope: AsyncLocalStorage<object> | undefined;

/** Turns the check on for this process (test/setup/transaction-scope.ts). */
export function checkTransactionScope(): void {
  scope ??= new AsyncLocalStorage<object>();
}

/** Runs a transaction's body marked as inside `database`'s transaction (a no-op when the check is off). */
export function inTransactionOf<T>(database: object, fn: () => Promise<T>): Promise<T> {
  return scope ? scope.run(database, fn) : fn();
}

/** A read made where it would wait for the transaction it runs in. */
export class TransactionScopeError extends Error {
  override readonly name = 'TransactionScopeError';
}

/** Refuses `what` inside any transaction: a cache that may query on a miss. */
export function assertOutsideTransactions(what: string): void {
  if (scope?.getStore() !== undefined) {
    throw new TransactionScopeError(`${what} read inside a transaction: read it before the transaction and pass it in (docs/architecture.md#conventions)`);
  }
}

/** Refuses a query on `database`'s own handle inside one of its transactions. */
export function assertOutsideTransactionOf(database: object): void {
  if (scope !== undefined && scope.getStore() === database) {
    throw new TransactionScopeError("a query on the database's handle inside one of its transactions: use the transaction's (docs/architecture.md#conventions)");
  }
}
