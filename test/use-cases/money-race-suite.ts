/**
 * The randomized race suite of docs/money-operations.md#one-money-operation-at-a-time, shared by
 * the in-process run (test/use-cases/money-race.test.ts, both databases) and the run on two
 * `chipin serve` processes (test/process/money-race.test.ts, PostgreSQL): purchases of every kind
 * paid by their leader, then rounds of conflicting operations sent at the same moment on the same
 * purchase through the HTTP API (refunds, cancels, `trigger_capture`, pledgers paying, disputes
 * lost or won, the sandbox clock moved across due dates, deadlines and hold renewals), then the
 * clock moved past every due date. The outcome is read at the sandbox PSP's own records.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { signHs256 } from '../../src/delivery/jwt.ts';

/** What the suite needs of the service: HTTP through one of its processes, and SQL reads. */
export interface RaceTarget {
  processes: number;
  call(process: number, method: 'GET' | 'POST', path: string, body?: object, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
  query<T>(sql: string, params: unknown[]): Promise<T[]>;
  offers: { merchant_uid: string; type: string; installments: number; secret: string }[];
}

const DAY_S = 86_400;
type Plan = 'pot' | '3x' | '4x' | 'deferred';
type Op =
  | { kind: 'refund'; share: number | 'all' }
  | { kind: 'cancel' }
  | { kind: 'trigger_capture' }
  | { kind: 'clock'; days: number }
  | { kind: 'pledge_pays' }
  | { kind: 'dispute'; outcome: 'lose' | 'win' };

export interface PurchaseScript {
  plan: Plan;
  amount: number;
  /** The leader's card opens a chargeback once captured (the sandbox's 4000 0000 0000 0259). */
  disputed: boolean;
  /** Each round's operations are sent at once. */
  rounds: Op[][];
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('refund' as const), share: fc.oneof(fc.constant('all' as const), fc.integer({ min: 1, max: 60 })) }),
  fc.constant({ kind: 'cancel' as const }),
  fc.constant({ kind: 'trigger_capture' as const }),
  fc.record({ kind: fc.constant('clock' as const), days: fc.integer({ min: 1, max: 40 }) }),
  fc.constant({ kind: 'pledge_pays' as const }),
  fc.record({ kind: fc.constant('dispute' as const), outcome: fc.constantFrom('lose' as const, 'win' as const) }),
);

