import pg from 'pg';
import { parseInt8, type Database, type QueryOptions, type QueryResult, type Sql } from './database.ts';
import { HostList } from './host-list.ts';
import { CommitNotifier, type SendNotify } from './notifier.ts';
import { StatementTurns } from './statement-turns.ts';

const INT8_OID = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return parseInt8;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/**
 * Names for statements with parameters, so that each connection prepares them once: PostgreSQL
 * then parses, analyses and plans a statement at its first use on a connection instead of at
 * every call. Measured on the purchase create (docs/performance.md): parsing and planning were a
 * quarter of the machine's CPU under load. Bounded: a text past the first {@link MAX_NAMED}
 * (SQL built with a variable number of placeholders, say) runs unnamed, so no connection holds
 * an unbounded number of prepared statements.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  constructor(readonly max = MAX_NAMED) {}

  nameOf(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined || this.#names.size >= this.max) return known;
    const name = `chipin_${this.#names.size}`;
    this.#names.set(text, name);
    return name;
  }
}
const MAX_NAMED = 500;

/**
 * A handle on the pool (each statement on a connection it borrows), or on a transaction's
 * connection, whose statements then take turns (`turns`: one at a time, none after its body).
 */
function wrap(client: pg.Pool | pg.PoolClient, names: StatementNames, notify: (channel: string) => void, turns?: StatementTurns): Sql {
  return {
    async query<R>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
      // Without parameters a text may hold several statements (simple protocol): never named.
      const name = params !== undefined && params.length > 0 && options?.prepare !== false ? names.nameOf(text) : undefined;
      const wait = turns?.begin(text);
      if (wait) await wait;
      try {
        const res = await client.query({ text, values: params as unknown[] | undefined, name });
        return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
      } finally {
        turns?.end();
      }
    },
    async exec(script: string): Promise<void> {
      const wait = turns?.begin(script);
      if (wait) await wait;
      try {
        await client.query(script); // no parameters: simple protocol, several statements allowed
      } finally {
        turns?.end();
      }
    },
    notify,
  };
}

/**
 * NOTIFY in a transaction of its own, which need not wait for the disk: a lost wake-up only
 * delays (workers poll). Exported for the delivery benchmark, whose producer writes as a process.
 */
export const notifyThrough =
  (client: pg.Pool | pg.Client): SendNotify =>
  async (channel, payload) => {
    await client.query("SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)", [channel, payload]);
  };

/** Connections of a process's pool unless told otherwise. */
export const DEFAULT_POOL_SIZE = 10;
/**
 * How long a statement waits for a connection of the primary's pool (all busy, or a new one not
 * opening: a failover, a pooler holding it) before it fails as unavailable, so that a client gets
 * a 503 with Retry-After within seconds instead of hanging (docs/deployment.md#bounded-waits).
 */
export const PRIMARY_WAIT_MS = 5_000;

export interface PostgresOptions {
  /** Connections of this process's pool. Default {@link DEFAULT_POOL_SIZE}. */
  max?: number;
  /**
   * `transaction`: `url` is a pooler in transaction mode (PgBouncer as Debian ships it, 1.18),
   * which hands each transaction to any server connection: a statement prepared on one would be
   * missing on the next, so none is named; and a LISTEN would stay on a server connection the
   * pooler gives to others, so it is made on `listenUrl` only (docs/deployment.md#pgbouncer).
   */
  pooler?: 'transaction';
  /** Where to LISTEN, when not on `url`: a direct connection (or a session-mode pool). */
  listenUrl?: string;
  /**
   * Give up a new connection after this long (a replica that does not answer); default: wait.
   * pg-pool applies it to waiting for a free connection too (`timeout exceeded when trying to
   * connect`, {@link isPoolWaitTimeout}).
   */
  connectTimeoutMs?: number;
  /** Give up a statement after this long, dropping its connection (a hung replica); default: wait. */
  queryTimeoutMs?: number;
  /** TCP keepalive on the connections, so a peer gone silently is found by the kernel. */
  keepAlive?: boolean;
}

/** pg-pool's error when no connection of a full pool came free within `connectTimeoutMs`: the pool was busy, the server not at fault. */
export function isPoolWaitTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'timeout exceeded when trying to connect';
}

/** The errors of connection attempts that failed (the host refused or did not answer), as opposed to a query's. */
const connectFailures = new WeakSet<object>();

/**
 * A pg client that connects to the host its {@link HostList} picks, and marks it down when the
 * attempt fails.
 */
function clientOn(hosts: HostList): typeof pg.Client {
  return class HostListClient extends pg.Client {
    readonly #host: number;
    constructor(config?: string | pg.ClientConfig) {
      const host = hosts.pick();
      super({ ...(typeof config === 'object' ? config : {}), connectionString: hosts.urls[host] });
      this.#host = host;
    }
    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
      const attempt = super.connect().catch((err: unknown) => {
        hosts.markDown(this.#host);
        if (typeof err === 'object' && err !== null) connectFailures.add(err);
        throw err;
      });
      if (!callback) return attempt;
      const cb = callback as (err: Error | null, c?: pg.Client) => void;
      attempt.then(
        (c) => cb(null, c),
        (err: Error) => cb(err),
      );
    }
  };
}

/**
 * With several hosts, a pool connection whose attempt failed is attempted once more, on the next
 * host (the failed one is marked down): a pooler lost fails the transactions on its connections,
 * not the next ones (db/host-list.ts).
 */
