/**
 * Reconciliation with the sandbox PSP (docs/money-operations.md#reconciliation), on both databases:
 * random payments, refunds and disputes (the sandbox's chargeback card, won or lost through its
 * helper: Chipin and the PSP agree), then PSP-side differences injected into the sandbox's own
 * tables (a capture missing, a transaction gone, an amount changed, an unknown refund) and lost
 * chargebacks the PSP does not show; a run reports exactly the injected differences. A PSP fault mid-run leaves the run interrupted at its cursor,
 * never half-recorded; the next run resumes it; re-runs never duplicate; a fixed difference resolves.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL, TEST_DELIVERY } from '../delivery/helpers.ts';
import { PspIntegrationError } from '../../src/psp/connector.ts';
import { listMismatches } from '../../src/payments/reconciliation-repository.ts';
import { reconcileYesterday, runReconciliation } from '../../src/use-cases/reconciliation/reconcile-psp.ts';
import { addDays } from '../../src/domain/dates.ts';
import { zonedDay, zonedMidnight } from '../../src/i18n/format.ts';

const OK = '4242424242424242';
/** The sandbox's chargeback card: captured, then disputed as fraudulent (docs/money-operations.md#the-sandbox-psps-disputes). */
const CHARGEBACK = '4000000000000259';
const DAY = 86_400_000;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp(NO_JOB_POLL, { delivery: TEST_DELIVERY });
});
afterAll(async () => {
  await app?.close();
});

type Injection = 'none' | 'capture_missing' | 'transaction_gone' | 'amount_changed' | 'unknown_refund' | 'lost_chargeback';
type Disputed = 'none' | 'won' | 'lost';

interface Paid {
  paymentId: string;
  purchaseId: string;
  currency: string;
  transactionId: string;
  captured: number;
  refunded: number;
}

/** A SHARED purchase paid by the leader alone (captured in full), then refunded by `refund` cents; its bare id. */
async function paid(c: Caller, amount: number, refund: number, card = OK): Promise<string> {
  const res = await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount }));
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as string;
  const pay = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: card });
  expect(pay.json().state, pay.body).toBe('SUCCESSFUL');
  if (refund > 0) {
    const r = await c.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: refund }, { 'idempotency-key': `r-${id}` });
    expect(r.statusCode, r.body).toBeLessThan(300);
  }
  return id;
}

/**
 * Delivers the sandbox's dispute notices (a second on the service clock runs them), then decides
 * each purchase's dispute through the sandbox helper: the same chargeback on both sides.
 */
async function decideDisputes(c: Caller, decisions: readonly { purchase: string; outcome: 'won' | 'lost' }[]): Promise<void> {
  if (decisions.length === 0) return;
  expect((await c.post('/api/sandbox/clock', { advance_seconds: 1 })).statusCode).toBe(200);
  for (const d of decisions) {
    const listed = await c.get(`/api/sandbox/purchases/pur_${d.purchase}/disputes`);
    const [dispute] = (listed.json() as { disputes: { id: string; state: string }[] }).disputes;
    expect(dispute?.state, listed.body).toBe('open');
    const decided = await c.post(`/api/sandbox/disputes/${dispute!.id}/${d.outcome === 'won' ? 'win' : 'lose'}`);
    expect(decided.statusCode, decided.body).toBe(200);
  }
}

async function capturedPayments(accountId: string): Promise<Paid[]> {
  const { rows } = await app.services.db.query<{ id: string; purchase_id: string; psp_transaction_id: string; captured_cents: number; refunded_cents: number }>(
    `SELECT id, purchase_id, psp_transaction_id, captured_cents, refunded_cents FROM payments WHERE account_id = $1 AND captured_cents > 0 ORDER BY psp_transaction_id`,
    [accountId],
  );
  return rows.map((r) => ({
    paymentId: r.id,
    purchaseId: r.purchase_id,
    currency: 'EUR',
    transactionId: r.psp_transaction_id,
    captured: r.captured_cents,
    refunded: r.refunded_cents,
  }));
}

