/**
 * The expiry sweep (docs/purchase-lifecycle.md#expiry), on both databases: unpaid purchases expire
 * from the partial index on `purchases.expires_at`, with no job row each. Several sweeps at once
 * (in two processes on one database, and several in one) expire each purchase exactly once; one
 * purchase whose expiry fails is retried later without holding back the others; the sweep's reads
 * go through the partial index; migration 039 gives the unpaid purchases of an older build the
 * time of their pending `purchase.expire` job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Sql } from '../../src/db/database.ts';
import { bundledMigrations, migrate } from '../../src/db/migrate.ts';
import { newUuid } from '../../src/domain/ids.ts';
import { countDueExpiries, dueExpiries } from '../../src/purchases/purchase-repository.ts';
import { EXPIRE_JOB, ExpirySweep } from '../../src/use-cases/checkout/expire-purchase.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { planWithoutSeqScan, recordingSql, type Statement } from '../helpers/plans.ts';
import { jumpingClock } from './support.ts';

const HOUR = 3_600_000;

// Two apps on one database (on PostgreSQL two connection pools, as two processes); the sandbox
// clock they share is moved here only.
let iso: IsolatedDatabase;
let db1: Database;
let db2: Database;
let app1: TestApp;
let app2: TestApp;
let shop: Caller;
beforeAll(async () => {
  iso = await isolatedDatabase();
  db1 = await iso.open();
  db2 = await iso.open();
  // No background polling: the sweeps below are the only ones.
  app1 = await startTestApp({ jobPollIntervalMs: 0, logLevel: 'silent' }, { db: db1, shareDatabase: true });
  app2 = await startTestApp({ jobPollIntervalMs: 0, logLevel: 'silent' }, { db: db2, shareDatabase: true });
  shop = await caller(app1);
});
afterAll(async () => {
  await app1?.close();
  await app2?.close();
  await iso?.dispose();
});

async function purchases(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await shop.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }));
    expect(res.statusCode, res.body).toBe(201);
    ids.push(res.json().id as string);
  }
  return ids;
}

/** Per purchase: its state and how many `purchase.cancelled` events it has. */
async function outcomes(ids: string[]): Promise<{ state: string; cancelled: number }[]> {
  const { rows } = await db1.query<{ id: string; state: string; cancelled: number }>(
    `SELECT p.id, p.state, (SELECT count(*)::int FROM purchase_events e WHERE e.account_id = p.account_id AND e.purchase_id = p.id AND e.type = 'purchase.cancelled') AS cancelled
     FROM purchases p WHERE p.id = ANY($1::uuid[])`,
    [ids],
  );
  expect(rows).toHaveLength(ids.length);
  return rows.map((r) => ({ state: r.state, cancelled: r.cancelled }));
}

const allExpiredOnce = (n: number) => Array.from({ length: n }, () => ({ state: 'CANCELLED', cancelled: 1 }));

