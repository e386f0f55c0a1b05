/**
 * Adyen's dispute webhooks (docs/money-operations.md#disputes, src/psp/adyen/disputes.ts) against
 * the fake: each event code read as its kind and status, on the payment of `originalReference`,
 * with the dispute's reference, reason code and defence deadline; signed and checked as every
 * Adyen webhook; in a batch beside a payment's own item.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationBody, parseNotification } from '../../src/psp/adyen/notifications.ts';
import { ADYEN_CARDS, adyenHarness, type AdyenHarness } from './fixtures/adyen/harness.ts';
import { cardPayment } from './fixtures/list-all.ts';

describe('adyen dispute webhooks, against the fake', () => {
  let h: AdyenHarness;
  let payment: string;
  beforeAll(async () => {
    h = await adyenHarness();
    payment = (await cardPayment(h.connector, ADYEN_CARDS.success, 900)).transactionId;
  });
  afterAll(() => h?.teardown());

  it.each([
    ['REQUEST_FOR_INFORMATION', undefined, 'retrieval', 'evidence_needed'],
    ['NOTIFICATION_OF_CHARGEBACK', undefined, 'chargeback', 'evidence_needed'],
    ['CHARGEBACK', undefined, 'chargeback', 'lost'],
    ['CHARGEBACK', 'Lost', 'chargeback', 'lost'],
    ['CHARGEBACK', 'Undefended', 'chargeback', 'evidence_needed'],
    ['CHARGEBACK', 'Pending', 'chargeback', 'opened'],
    ['CHARGEBACK_REVERSED', undefined, 'chargeback', 'won'],
    ['SECOND_CHARGEBACK', undefined, 'chargeback', 'lost'],
    ['PREARBITRATION_WON', undefined, 'chargeback', 'won'],
    ['PREARBITRATION_LOST', undefined, 'chargeback', 'lost'],
    ['NOTIFICATION_OF_FRAUD', undefined, 'fraud_warning', 'opened'],
  ])('%s (disputeStatus %s) reads as a %s, %s', async (eventCode, disputeStatus, kind, status) => {
    const rawBody = h.fake.disputeNotification(payment, eventCode, {
      disputeRef: 'DSP0000000000001',
      reasonCode: '10.4',
      reason: 'Other Fraud-Card Absent Environment',
      defensePeriodEndsAt: '2026-12-10T00:00:00+01:00',
      ...(disputeStatus ? { disputeStatus } : {}),
    });
    const n = await h.connector.verifyNotification({ headers: {}, rawBody });
    expect(n).toMatchObject({
      ok: true,
      transactionId: payment,
      dispute: {
        pspDisputeId: 'DSP0000000000001',
        transactionId: payment,
        kind,
        status,
        reason: '10.4',
        amountCents: 900,
        currency: 'EUR',
        evidenceDueAt: new Date('2026-12-09T23:00:00Z'),
      },
    });
  });

  it('refuses a tampered dispute webhook', async () => {
    const rawBody = h.fake.disputeNotification(payment, 'CHARGEBACK', { disputeRef: 'DSP0000000000002' });
    expect(await h.connector.verifyNotification({ headers: {}, rawBody: rawBody.replace('"value":900', '"value":1') })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it("reads a batch's dispute item beside the payment's own item, each on its own", async () => {
    const dispute = parseNotification(h.fake.disputeNotification(payment, 'NOTIFICATION_OF_CHARGEBACK', { disputeRef: 'DSP0000000000003' }))!.items[0]!;
    const capture = { ...dispute, eventCode: 'CAPTURE', pspReference: 'CAP0000000000001', additionalData: {} };
    const rawBody = notificationBody(h.credentials.hmac_key, [dispute, capture]);
    const n = await h.connector.verifyNotification({ headers: {}, rawBody });
    if (!n.ok) throw new Error(n.reason);
    expect(n.dispute).toMatchObject({ pspDisputeId: 'DSP0000000000003', kind: 'chargeback' });
    expect(n.also).toEqual([expect.objectContaining({ transactionId: payment, status: 'captured' })]);
    expect(n.also![0]!.dispute).toBeUndefined();
  });
});
