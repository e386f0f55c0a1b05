/**
 * One money operation at a time per purchase (docs/money-operations.md#one-money-operation-at-a-time):
 * four races of two money operations on one purchase, each forced in every interleaving of its two
 * operations with pause points on the real database (./interleavings.ts), and judged at the
 * sandbox PSP's own records:
 *
 * - what the PSP keeps = what the shopper owed at checkout − what the refunds gave back (a
 *   CANCELLED purchase keeps nothing), once every installment left is collected;
 * - Chipin's payment rows and ledger say the same;
 * - no installment is left to collect without a job that will collect it (a purchase stranded in
 *   LEADER_PROCESSED);
 * - one `completed` notification per capture, and no hold left live on a settled purchase.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processIdentity } from '../../src/db/process-identity.ts';
import { signHs256 } from '../../src/delivery/jwt.ts';
import { scheduledInstallments } from '../../src/payments/installment-repository.ts';
import { PspIntegrationError } from '../../src/psp/connector.ts';
import { findPayment } from '../../src/payments/payment-repository.ts';
import { cancelPurchase } from '../../src/use-cases/checkout/cancel-purchase.ts';
import { giveBack } from '../../src/use-cases/give-back/give-back.ts';
import { releaseHold } from '../../src/use-cases/give-back/release-hold.ts';
import { collectInstallment } from '../../src/use-cases/installments/collect-installment.ts';
import type { PaymentDeps } from '../../src/use-cases/deps.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { reauthorizeHold } from '../../src/use-cases/installments/reauthorize-hold.ts';
import { refundPurchase } from '../../src/use-cases/refunds/refund-purchase.ts';
import { repayEarly } from '../../src/use-cases/shopper-space/shopper-pay.ts';
import { triggerCapture } from '../../src/use-cases/installments/trigger-capture.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { forEachInterleaving, runInterleaved, type Flow } from './interleavings.ts';
import { keptAtPsp } from './psp-ledger.ts';
import { card, CARDS, newShop, type Shop } from './support.ts';

let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  // No background job runs: the test runs the collections itself, after the flows.
  app = await startTestApp({ jobPollIntervalMs: 0 });
  shop = await newShop(app);
});
afterAll(() => app.close());

const ret = () => 'http://127.0.0.1:3000/return';
/** The flows never wait for a claim: a wait would poll while the other flow is paused. */
const deps = (db = app.services.db): PaymentDeps => ({ ...app.services.payments, db, claimWaitMs: 0 });
const actor = { label: 'test' };
const q = async <T>(sql: string, params: unknown[]) => (await app.services.db.query<T>(sql, params)).rows;

/** The deps with the payments' PSP unreachable for one operation (a fault outside the machine). */
function unreachable(operation: 'void' | 'refund'): PaymentDeps {
  return {
    ...deps(),
    psps: {
      ...app.services.payments.psps,
      forPayment: async (payment) => {
        const real = await app.services.payments.psps.forPayment(payment);
        return new Proxy(real, {
          get: (target, prop) =>
            prop === operation
              ? () => Promise.reject(new PspIntegrationError(real.name, 'unreachable', `${operation}: no answer within 15000 ms`))
              : (Reflect.get(target, prop, target) as unknown),
        });
      },
    },
  };
}

type Plan = 'DEFERRED' | 'INSTALLMENTS_3' | 'INSTALLMENTS_4';

/** A purchase its leader paid, and what the shopper owes in all: kept at checkout plus every installment left (fees included). */
async function paidPurchase(plan: Plan, amount: number): Promise<{ id: string; owed: number; token: string }> {
  const offer = plan === 'DEFERRED' ? shop.offer('DEFERRED') : shop.offer('INSTALLMENTS', plan === 'INSTALLMENTS_3' ? 3 : 4);
  const id = await shop.purchase({ merchant_uid: offer.merchant_uid, amount });
  expect((await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [], ret)).kind).toBe('processed');
  const left = await scheduledInstallments(app.services.db, shop.accountId, id);
  const owed = (await keptAtPsp(app.services.db, id)) + left.reduce((s, i) => s + i.amountCents + i.feesCents, 0);
  return { id, owed, token: signHs256({ merchantUid: offer.merchant_uid, purchaseUid: `pur_${id}` }, offer.secret) };
}

