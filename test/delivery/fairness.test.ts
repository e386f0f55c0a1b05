/**
 * Fairness between destinations (docs/webhooks.md#fairness): one merchant's backlog, or an
 * endpoint that hangs until the timeout, does not hold back another merchant's webhooks.
 */
import { describe, expect, it } from 'vitest';
import { dispatchBatch } from '../../src/delivery/dispatcher.ts';
import { claimDue, destinationOf, type ClaimedDelivery } from '../../src/delivery/delivery-queue-repository.ts';
import { OUTBOX_CHANNEL } from '../../src/domain/events.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { onPostgres, type TestApp } from '../helpers/app.ts';
import { newPurchase, setWebhook } from './helpers.ts';
import { deliveryTestBed } from './test-bed.ts';

const bed = deliveryTestBed();

/** `n` payment.failed events of `n` purchases of the merchant, committed at once (one each: no purchase's order holds another back). */
async function burst(app: TestApp, m: Caller, n: number): Promise<void> {
  const purchases: string[] = [];
  for (let i = 0; i < n; i++) purchases.push(await newPurchase(m));
  await app.services.db.query(
    `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at)
     SELECT $1, p, 'payment.failed', 'CREATED', 'CREATED', '{}', $3 FROM unnest($2::uuid[]) AS p`,
    [m.accountId, purchases, app.services.clock.now()],
  );
  // As every writer of events does after its commit: a background worker does not wait for its poll.
  app.services.db.notify(OUTBOX_CHANNEL);
}

/** Turns the committed events into deliveries, as the worker's pass does first. */
async function dispatch(app: TestApp): Promise<void> {
  const { db, box, clock } = app.services;
  const log = { warn: () => {}, error: (obj: object, msg: string) => console.error(msg, obj) };
  await dispatchBatch({ db, box, log }, clock.now(), 1_000);
}

const claim = (app: TestApp, opts: { limit: number; perDestination: number; busy?: Map<string, number> }) =>
  claimDue(app.services.db, { now: app.services.clock.now(), wallNow: new Date(), leaseMs: 60_000, ...opts });
const countOf = (claimed: ClaimedDelivery[], m: Caller) => claimed.filter((d) => d.accountId === m.accountId).length;

