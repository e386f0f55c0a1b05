import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PspIntegrationError, type DeclineReason, type TransactionStatus } from '../../src/psp/connector.ts';
import { StripeConnector } from '../../src/psp/stripe/connector.ts';
import { stripeDefinition } from '../../src/psp/stripe/definition.ts';
import {
  REFUSAL_CODES,
  declineOf,
  readIntent,
  toDeclineReason,
  toStatus,
  toTransactionResult,
  type StripeIntentStatus,
  type StripeRefusalCode,
} from '../../src/psp/stripe/mapping.ts';
import { STRIPE_ACK, verifyStripeNotification } from '../../src/psp/stripe/notifications.ts';
import { signStripe } from './fixtures/stripe/fake-server.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { ManualClock, SECRET_KEY, STRIPE_CARDS, WEBHOOK_SECRET, stripeHarness, testCard, type StripeHarness } from './fixtures/stripe/harness.ts';
import intentFixture from './fixtures/stripe/payment-intent-requires-capture.json' with { type: 'json' };
import eventFixture from './fixtures/stripe/event-payment-intent-succeeded.json' with { type: 'json' };
import { LOCAL_PSP_HTTP } from './fixtures/local-http.ts';
import { bareRef } from './connector-contract.ts';
import { unusedOperations } from './fixtures/operations.ts';

// The contract stores every card with a customer-initiated payment before charging it off session (PSD2), so the fake may refuse any MIT without one.
describeConnectorContract('stripe', () => stripeHarness({ strictStoredCredentials: true }));

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';

