import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { dueAt } from '../../src/domain/installment-rules.ts';
import { EVENT } from '../../src/domain/events.ts';
import { triggerOf } from '../../src/delivery/triggers.ts';
import { sandboxDefinition } from '../../src/psp/sandbox/definition.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { findPayment } from '../../src/payments/payment-repository.ts';
import { lastTransactionEvent } from '../../src/payments/transaction-event-repository.ts';
import { LEADER_PURPOSES } from '../../src/domain/leader-plan.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { payPledge } from '../../src/use-cases/pot/pay-pledge.ts';
import { nextReauthKey, reauthorizeHold, REAUTH_JOB } from '../../src/use-cases/installments/reauthorize-hold.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';
import { card, CARDS, newShop, type Shop } from './support.ts';

/**
 * Re-authorisation (docs/money-operations.md#re-authorisation), on the sandbox clock: pots of 7,
 * 30 and 45 days and deferred payments of 7, 30 and 45 days. Read from the sandbox PSP's own table
 * (sandbox_psp_transactions): before the deadline the purchase is never without a live hold (or a
 * capture), two holds never coexist longer than the documented overlap, and the merchant is paid
 * in full at the deadline. A refused renewal keeps the old hold, tells the shopper and the
 * merchant, and the deadline's fallback follows.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** The sandbox's documented overlap (0 h: a void releases at once), plus the job's own run on the wall clock. */
const OVERLAP_MS = (sandboxDefinition.authorizationValidity!.voidReleaseHours ?? 0) * HOUR + 60_000;

let smtp: Awaited<ReturnType<typeof smtpListener>>;
let iso: IsolatedDatabase;
let db: Database;
let app: TestApp;
beforeAll(async () => {
  smtp = await smtpListener();
  iso = await isolatedDatabase();
  db = await iso.open();
  // A database of its own: these tests move the service-wide sandbox clock by months.
  app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, jobPollIntervalMs: 0, logLevel: 'silent' }, { db, shareDatabase: true });
});
afterAll(async () => {
  await app?.close();
  await iso?.dispose();
  await smtp?.close();
});

const ret = () => 'http://127.0.0.1:3000/return';
const deps = () => app.services.payments;

