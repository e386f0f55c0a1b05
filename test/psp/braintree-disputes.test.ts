/**
 * Braintree dispute webhooks (docs/money-operations.md#disputes, src/psp/braintree/disputes.ts):
 * the SDK's signed sample notifications of each dispute kind read as the dispute on its transaction,
 * with its kind, status, reason, amount and reply-by date, and without a call to Braintree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { braintree } from '../../src/psp/braintree/sdk.ts';
import { braintreeHarness, MERCHANT, type BraintreeHarness } from './fixtures/braintree/harness.ts';

describe('braintree dispute notifications', () => {
  let h: BraintreeHarness;
  beforeAll(async () => {
    h = await braintreeHarness();
  });
  afterAll(() => h?.teardown());

  const signer = new braintree.BraintreeGateway({
    environment: braintree.Environment.Sandbox,
    merchantId: MERCHANT.merchantId,
    publicKey: MERCHANT.publicKey,
    privateKey: MERCHANT.privateKey,
  });
  const form = (n: { bt_signature: string; bt_payload: string }) => new URLSearchParams(n).toString();

  it.each([
    ['dispute_opened', 'evidence_needed'],
    ['dispute_won', 'won'],
    ['dispute_lost', 'lost'],
    ['dispute_accepted', 'lost'],
    ['dispute_expired', 'lost'],
  ])('%s reads as a chargeback, %s', async (kind, status) => {
    const before = h.fake.requests.length;
    const n = await h.connector.verifyNotification({ headers: {}, rawBody: form(signer.webhookTesting.sampleNotification(kind, 'dsp123')) });
    expect(n).toEqual({
      ok: true,
      transactionId: 'dsp123',
      status: 'captured',
      dispute: {
        pspDisputeId: 'dsp123',
        transactionId: 'dsp123',
        kind: 'chargeback',
        status,
        reason: 'fraud',
        amountCents: 25_000,
        currency: 'USD',
        evidenceDueAt: new Date('2014-03-21T23:59:59Z'),
      },
    });
    expect(h.fake.requests.length).toBe(before);
  });

  it('refuses a tampered dispute notification', async () => {
    const good = signer.webhookTesting.sampleNotification('dispute_opened', 'dsp123');
    const tampered = { ...good, bt_payload: Buffer.from(Buffer.from(good.bt_payload, 'base64').toString().replace('fraud', 'duplicate')).toString('base64') };
    expect(await h.connector.verifyNotification({ headers: {}, rawBody: form(tampered) })).toEqual({ ok: false, reason: 'bad_signature' });
  });
});