const installmentIds = async (id: string) => (await scheduledInstallments(app.services.db, shop.accountId, id)).map((i) => i.id);

/**
 * The due date's collection job of one installment, as its handler runs it: an outcome that asks
 * for another run (`in_progress`, `busy`, `retry_scheduled`) reschedules the job; any other ends
 * it. `ended` collects the installments whose job ended, to check none is left to collect.
 */
function collectionJob(installmentId: string, ended: string[]): Flow {
  return async (db) => {
    const outcome = await collectInstallment(deps(db), shop.accountId, installmentId);
    if (outcome !== 'in_progress' && outcome !== 'busy' && outcome !== 'retry_scheduled') ended.push(installmentId);
    return outcome;
  };
}

/** Of the installments whose job ended, those still to collect on a purchase still running: stranded for good. */
async function stranded(id: string, ended: readonly string[]): Promise<string[]> {
  const rows = await q<{ id: string }>(
    `SELECT i.id FROM installments i JOIN purchases p ON p.id = i.purchase_id
     WHERE i.purchase_id = $1 AND i.state = 'scheduled' AND p.state = 'LEADER_PROCESSED' AND i.id = ANY($2::uuid[])`,
    [id, ended],
  );
  return rows.map((r) => r.id);
}

/** Every installment left collected, as its jobs would (each once more while another operation held the purchase). */
async function collectTheRest(id: string): Promise<void> {
  for (const inst of await installmentIds(id)) {
    for (let tries = 0; tries < 8; tries++) {
      const outcome = await collectInstallment(deps(), shop.accountId, inst);
      if (outcome !== 'in_progress' && outcome !== 'retry_scheduled' && outcome !== 'busy') break;
    }
  }
}

/** The money the audit checks, after the flows and the collections left. */
async function expectMoneyRight(id: string, owed: number, ended: readonly string[] = []): Promise<void> {
  expect(await stranded(id, ended), 'installments whose collection job ended with nothing collected').toEqual([]);
  await collectTheRest(id);
  const [purchase] = await q<{ state: string; refunded_cents: number }>('SELECT state, refunded_cents::int FROM purchases WHERE id = $1', [id]);
  const kept = await keptAtPsp(app.services.db, id);
  const [rows] = await q<{ net: number }>('SELECT COALESCE(sum(captured_cents - refunded_cents), 0)::int AS net FROM payments WHERE purchase_id = $1', [id]);
  const [ledger] = await q<{ net: number }>(
    "SELECT COALESCE(sum(CASE kind WHEN 'capture' THEN amount_cents WHEN 'refund' THEN -amount_cents ELSE 0 END), 0)::int AS net FROM ledger_entries WHERE purchase_id = $1",
    [id],
  );
  expect(rows!.net, "Chipin's payments against the PSP").toBe(kept);
  expect(ledger!.net, "Chipin's ledger against the PSP").toBe(kept);
  if (purchase!.state === 'CANCELLED') expect(kept, 'a CANCELLED purchase keeps nothing').toBe(0);
  else expect(kept, `kept at the PSP (${purchase!.state}) = owed − refunded`).toBe(owed - purchase!.refunded_cents);
  expect(purchase!.state, 'every due date passed').not.toBe('LEADER_PROCESSED');
  const duplicates = await q(
    `SELECT data->>'payment_id' AS payment, count(*)::int AS n FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.transaction'
       AND data->'transaction'->>'status' = 'completed' GROUP BY 1 HAVING count(*) > 1`,
    [id],
  );
  expect(duplicates, 'one completed notification per capture').toEqual([]);
  if (purchase!.state !== 'LEADER_PROCESSED') {
    const live = await q(
      `SELECT t.id FROM sandbox_psp_idempotency i JOIN payments p ON p.idempotency_key = i.idempotency_key
         JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
       WHERE p.purchase_id = $1 AND t.status = 'authorized'`,
      [id],
    );
    expect(live, 'no hold left live on a settled purchase').toEqual([]);
  }
}