describe('stripe mapping', () => {
  const statuses: [StripeIntentStatus, string | null, number, TransactionStatus][] = [
    ['requires_payment_method', null, 0, 'declined'],
    ['requires_confirmation', null, 0, 'declined'],
    ['requires_action', null, 0, 'requires_action'],
    ['processing', null, 0, 'requires_action'],
    ['requires_capture', null, 0, 'authorized'],
    ['canceled', 'requested_by_customer', 0, 'voided'],
    ['canceled', null, 0, 'voided'],
    ['canceled', 'automatic', 0, 'expired'],
    ['succeeded', null, 0, 'captured'],
    ['succeeded', null, 1, 'refunded'],
  ];
  it.each(statuses)('PaymentIntent %s (cancellation %s, refunded %i) reads %s', (status, cancellationReason, refunded, ours) => {
    expect(toStatus({ status, cancellationReason }, refunded)).toBe(ours);
  });

  const codes: [StripeRefusalCode, DeclineReason][] = [
    ['card_declined', 'card_declined'],
    ['generic_decline', 'card_declined'],
    ['do_not_honor', 'card_declined'],
    ['lost_card', 'card_declined'],
    ['stolen_card', 'card_declined'],
    ['fraudulent', 'card_declined'],
    ['insufficient_funds', 'insufficient_funds'],
    ['card_velocity_exceeded', 'insufficient_funds'],
    ['expired_card', 'expired_card'],
    ['invalid_expiry_year', 'expired_card'],
    ['invalid_expiry_month', 'expired_card'],
    ['incorrect_cvc', 'incorrect_cvc'],
    ['invalid_cvc', 'incorrect_cvc'],
    ['incorrect_number', 'invalid_card'],
    ['invalid_number', 'invalid_card'],
    ['authentication_required', 'authentication_failed'],
    ['payment_intent_authentication_failure', 'authentication_failed'],
    ['charge_expired_for_capture', 'authorization_expired'],
    ['amount_too_large', 'amount_too_large'],
    ['charge_already_refunded', 'amount_too_large'],
    ['payment_intent_unexpected_state', 'amount_too_large'],
    ['processing_error', 'processing_error'],
    ['try_again_later', 'processing_error'],
    ['unknown', 'card_declined'],
  ];
  it.each(codes)('refusal code %s → %s', (code, reason) => {
    expect(toDeclineReason(code)).toBe(reason);
  });

  it('maps every listed Stripe code to one of our reasons', () => {
    for (const c of REFUSAL_CODES) expect(typeof toDeclineReason(c)).toBe('string');
  });

  it('prefers the issuer decline_code over the error code, and keeps Stripe’s shopper-facing message', () => {
    expect(declineOf({ type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' })).toEqual({
      reason: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    });
    expect(declineOf({ type: 'card_error', code: 'expired_card' }).reason).toBe('expired_card');
    expect(declineOf({ type: 'card_error', code: 'card_declined', decline_code: 'something_new' }).reason).toBe('card_declined');
  });

  it('reads the recorded PaymentIntent fixture (manual capture, charge expanded)', () => {
    const pi = readIntent(intentFixture);
    expect(pi).toBeDefined();
    expect(toTransactionResult(pi!)).toEqual({
      transactionId: 'pi_3OxUNkLkdIwHu7ix1mVw6JaT',
      status: 'authorized',
      amountCents: 4200,
      capturedCents: 0,
      refundedCents: 0,
      expiresAt: new Date(1780604800 * 1000),
      networkTransactionId: '585120290108431',
    });
  });

  it('refuses to read what is not a PaymentIntent', () => {
    expect(readIntent({ ...intentFixture, status: 'sideways' })).toBeUndefined();
    expect(readIntent({ ...intentFixture, amount: -1 })).toBeUndefined();
    expect(readIntent({ ...intentFixture, object: 'charge' })).toBeUndefined();
    expect(readIntent({ ...intentFixture, latest_charge: { object: 'charge' } })).toBeUndefined();
    expect(readIntent(null)).toBeUndefined();
  });
});

describe('stripe notifications (Stripe-Signature)', () => {
  it('reads the recorded event fixture, signed with its secret, and answers Stripe’s ack', () => {
    const webhooks = new Stripe('sk_test_unused0000000000').webhooks;
    const at = new Date(eventFixture.received_at);
    const input = { headers: eventFixture.headers, rawBody: eventFixture.raw_body };
    expect(verifyStripeNotification(webhooks, eventFixture.webhook_secret, input, at)).toEqual({
      ok: true,
      transactionId: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
      status: 'captured',
      ack: STRIPE_ACK,
    });
    expect(verifyStripeNotification(webhooks, eventFixture.webhook_secret, { ...input, rawBody: input.rawBody.replace('2000', '2001') }, at)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  describe('against the fake', () => {
    let h: StripeHarness;
    beforeAll(async () => {
      h = await stripeHarness();
    });
    afterAll(() => h?.teardown());

    async function captured(amount = 500) {
      const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: STRIPE_CARDS.success });
      if (!a.ok) throw new Error(a.reason);
      return h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: a.paymentMethodId,
        amountCents: amount,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: RETURN_URL,
      });
    }

    it('verifies a signed event and reads it in our words', async () => {
      const r = await captured();
      const n = h.fake.event(r.transactionId);
      expect(n.headers['stripe-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(await h.connector.verifyNotification(n)).toEqual({ ok: true, transactionId: r.transactionId, status: 'captured', ack: STRIPE_ACK });
      expect((await h.connector.verifyNotification({ headers: { 'Stripe-Signature': n.headers['stripe-signature'] }, rawBody: n.rawBody })).ok).toBe(true);
    });

    it('reads a charge.refunded event as the intent refunded', async () => {
      const r = await captured(800);
      await h.connector.refund({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 300 });
      const n = h.fake.event(r.transactionId);
      expect(JSON.parse(n.rawBody).type).toBe('charge.refunded');
      expect(await h.connector.verifyNotification(n)).toMatchObject({ ok: true, transactionId: r.transactionId, status: 'refunded' });
    });

    it('refuses a tampered body, another secret, a missing or garbled header, and stale or future timestamps', async () => {
      const r = await captured();
      const n = h.fake.event(r.transactionId);
      const sig = n.headers['stripe-signature']!;
      expect(await h.connector.verifyNotification({ ...n, rawBody: n.rawBody.replace('succeeded', 'canceled') })).toEqual({ ok: false, reason: 'bad_signature' });
      const stranger = h.connectorWith({ credentials: { webhook_secret: 'whsec_AnotherEndpointSecret000000000' } });
      expect(await stranger.verifyNotification(n)).toEqual({ ok: false, reason: 'bad_signature' });
      // An account saved before its webhook existed has no signing secret yet: every notification is refused.
      const noSecret = h.connectorWith({ credentials: { webhook_secret: '' } });
      expect(await noSecret.verifyNotification(n)).toEqual({ ok: false, reason: 'bad_signature' });
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: n.rawBody })).toEqual({ ok: false, reason: 'malformed' });
      for (const bad of ['v1=abc', 't=1', 'garbage', `t=x,${sig.split(',')[1]}`]) {
        expect(await h.connector.verifyNotification({ headers: { 'stripe-signature': bad }, rawBody: n.rawBody })).toEqual({ ok: false, reason: 'malformed' });
      }
      // Secret rotation: Stripe may send several v1 signatures.
      expect((await h.connector.verifyNotification({ headers: { 'stripe-signature': `${sig},v1=${'0'.repeat(64)}` }, rawBody: n.rawBody })).ok).toBe(true);
      const t = Math.floor(h.clock.now().getTime() / 1000);
      const future = { headers: { 'stripe-signature': signStripe(WEBHOOK_SECRET, n.rawBody, t + 301) }, rawBody: n.rawBody };
      expect(await h.connector.verifyNotification(future)).toEqual({ ok: false, reason: 'stale' });
      h.clock.advance(300_000);
      expect((await h.connector.verifyNotification(n)).ok).toBe(true);
      h.clock.advance(2_000);
      expect(await h.connector.verifyNotification(n)).toEqual({ ok: false, reason: 'stale' });
    });

    it('an event of another kind is malformed for us', async () => {
      const r = await captured();
      const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'customer.created', created: 1, data: { object: { id: 'cus_1', object: 'customer' } } });
      const t = Math.floor(h.clock.now().getTime() / 1000);
      expect(r.status).toBe('captured');
      expect(await h.connector.verifyNotification({ headers: { 'stripe-signature': signStripe(WEBHOOK_SECRET, body, t) }, rawBody: body })).toEqual({
        ok: false,
        reason: 'malformed',
      });
    });
  });
});

