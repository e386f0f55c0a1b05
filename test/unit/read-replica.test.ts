import { describe, expect, it } from 'vitest';
import type { Database, QueryResult, Sql } from '../../src/db/database.ts';
import { DEFAULT_POOL_SIZE } from '../../src/db/postgres.ts';
import { openReplicaReads, REPLICA_POOL, type ReplicaReadsOptions } from '../../src/db/read-replica.ts';

/**
 * The back office's read handle (src/db/read-replica.ts, docs/deployment.md#read-replicas) on
 * two fake servers and a hand-moved clock: where each query goes, from the cached verdict only.
 */
function fakes(opts: Partial<ReplicaReadsOptions> = {}) {
  const state = {
    now: 1_000_000,
    primaryLsn: '0/100',
    replayed: '0/100' as string | null,
    replicaDown: false,
    /** What the replica's next queries fail with, when set. */
    replicaError: undefined as Error | undefined,
    primaryQueries: 0,
    replicaQueries: 0,
    checks: 0,
  };
  const answer = <R>(rows: unknown[]): QueryResult<R> => ({ rows: rows as R[], rowCount: rows.length });
  const primary = {
    async query<R>(text: string) {
      if (text.includes('pg_current_wal_lsn')) return answer<R>([{ lsn: state.primaryLsn }]);
      state.primaryQueries++;
      return answer<R>([{ from: 'primary' }]);
    },
  } as unknown as Sql;
  const replica = {
    async query<R>(text: string) {
      if (state.replicaDown) throw new Error('connect ECONNREFUSED');
      if (state.replicaError) throw state.replicaError;
      if (text.includes('pg_last_wal_replay_lsn')) {
        state.checks++;
        return answer<R>([{ lsn: state.replayed }]);
      }
      state.replicaQueries++;
      return answer<R>([{ from: 'replica' }]);
    },
    close: async () => {},
  } as unknown as Database;
  // A period far longer than the test: only the checks the test runs happen.
  const reads = openReplicaReads(primary, replica, { maxLagMs: 5_000, checkEveryMs: 1_000, now: () => state.now, ...opts });
  const where = async () => (await reads.query<{ from: string }>('SELECT 1 AS x')).rows[0]!.from;
  return { state, reads, where };
}

describe('the read handle routes by the last check, never checking per query', () => {
  it('reads the replica while it is within the limit, and does not check at each query', async () => {
    const { state, reads, where } = fakes();
    await reads.check();
    for (let i = 0; i < 5; i++) expect(await where()).toBe('replica');
    expect(state.checks).toBe(1);
    await reads.close();
  });

  it('reads the primary before any check, once the replica is beyond the limit, and when the verdict lapsed (three periods without a check)', async () => {
    const { state, reads, where } = fakes();
    expect(await where()).toBe('primary');
    await reads.check(); // sample at 0/100, replica at 0/100: fresh
    state.primaryLsn = '0/200'; // a commit the replica does not replay
    state.now += 1_000;
    await reads.check();
    expect(await where()).toBe('replica'); // 1 s behind
    state.now += 5_000;
    await reads.check();
    expect(reads.verdict).toMatchObject({ useReplica: false, reason: 'lag', lagMs: 6_000 });
    expect(await where()).toBe('primary');
    state.replayed = '0/200';
    await reads.check();
    expect(await where()).toBe('replica');
    state.now += 3_001;
    expect(await where()).toBe('primary');
    await reads.close();
  });

  it('an idle primary leaves its caught-up replica in use however long nothing is written', async () => {
    const { state, reads, where } = fakes();
    for (let i = 0; i < 20; i++) {
      state.now += 1_000;
      await reads.check();
    }
    expect(reads.verdict).toMatchObject({ useReplica: true, lagMs: 0 });
    expect(await where()).toBe('replica');
    await reads.close();
  });

  it('a replica that fails a query sends it, and the next ones, to the primary until a check finds it well', async () => {
    const seen: unknown[] = [];
    const { state, reads, where } = fakes({ onReplicaError: (err) => seen.push(err) });
    await reads.check();
    state.replicaDown = true;
    expect(await where()).toBe('primary');
    expect(seen).toHaveLength(1);
    expect(await where()).toBe('primary');
    expect(seen).toHaveLength(1); // not tried again before the next check
    expect(await reads.check()).toMatchObject({ useReplica: false, reason: 'unreachable' });
    state.replicaDown = false;
    await reads.check();
    expect(await where()).toBe('replica');
    await reads.close();
  });

  it('a read the replica does not answer in time (its statement timeout) runs on the primary, cleanly', async () => {
    const seen: unknown[] = [];
    const { state, reads, where } = fakes({ onReplicaError: (err) => seen.push(err) });
    await reads.check();
    state.replicaError = new Error('Query read timeout');
    expect(await where()).toBe('primary');
    expect(seen).toEqual([state.replicaError]);
    expect(await reads.check()).toMatchObject({ useReplica: false, reason: 'unreachable' });
    await reads.close();
  });

  it('a pool with no free connection in time (every one busy with reads) is not the replica unreachable: the read runs on the primary, the replica stays in use', async () => {
    const seen: unknown[] = [];
    const verdicts: unknown[] = [];
    const { state, reads, where } = fakes({ onReplicaError: (err) => seen.push(err), onVerdict: (v) => verdicts.push(v) });
    await reads.check();
    state.replicaError = new Error('timeout exceeded when trying to connect');
    expect(await where()).toBe('primary');
    expect(seen).toHaveLength(1);
    expect(reads.verdict).toMatchObject({ useReplica: true });
    // The check that waited as long has no verdict: the last one stands (and lapses after three periods).
    expect(await reads.check()).toMatchObject({ useReplica: true });
    expect(verdicts).toHaveLength(1);
    state.replicaError = undefined;
    expect(await where()).toBe('replica');
    state.replicaError = new Error('timeout exceeded when trying to connect');
    state.now += 3_001;
    await reads.check();
    expect(await where()).toBe('primary');
    await reads.close();
  });

  it("the replica's pool: as many connections as the primary's, a statement timeout, TCP keepalive", () => {
    expect(REPLICA_POOL).toMatchObject({ max: DEFAULT_POOL_SIZE, connectTimeoutMs: 2_000, keepAlive: true });
    expect(REPLICA_POOL.queryTimeoutMs).toBeGreaterThan(0);
    expect(REPLICA_POOL.queryTimeoutMs).toBeLessThanOrEqual(10_000);
  });

  it('a server not in recovery (a promoted replica) is not used', async () => {
    const { state, reads, where } = fakes();
    state.replayed = null;
    expect(await reads.check()).toMatchObject({ useReplica: false, reason: 'not_standby' });
    expect(await where()).toBe('primary');
    await reads.close();
  });

  it('only reads: exec and notify refuse', async () => {
    const { reads } = fakes();
    await expect(reads.exec('DELETE FROM purchases')).rejects.toThrow(/only reads/);
    expect(() => reads.notify('jobs')).toThrow(/only reads/);
    await reads.close();
  });
});