/** Runs the two flows of a fresh purchase in every interleaving, then checks the money; answers how many ran. */
async function everyInterleaving(setup: (ended: string[]) => Promise<{ id: string; owed: number; flows: Flow[] }>): Promise<number> {
  return forEachInterleaving(async (schedule) => {
    const ended: string[] = [];
    const { id, owed, flows } = await setup(ended);
    const run = await runInterleaved(app.services.db, flows, schedule);
    for (const r of run.results) if (r.status === 'rejected') throw r.reason;
    await expectMoneyRight(id, owed, ended);
    return run;
  });
}

describe('a refund racing a collection never lets the collection take the old amount', { timeout: 120_000 }, () => {
  it('trigger_capture ∥ a refund down to 1 cent on a deferred purchase', async () => {
    const n = await everyInterleaving(async () => {
      const { id, owed, token } = await paidPurchase('DEFERRED', 18_947);
      return {
        id,
        owed,
        flows: [(db) => triggerCapture(deps(db), token), (db) => refundPurchase(deps(db), { accountId: shop.accountId, purchaseId: id, amountCents: 18_946, actor })],
      };
    });
    expect(n).toBeGreaterThan(1);
  });

  it("the due date's collection ∥ a refund on a 3x plan", async () => {
    await everyInterleaving(async (ended) => {
      const { id, owed } = await paidPurchase('INSTALLMENTS_3', 30_000);
      const [second] = await installmentIds(id);
      return {
        id,
        owed,
        flows: [collectionJob(second!, ended), (db) => refundPurchase(deps(db), { accountId: shop.accountId, purchaseId: id, amountCents: 12_000, actor })],
      };
    });
  });

  it('an early repayment ∥ a refund on a 4x plan', async () => {
    await everyInterleaving(async () => {
      const { id, owed } = await paidPurchase('INSTALLMENTS_4', 40_000);
      return {
        id,
        owed,
        flows: [
          (db) => repayEarly(deps(db), { accountId: shop.accountId, id }, () => 'http://127.0.0.1:3000/space/return'),
          (db) => refundPurchase(deps(db), { accountId: shop.accountId, purchaseId: id, amountCents: 5_000, actor }),
        ],
      };
    });
  });
});

describe('a CANCELLED purchase keeps nothing', { timeout: 120_000 }, () => {
  it('trigger_capture ∥ cancel on a deferred purchase', async () => {
    await everyInterleaving(async () => {
      const { id, owed, token } = await paidPurchase('DEFERRED', 15_000);
      return { id, owed, flows: [(db) => triggerCapture(deps(db), token), (db) => cancelPurchase(deps(db), { accountId: shop.accountId, purchaseId: id, actor })] };
    });
  });

  it("the due date's collection ∥ cancel on a deferred purchase", async () => {
    await everyInterleaving(async (ended) => {
      const { id, owed } = await paidPurchase('DEFERRED', 35_760);
      const [due] = await installmentIds(id);
      return {
        id,
        owed,
        flows: [collectionJob(due!, ended), (db) => cancelPurchase(deps(db), { accountId: shop.accountId, purchaseId: id, actor })],
      };
    });
  });
});

