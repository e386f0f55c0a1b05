/**
 * How stale a streaming replica is, measured in WAL positions rather than timestamps: pure, so
 * the rule is tested on its own (test/unit/replica-staleness.test.ts).
 *
 * Why not `now() - pg_last_xact_replay_timestamp()` on the replica: that is the age of the last
 * transaction replayed, which grows without bound while the primary is idle (nothing new to
 * replay), so an up-to-date replica would look stale. Instead the checker samples the primary's
 * `pg_current_wal_lsn()` every period, keeping when it took each sample. A replica whose
 * `pg_last_wal_replay_lsn()` has reached a sample has replayed every commit acknowledged before
 * that sample was taken; so its staleness is at most the age of the newest sample it has
 * reached, and at least the age of the next one: the estimate is never too low, and too high by
 * at most one sampling period. An idle primary's position does not move: the replica reaches the
 * newest sample and its staleness is 0.
 */

/** The primary's WAL position at one instant (milliseconds). */
export interface LsnSample {
  at: number;
  lsn: bigint;
}

/** A `pg_lsn` as PostgreSQL prints it (`16/B374D848`: two hexadecimal halves) as one number. */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!m) throw new RangeError(`not a pg_lsn: ${text}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/**
 * The replica's staleness at `now` (milliseconds), from the primary's samples (oldest first) and
 * the position the replica has replayed: `undefined` when it has reached none of the samples
 * kept, that is, when it is older than the oldest (or the first sample is not reached yet).
 */
export function replicaStalenessMs(samples: readonly LsnSample[], replayed: bigint, now: number): number | undefined {
  for (let i = samples.length - 1; i >= 0; i--) {
    const s = samples[i]!;
    if (s.lsn <= replayed) return Math.max(0, now - s.at);
  }
  return undefined;
}

/**
 * The samples still worth keeping: those younger than `keepMs`, and always the newest (the one
 * an idle primary's replica is measured against). A replica behind all of them is staler than
 * `keepMs`, which the caller sets beyond its limit.
 */
export function pruneSamples(samples: readonly LsnSample[], now: number, keepMs: number): LsnSample[] {
  const kept = samples.filter((s) => now - s.at <= keepMs);
  const newest = samples[samples.length - 1];
  return kept.length > 0 || newest === undefined ? kept : [newest];
}
