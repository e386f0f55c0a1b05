import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../src/db/database.ts';
import { caller, minimalPurchase } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The home page's running sums (migration 044, docs/performance.md#the-home-pages-running-sums)
 * are kept by triggers on every write that changes a figure. Whatever the writes, in whatever
 * order and however many rows per statement, the sums must equal a recount from the rows
 * (`chipin_home_stats_rebuild()`): random writes at the SQL level, on both engines.
 */
let app: TestApp;
let db: Sql;
/** Two accounts, each with a purchase made by the API whose offer and client the raw rows reuse. */
let templates: { accountId: string; purchaseId: string }[];

beforeAll(async () => {
  app = await startTestApp();
  db = app.services.db;
  templates = [];
  for (const name of ['Sums A', 'Sums B']) {
    const m = await caller(app, name);
    const res = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 1_000 }));
    expect(res.statusCode, res.body).toBe(201);
    templates.push({ accountId: m.accountId, purchaseId: res.json().id as string });
  }
});
afterAll(() => app?.close());

const STATES = ['CREATED', 'LEADER_PROCESSED', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED'] as const;
const T0 = Date.UTC(2026, 10, 20, 23, 0);

type Op =
  | { op: 'purchase'; account: number; state: (typeof STATES)[number]; amount: number; currency: 'EUR' | 'USD'; minutes: number; pot: boolean }
  | { op: 'state'; p: number; state: (typeof STATES)[number] }
  | { op: 'capture'; p: number; cents: number }
  | { op: 'recapture'; pay: number; cents: number }
  | { op: 'allocation'; p: number; cents: number; state: 'pending' | 'succeeded' | 'failed' }
  | { op: 'allocationState'; a: number; state: 'pending' | 'succeeded' | 'failed' }
  | { op: 'allocationAmount'; a: number; cents: number }
  | { op: 'forgetAllocation'; a: number }
  | { op: 'closing'; p: number; to: 'SUCCESSFUL' | 'FAILED'; rest: boolean; leaderAlone: boolean }
  | { op: 'deliveries'; p: number; n: number }
  | { op: 'outcomes'; ds: number[]; status: 'pending' | 'succeeded' | 'failed' | 'cancelled'; failures: number }
  | { op: 'forgetDelivery'; d: number };

const idx = fc.nat(40);
const ALLOCATION_STATE = fc.constantFrom('pending' as const, 'succeeded' as const, 'failed' as const);
const purchaseOp = fc.record({
  op: fc.constant('purchase' as const),
  account: fc.nat(1),
  state: fc.constantFrom(...STATES),
  amount: fc.integer({ min: 0, max: 1_000_000 }),
  currency: fc.constantFrom('EUR' as const, 'USD' as const),
  // Within 3 days, on and off the 15-minute boundaries.
  minutes: fc.integer({ min: 0, max: 3 * 24 * 60 }),
  pot: fc.boolean(),
});
const stateOp = fc.record({ op: fc.constant('state' as const), p: idx, state: fc.constantFrom(...STATES) });
/** The writes of refund allocations: made in any state, settled, resized, deleted. */
const allocationOps = [
  fc.record({ op: fc.constant('allocation' as const), p: idx, cents: fc.integer({ min: 1, max: 500_000 }), state: ALLOCATION_STATE }),
  fc.record({ op: fc.constant('allocationState' as const), a: idx, state: ALLOCATION_STATE }),
  fc.record({ op: fc.constant('allocationAmount' as const), a: idx, cents: fc.integer({ min: 1, max: 500_000 }) }),
  fc.record({ op: fc.constant('forgetAllocation' as const), a: idx }),
] as const;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  purchaseOp,
  stateOp,
  fc.record({ op: fc.constant('capture' as const), p: idx, cents: fc.integer({ min: 0, max: 500_000 }) }),
  fc.record({ op: fc.constant('recapture' as const), pay: idx, cents: fc.integer({ min: 0, max: 500_000 }) }),
  ...allocationOps,
  fc.record({ op: fc.constant('closing' as const), p: idx, to: fc.constantFrom('SUCCESSFUL' as const, 'FAILED' as const), rest: fc.boolean(), leaderAlone: fc.boolean() }),
  fc.record({ op: fc.constant('deliveries' as const), p: idx, n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({
    op: fc.constant('outcomes' as const),
    ds: fc.array(idx, { minLength: 1, maxLength: 6 }),
    status: fc.constantFrom('pending' as const, 'succeeded' as const, 'failed' as const, 'cancelled' as const),
    failures: fc.nat(3),
  }),
  fc.record({ op: fc.constant('forgetDelivery' as const), d: idx }),
);

/** What the rows of one run created, to address them by index (modulo their number). */
interface Made {
  purchases: string[];
  payments: string[];
  allocations: string[];
  deliveries: string[];
}
const pick = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);

/** A payment of 5,000.00 on the purchase, `captured` of it captured. */
async function insertPayment(purchase: string, captured: number, status: 'captured' | 'authorized', at: Date): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO payments (id, account_id, purchase_id, purpose, psp, idempotency_key, amount_cents, captured_cents, status, created_at, updated_at)
     SELECT $1, account_id, id, 'guarantee', 'sandbox', $5, 500000, $2, $6, $3, $3 FROM purchases WHERE id = $4`,
    [id, captured, at, purchase, `sums-${id}`, status],
  );
  return id;
}

async function apply(made: Made, o: Op): Promise<void> {
  const at = new Date(T0);
  switch (o.op) {
    case 'purchase': {
      const id = randomUUID();
      const t = templates[o.account]!;
      await db.query(
        `INSERT INTO purchases (id, account_id, offer_id, client_id, state, comment, title, amount_cents, currency, language, created_at, updated_at, pot_deadline_at)
         SELECT $1, account_id, offer_id, client_id, $2, '', 'Sums', $3, $4, language, $5, $5, $6 FROM purchases WHERE id = $7`,
        [id, o.state, o.amount, o.currency, new Date(T0 + o.minutes * 60_000 + 7_000), o.pot ? at : null, t.purchaseId],
      );
      made.purchases.push(id);
      return;
    }
    case 'state': {
      const p = pick(made.purchases, o.p);
      if (p) await db.query('UPDATE purchases SET state = $2, updated_at = $3 WHERE id = $1', [p, o.state, at]);
      return;
    }
    case 'capture': {
      const p = pick(made.purchases, o.p);
      if (!p) return;
      made.payments.push(await insertPayment(p, o.cents, 'captured', at));
      return;
    }
    case 'recapture': {
      const pay = pick(made.payments, o.pay);
      if (pay) await db.query('UPDATE payments SET captured_cents = $2 WHERE id = $1', [pay, o.cents]);
      return;
    }
    case 'allocation': {
      const p = pick(made.purchases, o.p);
      if (!p) return;
      const refund = randomUUID();
      const id = randomUUID();
      // Refunded from a payment of its own, captured by nothing here: only the allocation moves a figure.
      const payment = await insertPayment(p, 0, 'authorized', at);
      await db.query(
        `INSERT INTO refunds (id, account_id, purchase_id, amount_cents, state, created_at, updated_at)
         SELECT $1, account_id, id, $2, 'pending', $3, $3 FROM purchases WHERE id = $4`,
        [refund, o.cents, at, p],
      );
      await db.query(
        `INSERT INTO refund_allocations (id, account_id, refund_id, purchase_id, position, kind, payment_id, payer, amount_cents, state, created_at, updated_at)
         SELECT $1, account_id, $2, id, 0, 'refund', $7, 'leader', $3, $4, $5, $5 FROM purchases WHERE id = $6`,
        [id, refund, o.cents, o.state, at, p, payment],
      );
      made.allocations.push(id);
      return;
    }
    case 'allocationState': {
      const a = pick(made.allocations, o.a);
      if (a) await db.query('UPDATE refund_allocations SET state = $2 WHERE id = $1', [a, o.state]);
      return;
    }
    case 'allocationAmount': {
      const a = pick(made.allocations, o.a);
      if (a) await db.query('UPDATE refund_allocations SET amount_cents = $2 WHERE id = $1', [a, o.cents]);
      return;
    }
    case 'forgetAllocation': {
      const a = pick(made.allocations, o.a);
      if (!a) return;
      await db.query('DELETE FROM refund_allocations WHERE id = $1', [a]);
      made.allocations.splice(made.allocations.indexOf(a), 1);
      return;
    }
    case 'closing': {
      const p = pick(made.purchases, o.p);
      if (!p) return;
      const data = { ...(o.rest ? { rest_cents: 100 } : {}), ...(o.leaderAlone ? { payment_id: 'pay_x' } : {}) };
      await db.query(
        `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at)
         SELECT account_id, id, $2, 'LEADER_PROCESSED', $3, $4, $5 FROM purchases WHERE id = $1`,
        [p, o.to === 'SUCCESSFUL' ? 'purchase.succeeded' : 'purchase.failed', o.to, JSON.stringify(data), at],
      );
      return;
    }
    case 'deliveries': {
      const p = pick(made.purchases, o.p);
      if (!p) return;
      // One statement for the event and its deliveries, as a dispatcher batch writes several rows at once.
      const { rows } = await db.query<{ id: string }>(
        `WITH e AS (
           INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, created_at)
           SELECT account_id, id, 'purchase.leader_processed', 'CREATED', 'LEADER_PROCESSED', $2 FROM purchases, generate_series(1, $3) WHERE id = $1
           RETURNING id, account_id, purchase_id)
         INSERT INTO deliveries (id, account_id, purchase_id, event_id, kind, url, payload, status, created_at, updated_at)
         SELECT gen_random_uuid(), e.account_id, e.purchase_id, e.id, 'webhook', 'http://127.0.0.1:9/', '{}', 'pending', p.created_at + interval '14 minutes', $2
           FROM e JOIN purchases p ON p.id = e.purchase_id
         RETURNING id`,
        [p, at, o.n],
      );
      made.deliveries.push(...rows.map((r) => r.id));
      return;
    }
    case 'outcomes': {
      const ids = [...new Set(o.ds.map((i) => pick(made.deliveries, i)).filter((d): d is string => !!d))];
      if (ids.length) await db.query('UPDATE deliveries SET status = $2, failures = $3 WHERE id = ANY($1::uuid[])', [ids, o.status, o.failures]);
      return;
    }
    case 'forgetDelivery': {
      const d = pick(made.deliveries, o.d);
      if (!d) return;
      await db.query('DELETE FROM deliveries WHERE id = $1', [d]);
      made.deliveries.splice(made.deliveries.indexOf(d), 1);
    }
  }
}

/** Every figure per account, slot and currency, the shards summed; rows whose figures are all zero left out. */
async function sums(): Promise<unknown[]> {
  const purchases = await db.query(
    `SELECT account_id, slot, currency, sum(created)::int AS created, sum(amount_cents)::text AS amount, sum(paid)::int AS paid, sum(failed)::int AS failed,
            sum(refunded)::int AS refunded, sum(collected_cents)::text AS collected, sum(refunded_cents)::text AS given_back,
            sum(pots_by_friends)::int AS friends, sum(pots_by_leader)::int AS leader, sum(pots_rest_refused)::int AS refused
       FROM purchase_stats GROUP BY 1, 2, 3
     HAVING (sum(created), sum(amount_cents), sum(paid), sum(failed), sum(refunded), sum(collected_cents), sum(refunded_cents),
             sum(pots_by_friends), sum(pots_by_leader), sum(pots_rest_refused)) IS DISTINCT FROM (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
      ORDER BY 1, 2, 3`,
  );
  const deliveries = await db.query(
    `SELECT account_id, slot, sum(delivered)::int AS delivered, sum(failing)::int AS failing, sum(pending)::int AS pending
       FROM delivery_stats GROUP BY 1, 2 HAVING (sum(delivered), sum(failing), sum(pending)) IS DISTINCT FROM (0, 0, 0) ORDER BY 1, 2`,
  );
  return [purchases.rows, deliveries.rows];
}

describe("the home page's running sums", () => {
  it('equal a recount from the rows after any sequence of writes (purchases, state moves, captures, refunds, pot closings, delivery batches, deletions)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const made: Made = { purchases: [], payments: [], allocations: [], deliveries: [] };
        for (const o of ops) await apply(made, o);
        const kept = await sums();
        await db.query('SELECT chipin_home_stats_rebuild()');
        expect(kept).toEqual(await sums());
      }),
      { numRuns: 25 },
    );
  });

  // Beyond the random writes' 3 days: this slot holds this test's purchase alone.
  const FAR = 5 * 24 * 60;
  it('counts a purchase in the 15-minute slot of its creation, and a state move in that same slot', async () => {
    const made: Made = { purchases: [], payments: [], allocations: [], deliveries: [] };
    await apply(made, { op: 'purchase', account: 1, state: 'CREATED', amount: 4_321, currency: 'USD', minutes: FAR + 29, pot: false });
    await apply(made, { op: 'state', p: 0, state: 'SUCCESSFUL' });
    const { rows } = await db.query<{ slot: Date; created: number; paid: number; amount: string }>(
      `SELECT slot, sum(created)::int AS created, sum(paid)::int AS paid, sum(amount_cents)::text AS amount FROM purchase_stats
        WHERE account_id = $1 AND currency = 'USD' AND slot >= $2 AND slot < $3 GROUP BY slot`,
      [templates[1]!.accountId, new Date(T0 + (FAR + 15) * 60_000), new Date(T0 + (FAR + 30) * 60_000)],
    );
    expect(rows.map((r) => ({ ...r, slot: r.slot.toISOString() }))).toEqual([{ slot: new Date(T0 + (FAR + 15) * 60_000).toISOString(), created: 1, paid: 1, amount: '4321' }]);
  });
});

/**
 * A purchase's `refunded_cents` (migration 049), which the CSV export shows, is kept by a trigger
 * on refund allocations: whatever the writes, it equals the sum of the purchase's succeeded
 * allocations, on both engines.
 */
describe("a purchase's kept refunded total", () => {
  it('equals the sum of its succeeded refund allocations after any sequence of writes (allocations made in any state, settled, resized, deleted)', async () => {
    await fc.assert(
      // A few purchases first, then the allocations' writes among purchase state moves.
      fc.asyncProperty(
        fc.array(purchaseOp, { minLength: 1, maxLength: 4 }),
        fc.array(fc.oneof(stateOp, ...allocationOps), { minLength: 1, maxLength: 30 }),
        async (purchases, writes) => {
          const made: Made = { purchases: [], payments: [], allocations: [], deliveries: [] };
          for (const o of [...purchases, ...writes]) await apply(made, o);
          const { rows } = await db.query<{ kept: string; counted: string }>(
            `SELECT p.refunded_cents::text AS kept,
                  (SELECT COALESCE(sum(ra.amount_cents), 0) FROM refund_allocations ra WHERE ra.purchase_id = p.id AND ra.state = 'succeeded')::text AS counted
             FROM purchases p WHERE p.id = ANY($1::uuid[])`,
            [made.purchases],
          );
          expect(rows.length).toBe(made.purchases.length);
          for (const r of rows) expect(r.kept).toBe(r.counted);
        },
      ),
      { numRuns: 25 },
    );
  });
});
