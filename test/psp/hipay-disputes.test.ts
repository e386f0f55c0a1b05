/**
 * HiPay chargebacks (docs/money-operations.md#disputes, src/psp/hipay/disputes.ts) against the
 * fake: a signed notification of status 129 *Charged Back* is a lost chargeback on its
 * transaction, its amount the transaction's `chargebackedAmount`; `retrieve` reads the
 * charged-back transaction as captured (refunded by the merchant's own refunds only), so the loss
 * counts once; a notice not signed with the passphrase is refused.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hipayHarness, type HipayHarness } from './fixtures/hipay/harness.ts';

const key = () => `test-${randomUUID()}`;

describe('hipay chargebacks, against the fake', () => {
  let h: HipayHarness;
  let pm: string;
  beforeAll(async () => {
    h = await hipayHarness();
    const a = await h.hipay.attachPaymentMethod({ idempotencyKey: key(), card: h.cards.success });
    if (!a.ok) throw new Error(a.reason);
    pm = a.paymentMethodId;
  });
  afterAll(() => h?.teardown());

  async function captured(amountCents: number): Promise<string> {
    const r = await h.hipay.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents, currency: 'EUR', capture: 'automatic', returnUrl: 'https://shop.example/r' });
    if (r.status !== 'captured') throw new Error(`payment ${r.status}`);
    return r.transactionId;
  }

  it('a 129 notice is a lost chargeback on its transaction, with the amount HiPay charged back', async () => {
    const ref = await captured(2_500);
    h.fake.chargeback(ref);
    const n = await h.hipay.verifyNotification(h.fake.notificationFor(ref, 'sha256'));
    expect(n).toMatchObject({
      ok: true,
      transactionId: ref,
      status: 'captured',
      dispute: { pspDisputeId: `${ref}-chargeback`, transactionId: ref, kind: 'chargeback', status: 'lost', reason: null, amountCents: 2_500, currency: 'EUR' },
    });
    // The same chargeback notified again is the same dispute.
    const again = await h.hipay.verifyNotification(h.fake.notificationFor(ref));
    expect(again).toMatchObject({ ok: true, dispute: { pspDisputeId: `${ref}-chargeback` } });
  });

  it('retrieve counts a chargeback once: captured, refunded only by the merchant’s refund', async () => {
    const ref = await captured(4_000);
    const refund = await h.hipay.refund({ idempotencyKey: key(), transaction: { transactionId: ref, pspState: null }, amountCents: 500 });
    expect(refund).toMatchObject({ refundedCents: 500 });
    h.fake.chargeback(ref);
    const n = await h.hipay.verifyNotification(h.fake.notificationFor(ref));
    expect(n).toMatchObject({ ok: true, dispute: { status: 'lost', amountCents: 3_500 } });
    expect(await h.hipay.retrieve({ transactionId: ref, pspState: null })).toMatchObject({ status: 'refunded', capturedCents: 4_000, refundedCents: 500 });
    const whole = await captured(1_500);
    h.fake.chargeback(whole);
    expect(await h.hipay.retrieve({ transactionId: whole, pspState: null })).toMatchObject({ status: 'captured', capturedCents: 1_500, refundedCents: 0 });
  });

  it('other statuses carry no dispute', async () => {
    const ref = await captured(900);
    const n = await h.hipay.verifyNotification(h.fake.notificationFor(ref));
    expect(n).toMatchObject({ ok: true, transactionId: ref, status: 'captured' });
    expect(n).not.toHaveProperty('dispute');
  });

  it('refuses a chargeback notice signed with another passphrase, or changed after signing', async () => {
    const ref = await captured(700);
    h.fake.chargeback(ref);
    expect(await h.hipay.verifyNotification(h.fake.notificationFor(ref, 'sha1', 'another-passphrase'))).toEqual({ ok: false, reason: 'bad_signature' });
    const good = h.fake.notificationFor(ref);
    expect(await h.hipay.verifyNotification({ ...good, rawBody: good.rawBody.replace('status=129', 'status=118') })).toEqual({ ok: false, reason: 'bad_signature' });
  });
});