describe('stripe connector against the fake', () => {
  let h: StripeHarness;
  beforeAll(async () => {
    h = await stripeHarness();
  });
  afterAll(() => h?.teardown());

  async function attach(card = STRIPE_CARDS.success, connector = h.connector): Promise<string> {
    const a = await connector.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(a.reason);
    return a.paymentMethodId;
  }

  it("refuses a request invalid under Stripe's published API document as Stripe does (400 invalid_request_error), so the suites above check the connector against it", async () => {
    // A fake of its own: the other tests read every request their fake received.
    const own = await stripeHarness();
    onTestFinished(() => own.teardown());
    const call = (method: string, path: string, form: string) =>
      fetch(`${own.fake.url}${path}${method === 'GET' ? `?${form}` : ''}`, {
        method,
        headers: { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
        ...(method === 'GET' ? {} : { body: form }),
      });
    for (const [method, path, form, named] of [
      ['POST', '/v1/payment_intents', 'amount=100&currency=eur&captur_method=manual', 'captur_method'],
      ['POST', '/v1/payment_intents', 'amount=ten&currency=eur', 'amount'],
      ['POST', '/v1/payment_intents', 'amount=100&currency=eur&capture_method=later', 'capture_method'],
      ['POST', '/v1/refunds', 'amount=100&reason=unhappy', 'reason'],
      ['GET', '/v1/balance_transactions', 'limit=10&colour=blue', 'colour'],
    ] as const) {
      const r = await call(method, path, form);
      expect(r.status).toBe(400);
      const { error } = (await r.json()) as { error: { type: string; message: string } };
      expect(error.type).toBe('invalid_request_error');
      expect(error.message).toContain(named);
    }
    // The same create, valid under the document, passes its check (the fake's own rules then answer it).
    expect((await call('POST', '/v1/payment_intents', 'amount=100&currency=eur&capture_method=manual')).status).not.toBe(400);
  });

  it('sends our idempotency key as Stripe’s Idempotency-Key', async () => {
    const pm = await attach();
    const k = key();
    const r = await h.connector.authorize({ idempotencyKey: k, paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const sent = h.fake.requests.filter((q) => q.method === 'POST' && q.path === '/v1/payment_intents').at(-1);
    expect(sent?.idempotencyKey).toBe(k);
    expect(r.status).toBe('authorized');
  });

  it('an idempotency key reused with other parameters is idempotency_conflict (Stripe idempotency_error)', async () => {
    const pm = await attach();
    const k = key();
    await h.connector.authorize({ idempotencyKey: k, paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const err = await h.connector
      .authorize({ idempotencyKey: k, paymentMethodId: pm, amountCents: 200, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect((err as PspIntegrationError).code).toBe('idempotency_conflict');
  });

  it('a customer-initiated payment that stores the card gives the network transaction id', async () => {
    const pm = await attach();
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 900,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
      storeForLater: true,
    });
    expect(r.status).toBe('captured');
    expect(r.networkTransactionId).toMatch(/^[0-9]{15}$/);
  });

  it('an unknown payment method is unknown_payment_method, an unknown intent unknown_transaction', async () => {
    const a = await h.connector
      .authorize({ idempotencyKey: key(), paymentMethodId: 'pm_doesnotexist', amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL })
      .catch((e: unknown) => e);
    expect((a as PspIntegrationError).code).toBe('unknown_payment_method');
    const b = await h.connector.retrieve(bareRef('pi_doesnotexist')).catch((e: unknown) => e);
    expect((b as PspIntegrationError).code).toBe('unknown_transaction');
  });

  it('rejects programming errors before calling Stripe', async () => {
    const before = h.fake.requests.length;
    await expect(
      h.connector.authorize({ idempotencyKey: key(), paymentMethodId: 'pm_x', amountCents: 0, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL }),
    ).rejects.toThrow(RangeError);
    await expect(
      h.connector.authorize({ idempotencyKey: key(), paymentMethodId: 'pm_x', amountCents: 1, currency: 'EURO', capture: 'manual', returnUrl: RETURN_URL }),
    ).rejects.toThrow(RangeError);
    await expect(
      h.connector.authorize({ idempotencyKey: key(), paymentMethodId: 'pm_x', amountCents: 1, currency: 'EUR', capture: 'manual', returnUrl: 'javascript:alert(1)' }),
    ).rejects.toThrow(RangeError);
    await expect(h.connector.attachPaymentMethod({ idempotencyKey: '', card: STRIPE_CARDS.success })).rejects.toThrow(RangeError);
    expect(h.fake.requests.length).toBe(before);
  });

  describe('stored credentials (PSD2 CIT → MIT)', () => {
    let strict: StripeHarness;
    beforeAll(async () => {
      strict = await stripeHarness({ strictStoredCredentials: true });
    });
    afterAll(() => strict?.teardown());

    it('a MIT without a stored credential is refused by the fake (authentication_required), one after the storing CIT is charged', async () => {
      const pm = await attach(STRIPE_CARDS.success, strict.connector);
      const mit = await strict.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 700, currency: 'EUR' });
      expect(mit.status).toBe('declined');
      expect(mit.decline?.reason).toBe('authentication_failed');
      expect(mit.capturedCents).toBe(0);

      const cit = await strict.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 1000,
        currency: 'EUR',
        capture: 'manual',
        returnUrl: RETURN_URL,
        storeForLater: true,
      });
      expect(cit.status).toBe('authorized');
      const ok = await strict.connector.chargeOffSession({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 700,
        currency: 'EUR',
        storedCredential: { initialTransactionId: cit.transactionId, networkTransactionId: cit.networkTransactionId },
      });
      expect(ok).toMatchObject({ status: 'captured', capturedCents: 700 });
      expect(strict.fake.intents.get(ok.transactionId)?.metadata).toEqual({ chipin_initial_transaction: cit.transactionId });
      expect(strict.fake.intents.get(ok.transactionId)?.offSession).toBe(true);
    });

    it('a merchant-initiated hold (capture manual, a re-authorisation): off_session, confirm, capture_method=manual → authorized, captured later; replayed by its key', async () => {
      const pm = await attach(STRIPE_CARDS.success, strict.connector);
      const cit = await strict.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 1000,
        currency: 'EUR',
        capture: 'manual',
        returnUrl: RETURN_URL,
        storeForLater: true,
      });
      const input = {
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 800,
        currency: 'EUR',
        storedCredential: { initialTransactionId: cit.transactionId },
        capture: 'manual' as const,
      };
      const hold = await strict.connector.chargeOffSession(input);
      expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
      const intent = strict.fake.intents.get(hold.transactionId)!;
      expect({ offSession: intent.offSession, captureMethod: intent.captureMethod }).toEqual({ offSession: true, captureMethod: 'manual' });
      expect((await strict.connector.chargeOffSession(input)).transactionId).toBe(hold.transactionId);
      const captured = await strict.connector.capture({ idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 500 });
      expect(captured).toMatchObject({ status: 'captured', capturedCents: 500 });
      expect(stripeDefinition.authorizationValidity).toMatchObject({ default: 7, offSessionHold: true });
    });

    it('a CIT without storeForLater does not store the card', async () => {
      const pm = await attach(STRIPE_CARDS.success, strict.connector);
      const cit = await strict.connector.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1000, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
      expect(cit.status).toBe('captured');
      const mit = await strict.connector.chargeOffSession({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 700,
        currency: 'EUR',
        storedCredential: { initialTransactionId: cit.transactionId },
      });
      expect(mit.decline?.reason).toBe('authentication_failed');
    });

    it('Stripe’s SCA card is charged off session only after a 3-D Secure CIT that stored it; 4000 0027 6000 3184 never', async () => {
      const sca = testCard('4000 0000 0000 3220');
      const unstored = await attach(sca);
      const c1 = await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: unstored, amountCents: 500, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
      await h.completeChallenge(bareRef(c1.transactionId));
      expect((await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: unstored, amountCents: 500, currency: 'EUR' })).decline?.reason).toBe(
        'authentication_failed',
      );

      const stored = await attach(sca);
      const c2 = await h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: stored,
        amountCents: 500,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: RETURN_URL,
        storeForLater: true,
      });
      expect(c2.status).toBe('requires_action');
      await h.completeChallenge(bareRef(c2.transactionId));
      const mit = await h.connector.chargeOffSession({
        idempotencyKey: key(),
        paymentMethodId: stored,
        amountCents: 500,
        currency: 'EUR',
        storedCredential: { initialTransactionId: c2.transactionId },
      });
      expect(mit.status).toBe('captured');

      const always = await attach(testCard('4000 0027 6000 3184'));
      expect((await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: always, amountCents: 500, currency: 'EUR' })).decline?.reason).toBe(
        'authentication_failed',
      );
    });
  });

  describe('verifyCredentials', () => {
    it('ok with the right key', async () => {
      expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
    });
    it('rejected with another key, without repeating any of it', async () => {
      const wrong = 'sk_test_51WrongKeyWrongKeyWrongKey0000000000wxyz';
      const r = await h.connectorWith({ credentials: { secret_key: wrong } }).verifyCredentials();
      expect(r.ok).toBe(false);
      expect(JSON.stringify(r)).not.toMatch(/wxyz|sk_test/);
    });
    it('unreachable when nothing listens', async () => {
      const err = await h
        .connectorWith({ baseUrl: 'http://127.0.0.1:9' })
        .verifyCredentials()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PspIntegrationError);
      expect((err as PspIntegrationError).code).toBe('unreachable');
    });
  });

  describe('faults', () => {
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'no error',
        (e: unknown) => (e instanceof PspIntegrationError ? e.code : String(e)),
      );

    it('a timeout is unreachable', async () => {
      const quick = h.connectorWith({ timeoutMs: 300 });
      h.fake.fail('timeout', { path: /^\/v1\/balance$/ });
      expect(await code(quick.verifyCredentials())).toBe('unreachable');
    });

    it('a 5xx is unreachable', async () => {
      const pm = await attach();
      h.fake.fail('server_error', { path: /^\/v1\/payment_intents$/ });
      expect(await code(h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR' }))).toBe('unreachable');
    });

    it('an answer that is not JSON, or not a PaymentIntent, is bad_response', async () => {
      const r = await h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: await attach(),
        amountCents: 100,
        currency: 'EUR',
        capture: 'manual',
        returnUrl: RETURN_URL,
      });
      h.fake.fail('malformed_json', { path: /^\/v1\/payment_intents\/pi_/ });
      expect(await code(h.connector.retrieve(bareRef(r.transactionId)))).toBe('bad_response');
      h.fake.fail('unreadable_object', { path: /^\/v1\/payment_intents\/pi_/ });
      expect(await code(h.connector.retrieve(bareRef(r.transactionId)))).toBe('bad_response');
      expect((await h.connector.retrieve(bareRef(r.transactionId))).status).toBe('authorized');
    });

    it('401 on a payment call is bad_credentials, with no part of the key in the error', async () => {
      const wrong = 'sk_test_51AnotherWrongKey0000000000000000000qrst';
      const err = await h
        .connectorWith({ credentials: { secret_key: wrong } })
        .retrieve(bareRef('pi_123'))
        .catch((e: unknown) => e);
      expect((err as PspIntegrationError).code).toBe('bad_credentials');
      expect(`${(err as Error).message} ${JSON.stringify(err)} ${inspect(err)}`).not.toMatch(/qrst|sk_test_51/);
    });

    it('a call retried after a timeout (the first one went through) charges once', async () => {
      const pm = await attach();
      const quick = h.connectorWith({ timeoutMs: 300 });
      const k = key();
      const before = h.fake.intents.size;
      h.fake.fail('timeout_after_effect', { path: /^\/v1\/payment_intents$/ });
      expect(await code(quick.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 4200, currency: 'EUR' }))).toBe('unreachable');
      expect(h.fake.intents.size).toBe(before + 1);
      const retry = await quick.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 4200, currency: 'EUR' });
      expect(retry).toMatchObject({ status: 'captured', capturedCents: 4200 });
      expect(h.fake.intents.size).toBe(before + 1);
      const charged = [...h.fake.charges.values()].filter((c) => c.paymentMethod === pm && c.captured);
      expect(charged).toHaveLength(1);
    });
  });

  describe('credentials never show', () => {
    it('not in JSON.stringify, String or inspect of the connector', () => {
      const c = h.connector;
      for (const text of [JSON.stringify(c), String(c), inspect(c, { depth: 10, showHidden: true })]) {
        expect(text).not.toContain(SECRET_KEY);
        expect(text).not.toContain(SECRET_KEY.slice(-12));
        expect(text).not.toContain(WEBHOOK_SECRET);
      }
    });

    it('not in any error of a refused key, nor of a bad configuration', () => {
      let message = '';
      try {
        new StripeConnector({
          secretKey: 'pk_test_PublishableNotSecret123',
          webhookSecret: WEBHOOK_SECRET,
          baseUrl: 'https://api.stripe.com',
          sandbox: true,
          clock: new ManualClock(),
          timeoutMs: 1000,
          http: LOCAL_PSP_HTTP,
          operations: unusedOperations(new ManualClock()),
        });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/secret key/);
      expect(message).not.toContain('PublishableNotSecret');
    });
  });
});