export const purchaseScript: fc.Arbitrary<PurchaseScript> = fc.record({
  plan: fc.constantFrom<Plan>('pot', '3x', '4x', 'deferred'),
  amount: fc.integer({ min: 5_000, max: 120_000 }),
  disputed: fc.boolean(),
  rounds: fc.array(fc.array(op, { minLength: 2, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
});

/** Statuses a client may be answered with for a conflicting or pointless operation: never a 5xx. */
const ACCEPTABLE = new Set([200, 201, 202, 400, 402, 404, 406, 409]);

interface Running {
  id: string;
  script: PurchaseScript;
  owed: number;
  token: string;
}

function offerOf(target: RaceTarget, plan: Plan) {
  const [type, installments] = plan === 'pot' ? ['SHARED', 1] : plan === 'deferred' ? ['DEFERRED', 1] : ['INSTALLMENTS', plan === '3x' ? 3 : 4];
  return target.offers.find((o) => o.type === type && o.installments === installments)!;
}

/** Σ captured − Σ refunded at the sandbox PSP, over the transactions started with the purchase's keys. */
async function keptAtPsp(target: RaceTarget, purchaseId: string): Promise<number> {
  const rows = await target.query<{ net: number | null }>(
    `SELECT sum(t.captured_cents - t.refunded_cents)::int AS net FROM sandbox_psp_idempotency i
       JOIN payments p ON p.idempotency_key = i.idempotency_key
       JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
     WHERE p.purchase_id = $1 AND i.operation IN ('authorize', 'charge_off_session')`,
    [purchaseId],
  );
  return Number(rows[0]?.net ?? 0);
}

/** What the bank took back (lost chargebacks) on the purchase's transactions, at the sandbox PSP. */
async function chargedBackAtPsp(target: RaceTarget, purchaseId: string): Promise<number> {
  const rows = await target.query<{ n: number | null }>(
    `SELECT sum(t.charged_back_cents)::int AS n FROM sandbox_psp_idempotency i
       JOIN payments p ON p.idempotency_key = i.idempotency_key
       JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
     WHERE p.purchase_id = $1 AND i.operation IN ('authorize', 'charge_off_session')`,
    [purchaseId],
  );
  return Number(rows[0]?.n ?? 0);
}

async function start(target: RaceTarget, script: PurchaseScript, n: number): Promise<Running | undefined> {
  const offer = offerOf(target, script.plan);
  const created = await target.call(n % target.processes, 'POST', '/api/merchants/v1/purchases', {
    title: 'Race',
    amount: script.amount,
    client: { email: `race${n}@example.com` },
    merchant_uid: offer.merchant_uid,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  const third = Math.floor(script.amount / 3);
  const pledgers =
    script.plan === 'pot'
      ? [
          { email: `ann${n}@example.com`, amount_cents: third },
          { email: `bob${n}@example.com`, amount_cents: third },
        ]
      : [];
  const paid = await target.call(n % target.processes, 'POST', `/api/sandbox/purchases/pur_${id}/pay`, {
    card_number: script.disputed ? '4000000000000259' : '4242424242424242',
    ...(pledgers.length ? { pledgers } : {}),
  });
  // An amount outside the offer's limits is refused at creation or payment: nothing to race.
  if (paid.status !== 200) return undefined;
  const left = await target.query<{ due: number }>(
    "SELECT COALESCE(sum(amount_cents + fees_cents), 0)::int AS due FROM installments WHERE purchase_id = $1 AND state = 'scheduled'",
    [id],
  );
  const owed = script.plan === 'pot' ? script.amount : (await keptAtPsp(target, id)) + Number(left[0]!.due);
  return { id, script, owed, token: signHs256({ merchantUid: offer.merchant_uid, purchaseUid: `pur_${id}` }, offer.secret) };
}

async function play(target: RaceTarget, p: Running, o: Op, proc: number): Promise<void> {
  const expectAcceptable = (r: { status: number; body: unknown }, what: string) => expect(ACCEPTABLE.has(r.status), `${what}: ${r.status} ${JSON.stringify(r.body)}`).toBe(true);
  switch (o.kind) {
    case 'refund': {
      const amount = o.share === 'all' ? undefined : Math.max(1, Math.floor((p.owed * o.share) / 100));
      expectAcceptable(await target.call(proc, 'POST', `/api/merchants/v1/purchases/${p.id}/refunds`, amount === undefined ? {} : { amount }), 'refund');
      return;
    }
    case 'cancel':
      expectAcceptable(await target.call(proc, 'POST', `/api/merchants/v1/purchases/${p.id}/cancel`), 'cancel');
      return;
    case 'trigger_capture':
      expectAcceptable(await target.call(proc, 'POST', `/api/trigger_capture/?signature=${p.token}`), 'trigger_capture');
      return;
    case 'clock':
      expectAcceptable(await target.call(proc, 'POST', '/api/sandbox/clock', { advance_seconds: o.days * DAY_S }), 'clock');
      return;
    case 'pledge_pays': {
      const [pledge] = await target.query<{ id: string }>("SELECT id FROM pledges WHERE purchase_id = $1 AND state IN ('invited', 'draft') ORDER BY position LIMIT 1", [p.id]);
      if (!pledge) return;
      expectAcceptable(await target.call(proc, 'POST', `/api/sandbox/pledges/plg_${pledge.id}/pay`, { card_number: '4242424242424242' }), 'pledge');
      return;
    }
    case 'dispute': {
      const listed = await target.call(proc, 'GET', `/api/sandbox/purchases/pur_${p.id}/disputes`);
      const open = ((listed.body.data ?? []) as { id: string; state: string }[]).find((d) => d.state === 'open' || d.state === 'evidence_sent');
      if (!open) return;
      expectAcceptable(await target.call(proc, 'POST', `/api/sandbox/disputes/${open.id}/${o.outcome}`), 'dispute');
      return;
    }
  }
}

/** The audit's invariants, at the PSP's own records, once every due date has passed. */
async function check(target: RaceTarget, p: Running): Promise<void> {
  const [purchase] = await target.query<{ state: string; refunded_cents: number }>('SELECT state, refunded_cents::int AS refunded_cents FROM purchases WHERE id = $1', [p.id]);
  const where = `${p.script.plan} ${p.id} ${purchase!.state} ${JSON.stringify(p.script.rounds)}`;
  const kept = await keptAtPsp(target, p.id);
  const [rows] = await target.query<{ net: number }>('SELECT COALESCE(sum(captured_cents - refunded_cents), 0)::int AS net FROM payments WHERE purchase_id = $1', [p.id]);
  expect(Number(rows!.net), `Chipin's payments against the PSP: ${where}`).toBe(kept);
  expect(purchase!.state, `every due date and deadline passed: ${where}`).not.toBe('LEADER_PROCESSED');
  if (purchase!.state === 'CANCELLED') expect(kept, `a CANCELLED purchase keeps nothing: ${where}`).toBe(0);
  if (purchase!.state === 'SUCCESSFUL') expect(kept, `kept = owed − refunded: ${where}`).toBe(p.owed - Number(purchase!.refunded_cents));
  // REFUNDED: all of it went back to the cards, but what the bank already took back (a lost
  // chargeback), which was not refunded again (docs/money-operations.md#refunds-and-disputes).
  if (purchase!.state === 'REFUNDED') expect(kept, `a REFUNDED purchase keeps only what was charged back: ${where}`).toBe(await chargedBackAtPsp(target, p.id));
  // Per PSP transaction: never more given back (refunds and lost chargebacks) than captured.
  const over = await target.query(
    `SELECT t.id, t.captured_cents, t.refunded_cents, t.charged_back_cents FROM sandbox_psp_idempotency i
       JOIN payments p ON p.idempotency_key = i.idempotency_key JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
     WHERE p.purchase_id = $1 AND t.refunded_cents + t.charged_back_cents > t.captured_cents`,
    [p.id],
  );
  expect(over, `refunded + charged back ≤ captured: ${where}`).toEqual([]);
  const duplicates = await target.query(
    `SELECT data->>'payment_id' AS payment, data->'transaction'->>'status' AS status, data->'transaction'->>'amount_cents' AS amount, count(*)::int AS n
       FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.transaction' GROUP BY 1, 2, 3 HAVING count(*) > 1`,
    [p.id],
  );
  expect(duplicates, `one notification per movement: ${where}`).toEqual([]);
  if (purchase!.state !== 'LEADER_PROCESSED') {
    const live = await target.query(
      `SELECT t.id FROM sandbox_psp_idempotency i JOIN payments p ON p.idempotency_key = i.idempotency_key
         JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
       WHERE p.purchase_id = $1 AND t.status = 'authorized' AND (t.expires_at IS NULL OR t.expires_at > (SELECT now() + offset_ms * interval '1 millisecond' FROM sandbox_clock LIMIT 1))`,
      [p.id],
    );
    expect(live, `no hold left live on a settled purchase: ${where}`).toEqual([]);
  }
}

/**
 * One run: the purchases started, their rounds played (the purchases side by side, each round's
 * operations at once, alternating processes), the clock moved past every due date, dunning retry
 * and deadline (twice, so jobs rescheduled by a claim run), then every purchase checked.
 */
export async function raceRun(target: RaceTarget, scripts: PurchaseScript[]): Promise<number> {
  const started = (await Promise.all(scripts.map((s, n) => start(target, s, n)))).filter((p): p is Running => p !== undefined);
  const rounds = Math.max(0, ...started.map((p) => p.script.rounds.length));
  for (let r = 0; r < rounds; r++) {
    await Promise.all(started.flatMap((p) => (p.script.rounds[r] ?? []).map((o, k) => play(target, p, o, (r + k) % target.processes))));
  }
  for (let pass = 0; pass < 3; pass++) {
    const moved = await target.call(pass % target.processes, 'POST', '/api/sandbox/clock', { advance_seconds: 60 * DAY_S });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  }
  for (const p of started) await check(target, p);
  return started.length;
}
