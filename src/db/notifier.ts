import { randomUUID } from 'node:crypto';

/** Sends a PostgreSQL NOTIFY to the other processes on the database. */
export type SendNotify = (channel: string, payload: string) => Promise<void>;

/** Between two NOTIFYs of one channel from this process: bounds their rate under a stream of commits. */
const REMOTE_GAP_MS = 5;

/**
 * Wake-ups that say "something was committed on this channel" (`Sql.notify`), sent after the
 * commit, never from inside the writing transaction.
 *
 * Why not a NOTIFY in the transaction (a trigger's way): PostgreSQL serialises the commits of
 * every transaction that notified, on one database-wide lock held until the commit is flushed to
 * disk, so concurrent writes cannot share a WAL flush. Measured: 13,000–19,000 inserts a
 * second without NOTIFY, 4,100–4,400 with it, on this machine (docs/performance.md).
 *
 * So: listeners in this process are called at once; the other processes get one NOTIFY per
 * channel at a time, sent in a transaction of its own that does not wait for the disk (the
 * notification is a hint: workers keep a slow poll), coalesced while one is being sent and for
 * {@link REMOTE_GAP_MS} after. The payload names the sending process, whose own listener skips it.
 */
export class CommitNotifier {
  readonly sender = randomUUID();
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();
  readonly #sending = new Map<string, { again: boolean; done: Promise<void> }>();
  readonly #send: SendNotify | undefined;

  /** `send` undefined: one process only (the embedded database), nothing to tell anyone else. */
  constructor(send?: SendNotify) {
    this.#send = send;
  }

  /** Calls `fn` for every commit notified on `channel`, in this process or (through `receive`) another. */
  listen(channel: string, fn: (payload: string) => void): () => void {
    let set = this.#listeners.get(channel);
    if (!set) this.#listeners.set(channel, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
    };
  }

  /** Something was committed on `channel` by this process. */
  publish(channel: string): void {
    this.#callLocal(channel, this.sender);
    if (this.#send) this.#sendRemote(channel, this.#send);
  }

  /** A NOTIFY arrived from the database: from another process, or our own echo (skipped). */
  receive(channel: string, payload: string): void {
    if (payload !== this.sender) this.#callLocal(channel, payload);
  }

  /** Resolves when every NOTIFY due to other processes has been sent (before closing the pool). */
  async flush(): Promise<void> {
    while (this.#sending.size > 0) await Promise.all([...this.#sending.values()].map((s) => s.done));
  }

  #callLocal(channel: string, payload: string): void {
    const set = this.#listeners.get(channel);
    if (!set || set.size === 0) return;
    // After the caller's commit has returned to it, not inside its stack.
    setImmediate(() => {
      for (const fn of set) fn(payload);
    });
  }

  #sendRemote(channel: string, send: SendNotify): void {
    const pending = this.#sending.get(channel);
    if (pending) {
      pending.again = true;
      return;
    }
    const state = { again: false, done: Promise.resolve() };
    this.#sending.set(channel, state);
    state.done = (async () => {
      do {
        state.again = false;
        // A lost NOTIFY costs only latency (the poll finds the work): nothing to report upwards.
        await send(channel, this.sender).catch(() => {});
        await new Promise((r) => setTimeout(r, REMOTE_GAP_MS));
      } while (state.again);
      this.#sending.delete(channel);
    })();
  }
}
