import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeclineReason, TransactionStatus } from '../../src/psp/connector.ts';
import { hyperswitchDefinition } from '../../src/psp/hyperswitch/definition.ts';
import { INTENT_STATUSES, readError, readPayment, toDeclineReason, toStatus, toTransactionResult, type IntentStatus } from '../../src/psp/hyperswitch/mapping.ts';
import { bareRef, describeConnectorContract } from './connector-contract.ts';
import { CREDENTIALS, HYPERSWITCH_FAKE_CARDS, hyperswitchHarness, type HyperswitchHarness } from './fixtures/hyperswitch/harness.ts';

describeConnectorContract('hyperswitch', hyperswitchHarness);

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';
const PAY = 'pay_mbabizu24mvu3mela5njyhpit4';

describe('hyperswitch mapping', () => {
  const statuses: [IntentStatus, TransactionStatus][] = [
    ['succeeded', 'captured'],
    ['failed', 'declined'],
    ['cancelled', 'voided'],
    ['cancelled_post_capture', 'voided'],
    ['processing', 'requires_action'],
    ['requires_customer_action', 'requires_action'],
    ['requires_merchant_action', 'requires_action'],
    ['requires_payment_method', 'declined'],
    ['requires_confirmation', 'requires_action'],
    ['requires_capture', 'authorized'],
    ['partially_captured', 'captured'],
    ['partially_captured_and_capturable', 'captured'],
    ['partially_authorized_and_requires_capture', 'authorized'],
    ['conflicted', 'requires_action'],
    ['expired', 'expired'],
  ];
  it.each(statuses)('intent status %s reads %s', (status, ours) => {
    expect(toStatus(status)).toBe(ours);
  });
  it('maps every status of the document’s IntentStatus', () => {
    expect(statuses.map(([s]) => s).sort()).toEqual([...INTENT_STATUSES].sort());
  });

  const reasons: [string[], DeclineReason][] = [
    [['card_declined', 'Your card was declined.'], 'card_declined'],
    [['insufficient_funds', 'Your card has insufficient funds.'], 'insufficient_funds'],
    [['51', 'Not sufficient funds'], 'insufficient_funds'],
    [['expired_card', 'Your card has expired.'], 'expired_card'],
    [['incorrect_cvc', "Your card's security code is incorrect."], 'incorrect_cvc'],
    [['invalid_number', 'The card number is not a valid credit card number.'], 'invalid_card'],
    [['authentication_failed', 'The cardholder failed 3-D Secure authentication.'], 'authentication_failed'],
    [['UE_9000', 'Something went wrong'], 'card_declined'],
  ];
  it.each(reasons)('processor error %j → %s', (texts, reason) => {
    expect(toDeclineReason(...texts)).toBe(reason);
  });

  it('reads a captured payment with a partial refund as refunded, amounts from amount_received and refunds', () => {
    const p = readPayment({
      payment_id: PAY,
      merchant_id: 'merchant_1',
      status: 'succeeded',
      amount: 6540,
      net_amount: 6540,
      amount_capturable: 0,
      amount_received: 6540,
      currency: 'USD',
      payment_method: 'card',
      attempt_count: 1,
      network_transaction_id: '489341065491658',
      refunds: [
        { refund_id: 'ref_mbabizu24mvu3mela5njyhpit4', payment_id: PAY, amount: 1000, currency: 'USD', status: 'succeeded', connector: 'stripe' },
        { refund_id: 'ref_mbabizu24mvu3mela5njyhpit5', payment_id: PAY, amount: 500, currency: 'USD', status: 'failed', connector: 'stripe' },
      ],
    });
    expect(toTransactionResult(p!)).toEqual({
      transactionId: PAY,
      status: 'refunded',
      amountCents: 6540,
      capturedCents: 6540,
      refundedCents: 1000,
      networkTransactionId: '489341065491658',
    });
  });

  it('reads requires_customer_action as requires_action with next_action.redirect_to_url to open', () => {
    const p = readPayment({
      payment_id: PAY,
      status: 'requires_customer_action',
      amount: 100,
      next_action: { type: 'redirect_to_url', redirect_to_url: 'https://acs.example/3ds' },
    });
    expect(toTransactionResult(p!)).toMatchObject({ status: 'requires_action', challengeUrl: 'https://acs.example/3ds', capturedCents: 0 });
  });

  it('refuses to read what is not a payment', () => {
    expect(readPayment({ payment_id: PAY, status: 'sideways', amount: 1 })).toBeUndefined();
    expect(readPayment({ payment_id: PAY, status: 'succeeded', amount: -1 })).toBeUndefined();
    expect(readPayment({ payment_id: PAY, status: 'succeeded', amount: 1, refunds: [{ refund_id: 'x' }] })).toBeUndefined();
    expect(readPayment(null)).toBeUndefined();
  });

  it('reads both the document’s flat error body and the wrapped one the service sends', () => {
    expect(readError({ error_type: 'invalid_request', message: 'API key not provided or invalid API key used', code: 'IR_01' })).toEqual({
      code: 'IR_01',
      message: 'API key not provided or invalid API key used',
    });
    expect(readError({ error: { type: 'invalid_request', message: 'Refund does not exist in our records', code: 'HE_02' } })).toEqual({
      code: 'HE_02',
      message: 'Refund does not exist in our records',
    });
  });
});

