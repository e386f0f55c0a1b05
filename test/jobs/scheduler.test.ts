import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { Clock } from '../../src/domain/clock.ts';
import { cancelJob, JobScheduler, scheduleJob, type Job, type JobSchedulerOptions } from '../../src/jobs/scheduler.ts';
import { isolatedDatabase, onPostgres, type IsolatedDatabase } from '../helpers/database.ts';

// Not through startTestApp: the scheduler needs a database, not the whole app.

// The jobs table is this file's own (an isolated database); every test still uses kinds of its
// own, and a scheduler only claims the kinds it has handlers for.
const uniqueKind = (tag: string) => `test.${tag}.${randomUUID()}`;

/** A service clock the test moves by hand. */
function manualClock(start = new Date('2026-01-31T09:00:00Z')) {
  let now = start.getTime();
  const clock: Clock & { advance(ms: number): void } = { now: () => new Date(now), advance: (ms) => void (now += ms) };
  return clock;
}

let iso: IsolatedDatabase;
let db: Database;
let db2: Database;
beforeAll(async () => {
  iso = await isolatedDatabase();
  db = await iso.open();
  await migrate(db);
  // A second pool on PostgreSQL, as a second process would have; PGlite has one connection.
  db2 = onPostgres ? await iso.open() : db;
});
afterAll(() => iso?.dispose());

const silent = { warn: () => {}, error: () => {} };
const scheduler = (over: Partial<JobSchedulerOptions> & { clock: Clock }) => new JobScheduler({ db, log: silent, ...over });

async function row(key: string) {
  const { rows } = await db.query<{ attempts: number; done_at: Date | null; failed_at: Date | null; last_error: string | null; run_at: Date; locked_until: Date | null }>(
    'SELECT attempts, done_at, failed_at, last_error, run_at, locked_until FROM jobs WHERE dedupe_key = $1',
    [key],
  );
  return rows[0]!;
}