/** Applies the injection on the sandbox's side; answers the mismatch keys it must produce. */
async function inject(p: Paid, what: Injection, accountId: string, disputed: Disputed = 'none'): Promise<string[]> {
  const sql = (text: string, params: unknown[]) => app.services.db.query(text, params);
  const key = (op: string, kind: string) => `${p.transactionId}/${op}/${kind}`;
  switch (what) {
    case 'none':
      return [];
    case 'capture_missing':
      await sql('UPDATE sandbox_psp_transactions SET captured_cents = 0, refunded_cents = 0 WHERE id = $1', [p.transactionId]);
      return [key('capture', 'missing_at_psp'), ...(p.refunded > 0 ? [key('refund', 'missing_at_psp')] : [])];
    case 'transaction_gone':
      await sql('DELETE FROM sandbox_psp_transactions WHERE id = $1', [p.transactionId]);
      return [key('transaction', 'missing_at_psp')];
    case 'amount_changed':
      // One cent less captured at the PSP (the refund, below the capture, still fits).
      await sql('UPDATE sandbox_psp_transactions SET captured_cents = captured_cents - 1 WHERE id = $1', [p.transactionId]);
      return [key('capture', 'amount_differs')];
    case 'unknown_refund':
      await sql('UPDATE sandbox_psp_transactions SET refunded_cents = refunded_cents + 1 WHERE id = $1', [p.transactionId]);
      return [key('refund', p.refunded > 0 ? 'amount_differs' : 'unknown_to_chipin')];
    case 'lost_chargeback': {
      // A chargeback Chipin recorded as lost (docs/money-operations.md#disputes) that the sandbox
      // does not show: missing at the PSP. Beside one both sides lost, which took all the payment
      // held, it takes nothing (docs/money-operations.md#refunds-and-disputes): no difference.
      const now = app.services.clock.now();
      await sql(
        `INSERT INTO disputes (id, account_id, purchase_id, payment_id, psp, psp_dispute_id, kind, state, amount_cents, currency, opened_at, closed_at, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, 'sandbox', $4, 'chargeback', 'lost', $5, $6, $7, $7, $7, $7)`,
        [accountId, p.purchaseId, p.paymentId, `dp_${p.transactionId}`, Math.max(1, p.captured - p.refunded), p.currency, now],
      );
      return disputed === 'lost' ? [] : [key('chargeback', 'missing_at_psp')];
    }
  }
}

async function openKeys(accountId: string): Promise<string[]> {
  const rows = await listMismatches(app.services.db, accountId, 'open', 1000, null);
  return rows.map((m) => `${m.transaction_id}/${m.operation}/${m.kind}`).sort();
}

function period(): { from: Date; to: Date } {
  const now = app.services.clock.now().getTime();
  return { from: new Date(now - DAY), to: new Date(now + DAY) };
}

