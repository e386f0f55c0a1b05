/**
 * The money checks of the drills' load (deploy/topology/planned-drill.ts), on the primary after
 * the load: every acknowledged purchase, payment and refund there; nothing charged, refunded,
 * run or written twice. The failover drill (failover-drill.ts) makes the same checks and, since
 * it kills the leader, also waits for the payments in doubt and moves the sandbox clock first.
 */
import type pg from 'pg';

export interface Acknowledged {
  creates: Set<string>;
  pays: Set<string>;
  /** refund id -> purchase id */
  refunds: Map<string, string>;
  /** What each acknowledged refund was for (every refund of the load is this amount, once per purchase). */
  refundCents: number;
}

export interface MoneyChecks {
  lines: string[];
  pass: boolean;
}

/** How long the checks wait, without moving any clock, for a payment cut off by the drill to be resolved by the reconciliation job (every 5 s, after a lease of 10 s at most). */
const IN_DOUBT_WAIT_MS = 30_000;

export async function moneyChecks(db: pg.Client, ack: Acknowledged, since: Date): Promise<MoneyChecks> {
  const pendingNow = () => db.query("SELECT id FROM payments WHERE status = 'pending' AND created_at >= $1", [since]);
  let pending = await pendingNow();
  const pendingAfterLoad = pending.rowCount ?? 0;
  for (let waited = 0; (pending.rowCount ?? 0) > 0 && waited < IN_DOUBT_WAIT_MS; waited += 500) {
    await new Promise((r) => setTimeout(r, 500));
    pending = await pendingNow();
  }
  const ids = [...ack.creates];
  const found = await db.query('SELECT id FROM purchases WHERE id = ANY($1::uuid[])', [ids]);
  const missing = ids.length - found.rowCount!;
  const paid = await db.query("SELECT DISTINCT purchase_id FROM payments WHERE purchase_id = ANY($1::uuid[]) AND status IN ('authorized', 'captured', 'refunded')", [
    [...ack.pays],
  ]);
  const paidMissing = ack.pays.size - paid.rowCount!;
  const refunds = await db.query("SELECT id FROM refunds WHERE id = ANY($1::uuid[]) AND state = 'succeeded'", [[...ack.refunds.keys()]]);
  const refundsMissing = ack.refunds.size - refunds.rowCount!;
  // A purchase refunded other than once, by Chipin or at the sandbox PSP.
  const refundedTwice = await db.query(
    `SELECT p.purchase_id FROM payments p JOIN sandbox_psp_transactions t ON t.id = p.psp_transaction_id
      WHERE p.purchase_id = ANY($1::uuid[]) GROUP BY p.purchase_id
      HAVING sum(t.refunded_cents) <> $2 OR (SELECT coalesce(sum(r.amount_cents), 0) FROM refunds r WHERE r.purchase_id = p.purchase_id AND r.state = 'succeeded') <> $2`,
    [[...new Set(ack.refunds.values())], ack.refundCents],
  );
  // A card charged twice: two live payments for one purpose, a sandbox charge no payment refers to, or one two payments share.
  const doubled = await db.query(
    `SELECT purchase_id, purpose, pledge_id FROM payments WHERE status IN ('authorized', 'captured', 'refunded') GROUP BY 1, 2, 3 HAVING count(*) > 1`,
  );
  const orphans = await db.query(
    `SELECT t.id FROM sandbox_psp_transactions t WHERE t.status IN ('held', 'settled') AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.psp_transaction_id = t.id)`,
  );
  const shared = await db.query('SELECT psp_transaction_id FROM payments WHERE psp_transaction_id IS NOT NULL GROUP BY 1 HAVING count(*) > 1');
  // No job of the load run twice; every payment's ledger rows add up to captured - refunded (a row written twice shows there).
  const jobsTwice = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE attempts > 1 AND created_at >= $1', [since]);
  const ledgerOff = await db.query(
    `SELECT p.id FROM payments p LEFT JOIN ledger_entries l ON l.payment_id = p.id AND l.kind IN ('capture', 'refund')
      GROUP BY p.id, p.captured_cents, p.refunded_cents
     HAVING coalesce(sum(CASE l.kind WHEN 'capture' THEN l.amount_cents ELSE -l.amount_cents END), 0) <> p.captured_cents - p.refunded_cents`,
  );
  const jobs = jobsTwice.rows[0]!.n;
  return {
    lines: [
      `acknowledged purchases: ${ack.creates.size}; missing on the primary: ${missing}`,
      `acknowledged payments: ${ack.pays.size}; without a live payment: ${paidMissing}; acknowledged refunds: ${ack.refunds.size}; missing: ${refundsMissing}; purchases refunded other than once (Chipin or PSP): ${refundedTwice.rowCount}`,
      `cards charged twice: ${doubled.rowCount} purposes paid twice, ${orphans.rowCount} PSP charges no payment refers to, ${shared.rowCount} charges shared by two payments; payments pending after the load: ${pendingAfterLoad}, ${IN_DOUBT_WAIT_MS / 1000} s later: ${pending.rowCount}`,
      `jobs run more than once (attempts > 1): ${jobs}; payments whose ledger rows do not add up to captured - refunded: ${ledgerOff.rowCount}`,
    ],
    pass:
      missing === 0 &&
      paidMissing === 0 &&
      refundsMissing === 0 &&
      refundedTwice.rowCount === 0 &&
      doubled.rowCount === 0 &&
      orphans.rowCount === 0 &&
      shared.rowCount === 0 &&
      pending.rowCount === 0 &&
      jobs === 0 &&
      ledgerOff.rowCount === 0,
  };
}