describe(`claiming due deliveries fairly between destinations (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("takes each destination's oldest in turn: a later event of a quiet merchant is claimed with the first of another's backlog", async () => {
    const app = await bed.freshApp();
    const [busy, quiet] = [await caller(app), await caller(app)];
    await setWebhook(app, busy, bed.receiver.url('/busy'), ['paymentFailed']);
    await setWebhook(app, quiet, bed.receiver.url('/quiet'), ['paymentFailed']);
    await burst(app, busy, 30);
    await burst(app, quiet, 1); // committed after the whole backlog
    await dispatch(app);

    // Oldest first across merchants would have given the busy merchant both.
    const first = await claim(app, { limit: 2, perDestination: 16 });
    expect(first.map((d) => d.accountId).sort()).toEqual([busy.accountId, quiet.accountId].sort());
    // The rest of the backlog still goes out, oldest first.
    const rest = await claim(app, { limit: 100, perDestination: 100 });
    expect(countOf(rest, busy)).toBe(29);
    expect(rest.map((d) => d.eventId)).toEqual([...rest.map((d) => d.eventId)].sort((a, b) => a - b));
  });

  it('never leases a destination more than its share, counting what the process is already sending there', async () => {
    const app = await bed.freshApp();
    const [busy, quiet] = [await caller(app), await caller(app)];
    await setWebhook(app, busy, bed.receiver.url('/busy'), ['paymentFailed']);
    await setWebhook(app, quiet, bed.receiver.url('/quiet'), ['paymentFailed']);
    await burst(app, busy, 20);
    await burst(app, quiet, 3);
    await dispatch(app);

    const sending = new Map([[destinationOf({ accountId: busy.accountId, kind: 'webhook' }), 6]]);
    const claimed = await claim(app, { limit: 16, perDestination: 8, busy: sending });
    expect(countOf(claimed, busy)).toBe(2); // 8 − the 6 in flight
    expect(countOf(claimed, quiet)).toBe(3);
    // At its share already: nothing more for it, the other merchant unaffected.
    const none = await claim(app, { limit: 16, perDestination: 8, busy: new Map([[destinationOf({ accountId: busy.accountId, kind: 'webhook' }), 8]]) });
    expect(none).toEqual([]);
  });
});

describe('the delivery worker with an endpoint that hangs', () => {
  it("gives the hanging endpoint at most its share of the slots: another merchant's webhook still goes out at once", async () => {
    const app = await bed.freshApp({ delivery: { background: true, timeoutMs: 10_000, concurrency: 4, perDestination: 2 } });
    const [stuck, other] = [await caller(app), await caller(app)];
    await setWebhook(app, stuck, bed.receiver.url('/stuck'), ['paymentFailed']);
    await setWebhook(app, other, bed.receiver.url('/other'), ['paymentFailed']);
    bed.receiver.answer = (r) => (r.path === '/stuck' ? { kind: 'hang' } : { kind: 'status', code: 204 });
    await burst(app, stuck, 6);
    await bed.receiver.waitFor((r) => r.filter((x) => x.path === '/stuck').length === 2, 'the stuck endpoint at its share', 5_000);

    await burst(app, other, 1);
    // Before, the stuck endpoint's backlog filled every slot for the 10 s timeout.
    await bed.receiver.waitFor((r) => r.some((x) => x.path === '/other'), "the other merchant's webhook", 5_000);
    expect(bed.receiver.received.filter((x) => x.path === '/stuck')).toHaveLength(2);
  });

  it('claims two shares ahead for the hanging endpoint, never sends more than its share at once, and gives back what it claimed ahead at stop', async () => {
    const app = await bed.freshApp({ delivery: { background: true, timeoutMs: 10_000, concurrency: 4, perDestination: 2 } });
    const stuck = await caller(app);
    await setWebhook(app, stuck, bed.receiver.url('/stuck'), ['paymentFailed']);
    bed.receiver.answer = { kind: 'hang' };
    await burst(app, stuck, 8);
    await bed.receiver.waitFor((r) => r.length === 2, 'the two requests of its share', 5_000);
    const leased = async () =>
      (
        await app.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE account_id = $1 AND status = 'pending' AND locked_until IS NOT NULL", [
          stuck.accountId,
        ])
      ).rows[0]!.n;
    // Two requests out, four claimed ahead (two shares), two left for whoever has room.
    for (let i = 0; i < 100 && (await leased()) < 6; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await leased()).toBe(6);
    await new Promise((r) => setTimeout(r, 200));
    expect(bed.receiver.received).toHaveLength(2);

    await app.services.deliveries.stop();
    // The interrupted attempts are due again at once, and so are the four it had claimed ahead.
    expect(await leased()).toBe(0);
    const { rows } = await app.services.db.query<{ attempts: number }>("SELECT attempts FROM deliveries WHERE account_id = $1 AND status = 'pending' ORDER BY attempts DESC", [
      stuck.accountId,
    ]);
    expect(rows.map((r) => r.attempts)).toEqual([1, 1, 0, 0, 0, 0, 0, 0]);
  });
});

describe(`the claim's plan (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('is kept per connection: the claim is PL/pgSQL, not a SQL function (planned at every call: 1.6 ms of an empty claim)', async () => {
    const app = await bed.freshApp();
    const { rows } = await app.services.db.query<{ lang: string; config: string[] }>(
      `SELECT l.lanname AS lang, p.proconfig AS config FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.proname = 'chipin_claim_deliveries' AND p.pronamespace = current_schema()::regnamespace`,
    );
    // One function (019 replaced 016's, not added an overload), with the planner settings of 016.
    expect(rows).toHaveLength(1);
    expect(rows[0]!.lang).toBe('plpgsql');
    expect([...rows[0]!.config].sort()).toEqual(['enable_bitmapscan=off', 'enable_hashjoin=off', 'enable_mergejoin=off', 'enable_seqscan=off', 'enable_sort=off', 'jit=off']);
  });

  it('claims a burst that arrives after the plan was made on an empty queue: in order, fairly, every delivery once', async () => {
    const app = await bed.freshApp();
    const [busy, quiet] = [await caller(app), await caller(app)];
    await setWebhook(app, busy, bed.receiver.url('/busy'), ['paymentFailed']);
    await setWebhook(app, quiet, bed.receiver.url('/quiet'), ['paymentFailed']);
    // More calls than PostgreSQL makes custom plans for (five) before it may keep a generic one.
    for (let i = 0; i < 8; i++) expect(await claim(app, { limit: 10, perDestination: 5 })).toEqual([]);
    await burst(app, busy, 40);
    await burst(app, quiet, 2);
    await dispatch(app);

    const first = await claim(app, { limit: 4, perDestination: 16 });
    expect(countOf(first, quiet)).toBe(2);
    const rest = await claim(app, { limit: 100, perDestination: 100 });
    expect(countOf(rest, busy)).toBe(38);
    expect(rest.map((d) => d.eventId)).toEqual([...rest.map((d) => d.eventId)].sort((a, b) => a - b));
    expect(new Set([...first, ...rest].map((d) => d.id)).size).toBe(42);
  });

  it("writes no lease when nothing is due: an idle claim does not run the deliveries' statement trigger (the home page's sums)", async () => {
    const app = await bed.freshApp();
    const m = await caller(app);
    await setWebhook(app, m, bed.receiver.url('/busy'), ['paymentFailed']);
    // Calls of the trigger function within one transaction (track_functions counts PL/pgSQL calls).
    const triggerCallsOfClaim = () =>
      app.services.db.transaction(async (tx) => {
        await tx.query("SET LOCAL track_functions = 'pl'");
        const claimed = await claimDue(tx, { now: app.services.clock.now(), wallNow: new Date(), leaseMs: 60_000, limit: 10, perDestination: 10 });
        const { rows } = await tx.query<{ n: number }>("SELECT coalesce(pg_stat_get_xact_function_calls('chipin_delivery_stats_of_deliveries'::regproc), 0)::int AS n");
        return { claimed: claimed.length, calls: rows[0]!.n };
      });
    expect(await triggerCallsOfClaim()).toEqual({ claimed: 0, calls: 0 });
    // The counter does count it once a claim writes leases.
    await burst(app, m, 3);
    await dispatch(app);
    expect(await triggerCallsOfClaim()).toEqual({ claimed: 3, calls: 1 });
  });
});

