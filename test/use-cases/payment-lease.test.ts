/**
 * Payments in doubt (docs/money-operations.md#payments-in-doubt): a shopper's request runs the
 * payment it reserved under a lease renewed while it runs. A live slow attempt — its PSP answering
 * after the lease would have lapsed without renewal — is never resolved under it; an attempt whose
 * request died (a recording cut after the PSP charged, as in a failover) is resolved by the
 * reconciliation job within seconds, once, with exactly one charge at the PSP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPayment } from '../../src/payments/payment-repository.ts';
import { resolveLeaderAttempt } from '../../src/use-cases/checkout/resolve-leader-attempt.ts';
import { underPaymentLease } from '../../src/money/payment-lease.ts';
import { reconcilePayments } from '../../src/use-cases/reconciliation/reconcile-payments.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cutOn } from '../helpers/connection-cut.ts';
import { NO_JOB_POLL } from '../delivery/helpers.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cuts = 0;
/** A leader's attempt whose recording of the PSP's answer is cut (57P01, a 503): pending, charged at the PSP once. Answers the payment's id. */
async function cutAttempt(app: TestApp, a: Caller): Promise<{ purchaseId: string; paymentId: string }> {
  const purchaseId = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json().id as string;
  const cut = await cutOn(app.services.db, `cut_lease_${++cuts}`, 'payments', 'UPDATE', `NEW.purchase_id = '${purchaseId}' AND NEW.status <> 'pending'`);
  const first = await a.post(`/api/sandbox/purchases/pur_${purchaseId}/pay`, { card_number: '4242424242424242' });
  await cut.heal();
  expect(first.statusCode, first.body).toBe(503);
  const row = (await app.services.db.query<{ id: string; status: string }>('SELECT id, status FROM payments WHERE purchase_id = $1', [purchaseId])).rows;
  expect(row.map((r) => r.status)).toEqual(['pending']);
  return { purchaseId, paymentId: row[0]!.id };
}

const one = async <T>(app: TestApp, sql: string, params: unknown[] = []): Promise<T> => (await app.services.db.query<{ v: T }>(sql, params)).rows[0]!.v;
const authorizations = (app: TestApp, purchaseId: string) =>
  one<number>(app, "SELECT count(*)::int AS v FROM sandbox_psp_idempotency WHERE operation = 'authorize' AND idempotency_key LIKE $1 || ':leader:%'", [purchaseId]);
const stateOf = async (a: Caller, purchaseId: string) => (await a.get(`/api/merchants/v1/purchases/${purchaseId}`)).json().state as string;