describe('stripe definition', () => {
  it('names, fields and patterns', () => {
    expect(stripeDefinition).toMatchObject({ name: 'stripe', label: 'Stripe', environments: ['test', 'live'] });
    expect(stripeDefinition.credentialFields.map((f) => [f.name, f.secret, f.required])).toEqual([
      ['secret_key', true, true],
      // Made by Stripe for the webhook to the account's notification URL, which exists once the account is saved.
      ['webhook_secret', true, false],
    ]);
    const pattern = (name: string) => new RegExp(`^(?:${stripeDefinition.credentialFields.find((f) => f.name === name)!.pattern})$`);
    expect(pattern('secret_key').test(SECRET_KEY)).toBe(true);
    expect(pattern('secret_key').test('sk_live_51AbCdEfGhIjKlMnOp')).toBe(true);
    expect(pattern('secret_key').test('pk_test_51AbCdEfGhIjKlMnOp')).toBe(false);
    expect(pattern('webhook_secret').test(WEBHOOK_SECRET)).toBe(true);
    expect(pattern('webhook_secret').test('whsec_')).toBe(false);
  });

  it('the key must match the environment', () => {
    expect(stripeDefinition.validate!({ secret_key: 'sk_live_51AbCdEfGhIjKlMnOp' }, 'test')).toMatchObject({ field: 'secret_key' });
    expect(stripeDefinition.validate!({ secret_key: 'sk_test_51AbCdEfGhIjKlMnOp' }, 'live')).toMatchObject({ field: 'secret_key' });
    expect(stripeDefinition.validate!({ secret_key: 'sk_live_51AbCdEfGhIjKlMnOp' }, 'live')).toBeUndefined();
  });

  it('one API host for test and live; create calls nothing and refuses a base URL with a path', () => {
    expect(stripeDefinition.baseUrl('test', {})).toBe('https://api.stripe.com');
    expect(stripeDefinition.baseUrl('live', {})).toBe('https://api.stripe.com');
    const account = { id: 'x', environment: 'test' as const, credentials: { secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET }, baseUrl: 'http://127.0.0.1:9' };
    const context = { clock: new ManualClock(), publicUrl: 'http://127.0.0.1:3000', timeoutMs: 1000, http: LOCAL_PSP_HTTP, operations: unusedOperations(new ManualClock()) };
    const c = stripeDefinition.create(account, context);
    expect(c.name).toBe('stripe');
    expect(c.sandbox).toBe(true);
    expect(stripeDefinition.create({ ...account, environment: 'live', credentials: { ...account.credentials, secret_key: 'sk_live_51AbCdEfGhIjKlMnOp' } }, context).sandbox).toBe(
      false,
    );
    expect(() => stripeDefinition.create({ ...account, baseUrl: 'https://api.stripe.com/v1' }, context)).toThrow(TypeError);
  });
});