/** Moves the sandbox clock to `at` through the route, which runs what fell due before answering. */
async function advanceTo(shop: Shop, at: Date): Promise<void> {
  const seconds = Math.ceil((at.getTime() - app.services.clock.now().getTime()) / 1000);
  if (seconds <= 0) return;
  const res = await app.server.inject({
    method: 'POST',
    url: '/api/sandbox/clock',
    headers: { authorization: `Bearer ${shop.token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ advance_seconds: seconds }),
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** Walks the clock to `until` from one of the shop's jobs to the next, each run when it falls due as a live service runs it. */
async function walk(shop: Shop, until: Date): Promise<void> {
  for (;;) {
    const now = app.services.clock.now();
    if (now.getTime() >= until.getTime()) return;
    const { rows } = await db.query<{ at: Date | null }>('SELECT min(run_at) AS at FROM jobs WHERE account_id = $1 AND done_at IS NULL AND run_at > $2', [shop.accountId, now]);
    const next = rows[0]?.at ? new Date(rows[0].at).getTime() : Infinity;
    await advanceTo(shop, new Date(Math.min(next, until.getTime())));
  }
}

/** A shop whose SHARED pot deadline, or DEFERRED delay, is `days` (offers allow 720 h at most through the API: set here directly). */
async function shopWith(kind: 'pot' | 'deferred', days: number): Promise<Shop> {
  const shop = await newShop(app);
  if (kind === 'pot') await db.query("UPDATE offers SET pot_deadline_hours = $2 WHERE account_id = $1 AND type = 'SHARED'", [shop.accountId, days * 24]);
  else await db.query("UPDATE offers SET deferred_days = $2 WHERE account_id = $1 AND type = 'DEFERRED'", [shop.accountId, days]);
  app.services.payments.offers.forget(shop.accountId);
  return shop;
}

interface Txn {
  id: string;
  purpose: string;
  status: string;
  amount: number;
  captured: number;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date | null;
}

/** The sandbox PSP's transactions of the leader's card for the purchase (holds, captures), oldest first. */
async function sandboxTxns(purchaseId: string): Promise<Txn[]> {
  const { rows } = await db.query<{
    id: string;
    purpose: string;
    status: string;
    amount_cents: number;
    captured_cents: number;
    created_at: Date;
    updated_at: Date;
    expires_at: Date | null;
  }>(
    `SELECT t.id, p.purpose, t.status, t.amount_cents, t.captured_cents, t.created_at, t.updated_at, t.expires_at
     FROM payments p JOIN sandbox_psp_transactions t ON t.id = p.psp_transaction_id
     WHERE p.purchase_id = $1 AND p.purpose IN ('guarantee', 'deferred') ORDER BY t.created_at, t.id`,
    [purchaseId],
  );
  return rows.map((r) => ({
    id: r.id,
    purpose: r.purpose,
    status: r.status,
    amount: Number(r.amount_cents),
    captured: Number(r.captured_cents),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    expiresAt: r.expires_at && new Date(r.expires_at),
  }));
}

/** When a transaction stopped being a live hold: voided (its update), captured (its update: money, from then on), lapsed (its expiry). */
function holdEnd(t: Txn): number {
  if (t.status === 'cancelled' || t.status === 'settled') return t.updatedAt.getTime();
  return t.expiresAt!.getTime();
}

/** Asserts the guarantee's invariants over [first hold, deadline]: always covered, never two live holds beyond the overlap. */
function assertCovered(txns: Txn[], deadline: Date): void {
  const live = txns.filter((t) => t.status !== 'failed');
  expect(live.length).toBeGreaterThan(0);
  // Covered: a hold live (or the money captured) at every instant until the deadline.
  let reach = live[0]!.createdAt.getTime();
  for (const t of live) {
    expect(t.createdAt.getTime(), `a gap before ${t.id}`).toBeLessThanOrEqual(reach);
    reach = Math.max(reach, t.status === 'settled' ? Infinity : holdEnd(t));
  }
  expect(reach, 'a hold or a capture at the deadline').toBeGreaterThanOrEqual(deadline.getTime());
  // Never two live holds for longer than the documented overlap.
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      const a = live[i]!;
      const b = live[j]!;
      const overlap = Math.min(holdEnd(a), holdEnd(b)) - Math.max(a.createdAt.getTime(), b.createdAt.getTime());
      expect(overlap, `${a.id} and ${b.id} held together`).toBeLessThanOrEqual(OVERLAP_MS);
    }
  }
}

async function eventsOf(purchaseId: string, type: string) {
  const { rows } = await db.query<{ data: Record<string, unknown> }>('SELECT data FROM purchase_events WHERE purchase_id = $1 AND type = $2 ORDER BY id', [purchaseId, type]);
  return rows.map((r) => r.data);
}

async function stateOf(purchaseId: string): Promise<string> {
  const { rows } = await db.query<{ state: string }>('SELECT state FROM purchases WHERE id = $1', [purchaseId]);
  return rows[0]!.state;
}

/** Captured on every payment of the purchase (the leader's and the friends'). */
async function capturedOf(purchaseId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT COALESCE(sum(captured_cents), 0)::text AS n FROM payments WHERE purchase_id = $1', [purchaseId]);
  return Number(rows[0]!.n);
}

describe(`re-authorisation before a hold lapses (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it.each([7, 30, 45])('a pot of %i days keeps a live guarantee to its deadline, renewed every 6 days, and the merchant is paid in full', async (days) => {
    const shop = await shopWith('pot', days);
    const id = await shop.purchase({ client: { email: `pot${days}@example.com` } });
    const led = await payAsLeader(
      deps(),
      { id, accountId: shop.accountId },
      card(CARDS.ok),
      [
        { email: 'ann@example.com', amountCents: 2_500 },
        { email: 'bob@example.com', amountCents: 2_500 },
      ],
      ret,
    );
    expect(led).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    const { rows } = await db.query<{ pot_deadline_at: Date }>('SELECT pot_deadline_at FROM purchases WHERE id = $1', [id]);
    const deadline = new Date(rows[0]!.pot_deadline_at);
    if (days === 30) {
      // A friend pays on day 3: the renewals hold only what is still to be captured.
      await walk(shop, new Date(app.services.clock.now().getTime() + 3 * DAY));
      const [ann] = await listPledges(db, shop.accountId, id);
      expect(await payPledge(deps(), ann!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    }
    await walk(shop, new Date(deadline.getTime() + HOUR));

    expect(await stateOf(id)).toBe('SUCCESSFUL');
    expect(await capturedOf(id)).toBe(10_000);
    const txns = await sandboxTxns(id);
    assertCovered(txns, deadline);
    const renewals = await eventsOf(id, EVENT.paymentReauthorized);
    // 7-day holds renewed a day before they lapse: one per 6 days until the deadline is within reach.
    expect(renewals).toHaveLength(Math.floor((days - 1) / 6));
    expect(txns.filter((t) => t.status === 'held')).toHaveLength(0);
    // The last hold is what the deadline captured the rest from; every earlier one was voided.
    expect(txns.at(-1)).toMatchObject({ status: 'settled', captured: days === 30 ? 2_500 : 5_000 });
    expect(txns.slice(0, -1).every((t) => t.status === 'cancelled')).toBe(true);
    if (days === 30) expect(txns.slice(1).every((t) => t.amount === 2_500)).toBe(true);
    expect(await eventsOf(id, EVENT.paymentReauthorizationFailed)).toHaveLength(0);
  });

  it.each([7, 30, 45])('a deferred payment of %i days keeps a live hold to its due date, and is collected in full', async (days) => {
    const shop = await shopWith('deferred', days);
    const id = await shop.purchase({ client: { email: `deferred${days}@example.com` }, merchant_uid: shop.offer('DEFERRED').merchant_uid });
    expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [], ret)).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    const { rows } = await db.query<{ due_date: string | Date }>('SELECT due_date FROM installments WHERE purchase_id = $1', [id]);
    const due = dueAt(rows[0]!.due_date);
    await walk(shop, new Date(due.getTime() + HOUR));

    expect(await stateOf(id)).toBe('SUCCESSFUL');
    expect(await capturedOf(id)).toBe(10_000);
    const txns = await sandboxTxns(id);
    assertCovered(txns, due);
    // Collected from the last hold, not charged afresh off session.
    expect(txns.at(-1)).toMatchObject({ status: 'settled', captured: 10_000 });
    const { rows: charges } = await db.query("SELECT 1 FROM payments WHERE purchase_id = $1 AND purpose = 'installment'", [id]);
    expect(charges).toHaveLength(0);
    // Renewed a day before each lapse while the due date (midnight) is not safely within the hold's life.
    expect(await eventsOf(id, EVENT.paymentReauthorized)).toHaveLength(Math.floor((days - 1) / 6));
  });

  it('a renewal stopped between the switch and the void leaves two holds only until the job runs again, which voids the old one', async () => {
    const shop = await shopWith('pot', 20);
    const id = await shop.purchase({ client: { email: 'crash@example.com' } });
    await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [{ email: 'ann@example.com', amountCents: 5_000 }], ret);
    const { rows } = await db.query<{ guarantee_payment_id: string }>('SELECT guarantee_payment_id FROM purchases WHERE id = $1', [id]);
    const first = (await findPayment(db, shop.accountId, rows[0]!.guarantee_payment_id))!;
    // The process dies after the switch's transaction: simulated by a connector whose void never answers.
    const registry = app.services.payments.psps;
    const forPayment = registry.forPayment.bind(registry);
    const crashing = {
      ...deps(),
      psps: {
        ...registry,
        definition: registry.definition.bind(registry),
        forOffer: registry.forOffer.bind(registry),
        forPayment: async (p: Parameters<typeof forPayment>[0]) => {
          const c = await forPayment(p);
          return new Proxy(c, {
            get(target, key) {
              if (key === 'void') return () => Promise.reject(new Error('process killed'));
              const v: unknown = Reflect.get(target, key, target);
              return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
            },
          });
        },
      },
    };
    await db.query('UPDATE jobs SET done_at = now() WHERE dedupe_key = $1', [`${REAUTH_JOB}:${first.id}`]); // the job is driven by hand here
    await walk(shop, new Date(app.services.clock.now().getTime() + 6 * DAY));
    await expect(reauthorizeHold(crashing, shop.accountId, first.id)).rejects.toThrow('process killed');
    const second = (await db.query<{ id: string; status: string }>('SELECT id, status FROM payments WHERE idempotency_key = $1', [nextReauthKey(first.idempotency_key)])).rows[0]!;
    expect(second.status).toBe('authorized');
    expect((await db.query<{ guarantee_payment_id: string }>('SELECT guarantee_payment_id FROM purchases WHERE id = $1', [id])).rows[0]!.guarantee_payment_id).toBe(second.id);
    expect((await sandboxTxns(id)).filter((t) => t.status === 'held')).toHaveLength(2); // two live holds, for now
    // The job runs again (its lease ended): it finds the switch done and voids the old hold; a third run changes nothing.
    expect(await reauthorizeHold(deps(), shop.accountId, first.id)).toBe('old_voided');
    expect(await reauthorizeHold(deps(), shop.accountId, first.id)).toBe('not_needed');
    const txns = await sandboxTxns(id);
    expect(txns.map((t) => t.status)).toEqual(['cancelled', 'held']);
    expect(await eventsOf(id, EVENT.paymentReauthorized)).toHaveLength(1);
    // The merchant's front end still reads the checkout's result, not the renewal's void.
    const offerId = (await db.query<{ offer_id: string }>('SELECT offer_id FROM purchases WHERE id = $1', [id])).rows[0]!.offer_id;
    const last = (await lastTransactionEvent(db, { accountId: shop.accountId, id, offerId }, LEADER_PURPOSES))!;
    expect(last.data.reauth).toBeUndefined();
    expect(last.data.transaction).toMatchObject({ status: 'completed' }); // the leader's share
  });

  // Past the offer cache's 5 s the offer must be loaded again: loaded inside the renewal's
  // transaction, on a query that waits for that transaction, the renewal would hang for good on
  // the embedded database (money-claim.test.ts, trigger_capture racing a hold renewal).
  it('renews a hold when the offer cache must load the offer (nothing is read outside the renewal’s transaction while it is open)', async () => {
    const shop = await shopWith('pot', 20);
    const id = await shop.purchase({ client: { email: 'cold@example.com' } });
    await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [{ email: 'ann@example.com', amountCents: 5_000 }], ret);
    const { rows } = await db.query<{ guarantee_payment_id: string }>('SELECT guarantee_payment_id FROM purchases WHERE id = $1', [id]);
    await db.query('UPDATE jobs SET done_at = now() WHERE dedupe_key = $1', [`${REAUTH_JOB}:${rows[0]!.guarantee_payment_id}`]); // driven by hand here
    await walk(shop, new Date(app.services.clock.now().getTime() + 6 * DAY));
    app.services.payments.offers.forget(shop.accountId);
    expect(await reauthorizeHold(deps(), shop.accountId, rows[0]!.guarantee_payment_id)).toBe('reauthorized');
  });

  it('a refused renewal keeps the old hold, tells the shopper and the merchant, and the due date falls back to an off-session charge', async () => {
    const shop = await shopWith('deferred', 30);
    const email = 'refused@example.com';
    const id = await shop.purchase({ client: { email }, merchant_uid: shop.offer('DEFERRED').merchant_uid });
    // A card that authorises with the shopper present, and refuses every merchant-initiated charge.
    expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.offSessionFails), [], ret)).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    const started = app.services.clock.now();
    await walk(shop, new Date(started.getTime() + 6 * DAY + 13 * HOUR));

    const failed = await eventsOf(id, EVENT.paymentReauthorizationFailed);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ purpose: 'deferred', amount_cents: 10_000, reason: expect.any(String) });
    expect(triggerOf(EVENT.paymentReauthorizationFailed)).toBe('reauthorizationFailed'); // the merchant's webhook, for endpoints that chose it
    expect(await eventsOf(id, EVENT.paymentReauthorized)).toHaveLength(0);
    const txns = await sandboxTxns(id);
    expect(txns.map((t) => t.status)).toEqual(['held', 'failed']); // the old hold kept
    expect(smtp.received.filter((r) => r.to.includes(email)).some((r) => /refused to renew this hold/.test(decoded(r.raw).replace(/\s+/g, ' ')))).toBe(true);
    // Nothing more is tried before the due date; at it, the lapsed hold falls back to an off-session charge (refused by this card).
    const { rows } = await db.query<{ due_date: string | Date }>('SELECT due_date FROM installments WHERE purchase_id = $1', [id]);
    await walk(shop, new Date(dueAt(rows[0]!.due_date).getTime() + HOUR));
    const { rows: charges } = await db.query<{ status: string }>("SELECT status FROM payments WHERE purchase_id = $1 AND purpose = 'installment'", [id]);
    expect(charges.map((c) => c.status)).toEqual(['declined']);
  });
});
