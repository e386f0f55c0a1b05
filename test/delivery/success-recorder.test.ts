import { describe, expect, it } from 'vitest';
import type { Sql } from '../../src/db/database.ts';
import { dispatchBatch } from '../../src/delivery/dispatcher.ts';
import { claimDue, type AttemptRecord, type ClaimedDelivery } from '../../src/delivery/delivery-queue-repository.ts';
import { SuccessRecorder } from '../../src/delivery/success-recorder.ts';
import { caller } from '../helpers/api.ts';
import { onPostgres, type TestApp } from '../helpers/app.ts';
import { deliveries, insertEvent, newPurchase, setWebhook } from './helpers.ts';
import { deliveryTestBed } from './test-bed.ts';

const bed = deliveryTestBed();

/** `count` webhooks of as many purchases, dispatched and claimed by a worker (not sent). */
async function claimed(count: number): Promise<{ app: TestApp; accountId: string; claims: ClaimedDelivery[] }> {
  const app = await bed.freshApp({ delivery: { background: false } });
  const m = await caller(app);
  await setWebhook(app, m, bed.receiver.url());
  for (let i = 0; i < count; i++) await insertEvent(app, m, await newPurchase(m), 'payment.failed');
  await dispatchBatch({ db: app.services.db, box: app.services.box, log: { warn: () => {}, error: () => {} } }, app.services.clock.now());
  const claims = await claimDue(app.services.db, { now: app.services.clock.now(), wallNow: new Date(), limit: 100, leaseMs: 60_000 });
  const created = (await deliveries(app, m.accountId)).filter((d) => d.kind === 'webhook');
  expect(claims).toHaveLength(created.length);
  return { app, accountId: m.accountId, claims };
}

const sent = (app: TestApp): AttemptRecord => ({
  url: bed.receiver.url(),
  startedAt: app.services.clock.now(),
  durationMs: 3,
  statusCode: 204,
  outcome: 'succeeded',
  now: app.services.clock.now(),
});

/** The database, counting the statements run through it. */
function counting(db: Sql): { sql: Sql; statements: () => number } {
  let n = 0;
  return {
    sql: { query: (text, params, options) => (n++, db.query(text, params, options)), exec: (s) => db.exec(s), notify: (c) => db.notify(c) },
    statements: () => n,
  };
}

describe(`recording successes in groups (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('writes the first success at once and those that end meanwhile together: every delivery succeeded, one attempt row each', async () => {
    const { app, accountId, claims } = await claimed(12);
    const { sql, statements } = counting(app.services.db);
    const recorder = new SuccessRecorder(sql);
    const answers = await Promise.all(claims.map((d) => recorder.record({ d, a: sent(app) })));
    expect(answers).toEqual(claims.map(() => true));
    expect(statements()).toBe(2); // the first alone, the other eleven in one statement
    const rows = (await deliveries(app, accountId)).filter((d) => d.kind === 'webhook');
    expect(rows.map((r) => [r.status, r.attempts, r.last_status_code])).toEqual(rows.map(() => ['succeeded', 1, 204]));
    const { rows: attempts } = await app.services.db.query<{ delivery_id: string; attempt: number; outcome: string }>(
      'SELECT delivery_id, attempt, outcome FROM delivery_attempts WHERE account_id = $1 ORDER BY delivery_id',
      [accountId],
    );
    expect(attempts).toEqual(claims.map((d) => ({ delivery_id: d.id, attempt: 1, outcome: 'succeeded' })).sort((a, b) => a.delivery_id.localeCompare(b.delivery_id)));
  });

  it('answers false for a delivery no longer pending and still records its attempt; a second record of one delivery goes in the next group', async () => {
    const { app, accountId, claims } = await claimed(2);
    const [first, second] = claims as [ClaimedDelivery, ClaimedDelivery];
    const { sql, statements } = counting(app.services.db);
    const recorder = new SuccessRecorder(sql);
    const answers = await Promise.all([
      recorder.record({ d: first, a: sent(app) }),
      recorder.record({ d: second, a: sent(app) }),
      recorder.record({ d: second, a: sent(app) }), // taken over and sent again: the first success stands
    ]);
    expect(answers).toEqual([true, true, false]);
    expect(statements()).toBe(3); // first; second; second again
    const row = (await deliveries(app, accountId)).find((d) => d.id === second.id)!;
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('fails every record of a group whose write fails, and writes the next group', async () => {
    const { app, claims } = await claimed(3);
    let failNext = true;
    const sql: Sql = {
      query: (text, params, options) => {
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('connection lost'));
        }
        return app.services.db.query(text, params, options);
      },
      exec: (s) => app.services.db.exec(s),
      notify: (c) => app.services.db.notify(c),
    };
    const recorder = new SuccessRecorder(sql);
    const results = await Promise.allSettled(claims.map((d) => recorder.record({ d, a: sent(app) })));
    // The first group (the first record) fails; the two that waited are written together.
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(await recorder.record({ d: claims[0]!, a: sent(app) })).toBe(true);
  });
});
