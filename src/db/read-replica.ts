import type { Database, QueryOptions, QueryResult, Sql } from './database.ts';
import { DEFAULT_POOL_SIZE, isPoolWaitTimeout, type PostgresOptions } from './postgres.ts';
import { parseLsn, pruneSamples, replicaStalenessMs, type LsnSample } from './replica-staleness.ts';

/**
 * The replica's pool (docs/deployment.md#read-replicas): as many connections as the primary's, so
 * the back office's concurrent reads do not queue behind each other; a new connection given up
 * after 2 s and a statement after 5 s (a replica that hangs: the read runs again on the primary,
 * and neither the staleness check nor shutdown waits on it), with TCP keepalive (a replica gone
 * silently is found by the kernel).
 */
export const REPLICA_POOL: PostgresOptions = { max: DEFAULT_POOL_SIZE, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000, keepAlive: true };

/** What the last check found: whether reads may go to the replica, and why. */
interface ReplicaVerdict {
  useReplica: boolean;
  /** The replica's staleness (ms); a lower bound when `behindAll`; absent when it could not be measured. */
  lagMs?: number;
  /** The replica has reached none of the primary's samples kept: staler than the window. */
  behindAll?: boolean;
  /** Why the replica is not used: `lag`, `unreachable` (either server's check failed), `not_standby`. */
  reason?: 'lag' | 'unreachable' | 'not_standby';
  error?: unknown;
}

export interface ReplicaReadsOptions {
  maxLagMs: number;
  /** Period of the check; default a fifth of `maxLagMs`, between 100 ms and 1 s. */
  checkEveryMs?: number;
  /** Each check's verdict (metrics, and a log line when it changes). */
  onVerdict?: (verdict: ReplicaVerdict, previous: ReplicaVerdict | undefined) => void;
  /** Each query, with where it ran. */
  onQuery?: (target: 'replica' | 'primary') => void;
  /** A query that failed on the replica and was run on the primary instead. */
  onReplicaError?: (err: unknown) => void;
  /** Milliseconds; tests give their own. */
  now?: () => number;
}

/**
 * The back office's read handle (docs/deployment.md#read-replicas): each query goes to the
 * replica while the last check found it fresh enough, else to the primary. Reads only: `exec`
 * and `notify` throw, and transactions stay on the primary's handle.
 */
export interface ReplicaReads extends Sql {
  /** Runs one check now (also run every period in the background); resolves with its verdict. */
  check(): Promise<ReplicaVerdict>;
  readonly verdict: ReplicaVerdict | undefined;
  close(): Promise<void>;
}

/**
 * Reads on `replica` (opened by the caller; closed with the handle) beside `primary`, and checks the replica's staleness every period, never per
 * query: a query reads the cached verdict. The verdict lapses after three periods without a
 * finished check (a hung replica, a blocked event loop): the reads then go to the primary.
 */
export function openReplicaReads(primary: Sql, replica: Database, opts: ReplicaReadsOptions): ReplicaReads {
  const now = opts.now ?? Date.now;
  const every = opts.checkEveryMs ?? Math.min(1_000, Math.max(100, Math.floor(opts.maxLagMs / 5)));
  // Samples older than the limit plus two periods can only tell "too stale", as none does.
  const keepMs = opts.maxLagMs + 2 * every;
  let samples: LsnSample[] = [];
  let verdict: ReplicaVerdict | undefined;
  let checkedAt = -Infinity;
  let running: Promise<ReplicaVerdict> | undefined;

  const measure = async (): Promise<ReplicaVerdict> => {
    // The primary first: the replica's position read after it can only be later. The sample's
    // time is taken before asking: a commit acknowledged before then is within the position read.
    let replayed: string | null;
    try {
      const asked = now();
      const p = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      samples.push({ at: asked, lsn: parseLsn(p.rows[0]!.lsn) });
      samples = pruneSamples(samples, now(), keepMs);
      const r = await replica.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
      replayed = r.rows[0]!.lsn;
    } catch (error) {
      // Every connection busy with reads: no verdict (check() keeps the last one, which lapses after three periods).
      if (isPoolWaitTimeout(error)) throw error;
      return { useReplica: false, reason: 'unreachable', error };
    }
    // NULL: a server that is not in recovery (a promoted replica, or the primary itself).
    if (replayed === null) return { useReplica: false, reason: 'not_standby' };
    const at = now();
    const lagMs = replicaStalenessMs(samples, parseLsn(replayed), at);
    if (lagMs === undefined) return { useReplica: false, reason: 'lag', behindAll: true, lagMs: at - samples[0]!.at };
    return lagMs <= opts.maxLagMs ? { useReplica: true, lagMs } : { useReplica: false, reason: 'lag', lagMs };
  };

  const check = (): Promise<ReplicaVerdict> =>
    (running ??= measure()
      .then(
        (v) => {
          const previous = verdict;
          verdict = v;
          checkedAt = now();
          opts.onVerdict?.(v, previous);
          return v;
        },
        // The replica's pool had no free connection in time: the pool was busy, not the replica
        // unreachable. The last verdict stands, unrenewed.
        (error: unknown): ReplicaVerdict => verdict ?? { useReplica: false, reason: 'unreachable', error },
      )
      .finally(() => {
        running = undefined;
      }));

  // This process's own verdict on its replica: a timer, not a durable job (docs/jobs-and-clock.md#periodic-work-that-is-not-a-job).
  const timer = setInterval(() => void check().catch(() => {}), every);
  timer.unref();

  const fresh = (): boolean => verdict?.useReplica === true && now() - checkedAt <= 3 * every;

  return {
    async query<R>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
      if (fresh()) {
        try {
          const res = await replica.query<R>(text, params, options);
          opts.onQuery?.('replica');
          return res;
        } catch (err) {
          // A read can run again: on the primary, and the replica is left until the next check
          // finds it well (an error from the query itself fails there too), unless no connection
          // of its pool came free in time (every one busy with other reads): the replica is not at fault.
          if (verdict?.useReplica && !isPoolWaitTimeout(err)) verdict = { useReplica: false, reason: 'unreachable', error: err };
          opts.onReplicaError?.(err);
        }
      }
      const res = await primary.query<R>(text, params, options);
      opts.onQuery?.('primary');
      return res;
    },
    exec(): Promise<void> {
      return Promise.reject(new Error('the read handle only reads: write through the primary'));
    },
    notify(): void {
      throw new Error('the read handle only reads: notify through the primary');
    },
    check,
    get verdict() {
      return verdict;
    },
    async close() {
      clearInterval(timer);
      await running?.catch(() => {});
      await replica.close();
    },
  };
}
