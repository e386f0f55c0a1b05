/**
 * Checkout.com dispute webhooks (docs/money-operations.md#disputes, src/psp/checkout/disputes.ts)
 * against the fake: each documented event type read as its kind and status, on the payment of
 * `data.payment_id`, with the dispute's id, reason code, amount and evidence deadline; signed and
 * checked as every Checkout.com webhook; evidence attached then submitted through the Disputes API.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DisputeKind, DisputeStatus } from '../../src/psp/connector.ts';
import { CHECKOUT_DISPUTE_EVENT_TYPES } from '../../src/psp/checkout/disputes.ts';
import { CHECKOUT_FAKE_CARDS, CREDENTIALS, checkoutHarness, type CheckoutHarness } from './fixtures/checkout/harness.ts';
import { cardPayment } from './fixtures/list-all.ts';

const key = () => `test-${randomUUID()}`;

describe('checkout dispute webhooks, against the fake', () => {
  let h: CheckoutHarness;
  let payment: string;
  beforeAll(async () => {
    h = await checkoutHarness();
    const r = await cardPayment(h.checkout, CHECKOUT_FAKE_CARDS.success, 1250);
    if (r.status !== 'captured') throw new Error(`payment ${r.status}`);
    payment = r.transactionId;
  });
  afterAll(() => h?.teardown());

  const cases: [string, DisputeKind, DisputeStatus][] = [
    ['request_for_information_received', 'retrieval', 'evidence_needed'],
    ['dispute_received', 'chargeback', 'opened'],
    ['dispute_evidence_required', 'chargeback', 'evidence_needed'],
    ['dispute_evidence_submitted', 'chargeback', 'opened'],
    ['dispute_evidence_acknowledged_by_scheme', 'chargeback', 'opened'],
    ['dispute_arbitration_sent_to_scheme', 'chargeback', 'opened'],
    ['dispute_arbitration_evidence_submitted', 'chargeback', 'opened'],
    ['dispute_won', 'chargeback', 'won'],
    ['dispute_arbitration_won', 'chargeback', 'won'],
    ['dispute_canceled', 'chargeback', 'won'],
    ['dispute_lost', 'chargeback', 'lost'],
    ['dispute_arbitration_lost', 'chargeback', 'lost'],
    ['dispute_accepted', 'chargeback', 'lost'],
    ['dispute_expired', 'chargeback', 'lost'],
    ['dispute_resolved', 'chargeback', 'closed'],
  ];

  it('maps every dispute event type it reads, and only those', () => {
    expect(cases.map(([type]) => type).sort()).toEqual([...CHECKOUT_DISPUTE_EVENT_TYPES].sort());
  });

  it.each(cases)('%s reads as a %s, %s', async (type, kind, status) => {
    const d = h.fake.dispute(h.fake.openDispute(payment, { amount: 1000, reasonCode: '10.4' }))!;
    const n = await h.checkout.verifyNotification(h.fake.disputeEvent(d.id, type));
    expect(n).toEqual({
      ok: true,
      transactionId: payment,
      status: 'captured',
      dispute: { pspDisputeId: d.id, transactionId: payment, kind, status, reason: '10.4', amountCents: 1000, currency: 'EUR', evidenceDueAt: d.evidenceRequiredBy },
    });
  });

  it('reads an event without amount (the older examples) as telling none, so the payment’s captured amount is taken', async () => {
    const id = h.fake.openDispute(payment);
    const n = await h.checkout.verifyNotification(h.fake.disputeEvent(id, 'dispute_won', { omitAmount: true }));
    if (!n.ok) throw new Error(n.reason);
    expect(n.dispute).toMatchObject({ pspDisputeId: id, status: 'won' });
    expect(n.dispute).not.toHaveProperty('amountCents');
    expect(n.dispute).not.toHaveProperty('currency');
  });

  it('refuses a tampered dispute webhook, and one without its dispute or payment', async () => {
    const good = h.fake.disputeEvent(h.fake.openDispute(payment, { amount: 1000 }), 'dispute_lost');
    expect(await h.checkout.verifyNotification({ ...good, rawBody: good.rawBody.replace('"amount":1000', '"amount":1') })).toEqual({ ok: false, reason: 'bad_signature' });
    const body = JSON.parse(good.rawBody) as { data: Record<string, unknown> };
    delete body.data.payment_id;
    const rawBody = JSON.stringify(body);
    const signature = createHmac('sha256', CREDENTIALS.webhook_secret).update(rawBody).digest('hex');
    expect(await h.checkout.verifyNotification({ headers: { 'cko-signature': signature }, rawBody })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('submits the evidence text: attached as additional_evidence_text, then submitted; a retry after it went through succeeds', async () => {
    const id = h.fake.openDispute(payment);
    const text = 'Delivered on 3 May, signed for by the card holder.';
    expect(await h.checkout.submitDisputeEvidence({ idempotencyKey: key(), pspDisputeId: id, text })).toEqual({ ok: true });
    expect(h.fake.dispute(id)).toMatchObject({ status: 'evidence_under_review', submitted: true, evidence: { additional_evidence_text: text } });
    expect(h.fake.requests.filter((r) => r.includes(`/disputes/${id}`))).toEqual([`PUT /disputes/${id}/evidence -`, `POST /disputes/${id}/evidence -`]);
    // The first call's answer was lost: the dispute already reads evidence_under_review.
    expect(await h.checkout.submitDisputeEvidence({ idempotencyKey: key(), pspDisputeId: id, text })).toEqual({ ok: true });
  });

  it('answers a refusal: a dispute that takes no evidence, an unknown one, a text over 500 characters', async () => {
    const lost = h.fake.openDispute(payment);
    h.fake.settleDispute(lost, 'lost');
    expect(await h.checkout.submitDisputeEvidence({ idempotencyKey: key(), pspDisputeId: lost, text: 'Too late' })).toEqual({
      ok: false,
      message: 'Checkout.com refused the evidence: dispute_evidence_not_required',
    });
    expect(await h.checkout.submitDisputeEvidence({ idempotencyKey: key(), pspDisputeId: 'dsp_unknownunknownunknown00', text: 'Hello' })).toEqual({
      ok: false,
      message: 'Checkout.com does not know the dispute dsp_unknownunknownunknown00',
    });
    const open = h.fake.openDispute(payment);
    const long = await h.checkout.submitDisputeEvidence({ idempotencyKey: key(), pspDisputeId: open, text: 'x'.repeat(501) });
    expect(long).toMatchObject({ ok: false });
    expect(h.fake.dispute(open)).toMatchObject({ status: 'evidence_required', submitted: false });
    expect(await h.checkout.submitDisputeEvidence({ idempotencyKey: key(), pspDisputeId: 'dp_123', text: 'Hello' })).toMatchObject({ ok: false });
  });
});
