/** Rows of a query, and how many rows a write touched. */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** How one statement runs. */
export interface QueryOptions {
  /**
   * false: planned at each call for its actual parameters, never from a plan cached on the
   * connection (PostgreSQL: the statement is not prepared; PGlite never caches). For statements
   * whose best plan depends on a parameter's size, such as `id = ANY($1)` over a table that grows
   * fast: a plan cached while the table was small keeps reading all of it (docs/performance.md,
   * "Plans cached on a small table").
   */
  prepare?: boolean;
}

/** Something that runs SQL: the database itself, or one open transaction. */
export interface Sql {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Tells the listeners of `channel` (`Database.listen`, in every process on the database) once
   * what was written through this handle is committed: at once on the database handle (each
   * statement commits on its own), at the commit of a transaction handle, never when it rolls
   * back. Not a NOTIFY inside the transaction: see `db/notifier.ts` for why.
   */
  notify(channel: string): void;
}

/**
 * The one database handle of a process. PGlite (embedded) and PostgreSQL (server) behind the
 * same interface, so every query is written once and runs identically on both.
 */
export interface Database extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws.
   * Code inside must use the `tx` handle only: PGlite has a single connection, so a query on
   * the outer handle from inside a transaction waits for that transaction forever.
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` for every `notify(channel)` of a committed write, until the returned function
   * is called: this process's at once, other processes' through a PostgreSQL LISTEN on a
   * dedicated connection, re-established after a loss (notifications sent while it was down are
   * missed: callers keep a slow poll). PGlite: this process only (it is the only one).
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * int8 (bigint) columns hold money and counts. JS numbers are exact up to 2^53, far above any
 * amount we accept, so both drivers hand them back as numbers; anything larger is a bug to stop.
 */
export function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} exceeds the safe integer range`);
  return n;
}