describe('scheduleJob', () => {
  it('is idempotent by key: the second call adds nothing and keeps the first run_at and payload', async () => {
    const kind = uniqueKind('dedupe');
    const key = `${kind}:1`;
    expect(await scheduleJob(db, { kind, key, runAt: new Date('2026-02-01T00:00:00Z'), payload: { n: 1 } })).toBe(true);
    expect(await scheduleJob(db, { kind, key, runAt: new Date('2030-01-01T00:00:00Z'), payload: { n: 2 } })).toBe(false);
    const { rows } = await db.query<{ run_at: Date; payload: { n: number } }>('SELECT run_at, payload FROM jobs WHERE dedupe_key = $1', [key]);
    expect(rows).toHaveLength(1);
    expect(new Date(rows[0]!.run_at).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(rows[0]!.payload).toEqual({ n: 1 });
  });

  it("commits and rolls back with the caller's transaction", async () => {
    const kind = uniqueKind('tx');
    await expect(
      db.transaction(async (tx) => {
        await scheduleJob(tx, { kind, key: `${kind}:rolled-back`, runAt: new Date() });
        throw new Error('business rule refused');
      }),
    ).rejects.toThrow('business rule refused');
    await db.transaction((tx) => scheduleJob(tx, { kind, key: `${kind}:committed`, runAt: new Date() }));
    const { rows } = await db.query<{ dedupe_key: string }>('SELECT dedupe_key FROM jobs WHERE kind = $1', [kind]);
    expect(rows.map((r) => r.dedupe_key)).toEqual([`${kind}:committed`]);
  });

  it('refuses an empty kind or key and an invalid date', async () => {
    await expect(scheduleJob(db, { kind: '', key: 'k', runAt: new Date() })).rejects.toThrow(RangeError);
    await expect(scheduleJob(db, { kind: 'k', key: '', runAt: new Date() })).rejects.toThrow(RangeError);
    await expect(scheduleJob(db, { kind: 'k', key: 'k', runAt: new Date('nope') })).rejects.toThrow(RangeError);
  });
});

describe('JobScheduler', () => {
  it('runs a due job once, with its kind, key, account, payload and attempt, and records it done', async () => {
    const clock = manualClock();
    const kind = uniqueKind('once');
    const seen: Job[] = [];
    const s = scheduler({ clock });
    s.register(kind, async (job, ctx) => {
      seen.push(job);
      expect(ctx.now.getTime()).toBe(clock.now().getTime());
    });
    const account = await db.query<{ id: string }>('SELECT id FROM accounts LIMIT 1');
    const accountId = account.rows[0]?.id ?? null;
    await scheduleJob(db, { kind, key: `${kind}:a`, runAt: clock.now(), payload: { purchase: 'p1', k: 2 }, accountId });

    expect(await s.runDue()).toBe(1);
    expect(await s.runDue()).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ kind, key: `${kind}:a`, payload: { purchase: 'p1', k: 2 }, attempt: 1, accountId });
    const r = await row(`${kind}:a`);
    expect(r.done_at).not.toBeNull();
    expect(r.locked_until).toBeNull();
  });

  it('does not run a job before its run_at on the service clock, and runs it once the clock reaches it', async () => {
    const clock = manualClock();
    const kind = uniqueKind('later');
    let runs = 0;
    const s = scheduler({ clock });
    s.register(kind, async () => void runs++);
    await scheduleJob(db, { kind, key: `${kind}:1`, runAt: new Date(clock.now().getTime() + 3 * 86_400_000) });
    expect(await s.runDue()).toBe(0);
    clock.advance(3 * 86_400_000 - 1);
    expect(await s.runDue()).toBe(0);
    clock.advance(1);
    expect(await s.runDue()).toBe(1);
    expect(runs).toBe(1);
  });

  it('runs due jobs in run_at order and only the kinds it has a handler for', async () => {
    const clock = manualClock();
    const [mine, other] = [uniqueKind('mine'), uniqueKind('other')];
    const order: string[] = [];
    const s = scheduler({ clock, batchSize: 1 });
    s.register(mine, async (job) => void order.push(job.key));
    const t = clock.now().getTime();
    await scheduleJob(db, { kind: mine, key: `${mine}:second`, runAt: new Date(t - 1_000) });
    await scheduleJob(db, { kind: mine, key: `${mine}:first`, runAt: new Date(t - 2_000) });
    await scheduleJob(db, { kind: other, key: `${other}:x`, runAt: new Date(t - 3_000) });
    expect(await s.runDue()).toBe(2);
    expect(order).toEqual([`${mine}:first`, `${mine}:second`]);
    expect((await row(`${other}:x`)).done_at).toBeNull();
  });

  it('two schedulers on two connection pools run each of 200 jobs exactly once', async () => {
    const clock = manualClock();
    const kind = uniqueKind('race');
    const runs = new Map<string, number>();
    const byScheduler = [0, 0];
    const make = (i: number, handle: Database) => {
      const s = new JobScheduler({ db: handle, clock, log: silent, batchSize: 7 });
      s.register(kind, async (job) => {
        runs.set(job.key, (runs.get(job.key) ?? 0) + 1);
        byScheduler[i]!++;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      });
      return s;
    };
    const [a, b] = [make(0, db), make(1, db2)];
    const keys = Array.from({ length: 200 }, (_, i) => `${kind}:${i}`);
    await db.transaction(async (tx) => {
      for (const key of keys) await scheduleJob(tx, { kind, key, runAt: new Date(clock.now().getTime() - 1_000) });
    });

    // Each scheduler drains from several callers at once (polling loop, sandbox clock, ...).
    const counts = await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue(), b.runDue()]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(200);
    expect(keys.filter((k) => runs.get(k) !== 1)).toEqual([]);
    expect(byScheduler[0]! + byScheduler[1]!).toBe(200);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE kind = $1 AND done_at IS NOT NULL AND attempts = 1', [kind]);
    expect(rows[0]!.n).toBe(200);
    if (onPostgres) expect(Math.min(...byScheduler)).toBeGreaterThan(0);
  });

  it('retries a handler that throws, later, with backoff, and records the error until it succeeds', async () => {
    const clock = manualClock();
    const kind = uniqueKind('flaky');
    const key = `${kind}:1`;
    let calls = 0;
    const s = scheduler({ clock });
    s.register(
      kind,
      async (job) => {
        calls++;
        expect(job.attempt).toBe(calls);
        if (calls < 3) throw new Error(`PSP timeout ${calls}`);
      },
      { backoffMs: (attempt) => attempt * 60_000 },
    );
    await scheduleJob(db, { kind, key, runAt: clock.now() });

    expect(await s.runDue()).toBe(1);
    let r = await row(key);
    expect(r).toMatchObject({ attempts: 1, done_at: null, last_error: 'Error: PSP timeout 1', locked_until: null });
    // 60 s ± 20 % jitter after the failure.
    const delay = new Date(r.run_at).getTime() - clock.now().getTime();
    expect(delay).toBeGreaterThanOrEqual(48_000);
    expect(delay).toBeLessThanOrEqual(72_000);
    expect(await s.runDue()).toBe(0);

    clock.advance(72_000);
    expect(await s.runDue()).toBe(1);
    r = await row(key);
    expect(r).toMatchObject({ attempts: 2, last_error: 'Error: PSP timeout 2', done_at: null });

    clock.advance(144_000);
    expect(await s.runDue()).toBe(1);
    r = await row(key);
    expect(r.done_at).not.toBeNull();
    expect(r).toMatchObject({ attempts: 3, last_error: null, failed_at: null });
    expect(calls).toBe(3);
  });

  it('abandons a job after maxAttempts failures: done, failed_at and the last error recorded', async () => {
    const clock = manualClock();
    const kind = uniqueKind('poison');
    const s = scheduler({ clock });
    s.register(kind, async () => Promise.reject(new TypeError('bad payload')), { maxAttempts: 2, backoffMs: () => 1_000 });
    await scheduleJob(db, { kind, key: `${kind}:1`, runAt: clock.now() });
    expect(await s.runDue()).toBe(1);
    clock.advance(2_000);
    expect(await s.runDue()).toBe(1);
    clock.advance(86_400_000);
    expect(await s.runDue()).toBe(0);
    const r = await row(`${kind}:1`);
    expect(r.done_at).not.toBeNull();
    expect(r.failed_at).not.toBeNull();
    expect(r).toMatchObject({ attempts: 2, last_error: 'TypeError: bad payload' });
  });

  it('reschedules a job whose handler answers {retryAt}, without counting a failure', async () => {
    const clock = manualClock();
    const kind = uniqueKind('again');
    let calls = 0;
    const s = scheduler({ clock });
    s.register(kind, async (_job, ctx) => (++calls === 1 ? { retryAt: new Date(ctx.now.getTime() + 3_600_000) } : undefined));
    await scheduleJob(db, { kind, key: `${kind}:1`, runAt: clock.now() });
    expect(await s.runDue()).toBe(1);
    const r = await row(`${kind}:1`);
    expect(r).toMatchObject({ attempts: 0, done_at: null, last_error: null });
    expect(new Date(r.run_at).getTime()).toBe(clock.now().getTime() + 3_600_000);
    clock.advance(3_600_000);
    expect(await s.runDue()).toBe(1);
    expect((await row(`${kind}:1`)).done_at).not.toBeNull();
  });

  it('takes over the job of a process that died holding it once its lease has ended, not before', async () => {
    const clock = manualClock();
    const kind = uniqueKind('crash');
    let runs = 0;
    const s = scheduler({ clock });
    s.register(kind, async () => void runs++);
    await scheduleJob(db, { kind, key: `${kind}:dead`, runAt: clock.now() });
    await scheduleJob(db, { kind, key: `${kind}:alive`, runAt: clock.now() });
    // As a crashed process leaves them: claimed, attempts counted, lease still held or lapsed.
    await db.query(`UPDATE jobs SET attempts = 1, lease_id = $2, locked_until = CASE WHEN dedupe_key LIKE '%:dead' THEN $3::timestamptz ELSE $4::timestamptz END WHERE kind = $1`, [
      kind,
      randomUUID(),
      new Date(Date.now() - 1_000),
      new Date(Date.now() + 60_000),
    ]);
    expect(await s.runDue()).toBe(1);
    expect(runs).toBe(1);
    expect(await row(`${kind}:dead`)).toMatchObject({ attempts: 2, locked_until: null });
    expect((await row(`${kind}:dead`)).done_at).not.toBeNull();
    expect((await row(`${kind}:alive`)).done_at).toBeNull();
  });

  it('a process that outlived its lease cannot record an outcome over the process that took the job over', async () => {
    const clock = manualClock();
    const kind = uniqueKind('fenced');
    const key = `${kind}:1`;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const warnings: string[] = [];
    const slow = new JobScheduler({ db, clock, log: { warn: (_o, m) => warnings.push(m), error: () => {} } });
    slow.register(kind, async () => {
      await gate;
      throw new Error('the slow process fails late');
    });
    const fast = new JobScheduler({ db: db2, clock, log: silent });
    let fastRuns = 0;
    fast.register(kind, async () => void fastRuns++);
    await scheduleJob(db, { kind, key, runAt: clock.now() });

    const slowRun = slow.runDue();
    await expect.poll(async () => (await row(key)).locked_until, { timeout: 5_000 }).not.toBeNull();
    expect(await fast.runDue()).toBe(0); // the lease protects it
    await db.query('UPDATE jobs SET locked_until = $2 WHERE dedupe_key = $1', [key, new Date(Date.now() - 1)]); // the slow process stalls past its lease
    expect(await fast.runDue()).toBe(1);
    release();
    expect(await slowRun).toBe(1);
    const r = await row(key);
    expect(fastRuns).toBe(1);
    expect(r.done_at).not.toBeNull();
    expect(r).toMatchObject({ attempts: 2, last_error: null, failed_at: null });
    expect(warnings).toContain('job lease lost before the job finished: its outcome was not recorded');
  });

  it('renews the lease while a slow handler runs, so that no other process takes the job', async () => {
    // The lease is measured on a wall clock the test moves, so a renewal late under load (the
    // interval is real time) cannot end the lease early: each step waits for the renewal made
    // after the move, then asks the other process. Without renewals the poll fails at step two.
    const clock = manualClock();
    let wall = Date.parse('2026-01-31T09:00:00Z');
    const wallNow = () => new Date(wall);
    const kind = uniqueKind('slow');
    const leaseMs = 300;
    let runs = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const make = (handle: Database) => {
      const s = new JobScheduler({ db: handle, clock, log: silent, leaseMs, wallNow });
      s.register(kind, async () => {
        runs++;
        await released;
      });
      return s;
    };
    const [a, b] = [make(db), make(db2)];
    await scheduleJob(db, { kind, key: `${kind}:1`, runAt: clock.now() });
    const first = a.runDue();
    await expect.poll(async () => (await row(`${kind}:1`)).locked_until, { timeout: 5_000 }).not.toBeNull();
    for (let i = 0; i < 4; i++) {
      wall += leaseMs / 2;
      await expect.poll(async () => new Date((await row(`${kind}:1`)).locked_until!).getTime(), { timeout: 5_000 }).toBe(wall + leaseMs);
      expect(await b.runDue()).toBe(0);
    }
    release();
    expect(await first).toBe(1);
    expect(runs).toBe(1);
  });

  it('polls in the background once started, and stop() waits for the job in progress', async () => {
    const clock = manualClock();
    const kind = uniqueKind('poll');
    let finished = false;
    const s = scheduler({ clock });
    s.register(kind, async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      finished = true;
    });
    await scheduleJob(db, { kind, key: `${kind}:1`, runAt: clock.now() });
    s.start(50);
    await expect.poll(async () => (await row(`${kind}:1`)).locked_until, { timeout: 5_000 }).not.toBeNull();
    await s.stop();
    expect(finished).toBe(true);
    expect((await row(`${kind}:1`)).done_at).not.toBeNull();
  });

  it('cancelJob withdraws a job that has not run', async () => {
    const clock = manualClock();
    const kind = uniqueKind('cancel');
    let runs = 0;
    const s = scheduler({ clock });
    s.register(kind, async () => void runs++);
    await scheduleJob(db, { kind, key: `${kind}:1`, runAt: clock.now() });
    expect(await cancelJob(db, `${kind}:1`, clock.now())).toBe(true);
    expect(await cancelJob(db, `${kind}:1`, clock.now())).toBe(false);
    expect(await s.runDue()).toBe(0);
    expect(runs).toBe(0);
  });

  it('refuses a second handler for the same kind', () => {
    const s = scheduler({ clock: manualClock() });
    s.register('test.dup', async () => {});
    expect(() => s.register('test.dup', async () => {})).toThrow(/already registered/);
  });
});
