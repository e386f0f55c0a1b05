/**
 * Stripe disputes (docs/money-operations.md#disputes) against the fake: `charge.dispute.*` events
 * read as chargebacks or inquiries with their status and deadline, `radar.early_fraud_warning.*`
 * as fraud warnings, signed as Stripe signs them; evidence submitted through `POST /v1/disputes/{id}`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_ACK } from '../../src/psp/stripe/notifications.ts';
import { STRIPE_CARDS, stripeHarness, type StripeHarness } from './fixtures/stripe/harness.ts';
import { cardPayment } from './fixtures/list-all.ts';

const key = () => `test-${randomUUID()}`;

describe('stripe disputes, against the fake', () => {
  let h: StripeHarness;
  beforeAll(async () => {
    h = await stripeHarness();
  });
  afterAll(() => h?.teardown());

  const captured = async (amount = 500): Promise<string> => (await cardPayment(h.connector, STRIPE_CARDS.success, amount)).transactionId;

  it('reads a chargeback from created to lost, each event with the dispute as it stands', async () => {
    const pi = await captured(700);
    const d = h.fake.openDispute(pi, { reason: 'fraudulent' });
    const opened = await h.connector.verifyNotification(h.fake.disputeEvent(d.id, 'charge.dispute.created'));
    expect(opened).toEqual({
      ok: true,
      transactionId: pi,
      status: 'captured',
      ack: STRIPE_ACK,
      dispute: {
        pspDisputeId: d.id,
        transactionId: pi,
        kind: 'chargeback',
        status: 'evidence_needed',
        reason: 'fraudulent',
        amountCents: 700,
        currency: 'EUR',
        evidenceDueAt: new Date(d.dueBy * 1000),
      },
    });
    h.fake.setDisputeStatus(d.id, 'lost');
    const withdrawn = await h.connector.verifyNotification(h.fake.disputeEvent(d.id, 'charge.dispute.funds_withdrawn'));
    const closed = await h.connector.verifyNotification(h.fake.disputeEvent(d.id, 'charge.dispute.closed'));
    for (const n of [withdrawn, closed]) expect(n).toMatchObject({ ok: true, dispute: { pspDisputeId: d.id, kind: 'chargeback', status: 'lost' } });
  });

  it.each([
    ['under_review', 'chargeback', 'opened'],
    ['won', 'chargeback', 'won'],
    ['warning_needs_response', 'retrieval', 'evidence_needed'],
    ['warning_under_review', 'retrieval', 'opened'],
    ['warning_closed', 'retrieval', 'closed'],
  ])('a dispute with status %s reads as a %s, %s', async (status, kind, ours) => {
    const pi = await captured();
    const d = h.fake.openDispute(pi, { inquiry: status.startsWith('warning_') });
    h.fake.setDisputeStatus(d.id, status);
    expect(await h.connector.verifyNotification(h.fake.disputeEvent(d.id, 'charge.dispute.updated'))).toMatchObject({ ok: true, dispute: { kind, status: ours } });
  });

  it('reads an early fraud warning as a fraud warning on the payment, closed once no longer actionable', async () => {
    const pi = await captured();
    const created = await h.connector.verifyNotification(h.fake.earlyFraudWarningEvent(pi, { id: 'issfr_1', fraudType: 'unauthorized_use_of_card' }));
    expect(created).toMatchObject({
      ok: true,
      transactionId: pi,
      dispute: { pspDisputeId: 'issfr_1', kind: 'fraud_warning', status: 'opened', reason: 'unauthorized_use_of_card' },
    });
    if (!created.ok) throw new Error('refused');
    expect(created.dispute?.amountCents).toBeUndefined();
    expect(await h.connector.verifyNotification(h.fake.earlyFraudWarningEvent(pi, { id: 'issfr_1', actionable: false }))).toMatchObject({
      ok: true,
      dispute: { status: 'closed' },
    });
  });

  it('refuses a forged dispute event, and one whose dispute it cannot read', async () => {
    const pi = await captured();
    const d = h.fake.openDispute(pi);
    const n = h.fake.disputeEvent(d.id, 'charge.dispute.created');
    expect(await h.connector.verifyNotification({ ...n, rawBody: n.rawBody.replace('fraudulent', 'duplicate') })).toEqual({ ok: false, reason: 'bad_signature' });
    h.fake.setDisputeStatus(d.id, 'some_new_status');
    expect(await h.connector.verifyNotification(h.fake.disputeEvent(d.id, 'charge.dispute.updated'))).toEqual({ ok: false, reason: 'malformed' });
  });

  it('submits evidence as uncategorized_text with submit=true, once per idempotency key; a dispute no longer awaiting it is refused', async () => {
    const pi = await captured();
    const d = h.fake.openDispute(pi);
    const idem = key();
    expect(await h.connector.submitDisputeEvidence({ idempotencyKey: idem, pspDisputeId: d.id, text: 'Delivered on 3 May, signed by the card holder.' })).toEqual({ ok: true });
    expect(await h.connector.submitDisputeEvidence({ idempotencyKey: idem, pspDisputeId: d.id, text: 'Delivered on 3 May, signed by the card holder.' })).toEqual({ ok: true });
    expect(h.fake.disputes.get(d.id)).toMatchObject({
      status: 'under_review',
      evidence: { uncategorizedText: 'Delivered on 3 May, signed by the card holder.', submitted: true, submissionCount: 1 },
    });
    expect(h.fake.requests.filter((r) => r.path === `/v1/disputes/${d.id}`).map((r) => r.idempotencyKey)).toEqual([idem, idem]);
    const again = await h.connector.submitDisputeEvidence({ idempotencyKey: key(), pspDisputeId: d.id, text: 'More' });
    expect(again.ok).toBe(false);
  });
});