describe('a cancel gives back what the PSP refused to release', { timeout: 120_000 }, () => {
  it('a hold the PSP shows captured (a capture Chipin never recorded) is refunded by the cancel', async () => {
    const { id } = await paidPurchase('DEFERRED', 15_000);
    const [hold] = await q<{ psp_transaction_id: string }>("SELECT psp_transaction_id FROM payments WHERE purchase_id = $1 AND status = 'authorized'", [id]);
    // The PSP captured the hold (a collection whose process died before recording it).
    await app.services.db.query("UPDATE sandbox_psp_transactions SET status = 'settled', captured_cents = amount_cents WHERE id = $1", [hold!.psp_transaction_id]);
    expect(await cancelPurchase(deps(), { accountId: shop.accountId, purchaseId: id, actor })).toEqual({ kind: 'cancelled', state: 'CANCELLED' });
    expect(await keptAtPsp(app.services.db, id)).toBe(0);
    const [payment] = await q<{ status: string; captured_cents: number; refunded_cents: number }>(
      'SELECT status, captured_cents, refunded_cents FROM payments WHERE purchase_id = $1',
      [id],
    );
    expect(payment).toEqual({ status: 'refunded', captured_cents: 15_000, refunded_cents: 15_000 });
  });

  it('a void the PSP could not take is followed up by a durable job until released, and the merchant is told once', async () => {
    const { id } = await paidPurchase('DEFERRED', 15_000);
    // The PSP is unreachable for the cancel's void (a fault outside the machine).
    const down = unreachable('void');
    expect(await cancelPurchase(down, { accountId: shop.accountId, purchaseId: id, actor })).toEqual({ kind: 'cancelled', state: 'CANCELLED' });
    const events = await q<{ type: string }>("SELECT type FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.release_failed'", [id]);
    expect(events).toHaveLength(1);
    const [job] = await q<{ payload: { paymentId: string } }>(
      "SELECT payload FROM jobs WHERE kind = 'payment.release' AND done_at IS NULL AND account_id = $1 ORDER BY run_at DESC LIMIT 1",
      [shop.accountId],
    );
    expect(job).toBeDefined();
    // Still down at the first follow-up: tried again later, the merchant not told twice.
    expect(await releaseHold(down, shop.accountId, job!.payload.paymentId)).toMatchObject({ retryAt: expect.any(Date) });
    expect(await q("SELECT 1 FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.release_failed'", [id])).toHaveLength(1);
    // The PSP is back: released.
    expect(await releaseHold(deps(), shop.accountId, job!.payload.paymentId)).toBeUndefined();
    const held = await q(`SELECT t.id FROM payments p JOIN sandbox_psp_transactions t ON t.id = p.psp_transaction_id WHERE p.purchase_id = $1 AND t.status = 'held'`, [id]);
    expect(held).toEqual([]);
    expect(await q('SELECT status FROM payments WHERE purchase_id = $1', [id])).toEqual([{ status: 'voided' }]);
  });
});

describe('a give-back the PSP could not take is followed up', { timeout: 120_000 }, () => {
  it('money taken after its purpose was gone, whose refund failed at the PSP, is refunded by the durable job', async () => {
    const { id } = await paidPurchase('INSTALLMENTS_3', 30_000);
    const [captured] = await q<{ id: string }>("SELECT id FROM payments WHERE purchase_id = $1 AND status = 'captured'", [id]);
    const payment = (await findPayment(app.services.db, shop.accountId, captured!.id))!;
    const real = await app.services.payments.psps.forPayment(payment);
    const result = await real.retrieve({ transactionId: payment.psp_transaction_id!, pspState: payment.psp_state });
    await expect(giveBack(unreachable('refund'), payment, result)).rejects.toThrow(PspIntegrationError);
    expect(await q("SELECT 1 FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.release_failed'", [id])).toHaveLength(1);
    expect(await releaseHold(deps(), shop.accountId, payment.id)).toBeUndefined();
    expect(await findPayment(app.services.db, shop.accountId, payment.id)).toMatchObject({ status: 'refunded', refunded_cents: payment.captured_cents });
    expect(await keptAtPsp(app.services.db, id)).toBe(0);
  });
});

