/**
 * Hyperswitch dispute webhooks (docs/money-operations.md#disputes, src/psp/hyperswitch/disputes.ts)
 * against the fake: each dispute status read as its kind and status, on the payment of the
 * `DisputeResponse`, with the dispute's id, reason, amount (a `StringMinorUnit`) and challenge
 * deadline; signed and checked as every outgoing webhook. No evidence is submitted (marked only).
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYPERSWITCH_DISPUTE_EVENT_TYPES } from '../../src/psp/hyperswitch/disputes.ts';
import { CREDENTIALS, HYPERSWITCH_FAKE_CARDS, hyperswitchHarness, type HyperswitchHarness } from './fixtures/hyperswitch/harness.ts';
import type { DisputeStatus } from './fixtures/hyperswitch/fake-server.ts';
import { cardPayment } from './fixtures/list-all.ts';

describe('hyperswitch dispute webhooks, against the fake', () => {
  let h: HyperswitchHarness;
  let payment: string;
  beforeAll(async () => {
    h = await hyperswitchHarness();
    const r = await cardPayment(h.hyperswitch, HYPERSWITCH_FAKE_CARDS.success, 3000);
    if (r.status !== 'captured') throw new Error(`payment ${r.status}`);
    payment = r.transactionId;
  });
  afterAll(() => h?.teardown());

  const cases: [DisputeStatus, string][] = [
    ['dispute_opened', 'evidence_needed'],
    ['dispute_challenged', 'opened'],
    ['dispute_won', 'won'],
    ['dispute_cancelled', 'won'],
    ['dispute_lost', 'lost'],
    ['dispute_accepted', 'lost'],
    ['dispute_expired', 'lost'],
  ];

  it('maps every dispute status, and reads only those event types as disputes', () => {
    expect(cases.map(([s]) => s).sort()).toEqual([...HYPERSWITCH_DISPUTE_EVENT_TYPES].sort());
  });

  it.each(cases)('%s reads as a chargeback, %s', async (status, ours) => {
    const id = h.fake.openDispute(payment, 2500);
    h.fake.settleDispute(id, status);
    const n = await h.hyperswitch.verifyNotification(h.fake.disputeEvent(id));
    expect(n).toEqual({
      ok: true,
      transactionId: payment,
      status: 'captured',
      dispute: {
        pspDisputeId: id,
        transactionId: payment,
        kind: 'chargeback',
        status: ours,
        reason: 'fraudulent',
        amountCents: 2500,
        currency: 'EUR',
        evidenceDueAt: h.fake.dispute(id)!.challengeRequiredBy,
      },
    });
  });

  it('reads a pre-dispute (an inquiry) as a retrieval request, a pre-arbitration as a chargeback', async () => {
    const inquiry = await h.hyperswitch.verifyNotification(h.fake.disputeEvent(h.fake.openDispute(payment, undefined, 'pre_dispute')));
    const arbitration = await h.hyperswitch.verifyNotification(h.fake.disputeEvent(h.fake.openDispute(payment, undefined, 'pre_arbitration')));
    expect(inquiry).toMatchObject({ ok: true, dispute: { kind: 'retrieval', status: 'evidence_needed', amountCents: 3000 } });
    expect(arbitration).toMatchObject({ ok: true, dispute: { kind: 'chargeback', status: 'evidence_needed' } });
  });

  it('refuses a tampered dispute webhook, and a dispute event whose object it cannot read', async () => {
    const good = h.fake.disputeEvent(h.fake.openDispute(payment, 2500));
    expect(await h.hyperswitch.verifyNotification({ ...good, rawBody: good.rawBody.replace('"amount":"2500"', '"amount":"25"') })).toEqual({ ok: false, reason: 'bad_signature' });
    const body = JSON.parse(good.rawBody) as { content: { object: Record<string, unknown> } };
    body.content.object.amount = 25.5;
    const rawBody = JSON.stringify(body);
    const signature = createHmac('sha512', CREDENTIALS.payment_response_hash_key).update(rawBody).digest('hex');
    expect(await h.hyperswitch.verifyNotification({ headers: { 'x-webhook-signature-512': signature }, rawBody })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('a dispute webhook sent again after the dispute moved on reports the dispute as Hyperswitch has it now, not as its body says', async () => {
    const id = h.fake.openDispute(payment, 2500);
    h.fake.settleDispute(id, 'dispute_won');
    const won = h.fake.disputeEvent(id);
    expect(await h.hyperswitch.verifyNotification(won)).toMatchObject({ ok: true, dispute: { pspDisputeId: id, status: 'won' } });
    // Lost later (at pre-arbitration, under the same dispute id); the old "won" webhook comes again.
    h.fake.settleDispute(id, 'dispute_lost');
    const from = h.fake.requests.length;
    expect(await h.hyperswitch.verifyNotification(won)).toMatchObject({ ok: true, transactionId: payment, dispute: { pspDisputeId: id, status: 'lost', amountCents: 2500 } });
    expect(h.fake.requests.slice(from)).toEqual([`GET /disputes/list?dispute_id=${id}&payment_id=${payment} key`]);
  });

  it('submits no evidence: the published OpenAPI document has no evidence request, so staff only mark it as sent', () => {
    expect('submitDisputeEvidence' in h.hyperswitch).toBe(false);
  });
});