describe('hyperswitch definition', () => {
  it('wants a sandbox key for a test account and a production key for a live one', () => {
    expect(hyperswitchDefinition.validate!({ api_key: CREDENTIALS.api_key }, 'test')).toBeUndefined();
    expect(hyperswitchDefinition.validate!({ api_key: CREDENTIALS.api_key }, 'live')?.field).toBe('api_key');
    expect(hyperswitchDefinition.validate!({ api_key: 'prd_chipinfakeapikey000000000000000' }, 'test')?.field).toBe('api_key');
    expect(hyperswitchDefinition.validate!({ api_key: 'prd_chipinfakeapikey000000000000000' }, 'live')).toBeUndefined();
  });
});

describe('hyperswitch against the fake', () => {
  let h: HyperswitchHarness;
  beforeAll(async () => {
    h = await hyperswitchHarness();
  });
  afterAll(() => h?.teardown());

  async function attach(card = HYPERSWITCH_FAKE_CARDS.success): Promise<string> {
    const a = await h.hyperswitch.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(a.reason);
    return a.paymentMethodId;
  }

  async function captured(amount = 500) {
    return h.hyperswitch.authorize({ idempotencyKey: key(), paymentMethodId: await attach(), amountCents: amount, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
  }

  it('sends the api-key header on every call', async () => {
    await captured();
    expect(h.fake.requests.length).toBeGreaterThan(0);
    for (const r of h.fake.requests) expect(r).toMatch(/ key$/);
  });

  it('stores a card by a zero-amount setup_mandate payment with the shopper’s acceptance, and pays on it with recurring_details', async () => {
    const from = h.fake.bodies.length;
    const pm = await attach();
    await h.hyperswitch.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 700, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL, storeForLater: true });
    const [setup, cit] = h.fake.bodies.slice(from).map((b) => b.body as Record<string, unknown>);
    expect(setup).toMatchObject({ amount: 0, confirm: true, payment_type: 'setup_mandate', setup_future_usage: 'off_session', customer_acceptance: { acceptance_type: 'online' } });
    expect(cit).toMatchObject({ amount: 700, confirm: true, capture_method: 'manual', off_session: false, authentication_type: 'three_ds', setup_future_usage: 'off_session' });
    expect(cit!.recurring_details).toEqual({ type: 'payment_method_id', data: pm.split(':')[0] });
    expect(cit!.customer_id).toBe(setup!.customer_id);
    expect(String(cit!.payment_id)).toHaveLength(30);
  });

  it('sends a merchant-initiated charge as off_session with the saved payment method and mit_category', async () => {
    const pm = await attach();
    const from = h.fake.bodies.length;
    const r = await h.hyperswitch.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 900, currency: 'EUR' });
    expect(r).toMatchObject({ status: 'captured', capturedCents: 900 });
    expect(h.fake.bodies[from]!.body).toMatchObject({
      off_session: true,
      mit_category: 'unscheduled',
      recurring_details: { type: 'payment_method_id' },
      capture_method: 'automatic',
    });
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): off_session, capture_method manual, recurring_details → requires_capture, then captured or cancelled', async () => {
    const pm = await attach();
    const from = h.fake.bodies.length;
    const input = { idempotencyKey: key(), paymentMethodId: pm, amountCents: 800, currency: 'EUR', capture: 'manual' as const };
    const hold = await h.hyperswitch.chargeOffSession(input);
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
    expect(h.fake.bodies[from]!.body).toMatchObject({ off_session: true, capture_method: 'manual', mit_category: 'unscheduled', recurring_details: { type: 'payment_method_id' } });
    expect((await h.hyperswitch.chargeOffSession(input)).transactionId).toBe(hold.transactionId);
    expect(await h.hyperswitch.capture({ idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 800 })).toMatchObject({
      status: 'captured',
      capturedCents: 800,
    });
    const other = await h.hyperswitch.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
    expect((await h.hyperswitch.void({ idempotencyKey: key(), transaction: bareRef(other.transactionId) })).status).toBe('voided');
    expect(hyperswitchDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('answers bad_credentials when the key is refused, and verifyCredentials says so', async () => {
    const stranger = h.make({ credentials: { api_key: 'snd_someoneelseskey00000000000000' } });
    expect(await stranger.verifyCredentials()).toMatchObject({ ok: false });
    expect(await h.hyperswitch.verifyCredentials()).toEqual({ ok: true });
    const err = await stranger.attachPaymentMethod({ idempotencyKey: key(), card: HYPERSWITCH_FAKE_CARDS.success }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('bad_credentials');
  });

  it('verifies an X-Webhook-Signature-512 event about a payment or its refund and reads it in our words', async () => {
    const r = await captured(1000);
    expect(await h.hyperswitch.verifyNotification(h.fake.event(r.transactionId))).toEqual({ ok: true, transactionId: r.transactionId, status: 'captured' });
    await h.hyperswitch.refund({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 100 });
    expect(await h.hyperswitch.verifyNotification(h.fake.event(r.transactionId, 'refund'))).toEqual({ ok: true, transactionId: r.transactionId, status: 'refunded' });
  });

  it('refuses a tampered body, another hash key, a missing header, and every event when no hash key is set', async () => {
    const r = await captured();
    const n = h.fake.event(r.transactionId);
    expect(await h.hyperswitch.verifyNotification({ ...n, rawBody: n.rawBody.replace('payment_succeeded', 'payment_cancelled') })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.make({ credentials: { payment_response_hash_key: 'another-hash-key-0000000000' } }).verifyNotification(n)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.hyperswitch.verifyNotification({ headers: {}, rawBody: n.rawBody })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.make({ credentials: { payment_response_hash_key: '' } }).verifyNotification(n)).toEqual({ ok: false, reason: 'bad_signature' });
    const body = JSON.stringify({ merchant_id: 'm', event_id: 'evt_1', event_type: 'payment_succeeded', content: { type: 'payment_details', object: { payment_id: 'short' } } });
    const sig = createHmac('sha512', CREDENTIALS.payment_response_hash_key).update(body).digest('hex');
    expect(await h.hyperswitch.verifyNotification({ headers: { 'X-Webhook-Signature-512': sig }, rawBody: body })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('finds an authorisation whose answer was lost by its payment_id: one payment, then its state', async () => {
    const pm = await attach();
    const input = { idempotencyKey: key(), paymentMethodId: pm, amountCents: 700, currency: 'EUR', capture: 'manual' as const, returnUrl: RETURN_URL };
    const before = h.fake.paymentCount;
    h.fake.fail('timeout', { path: '/payments', afterEffect: true });
    const err = await h
      .make({ timeoutMs: 200 })
      .authorize(input)
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('unreachable');
    expect(h.fake.paymentCount).toBe(before + 1);
    const r = await h.hyperswitch.authorize(input);
    expect(r).toMatchObject({ status: 'authorized', amountCents: 700 });
    expect(h.fake.paymentCount).toBe(before + 1);
  });

  it('finds a refund whose answer was lost by its refund_id: refunded once', async () => {
    const r = await captured(1000);
    const input = { idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 300 };
    const before = h.fake.refundCount;
    h.fake.fail('timeout', { path: '/refunds', afterEffect: true });
    const err = await h
      .make({ timeoutMs: 200 })
      .refund(input)
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('unreachable');
    const again = await h.hyperswitch.refund(input);
    expect(again).toMatchObject({ status: 'refunded', refundedCents: 300 });
    expect(h.fake.refundCount).toBe(before + 1);
  });

  it('finds a capture whose answer was lost by reading the payment: captured once', async () => {
    const pm = await attach();
    const hold = await h.hyperswitch.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 800, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const input = { idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 800 };
    h.fake.fail('http_500', { path: `/payments/${hold.transactionId}/capture`, afterEffect: true });
    const err = await h.hyperswitch.capture(input).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('unreachable');
    const again = await h.hyperswitch.capture(input);
    expect(again).toMatchObject({ status: 'captured', capturedCents: 800 });
    expect(again.decline).toBeUndefined();
  });

  it('asks Hyperswitch to sync with the processor when a payment is read to settle its status (force_sync)', async () => {
    const r = await captured(400);
    const from = h.fake.requests.length;
    expect(await h.hyperswitch.retrieve(bareRef(r.transactionId))).toMatchObject({ status: 'captured', capturedCents: 400 });
    expect(h.fake.requests.slice(from)).toEqual([`GET /payments/${r.transactionId}?force_sync=true key`]);
  });

  it('answers unknown_payment_method for a saved card Hyperswitch does not have for that customer', async () => {
    const [method] = (await attach()).split(':');
    for (const pm of [`${method}:cus_someoneelse`, 'pm_neversaved0000000000:cus_someoneelse', 'not-ours']) {
      const err = await h.hyperswitch
        .authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 500, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL })
        .catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('unknown_payment_method');
    }
  });

  it('keeps the API key and the hash key out of what the connector shows', () => {
    for (const shown of [JSON.stringify(h.hyperswitch), String(h.hyperswitch)]) {
      expect(shown).not.toContain(CREDENTIALS.api_key);
      expect(shown).not.toContain(CREDENTIALS.payment_response_hash_key);
    }
  });
});