describe('nothing is left half-done', { timeout: 120_000 }, () => {
  it('a full refund ∥ trigger_capture: the hold is either captured and refunded, or voided with its installment', async () => {
    await everyInterleaving(async () => {
      const { id, owed, token } = await paidPurchase('DEFERRED', 13_627);
      return { id, owed, flows: [(db) => triggerCapture(deps(db), token), (db) => refundPurchase(deps(db), { accountId: shop.accountId, purchaseId: id, actor })] };
    });
  });

  it('a collection job that finds another operation holding the purchase runs again instead of being abandoned', async () => {
    const { id, owed } = await paidPurchase('INSTALLMENTS_3', 30_000);
    const [second] = await installmentIds(id);
    const ended: string[] = [];
    // The due date's job runs while the refund holds the purchase (between its reservation and its recording).
    const run = await runInterleaved(
      app.services.db,
      [(db) => refundPurchase(deps(db), { accountId: shop.accountId, purchaseId: id, amountCents: 3_000, actor }), collectionJob(second!, ended)],
      [0, 0, 1, 1, 1],
    );
    expect(run.results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason))).toContainEqual('in_progress');
    await expectMoneyRight(id, owed, ended);
  });
});

describe('trigger_capture racing a hold renewal', { timeout: 120_000 }, () => {
  it('captures once, and a refund afterwards leaves no hold live at the PSP', async () => {
    await everyInterleaving(async () => {
      const { id, owed, token } = await paidPurchase('DEFERRED', 15_000);
      const [hold] = await q<{ id: string }>("SELECT id FROM payments WHERE purchase_id = $1 AND status = 'authorized'", [id]);
      return {
        id,
        owed,
        flows: [
          async (db) => {
            await triggerCapture(deps(db), token);
            // The merchant then refunds everything that was taken.
            return refundPurchase(deps(db), { accountId: shop.accountId, purchaseId: id, actor });
          },
          (db) => reauthorizeHold(deps(db), shop.accountId, hold!.id),
        ],
      };
    });
  });
});

describe('a claim whose process is gone (docs/money-operations.md#one-money-operation-at-a-time)', () => {
  /** A real process on this host, and the claim on the purchase it would hold (its identity and a lease still running). */
  async function claimedByChild(purchaseId: string) {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    const { holder } = processIdentity(child.pid);
    await app.services.db.query(
      `INSERT INTO money_claims (account_id, purchase_id, operation, token, holder, claimed_at, lease_until)
       VALUES ($1, $2, 'refund', $3, $4, now(), now() + interval '10 minutes')`,
      [shop.accountId, purchaseId, randomUUID(), holder],
    );
    return child;
  }

  it('holds the purchase while its process lives, and is taken over at once when the process is killed, its lease still running', async () => {
    const { id } = await paidPurchase('INSTALLMENTS_3', 30_000);
    const refund = () => refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, amountCents: 1_000, actor });
    const child = await claimedByChild(id);
    try {
      expect(await refund()).toEqual({ kind: 'operation_in_progress', operation: 'refund' });
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    const after = await refund();
    expect(after).toMatchObject({ kind: 'created', refund: { state: 'succeeded', amountCents: 1_000 } });
    expect(await q('SELECT 1 FROM money_claims WHERE purchase_id = $1', [id])).toEqual([]);
  });

  it('a claim of a build that named no holder (a rolling upgrade) is judged by its lease alone', async () => {
    const { id } = await paidPurchase('DEFERRED', 12_000);
    await q(`INSERT INTO money_claims (account_id, purchase_id, operation, token, claimed_at, lease_until) VALUES ($1, $2, 'refund', $3, now(), now() + interval '10 minutes')`, [
      shop.accountId,
      id,
      randomUUID(),
    ]);
    const refund = () => refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, amountCents: 1_000, actor });
    expect(await refund()).toEqual({ kind: 'operation_in_progress', operation: 'refund' });
    await q("UPDATE money_claims SET lease_until = now() - interval '1 second' WHERE purchase_id = $1", [id]);
    expect(await refund()).toMatchObject({ kind: 'created' });
  });
});
