/**
 * One statement at a time on a transaction's connection, and none once its body has returned
 * (docs/architecture.md#conventions). A transaction is one connection: a second statement sent
 * while the first runs (a `Promise.all` over `tx`, a timer firing on a `tx` it kept) waits in
 * the driver's queue, which node-postgres deprecates ("client.query() when the client is already
 * executing a query", gone in pg 9); and a statement sent after the body returned would run after
 * the COMMIT, on a connection by then lent to another operation's transaction.
 *
 * {@link StatementTurns} keeps the order itself, with a flag on the path of every statement and
 * nothing more. A statement that comes while another runs waits its turn and the process warns
 * once ({@link OVERLAP_WARNING}); where {@link refuseOverlappingStatements} was called (the test
 * suite) it is refused at once with {@link OverlappingStatementError}, so a test running the
 * code fails. A statement after the body returned is always refused
 * ({@link TransactionEndedError}): there is no transaction left for it to run in.
 */

/** A statement sent on a transaction while another of its statements was running. */
export class OverlappingStatementError extends Error {
  override readonly name = 'OverlappingStatementError';
}

/** A statement sent on a transaction whose body had returned (committed, rolled back, or about to be). */
export class TransactionEndedError extends Error {
  override readonly name = 'TransactionEndedError';
}

/** The code of the warning a process prints (once) when a transaction's statements overlap. */
export const OVERLAP_WARNING = 'CHIPIN_OVERLAPPING_STATEMENTS';

let refusing = false;
let warned = false;

/** Overlapping statements on a transaction fail instead of waiting their turn (test/setup/one-statement-at-a-time.ts). */
export function refuseOverlappingStatements(): void {
  refusing = true;
}

/** The process's warning, printed once (Node writes it on stderr with its stack). */
function warnOnce(message: string): void {
  if (warned) return;
  warned = true;
  process.emitWarning(`${message}. It waits its turn; further overlaps are not reported.`, { code: OVERLAP_WARNING });
}

const shown = (text: string): string => JSON.stringify(text.replace(/\s+/g, ' ').trim().slice(0, 120));

/** The turns of one transaction's statements: `begin` before each, `end` after it, `close` when the body has returned. */
export class StatementTurns {
  /** The statement running, if any. */
  #running: string | undefined;
  #closed = false;
  readonly #waiting: (() => void)[] = [];
  /** Resolved when the statement running ends (only while `close` waits for it). */
  #idle: (() => void) | undefined;

  /** `refuse` and `warn`: the process's (tests of this class choose theirs). */
  constructor(
    readonly refuse = refusing,
    readonly warn: (message: string) => void = warnOnce,
  ) {}

  /**
   * Takes the turn of `text`: undefined when it is taken (the hot path, no promise), a promise
   * resolved when it is (the statement waits for the one running). Throws when refused.
   */
  begin(text: string): Promise<void> | undefined {
    if (this.#closed) {
      throw new TransactionEndedError(`statement ${shown(text)} sent on a transaction whose body has returned: await every statement of a transaction inside it`);
    }
    if (this.#running === undefined) {
      this.#running = text;
      return undefined;
    }
    const message = `statement ${shown(text)} sent on a transaction while its statement ${shown(this.#running)} was running: a transaction's statements run one after the other (await each; no Promise.all or timer on a transaction handle)`;
    if (this.refuse) throw new OverlappingStatementError(message);
    this.warn(message);
    return new Promise<void>((resolve) =>
      this.#waiting.push(() => {
        this.#running = text;
        resolve();
      }),
    );
  }

  /** The statement that had the turn has ended: the next waiting one runs. */
  end(): void {
    const next = this.#waiting.shift();
    if (next) return next();
    this.#running = undefined;
    this.#idle?.();
  }

  /**
   * The transaction's body has returned or thrown: no statement may start once this resolves.
   * Statements still running or waiting (sent and not awaited) finish first, in the transaction,
   * so that the COMMIT or ROLLBACK never overlaps one. Where overlaps are refused, such a
   * statement then fails the transaction with {@link OverlappingStatementError}: its body returned
   * without awaiting it.
   */
  async close(): Promise<void> {
    const left = this.#running;
    if (left === undefined) {
      this.#closed = true;
      return;
    }
    while (this.#running !== undefined) await new Promise<void>((resolve) => (this.#idle = resolve));
    this.#idle = undefined;
    this.#closed = true;
    if (this.refuse)
      throw new OverlappingStatementError(`statement ${shown(left)} still running when its transaction's body returned: await every statement of a transaction inside it`);
  }
}