describe(`the lease a claim writes (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('is a heap-only update: claiming a dispatched burst adds no index entry for any claimed row', async () => {
    const app = await bed.freshApp();
    const m = await caller(app);
    await setWebhook(app, m, bed.receiver.url('/busy'), ['paymentFailed']);
    await burst(app, m, 40); // dispatched in one insert: pages packed as in a real burst
    await dispatch(app);
    const { claimed, hot, updated } = await app.services.db.transaction(async (tx) => {
      // The counters as the claim leaves them, less what they held before it: a backend's counts
      // not yet flushed (at most once a second) still show those of its earlier transactions, and
      // a PGlite database reused from the file's previous test is the same backend
      // (docs/testing.md#known-flakes).
      const counters = async () =>
        (
          await tx.query<{ hot: number; updated: number }>(
            "SELECT pg_stat_get_xact_tuples_hot_updated('deliveries'::regclass)::int AS hot, pg_stat_get_xact_tuples_updated('deliveries'::regclass)::int AS updated",
          )
        ).rows[0]!;
      const before = await counters();
      const claimed = await claimDue(tx, { now: app.services.clock.now(), wallNow: new Date(), leaseMs: 60_000, limit: 100, perDestination: 100 });
      const after = await counters();
      return { claimed: claimed.length, hot: after.hot - before.hot, updated: after.updated - before.updated };
    });
    expect(claimed).toBe(40);
    expect(updated).toBe(40);
    // Without room on the page (018_delivery_fillfactor.sql), most would have moved to another.
    expect(hot).toBe(40);
  });

  it("commits without waiting for the disk, in the claim's transaction only: a lease lost in a database crash means a second send, which at-least-once allows", async () => {
    const app = await bed.freshApp();
    const setting = async (sql: Pick<TestApp['services']['db'], 'query'>) => (await sql.query<{ s: string }>("SELECT current_setting('synchronous_commit') AS s")).rows[0]!.s;
    const before = await setting(app.services.db);
    const inside = await app.services.db.transaction(async (tx) => {
      await claimDue(tx, { now: app.services.clock.now(), wallNow: new Date(), leaseMs: 60_000, limit: 10 });
      return setting(tx);
    });
    expect(inside).toBe('off');
    expect(await setting(app.services.db)).toBe(before);
  });
});