describe('reconciliation with the sandbox PSP', () => {
  it('reports exactly the injected PSP-side differences, and nothing of another account (seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            amount: fc.integer({ min: 1_000, max: 50_000 }),
            refundShare: fc.constantFrom(0, 0, 30, 99),
            // A disputed payment is not refunded (its dispute takes the captured amount).
            disputed: fc.constantFrom<Disputed>('none', 'none', 'won', 'lost'),
            injection: fc.constantFrom<Injection>('none', 'capture_missing', 'transaction_gone', 'amount_changed', 'unknown_refund', 'lost_chargeback'),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (plan) => {
          // A fresh merchant per case: the platform's sandbox lists every account's transactions,
          // and only this account's are judged.
          const c = await caller(app);
          const purchases: string[] = [];
          for (const p of plan) {
            const refund = p.disputed === 'none' ? Math.floor((p.amount * p.refundShare) / 100) : 0;
            purchases.push(await paid(c, p.amount, refund, p.disputed === 'none' ? OK : CHARGEBACK));
          }
          await decideDisputes(
            c,
            plan.flatMap((p, i) => (p.disputed === 'none' ? [] : [{ purchase: purchases[i]!, outcome: p.disputed }])),
          );
          const payments = await capturedPayments(c.accountId);
          expect(payments).toHaveLength(plan.length);
          const expected: string[] = [];
          for (const p of payments) {
            const i = purchases.indexOf(p.purchaseId);
            expected.push(...(await inject(p, plan[i]!.injection, c.accountId, plan[i]!.disputed)));
          }
          const outcome = await runReconciliation(app.services.payments, { accountId: c.accountId, pspAccountId: null, ...period() });
          expect(outcome.kind).toBe('completed');
          expect(await openKeys(c.accountId)).toEqual(expected.sort());
          if (outcome.kind === 'completed') expect(outcome.run.mismatch_count).toBe(expected.length);
        },
      ),
      { numRuns: 6, seed: 3333 },
    );
    // The seed's cases include chargebacks lost on both sides (the sandbox took the money back).
    const { rows } = await app.services.db.query<{ n: string }>('SELECT count(*) AS n FROM sandbox_psp_transactions WHERE charged_back_cents > 0', []);
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
    // Six merchants' payments, disputes and runs: 29-30 s on a loaded 2-core CI machine, where the
    // default 30 s cut it short and its cases, still running, added accounts under the next test.
  }, 120_000);

  it('stops at a PSP fault with its cursor and nothing half-recorded, resumes, never duplicates, and resolves a fixed difference', async () => {
    const c = await caller(app);
    for (const amount of [2_000, 3_000, 4_000, 5_000, 6_000]) await paid(c, amount, 0);
    const payments = await capturedPayments(c.accountId);
    const expected = [...(await inject(payments[0]!, 'amount_changed', c.accountId)), ...(await inject(payments[4]!, 'unknown_refund', c.accountId))].sort();
    const sandbox = app.services.psps.sandbox;
    const list = sandbox.listTransactions.bind(sandbox);
    const pageSize = sandbox.listPageSize;
    let calls = 0;
    try {
      sandbox.listPageSize = 2;
      sandbox.listTransactions = async (input) => {
        calls++;
        if (calls === 3) throw new PspIntegrationError('sandbox', 'unreachable', 'timed out after 15000 ms');
        return list(input);
      };
      const req = { accountId: c.accountId, pspAccountId: null, ...period(), pageSize: 2 };
      const first = await runReconciliation(app.services.payments, req);
      expect(first.kind).toBe('interrupted');
      if (first.kind !== 'interrupted') return;
      expect(first.run.state).toBe('interrupted');
      expect(first.run.cursor).toMatch(/^psp:/);
      expect(first.run.pages).toBe(2);
      const second = await runReconciliation(app.services.payments, req);
      expect(second.kind).toBe('completed');
      if (second.kind !== 'completed') return;
      expect(second.run.id).toBe(first.run.id);
      expect(await openKeys(c.accountId)).toEqual(expected);
      // A re-run of the completed period: the same run, the same records.
      const third = await runReconciliation(app.services.payments, req);
      expect(third.kind === 'completed' && third.run.id).toBe(first.run.id);
      const all = await listMismatches(app.services.db, c.accountId, null, 100, null);
      expect(all).toHaveLength(expected.length);
      // The first difference fixed at the PSP: the next run marks it resolved.
      await app.services.db.query('UPDATE sandbox_psp_transactions SET captured_cents = captured_cents + 1 WHERE id = $1', [payments[0]!.transactionId]);
      await runReconciliation(app.services.payments, req);
      expect(await openKeys(c.accountId)).toEqual(expected.filter((k) => !k.startsWith(payments[0]!.transactionId)));
      const resolved = await listMismatches(app.services.db, c.accountId, 'resolved', 100, null);
      expect(resolved.map((m) => m.transaction_id)).toEqual([payments[0]!.transactionId]);
    } finally {
      sandbox.listPageSize = pageSize;
      sandbox.listTransactions = list;
    }
  });

  it("the daily job, on the service clock, reconciles yesterday in the account's time zone once, with the injected difference", async () => {
    const c = await caller(app);
    await paid(c, 7_000, 0);
    const [p] = await capturedPayments(c.accountId);
    const expected = await inject(p!, 'amount_changed', c.accountId);
    // To 01:00 of the day after the payment's in the account's time zone on the service clock, so
    // that the payment's day is yesterday there whatever the hour the test runs at (a fixed 25
    // hours missed it when run between 23:00 and midnight there, and an anchor read after the
    // payment misses it when the payment is made just before midnight): the jobs that fell due
    // ran, the daily one among them.
    const { rows: at } = await app.services.db.query<{ time_zone: string; created_at: Date }>(
      'SELECT a.time_zone, pay.created_at FROM accounts a JOIN payments pay ON pay.account_id = a.id WHERE pay.id = $1',
      [p!.paymentId],
    );
    const { time_zone: zone, created_at: paidAt } = at[0]!;
    const target = zonedMidnight(addDays(zonedDay(paidAt, zone), 1), zone).getTime() + 3600_000;
    const moved = await c.post('/api/sandbox/clock', { advance_seconds: Math.ceil((target - app.services.clock.now().getTime()) / 1000) });
    expect(moved.statusCode, moved.body).toBe(200);
    const ran = await app.services.db.query("SELECT 1 FROM reconciliation_runs WHERE account_id = $1 AND state = 'completed'", [c.accountId]);
    expect(ran.rows).toHaveLength(1);
    expect(await reconcileYesterday(app.services.payments)).toBe(0); // a second pass leaves a completed day alone
    const { rows } = await app.services.db.query<{ state: string; period_from: Date; period_to: Date }>(
      'SELECT state, period_from, period_to FROM reconciliation_runs WHERE account_id = $1',
      [c.accountId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.state).toBe('completed');
    expect(rows[0]!.period_to.getTime() - rows[0]!.period_from.getTime()).toBeGreaterThanOrEqual(23 * 3600_000);
    expect(await openKeys(c.accountId)).toEqual(expected);
  });
});