function connectOnceMore(pool: pg.Pool): void {
  const connectOnce = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const connect = (): Promise<pg.PoolClient> =>
    connectOnce().catch((err: unknown) => (typeof err === 'object' && err !== null && connectFailures.has(err) ? connectOnce() : Promise.reject(err)));
  pool.connect = ((callback?: (err: Error | undefined, client?: pg.PoolClient, done?: (release?: boolean | Error) => void) => void) => {
    if (!callback) return connect();
    connect().then(
      (client) => callback(undefined, client, client.release),
      (err: Error) => callback(err),
    );
  }) as typeof pool.connect;
}

/** A PostgreSQL server through a `pg` connection pool. `url` may name several hosts (db/host-list.ts). */
export function openPostgres(url: string, opts: PostgresOptions = {}): Database {
  const hosts = new HostList(url);
  const pool = new pg.Pool({
    connectionString: hosts.urls[0],
    ...(hosts.urls.length > 1 ? { Client: clientOn(hosts) } : {}),
    types,
    max: opts.max ?? DEFAULT_POOL_SIZE,
    ...(opts.connectTimeoutMs ? { connectionTimeoutMillis: opts.connectTimeoutMs } : {}),
    ...(opts.queryTimeoutMs ? { query_timeout: opts.queryTimeoutMs } : {}),
    ...(opts.keepAlive ? { keepAlive: true } : {}),
  });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  if (hosts.urls.length > 1) connectOnceMore(pool);
  const names = new StatementNames(opts.pooler === 'transaction' ? 0 : MAX_NAMED);
  // Through a transaction pooler without a LISTEN connection, other processes' commits are
  // seen by the workers' polls only (a lost wake-up only delays: docs/jobs-and-clock.md).
  const listenUrl = opts.listenUrl ?? (opts.pooler === 'transaction' ? undefined : url);
  const notifier = new CommitNotifier(notifyThrough(pool));
  const outer = wrap(pool, names, (channel) => notifier.publish(channel));
  const listeners = new Set<() => Promise<void>>();
  return {
    kind: 'postgres',
    query: outer.query,
    exec: outer.exec,
    notify: outer.notify,
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      // The pool listens for errors on idle connections only. One the server or the socket
      // raises while this transaction holds the connection but runs no statement (the primary
      // killed while the transaction awaits a PSP: "terminating connection due to unexpected
      // postmaster exit") is emitted on the client, and without a listener would crash the
      // process, every process at once in a failover (docs/deployment.md#reference-topology-and-failover).
      // Kept here: the next statement fails, the transaction rolls back, the connection is dropped.
      let broken: Error | undefined;
      const onError = (err: Error): void => {
        broken = err;
      };
      client.on('error', onError);
      const committed = new Set<string>();
      // One statement at a time on this connection, and none once `fn` has returned: a late one
      // would run after the COMMIT, on a connection lent to another transaction (db/statement-turns.ts).
      const turns = new StatementTurns();
      try {
        await client.query('BEGIN');
        let result: T;
        try {
          result = await fn(wrap(client, names, (channel) => committed.add(channel), turns));
        } catch (err) {
          await turns.close().catch(() => {});
          throw err;
        }
        await turns.close();
        await client.query('COMMIT');
        for (const channel of committed) notifier.publish(channel);
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.removeListener('error', onError);
        client.release(broken); // with an error: the pool closes the connection instead of lending it again
      }
    },
    async listen(channel, onNotify) {
      const unlistenLocal = notifier.listen(channel, onNotify);
      if (listenUrl === undefined) return async () => unlistenLocal();
      const stop = await listenPostgres(listenUrl, channel, (payload) => notifier.receive(channel, payload), listeners);
      return async () => {
        unlistenLocal();
        await stop();
      };
    },
    async close() {
      await Promise.all([...listeners].map((stop) => stop()));
      await notifier.flush();
      await pool.end();
    },
  };
}

/**
 * LISTEN on a connection of its own (a pooled one would be handed to other queries). A lost
 * connection is re-established with a growing delay; the returned function stops for good.
 */
async function listenPostgres(url: string, channel: string, onNotify: (payload: string) => void, registry: Set<() => Promise<void>>): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let delayMs = 500;
  // Several hosts (db/host-list.ts): each attempt on the first not marked down.
  const hosts = new HostList(url);

  const connect = async (): Promise<void> => {
    const host = hosts.pick();
    const c = new pg.Client({ connectionString: hosts.urls[host], types });
    c.on('notification', (msg) => {
      if (msg.channel === channel) onNotify(msg.payload ?? '');
    });
    c.on('error', () => reconnect(c));
    c.on('end', () => reconnect(c));
    await c.connect().catch((err: unknown) => {
      hosts.markDown(host);
      throw err;
    });
    await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    if (stopped) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    delayMs = 500;
  };
  const reconnect = (c: pg.Client): void => {
    if (stopped || client !== c || retryTimer) return;
    client = undefined;
    c.end().catch(() => {});
    const attempt = (): void => {
      retryTimer = setTimeout(() => {
        retryTimer = undefined;
        if (stopped) return;
        connect().catch(() => {
          delayMs = Math.min(delayMs * 2, 30_000);
          attempt();
        });
      }, delayMs);
      retryTimer.unref();
    };
    attempt();
  };

  await connect();
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    registry.delete(stop);
    clearTimeout(retryTimer);
    const c = client;
    client = undefined;
    await c?.end().catch(() => {});
  };
  registry.add(stop);
  return stop;
}