describe(`the expiry sweep (${onPostgres ? 'PostgreSQL, two connection pools' : 'PGlite'})`, () => {
  it('three sweeps at once, on two database handles, expire each due purchase exactly once', async () => {
    const ids = await purchases(30);
    const later = jumpingClock(app1.services.clock);
    later.jump(24 * HOUR + 1_000);
    // Small batches, several lanes each: the sweeps read the same purchases and race for them.
    const sweeps = [db1, db2, db2].map((db) => new ExpirySweep({ db, clock: later, batchSize: 7, concurrency: 3 }));
    const acted = await Promise.all(sweeps.map((s) => s.runDue()));
    expect(acted.reduce((a, b) => a + b, 0)).toBe(30);
    expect(await outcomes(ids)).toEqual(allExpiredOnce(30));
    expect(await countDueExpiries(db1, later.now())).toBe(0);
    expect(await Promise.all(sweeps.map((s) => s.runDue()))).toEqual([0, 0, 0]);
  });

  it('the sandbox clock moved by both processes at once: each sweeps, every purchase expires once', async () => {
    const ids = await purchases(12);
    const move = (app: TestApp, seconds: number) =>
      app.server.inject({
        method: 'POST',
        url: '/api/sandbox/clock',
        headers: { authorization: `Bearer ${shop.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ advance_seconds: seconds }),
      });
    const moved = await Promise.all([move(app1, 12 * 3_600), move(app2, 12 * 3_600 + 1)]);
    expect(moved.map((r) => r.statusCode)).toEqual([200, 200]);
    // Each answered after what was due had run, here or in the other process.
    expect(await outcomes(ids)).toEqual(allExpiredOnce(12));
    const jobs = await db1.query('SELECT 1 FROM jobs WHERE kind = $1', [EXPIRE_JOB]);
    expect(jobs.rows).toEqual([]);
  });

  it('a purchase whose expiry fails is tried again a minute later; the others expire meanwhile', async () => {
    const ids = await purchases(3);
    const bad = ids[1]!;
    // The expiry's read of the purchase's payments fails for `bad` alone.
    const failing = (tx: Sql): Sql => ({
      query: (text, params, options) => (text.includes('FROM payments') && params?.includes(bad) ? Promise.reject(new Error('boom')) : tx.query(text, params, options)),
      exec: (script) => tx.exec(script),
      notify: (channel) => tx.notify(channel),
    });
    const faulty: Database = { ...db1, transaction: (fn) => db1.transaction((tx) => fn(failing(tx))) };
    const warnings: object[] = [];
    const later = jumpingClock(app1.services.clock);
    later.jump(24 * HOUR + 1_000);
    const sweep = new ExpirySweep({ db: faulty, clock: later, log: { warn: (obj) => void warnings.push(obj) } });
    expect(await sweep.runDue()).toBe(3);
    expect((await outcomes(ids)).map((o) => o.state)).toEqual(expect.arrayContaining(['CANCELLED', 'CANCELLED', 'CREATED']));
    expect(warnings).toEqual([expect.objectContaining({ purchase_id: bad })]);
    expect(await sweep.runDue()).toBe(0); // not due again before the minute has passed

    later.jump(61_000);
    expect(await new ExpirySweep({ db: db1, clock: later }).runDue()).toBe(1);
    expect(await outcomes(ids)).toEqual(allExpiredOnce(3));
  });

  it("reads the due purchases through the partial index, whatever the table's size", async () => {
    await purchases(2);
    const seen: Statement[] = [];
    const recording = recordingSql(db1, seen);
    await dueExpiries(recording, app1.services.clock.now(), 100);
    await countDueExpiries(recording, app1.services.clock.now());
    expect(seen).toHaveLength(2);
    for (const statement of seen) expect(await planWithoutSeqScan(db1, statement), statement.text).toContain('purchases_expiry_idx');
  });
});

describe(`migration 039 (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('gives each unpaid purchase of an older build the time of its pending purchase.expire job; leaves the others and every job row alone', async () => {
    const old = await isolatedDatabase({ empty: true });
    const db = await old.open();
    try {
      await migrate(
        db,
        bundledMigrations().filter((m) => m.version < 39),
      );
      // The account and its pot offer as that schema holds them: today's account creation writes
      // offers that only later migrations can take (a DOWN_PAYMENT offer, migration 057).
      const accountId = newUuid();
      const offerId = newUuid();
      await db.query('INSERT INTO accounts (id, name) VALUES ($1, $2)', [accountId, 'Before 039']);
      await db.query("INSERT INTO offers (id, account_id, type, signing_secret_enc) VALUES ($1, $2, 'SHARED', 'sealed')", [offerId, accountId]);
      const clientId = newUuid();
      await db.query('INSERT INTO clients (id, account_id, email) VALUES ($1, $2, $3)', [clientId, accountId, 'leader@example.com']);
      const created = new Date('2026-03-01T10:00:00Z');
      const runAt = new Date(created.getTime() + 24 * HOUR);
      const pushed = new Date(runAt.getTime() + 5 * 60_000);
      // As the previous build wrote them: the purchase, and its job in the same statement.
      const legacy = async (state: string, job: { runAt: Date; done: boolean }) => {
        const id = newUuid();
        await db.query(
          `INSERT INTO purchases (id, account_id, offer_id, client_id, state, comment, title, amount_cents, currency, language, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'c', 'Trip', 10000, 'EUR', 'en_GB', $6, $6)`,
          [id, accountId, offerId, clientId, state, created],
        );
        await db.query(`INSERT INTO jobs (account_id, kind, dedupe_key, run_at, payload, done_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)`, [
          accountId,
          EXPIRE_JOB,
          `${EXPIRE_JOB}:${id}`,
          job.runAt,
          JSON.stringify({ purchaseId: id }),
          job.done ? runAt : null,
        ]);
        return id;
      };
      const unpaid = await legacy('CREATED', { runAt, done: false });
      const waiting = await legacy('CREATED', { runAt: pushed, done: false }); // its job pushed back by a payment under way
      const paid = await legacy('SUCCESSFUL', { runAt, done: false });
      const done = await legacy('CREATED', { runAt, done: true }); // not expected in real data: left to the job's outcome
      expect(await migrate(db)).toContain(39); // and any migration after it

      const { rows } = await db.query<{ id: string; expires_at: Date | null }>('SELECT id, expires_at FROM purchases');
      const expiresAt = new Map(rows.map((r) => [r.id, r.expires_at?.toISOString() ?? null]));
      expect(expiresAt.get(unpaid)).toBe(runAt.toISOString());
      expect(expiresAt.get(waiting)).toBe(pushed.toISOString());
      expect(expiresAt.get(paid)).toBeNull();
      expect(expiresAt.get(done)).toBeNull();
      expect((await db.query('SELECT 1 FROM jobs WHERE kind = $1', [EXPIRE_JOB])).rows).toHaveLength(4);
      expect(await dueExpiries(db, new Date(runAt.getTime() + 1), 10)).toEqual([{ accountId, purchaseId: unpaid }]);
    } finally {
      await old.dispose();
    }
  });
});
