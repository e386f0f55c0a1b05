import { expect } from 'vitest';
import type { Sql } from '../../src/db/database.ts';

/**
 * The pot's money as the sandbox PSP itself recorded it (its tables, migration 003), set against
 * what Chipin says: the pledges, the `payment.transaction` events (each one a back-mode
 * notification) and the receipts.
 */

/** Σ captured − Σ refunded at the PSP, over the transactions started with the purchase's keys. */
export async function keptAtPsp(db: Sql, purchaseId: string): Promise<number> {
  const { rows } = await db.query<{ net: number | null }>(
    `SELECT sum(t.captured_cents - t.refunded_cents)::int AS net FROM sandbox_psp_idempotency i
       JOIN payments p ON p.idempotency_key = i.idempotency_key
       JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
     WHERE p.purchase_id = $1 AND i.operation IN ('authorize', 'charge_off_session')`,
    [purchaseId],
  );
  return rows[0]?.net ?? 0;
}

interface PledgePayment {
  pledge_id: string;
  pledge_state: string;
  pledge_payment_id: string | null;
  share: number;
  payment_id: string;
  /** At the PSP: what its transaction captured and what it still keeps. */
  captured: number;
  kept: number;
  completed: number;
  /** `payment.transaction` events of any status. */
  events: number;
  receipts: number;
}

async function pledgePayments(db: Sql, purchaseId: string): Promise<PledgePayment[]> {
  const { rows } = await db.query<PledgePayment>(
    `SELECT pl.id AS pledge_id, pl.state AS pledge_state, pl.payment_id AS pledge_payment_id, pl.amount_cents::int AS share, p.id AS payment_id,
            COALESCE(t.captured_cents, 0)::int AS captured, COALESCE(t.captured_cents - t.refunded_cents, 0)::int AS kept,
            (SELECT count(*) FROM purchase_events e WHERE e.purchase_id = p.purchase_id AND e.type = 'payment.transaction'
               AND e.data->>'payment_id' = p.id::text AND e.data->'transaction'->>'status' = 'completed')::int AS completed,
            (SELECT count(*) FROM purchase_events e WHERE e.purchase_id = p.purchase_id AND e.type = 'payment.transaction'
               AND e.data->>'payment_id' = p.id::text)::int AS events,
            (SELECT count(*) FROM outbound_messages m WHERE m.purchase_id = p.purchase_id AND m.message_key = 'receipt:' || p.id::text)::int AS receipts
     FROM payments p JOIN pledges pl ON pl.id = p.pledge_id
     LEFT JOIN sandbox_psp_idempotency i ON i.idempotency_key = p.idempotency_key AND i.operation = 'authorize'
     LEFT JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
     WHERE p.purchase_id = $1 ORDER BY pl.position, p.created_at`,
    [purchaseId],
  );
  return rows;
}

/** `completed` events whose amount the PSP does not keep on that transaction. */
async function completedNotKept(db: Sql, purchaseId: string): Promise<unknown[]> {
  const { rows } = await db.query(
    `SELECT e.data->>'payment_id' AS payment, (e.data->'transaction'->>'amount_cents')::int AS announced, (t.captured_cents - t.refunded_cents)::int AS kept
     FROM purchase_events e JOIN sandbox_psp_transactions t ON t.id = e.data->'transaction'->>'id'
     WHERE e.purchase_id = $1 AND e.type = 'payment.transaction' AND e.data->'transaction'->>'status' = 'completed'
       AND (e.data->'transaction'->>'amount_cents')::bigint <> t.captured_cents - t.refunded_cents`,
    [purchaseId],
  );
  return rows;
}

/**
 * A settled pot, checked at the PSP: a SUCCESSFUL purchase kept exactly its amount; each friend
 * either paid once (their pledge paid by that payment, one `completed` notification, one
 * receipt) or got everything back (their pledge not paid, no notification and no receipt for the
 * money given back); every `completed` notification announces what the PSP kept.
 */
export async function expectSettledTruthfully(db: Sql, purchaseId: string, amount: number): Promise<void> {
  const { rows } = await db.query<{ state: string }>('SELECT state FROM purchases WHERE id = $1', [purchaseId]);
  const state = rows[0]!.state;
  const kept = await keptAtPsp(db, purchaseId);
  if (state === 'SUCCESSFUL') expect(kept, 'Σ kept at the PSP').toBe(amount);
  else expect(kept).toBeLessThanOrEqual(amount);
  const payments = await pledgePayments(db, purchaseId);
  for (const p of payments) {
    const paidByIt = p.pledge_state === 'paid' && p.pledge_payment_id === p.payment_id;
    if (paidByIt) {
      expect(p, 'a pledge paid: its payment kept, notified and receipted once').toMatchObject({ kept: p.share, completed: 1, receipts: 1 });
    } else if (p.captured > 0) {
      expect(p, 'money given back: all of it, with no notification and no receipt').toMatchObject({ kept: 0, events: 0, receipts: 0 });
    } else {
      expect(p, 'nothing taken: nothing announced').toMatchObject({ kept: 0, completed: 0, receipts: 0 });
    }
  }
  for (const pledgeId of new Set(payments.map((p) => p.pledge_id))) {
    const mine = payments.filter((p) => p.pledge_id === pledgeId);
    expect(mine.filter((p) => p.kept > 0).length, 'a friend is charged at most once').toBeLessThanOrEqual(1);
    if (mine[0]!.pledge_state !== 'paid')
      expect(
        mine.every((p) => p.kept === 0),
        'a pledge not paid keeps nothing',
      ).toBe(true);
  }
  expect(await completedNotKept(db, purchaseId)).toEqual([]);
}
