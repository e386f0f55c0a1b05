/**
 * Midtrans chargebacks (docs/money-operations.md#disputes, src/psp/midtrans/disputes.ts) against
 * the fake: a signed HTTP notification with `transaction_status` `chargeback` is a lost
 * chargeback on its transaction, `partial_chargeback` an open one (Midtrans tells no amount);
 * `retrieve` reads a charged-back transaction as captured, refunded only by what Chipin refunded
 * (its state), so the loss counts once; a notification not signed with the server key is refused.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionResult } from '../../src/psp/connector.ts';
import { readTransaction, toTransactionResult } from '../../src/psp/midtrans/mapping.ts';
import { midtransHarness, type MidtransHarness } from './fixtures/midtrans/harness.ts';

const key = () => `test-${randomUUID()}`;
const ref = (r: TransactionResult) => ({ transactionId: r.transactionId, pspState: r.pspState ?? null });

describe('midtrans chargebacks, against the fake', () => {
  let h: MidtransHarness;
  let pm: string;
  beforeAll(async () => {
    h = await midtransHarness();
    const a = await h.midtrans.attachPaymentMethod({ idempotencyKey: key(), card: h.cards.success });
    if (!a.ok) throw new Error(a.message);
    pm = a.paymentMethodId;
  });
  afterAll(() => h?.teardown());

  async function captured(amountCents: number): Promise<TransactionResult> {
    const r = await h.midtrans.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents, currency: 'IDR', capture: 'automatic', returnUrl: 'https://shop.example/r' });
    if (r.status !== 'captured') throw new Error(`payment ${r.status}`);
    return r;
  }

  it('a chargeback notice is a lost chargeback on its transaction; retrieve reads it captured, nothing refunded', async () => {
    const r = await captured(1_000_000);
    h.fake.chargeback(r.transactionId);
    const n = await h.midtrans.verifyNotification({ headers: {}, rawBody: h.fake.notificationFor(r.transactionId) });
    expect(n).toEqual({
      ok: true,
      transactionId: r.transactionId,
      status: 'captured',
      dispute: { pspDisputeId: `${r.transactionId}-chargeback`, transactionId: r.transactionId, kind: 'chargeback', status: 'lost', reason: null },
    });
    expect(await h.midtrans.retrieve(ref(r))).toMatchObject({ status: 'captured', capturedCents: 1_000_000, refundedCents: 0 });
  });

  it('a partial chargeback is open (no amount told); the transaction stays captured', async () => {
    const r = await captured(800_000);
    h.fake.chargeback(r.transactionId, true);
    const n = await h.midtrans.verifyNotification({ headers: {}, rawBody: h.fake.notificationFor(r.transactionId) });
    expect(n).toMatchObject({ ok: true, status: 'captured', dispute: { pspDisputeId: `${r.transactionId}-chargeback`, kind: 'chargeback', status: 'opened' } });
    if (n.ok) expect(n.dispute).not.toHaveProperty('amountCents');
    expect(await h.midtrans.retrieve(ref(r))).toMatchObject({ status: 'captured', capturedCents: 800_000, refundedCents: 0 });
  });

  it('a charged-back transaction is refunded only by what Chipin refunded before, whatever refund_amount says', () => {
    const t = readTransaction({ transaction_id: 'tx-1', order_id: 'o-1', gross_amount: '8000.00', transaction_status: 'chargeback', refund_amount: '8000.00' })!;
    expect(toTransactionResult(t, { capturedCents: 800_000, refundedCents: 200_000, status: 'refunded' })).toMatchObject({
      status: 'refunded',
      capturedCents: 800_000,
      refundedCents: 200_000,
    });
    expect(toTransactionResult(t, { capturedCents: 800_000, refundedCents: 0, status: 'captured' })).toMatchObject({ status: 'captured', refundedCents: 0 });
  });

  it('other statuses carry no dispute', async () => {
    const r = await captured(100_000);
    const n = await h.midtrans.verifyNotification({ headers: {}, rawBody: h.fake.notificationFor(r.transactionId) });
    expect(n).toEqual({ ok: true, transactionId: r.transactionId, status: 'captured' });
  });

  it('refuses a chargeback notice signed with another server key, or changed after signing', async () => {
    const r = await captured(300_000);
    h.fake.chargeback(r.transactionId);
    expect(await h.midtrans.verifyNotification({ headers: {}, rawBody: h.fake.notificationFor(r.transactionId, 'SB-Mid-server-another') })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const good = h.fake.notificationFor(r.transactionId);
    expect(await h.midtrans.verifyNotification({ headers: {}, rawBody: good.replace('"3000.00"', '"1.00"') })).toEqual({ ok: false, reason: 'bad_signature' });
  });
});
