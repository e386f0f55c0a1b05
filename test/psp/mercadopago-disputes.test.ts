/**
 * Mercado Pago chargebacks (docs/money-operations.md#disputes, src/psp/mercadopago/disputes.ts)
 * against the fake: the *Chargebacks* webhook (`topic_chargebacks_wh`, an 18-digit `data.id`)
 * read back with `GET /v1/chargebacks/{id}` and the payment, whose `status_detail` tells the
 * outcome; a charged-back payment reads as captured by `retrieve`, never as refunded, so a lost
 * chargeback counts once; the webhook's signature is checked as every Mercado Pago webhook's.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mercadopagoHarness, type MercadoPagoHarness } from './fixtures/mercadopago/harness.ts';

const key = () => `test-${randomUUID()}`;

describe('mercadopago chargebacks, against the fake', () => {
  let h: MercadoPagoHarness;
  let pm: string;
  beforeAll(async () => {
    h = await mercadopagoHarness();
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: h.cards.success });
    if (!a.ok) throw new Error(a.reason);
    pm = a.paymentMethodId;
  });
  afterAll(() => h?.teardown());

  async function captured(amountCents: number): Promise<string> {
    const r = await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents, currency: 'EUR', capture: 'automatic', returnUrl: 'https://shop.example/r' });
    if (r.status !== 'captured') throw new Error(`payment ${r.status}`);
    return r.transactionId;
  }

  it('opens a chargeback: the notice names the payment, the case’s amount, reason and documentation deadline', async () => {
    const payment = await captured(2_500);
    const id = h.fake.openChargeback(payment, { amount: 2_000, reason: 'fraud' });
    // The id is beyond a JSON number's exact integers: the notice keeps its digits.
    expect(Number.isSafeInteger(Number(id))).toBe(false);
    const n = await h.connector.verifyNotification(h.fake.chargebackNotification(id));
    expect(n).toEqual({
      ok: true,
      transactionId: payment,
      status: 'captured',
      dispute: {
        pspDisputeId: id,
        transactionId: payment,
        kind: 'chargeback',
        status: 'evidence_needed',
        reason: 'fraud',
        amountCents: 2_000,
        currency: 'EUR',
        evidenceDueAt: new Date(h.fake.chargebackCase(id)!.date_documentation_deadline!),
      },
    });
    expect(h.fake.requests.some((r) => r.method === 'GET' && r.path === `/v1/chargebacks/${id}`)).toBe(true);
    h.fake.receiveDocumentation(id);
    const after = await h.connector.verifyNotification(h.fake.chargebackNotification(id));
    expect(after).toMatchObject({ ok: true, dispute: { pspDisputeId: id, status: 'opened' } });
  });

  it('a settled chargeback is lost, and retrieve counts its money once: captured, not refunded', async () => {
    const payment = await captured(4_000);
    await h.connector.refund({ idempotencyKey: key(), transaction: { transactionId: payment, pspState: null }, amountCents: 500 });
    const id = h.fake.openChargeback(payment);
    h.fake.decideChargeback(id, 'settled');
    const n = await h.connector.verifyNotification(h.fake.chargebackNotification(id));
    expect(n).toMatchObject({ ok: true, transactionId: payment, dispute: { pspDisputeId: id, kind: 'chargeback', status: 'lost', amountCents: 3_500, currency: 'EUR' } });
    const read = await h.connector.retrieve({ transactionId: payment, pspState: null });
    // Only the merchant's own refund is refunded; the chargeback's 3,500 are the lost dispute's.
    expect(read).toMatchObject({ status: 'refunded', capturedCents: 4_000, refundedCents: 500 });
    const whole = await captured(1_500);
    h.fake.decideChargeback(h.fake.openChargeback(whole), 'settled');
    expect(await h.connector.retrieve({ transactionId: whole, pspState: null })).toMatchObject({ status: 'captured', capturedCents: 1_500, refundedCents: 0 });
  });

  it('a reimbursed chargeback is won; while disputed the payment reads captured', async () => {
    const payment = await captured(3_000);
    const id = h.fake.openChargeback(payment);
    expect(await h.connector.retrieve({ transactionId: payment, pspState: null })).toMatchObject({ status: 'captured', capturedCents: 3_000, refundedCents: 0 });
    h.fake.decideChargeback(id, 'reimbursed');
    const n = await h.connector.verifyNotification(h.fake.chargebackNotification(id));
    expect(n).toMatchObject({ ok: true, transactionId: payment, status: 'captured', dispute: { pspDisputeId: id, status: 'won' } });
  });

  it('a case on several payments is read on the notified one, with that payment’s captured amount (no amount told)', async () => {
    const first = await captured(1_000);
    const second = await captured(1_200);
    const id = h.fake.openChargeback(first, { payments: [second], amount: 2_200 });
    const n = await h.connector.verifyNotification(h.fake.chargebackNotification(id, { paymentId: second }));
    if (!n.ok) throw new Error(n.reason);
    expect(n.transactionId).toBe(second);
    expect(n.dispute).toMatchObject({ pspDisputeId: id, transactionId: second, status: 'evidence_needed' });
    expect(n.dispute).not.toHaveProperty('amountCents');
    // A payment the case does not list names none of its payments.
    expect(await h.connector.verifyNotification(h.fake.chargebackNotification(id, { paymentId: '999' }))).toEqual({ ok: false, reason: 'malformed' });
  });

  it('a case in another currency than its payment’s tells no amount of the payment (its captured amount is taken)', async () => {
    const payment = await captured(2_500);
    const id = h.fake.openChargeback(payment, { amount: 2_000, currency: 'BRL' });
    const n = await h.connector.verifyNotification(h.fake.chargebackNotification(id));
    if (!n.ok) throw new Error(n.reason);
    expect(n.dispute).toMatchObject({ pspDisputeId: id, transactionId: payment, kind: 'chargeback' });
    expect(n.dispute).not.toHaveProperty('amountCents');
    expect(n.dispute).not.toHaveProperty('currency');
  });

  it('refuses a chargeback notice signed with another secret, with a changed id, or stale', async () => {
    const id = h.fake.openChargeback(await captured(900));
    expect(await h.connector.verifyNotification(h.fake.chargebackNotification(id, { secret: 'AnotherSecret000000000000' }))).toEqual({ ok: false, reason: 'bad_signature' });
    const good = h.fake.chargebackNotification(id);
    const other = String(BigInt(id) + 1000n);
    expect(await h.connector.verifyNotification({ ...good, rawBody: good.rawBody.replace(`"id":${id}`, `"id":${other}`) })).toEqual({ ok: false, reason: 'bad_signature' });
    const old = h.fake.chargebackNotification(id, { ts: Math.floor(h.clock.now().getTime() / 1000) - 3600 });
    expect(await h.connector.verifyNotification(old)).toEqual({ ok: false, reason: 'stale' });
  });
});