describe('the payment lease and the reconciliation job', () => {
  let app: TestApp;
  let a: Caller;
  beforeAll(async () => {
    // No job poller: each reconciliation here is run by the test.
    app = await startTestApp(NO_JOB_POLL);
    [a] = await twoMerchants(app);
  });
  afterAll(() => app?.close());

  it('the failed request ended the lease: the job resolves the attempt at once, once, with exactly one charge at the PSP', async () => {
    const { purchaseId } = await cutAttempt(app, a);
    expect(await one<boolean>(app, 'SELECT run_lease_until < now() AS v FROM payments WHERE purchase_id = $1', [purchaseId])).toBe(true);
    expect(await reconcilePayments(app.services.payments)).toBeGreaterThanOrEqual(1);
    expect(await stateOf(a, purchaseId)).toBe('SUCCESSFUL');
    expect(await reconcilePayments(app.services.payments)).toBe(0);
    expect(await authorizations(app, purchaseId)).toBe(1);
    expect(await one<number>(app, "SELECT count(*)::int AS v FROM payments WHERE purchase_id = $1 AND status IN ('authorized', 'captured')", [purchaseId])).toBe(1);
  });

  it('a resolver holding the attempt as it was before another resolved it and opened the purchase gives nothing back', async () => {
    const { purchaseId, paymentId } = await cutAttempt(app, a);
    const asRead = (await findPayment(app.services.db, a.accountId, paymentId))!;
    expect(await reconcilePayments(app.services.payments)).toBeGreaterThanOrEqual(1);
    expect(await stateOf(a, purchaseId)).toBe('SUCCESSFUL');
    // The second resolver replays the same PSP key, finds the purchase moved on, and did not record.
    await resolveLeaderAttempt(app.services.payments, asRead, 0);
    expect(await stateOf(a, purchaseId)).toBe('SUCCESSFUL');
    expect(
      await one<number>(app, "SELECT count(*)::int AS v FROM payments WHERE purchase_id = $1 AND status IN ('authorized', 'captured') AND refunded_cents = 0", [purchaseId]),
    ).toBe(1);
    expect(
      await one<number>(app, "SELECT count(*)::int AS v FROM sandbox_psp_idempotency WHERE operation IN ('refund', 'void') AND idempotency_key LIKE $1 || ':%'", [purchaseId]),
    ).toBe(0);
    expect(await authorizations(app, purchaseId)).toBe(1);
  });

  it('a payment made without a lease (an older build, a PSP fault) keeps the 20-minute rule', async () => {
    const { purchaseId } = await cutAttempt(app, a);
    await app.services.db.query('UPDATE payments SET run_lease_until = NULL WHERE purchase_id = $1', [purchaseId]);
    expect(await reconcilePayments(app.services.payments)).toBe(0);
    expect(await stateOf(a, purchaseId)).toBe('INITIALIZED');
    expect(await authorizations(app, purchaseId)).toBe(1);
  });

  it('a live slow attempt, still running after its first lease would have lapsed, is never resolved under it', async () => {
    const { purchaseId, paymentId } = await cutAttempt(app, a);
    // As just reserved: a fresh lease, which the request's renewals must keep alive.
    await app.services.db.query("UPDATE payments SET run_lease_until = now() + interval '10 seconds' WHERE id = $1", [paymentId]);
    const payment = (await findPayment(app.services.db, a.accountId, paymentId))!;
    const seen = await underPaymentLease(app.services.payments, payment, async () => {
      // The PSP answering after 10.5 s: past the first lease's end.
      await sleep(10_500);
      return reconcilePayments(app.services.payments);
    });
    expect(seen).toBe(0);
    expect(await one<string>(app, 'SELECT status AS v FROM payments WHERE id = $1', [paymentId])).toBe('pending');
    expect(await one<boolean>(app, 'SELECT run_lease_until > now() AS v FROM payments WHERE id = $1', [paymentId])).toBe(true);
    expect(await stateOf(a, purchaseId)).toBe('INITIALIZED');
    expect(await authorizations(app, purchaseId)).toBe(1);
  }, 30_000);

  it('a request failing under the lease ends it: lapsed after any failure but a PSP fault', async () => {
    const { paymentId } = await cutAttempt(app, a);
    await app.services.db.query("UPDATE payments SET run_lease_until = now() + interval '10 seconds' WHERE id = $1", [paymentId]);
    const payment = (await findPayment(app.services.db, a.accountId, paymentId))!;
    await expect(underPaymentLease(app.services.payments, payment, () => Promise.reject(new Error('the database went away')))).rejects.toThrow('the database went away');
    expect(await one<boolean>(app, 'SELECT run_lease_until < now() AS v FROM payments WHERE id = $1', [paymentId])).toBe(true);
  });
});

describe('the job with its poller running', () => {
  let app: TestApp;
  let a: Caller;
  beforeAll(async () => {
    app = await startTestApp();
    [a] = await twoMerchants(app);
  });
  afterAll(() => app?.close());

  it('resolves an attempt cut after the PSP charged within seconds, with no request from anyone; one charge', async () => {
    const { purchaseId } = await cutAttempt(app, a);
    // Bounded: the job looks every 5 s; 30 s is far past it.
    let state = await stateOf(a, purchaseId);
    for (let i = 0; i < 60 && state !== 'SUCCESSFUL'; i++) {
      await sleep(500);
      state = await stateOf(a, purchaseId);
    }
    expect(state).toBe('SUCCESSFUL');
    expect(await authorizations(app, purchaseId)).toBe(1);
  }, 45_000);
});
