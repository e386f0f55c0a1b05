import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { claimDue } from '../../src/delivery/delivery-queue-repository.ts';
import { dispatchBatch } from '../../src/delivery/dispatcher.ts';
import { caller } from '../helpers/api.ts';
import { onPostgres, type TestApp } from '../helpers/app.ts';
import { backModeNotificationOf, endsPot, errorStateOf, type OutcomeEvent } from '../../src/delivery/outcomes.ts';
import { TRIGGER_NAMES, triggerOf } from '../../src/delivery/triggers.ts';
import { EVENT } from '../../src/domain/events.ts';
import { deliveries, insertEvent, newLinkPurchase, newPurchase, setWebhook } from './helpers.ts';
import { deliveryTestBed } from './test-bed.ts';

/**
 * The outbox table (docs/webhooks.md#how-it-works-operators): this build's events wait in
 * `event_outbox` and are never written again; a purchase's creation, for which nothing is ever
 * sent, has no outbox row; events of the previous build (`dispatched_at` NULL, no outbox row: a
 * rolling upgrade) are still dispatched, and a purchase's deliveries wait behind an undispatched
 * event of either kind.
 */
const bed = deliveryTestBed();
const quiet = { warn: () => {}, error: () => {} };

const dispatch = (app: TestApp, limit = 200) => dispatchBatch({ db: app.services.db, box: app.services.box, log: quiet }, app.services.clock.now(), limit);

/** An event as the previous build writes it: `dispatched_at` NULL, no outbox row. */
async function previousBuildEvent(app: TestApp, accountId: string, purchaseId: string): Promise<number> {
  const { rows } = await app.services.db.query<{ id: number }>(
    `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at)
     VALUES ($1, $2, 'payment.failed', 'CREATED', 'CREATED', '{}', $3) RETURNING id`,
    [accountId, purchaseId, app.services.clock.now()],
  );
  return Number(rows[0]!.id);
}

const outboxIds = async (app: TestApp) =>
  (await app.services.db.query<{ event_id: string }>('SELECT event_id FROM event_outbox ORDER BY event_id')).rows.map((r) => Number(r.event_id));

describe(`the event outbox (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, { timeout: 60_000 }, () => {
  it('writes each event with its outbox row, and dispatching it deletes the row without writing the event again', async () => {
    const app = await bed.freshApp();
    const m = await caller(app);
    await setWebhook(app, m, bed.receiver.url(), ['paymentFailed']);
    const purchase = await newPurchase(m);
    const failed = await insertEvent(app, m, purchase, 'payment.failed');
    const events = await app.services.db.query<{ id: string; version: string; dispatched: boolean }>(
      'SELECT id, xmin::text AS version, dispatched_at = created_at AS dispatched FROM purchase_events WHERE purchase_id = $1 ORDER BY id',
      [purchase],
    );
    expect(events.rows.map((e) => e.dispatched)).toEqual([true, true]);
    expect(await outboxIds(app)).toEqual([failed]); // the creation has none (below)

    expect(await dispatch(app)).toBe(1);

    expect(await outboxIds(app)).toEqual([]);
    const after = await app.services.db.query<{ id: string; version: string }>('SELECT id, xmin::text AS version FROM purchase_events WHERE purchase_id = $1 ORDER BY id', [
      purchase,
    ]);
    expect(after.rows).toEqual(events.rows.map(({ id, version }) => ({ id, version })));
    expect((await deliveries(app, m.accountId)).map((d) => d.event_id)).toEqual([failed]);
  });

  it("dispatches the previous build's events beside this build's and marks them dispatched", async () => {
    const app = await bed.freshApp();
    const m = await caller(app);
    await setWebhook(app, m, bed.receiver.url(), ['paymentFailed']);
    const purchase = await newPurchase(m);
    const older = await previousBuildEvent(app, m.accountId, purchase);
    const newer = await insertEvent(app, m, purchase, 'payment.failed');

    expect(await dispatch(app)).toBe(2);

    expect(await outboxIds(app)).toEqual([]);
    const { rows } = await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM purchase_events WHERE dispatched_at IS NULL');
    expect(rows[0]!.n).toBe(0);
    expect((await deliveries(app, m.accountId)).map((d) => d.event_id).sort((a, b) => a - b)).toEqual([older, newer]);
  });
});

describe(`a purchase's creation (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, { timeout: 60_000 }, () => {
  it('is written with no outbox row, as nothing is ever sent for it: every trigger subscribed, every notification URL set', async () => {
    const created: OutcomeEvent = { type: EVENT.purchaseCreated, data: {}, from_state: null };
    expect(triggerOf(created.type)).toBeUndefined();
    expect(backModeNotificationOf(created)).toBeUndefined();
    expect(errorStateOf(created)).toBeUndefined();
    expect(endsPot(created, 'SHARED')).toBe(false);

    const app = await bed.freshApp();
    const m = await caller(app);
    await setWebhook(app, m, bed.receiver.url(), [...TRIGGER_NAMES]);
    const purchase = await newLinkPurchase(m, { paymentNotificationUrl: bed.receiver.url('/notify'), errorNotificationUrl: bed.receiver.url('/error') });
    expect(await outboxIds(app)).toEqual([]);
    // Were it dispatched (as the previous build wrote it), it would plan nothing either.
    await app.services.db.query(
      `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at) VALUES ($1, $2, $3, NULL, 'CREATED', '{}', $4)`,
      [m.accountId, purchase, EVENT.purchaseCreated, app.services.clock.now()],
    );
    expect(await dispatch(app)).toBe(1);
    expect(await deliveries(app, m.accountId)).toEqual([]);
  });
});

describe.skipIf(!onPostgres)("a purchase's delivery waits behind an earlier event still in the outbox", () => {
  it('is not claimed while the earlier event is undispatched, and goes once it is', { timeout: 60_000 }, async () => {
    const db = await bed.database();
    const app = await bed.freshApp({}, db);
    const m = await caller(app);
    await setWebhook(app, m, bed.receiver.url(), ['paymentFailed']);
    const purchase = await newPurchase(m);
    const first = await insertEvent(app, m, purchase, 'payment.failed');
    const second = await insertEvent(app, m, purchase, 'payment.failed');
    const claim = () => claimDue(app.services.db, { now: app.services.clock.now(), wallNow: new Date(), leaseMs: 60_000, limit: 10 });

    // Another dispatcher holds the first event's outbox row: this one skips it and dispatches the second.
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT event_id FROM event_outbox WHERE event_id = $1 FOR UPDATE', [first]);
      expect(await dispatch(app)).toBe(1);
      expect((await deliveries(app, m.accountId)).map((d) => d.event_id)).toEqual([second]);
      expect(await claim()).toEqual([]);
    } finally {
      await other.query('ROLLBACK').catch(() => {});
      await other.end();
    }
    expect(await dispatch(app)).toBe(1);
    expect((await claim()).map((d) => d.eventId)).toEqual([first]);
  });
});
