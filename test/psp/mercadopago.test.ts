import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError } from '../../src/psp/connector.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { mercadopagoDefinition } from '../../src/psp/mercadopago/definition.ts';
import { declineFor, fromMpAmount, readPayment, toMpAmount, toTransactionResult } from '../../src/psp/mercadopago/mapping.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { ACCESS_TOKEN, MERCADOPAGO_CARDS, mercadopagoHarness, WEBHOOK_SECRET, type MercadoPagoHarness } from './fixtures/mercadopago/harness.ts';

describeConnectorContract('mercadopago', mercadopagoHarness);

const key = () => `test-${randomUUID()}`;

describe('mercadopago amounts', () => {
  it('transaction_amount is the exact decimal of the minor units, for any amount and currency, and reads back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999_999_999 }), fc.constantFrom('EUR', 'BRL', 'ARS', 'MXN', 'CLP', 'JPY', 'KWD'), (cents, currency) => {
        const a = toMpAmount(cents, currency);
        // What the SDK writes (JSON.stringify) is the decimal itself, digit for digit.
        const exponent = currency === 'CLP' || currency === 'JPY' ? 0 : currency === 'KWD' ? 3 : 2;
        const text = JSON.stringify(a);
        const [whole, fraction = ''] = text.split('.');
        expect(BigInt(whole!) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, '0') || '0')).toBe(BigInt(cents));
        expect(fromMpAmount(a, currency)).toBe(cents);
      }),
    );
    expect(toMpAmount(1230, 'EUR')).toBe(12.3);
    expect(toMpAmount(1, 'EUR')).toBe(0.01);
    expect(() => toMpAmount(12.5, 'EUR')).toThrow(RangeError);
    expect(() => toMpAmount(0, 'EUR')).toThrow(RangeError);
    expect(() => toMpAmount(100, 'XXX')).toThrow();
    // Past 15 significant digits a JSON number no longer carries every decimal exactly.
    expect(toMpAmount(999_999_999_999_999, 'EUR')).toBe(9_999_999_999_999.99);
    expect(() => toMpAmount(1_000_000_000_000_000, 'EUR')).toThrow(RangeError);
    expect(fromMpAmount(10 ** 13, 'JPY')).toBe(10 ** 13);
    expect(fromMpAmount(12.345, 'EUR')).toBeUndefined();
    expect(fromMpAmount('12.30', 'EUR')).toBeUndefined();
  });
});

describe('mercadopago mapping', () => {
  it('maps status_detail of a rejection onto the closed set of reasons', () => {
    expect(declineFor('cc_rejected_insufficient_amount').reason).toBe('insufficient_funds');
    expect(declineFor('cc_rejected_bad_filled_security_code').reason).toBe('incorrect_cvc');
    expect(declineFor('cc_rejected_bad_filled_date').reason).toBe('expired_card');
    expect(declineFor('cc_rejected_bad_filled_card_number').reason).toBe('invalid_card');
    expect(declineFor('cc_rejected_3ds_challenge').reason).toBe('authentication_failed');
    expect(declineFor('cc_rejected_other_reason').reason).toBe('card_declined');
    expect(declineFor(undefined).reason).toBe('card_declined');
  });

  it('reads a pending challenge as requires_action with a form to post (creq)', () => {
    const p = readPayment({
      id: 123,
      status: 'pending',
      status_detail: 'pending_challenge',
      currency_id: 'BRL',
      transaction_amount: 10.5,
      three_ds_info: { external_resource_url: 'https://acs.example/challenge', creq: 'eyJ0ZXN0IjoxfQ' },
    });
    expect(p).toBeDefined();
    const r = toTransactionResult(p!);
    expect(r).toMatchObject({ transactionId: '123', status: 'requires_action', amountCents: 1050, capturedCents: 0 });
    expect(r.challengeForm).toEqual({ action: 'https://acs.example/challenge', fields: { creq: 'eyJ0ZXN0IjoxfQ' } });
    expect(r.challengeUrl).toBeUndefined();
  });

  it('a partly refunded approved payment is refunded with its amounts; an expired hold is expired', () => {
    const refunded = readPayment({ id: 9, status: 'approved', currency_id: 'EUR', transaction_amount: 10, transaction_amount_refunded: 2.5, captured: true });
    expect(toTransactionResult(refunded!)).toMatchObject({ status: 'refunded', capturedCents: 1000, refundedCents: 250 });
    const expired = readPayment({ id: 9, status: 'cancelled', status_detail: 'expired', currency_id: 'EUR', transaction_amount: 10 });
    expect(toTransactionResult(expired!).status).toBe('expired');
  });

  it('refuses a payment it cannot read (no id, unknown status, amount with too many decimals)', () => {
    expect(readPayment({ status: 'approved', currency_id: 'EUR', transaction_amount: 1 })).toBeUndefined();
    expect(readPayment({ id: 1, status: 'weird', currency_id: 'EUR', transaction_amount: 1 })).toBeUndefined();
    expect(readPayment({ id: 1, status: 'approved', currency_id: 'EUR', transaction_amount: 1.001 })).toBeUndefined();
  });
});

describe('mercadopago definition', () => {
  it('takes TEST-… and APP_USR-… tokens; a live account needs APP_USR-…', () => {
    expect(validateCredentials(mercadopagoDefinition, { access_token: ACCESS_TOKEN }, 'test')).toBeUndefined();
    expect(validateCredentials(mercadopagoDefinition, { access_token: ACCESS_TOKEN }, 'live')).toMatchObject({ field: 'credentials.access_token' });
    expect(validateCredentials(mercadopagoDefinition, { access_token: 'sk_test_123' }, 'test')).toMatchObject({ field: 'credentials.access_token' });
  });
});

describe('mercadopago connector against the fake', () => {
  let h: MercadoPagoHarness;
  beforeAll(async () => {
    h = await mercadopagoHarness();
  });
  afterAll(async () => {
    await h.teardown();
  });

  async function savedCard(): Promise<string> {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: MERCADOPAGO_CARDS.success });
    if (!a.ok) throw new Error('attach refused');
    return a.paymentMethodId;
  }

  it('sends every request through the outbound client to the fake, and leaves the global fetch and the SDK base URL as they were', async () => {
    const before = globalThis.fetch;
    const { AppConfig } = await import('mercadopago/dist/utils/config/index.js');
    const n = h.fake.requests.length;
    await h.connector.retrieve({ transactionId: '1', pspState: null }).catch(() => undefined);
    expect(h.fake.requests.length).toBe(n + 1);
    expect(globalThis.fetch).toBe(before);
    expect(AppConfig.BASE_URL).toBe('https://api.mercadopago.com');
  });

  // Once quarantined in CI (docs/testing.md#known-flakes): there a call now and then never reached
  // either fake (caught and dropped), and the test, which counted arrivals, took a call lost on
  // the way for a call sent elsewhere. It is about where calls go: a call that arrives must arrive
  // at its own host, at once; a call lost to the transport proves nothing either way and is sent
  // again (3 rounds at most), until every call has arrived at its host.
  it('two accounts on two hosts, called at once, each reach only their own host', async () => {
    const other = await mercadopagoHarness();
    try {
      // A timeout long enough for a loaded CI machine: this test is about where calls go, not how fast.
      const [mine, theirs] = [h.connectorWith({}, 60_000), other.connectorWith({}, 60_000)];
      const calls = [
        { connector: mine, id: '11', own: h.fake, wrong: other.fake },
        { connector: theirs, id: '22', own: other.fake, wrong: h.fake },
        { connector: mine, id: '33', own: h.fake, wrong: other.fake },
      ];
      const arrived = (fake: typeof h.fake, id: string) => fake.requests.some((q) => q.path === `/v1/payments/${id}`);
      const lost: string[] = [];
      for (let round = 1; round <= 3; round++) {
        const left = calls.filter((c) => !arrived(c.own, c.id));
        if (left.length === 0) break;
        // The unknown payments answer 404 (unknown_transaction): the answer, not an error of the call.
        const outcomes = await Promise.all(
          left.map((c) =>
            c.connector.retrieve({ transactionId: c.id, pspState: null }).then(
              () => 'found',
              (e: Error) => e.message,
            ),
          ),
        );
        for (const [i, c] of left.entries()) {
          expect(arrived(c.wrong, c.id), `payment ${c.id} was asked of the other account's host`).toBe(false);
          if (!arrived(c.own, c.id)) lost.push(`round ${round}, payment ${c.id}: ${outcomes[i]}`);
        }
      }
      expect(
        calls.filter((c) => !arrived(c.own, c.id)),
        `calls that never arrived: ${lost.join('; ')}`,
      ).toEqual([]);
    } finally {
      await other.teardown();
    }
  });

  it('authorises with capture false, binary_mode, 3-D Secure optional and an X-Idempotency-Key, the amount as a decimal', async () => {
    const pm = await savedCard();
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 1050,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: 'https://shop.example/r',
    });
    expect(r.status).toBe('authorized');
    const sent = h.fake.requests.filter((q) => q.method === 'POST' && q.path === '/v1/payments').at(-1)!;
    expect(JSON.parse(sent.body)).toMatchObject({ transaction_amount: 10.5, capture: false, binary_mode: true, three_d_secure_mode: 'optional' });
    expect(sent.headers['x-idempotency-key']).toMatch(/\S/);
  });

  it('a merchant-initiated charge names the payment that stored the card (payment_reference)', async () => {
    const pm = await savedCard();
    const cit = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 100,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: 'https://shop.example/r',
      storeForLater: true,
    });
    const first = JSON.parse(h.fake.requests.filter((q) => q.path === '/v1/payments').at(-1)!.body);
    expect(first.point_of_interaction).toEqual({ type: 'SUBSCRIPTIONS', transaction_data: { first_time_use: true } });
    const mit = await h.connector.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 300,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId },
    });
    expect(mit.status).toBe('captured');
    const later = JSON.parse(h.fake.requests.filter((q) => q.path === '/v1/payments').at(-1)!.body);
    expect(later.point_of_interaction.transaction_data).toMatchObject({ first_time_use: false, payment_reference: { id: cit.transactionId } });
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): capture false on the saved card → authorized, then captured or cancelled', async () => {
    const pm = await savedCard();
    const cit = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 1000,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: 'https://shop.example/r',
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
    const hold = await h.connector.chargeOffSession(input);
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
    const sent = JSON.parse(h.fake.requests.filter((q) => q.path === '/v1/payments').at(-1)!.body);
    expect(sent).toMatchObject({
      capture: false,
      three_d_secure_mode: 'not_supported',
      point_of_interaction: { transaction_data: { first_time_use: false, payment_reference: { id: cit.transactionId } } },
    });
    expect(h.fake.payment(hold.transactionId)).toMatchObject({ status: 'authorized', status_detail: 'pending_capture' });
    expect((await h.connector.chargeOffSession(input)).transactionId).toBe(hold.transactionId);
    const ref = (r: typeof hold) => ({ transactionId: r.transactionId, pspState: r.pspState ?? null });
    expect(await h.connector.capture({ idempotencyKey: key(), transaction: ref(hold), amountCents: 500 })).toMatchObject({ status: 'captured', capturedCents: 500 });
    const other = await h.connector.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
    expect((await h.connector.void({ idempotencyKey: key(), transaction: ref(other) })).status).toBe('voided');
    expect(mercadopagoDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('a wrong access token is bad_credentials, and verifyCredentials says so without the token', async () => {
    const wrong = h.connectorWith({ access_token: 'TEST-9999999999999999-000000-wrongwrongwrongwrongwrongwrong-000000001' });
    const v = await wrong.verifyCredentials();
    expect(v.ok).toBe(false);
    expect(JSON.stringify(v)).not.toContain('wrongwrong');
    expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
    const err = await wrong.retrieve({ transactionId: '1', pspState: null }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect((err as PspIntegrationError).code).toBe('bad_credentials');
  });

  it('never shows its access token or webhook secret', () => {
    const shown = `${inspect(h.connector, { depth: 5 })} ${JSON.stringify(h.connector)} ${String(h.connector)}`;
    expect(shown).not.toContain(ACCESS_TOKEN);
    expect(shown).not.toContain(WEBHOOK_SECRET);
  });

  describe('notifications (x-signature)', () => {
    it('accepts a signed payment notification and reads the payment’s current status', async () => {
      const pm = await savedCard();
      const r = await h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 700,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: 'https://shop.example/r',
      });
      const n = await h.connector.verifyNotification(h.fake.notification(r.transactionId));
      expect(n).toMatchObject({ ok: true, transactionId: r.transactionId, status: 'captured' });
    });

    it('refuses another secret, a changed id, a missing signature and a stale timestamp', async () => {
      const pm = await savedCard();
      const r = await h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 700,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: 'https://shop.example/r',
      });
      expect(await h.connector.verifyNotification(h.fake.notification(r.transactionId, { secret: 'AnotherSecret000000000000' }))).toEqual({ ok: false, reason: 'bad_signature' });
      const n = h.fake.notification(r.transactionId);
      expect(await h.connector.verifyNotification({ ...n, rawBody: n.rawBody.replace(r.transactionId, '1') })).toEqual({ ok: false, reason: 'bad_signature' });
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: n.rawBody })).toEqual({ ok: false, reason: 'bad_signature' });
      const old = h.fake.notification(r.transactionId, { ts: Math.floor(h.clock.now().getTime() / 1000) - 3600 });
      expect(await h.connector.verifyNotification(old)).toEqual({ ok: false, reason: 'stale' });
      // A timestamp in milliseconds, as some of Mercado Pago's examples show, is read as such.
      expect(await h.connector.verifyNotification(h.fake.notification(r.transactionId, { ts: h.clock.now().getTime() }))).toMatchObject({ ok: true });
      const oldMs = h.fake.notification(r.transactionId, { ts: h.clock.now().getTime() - 3_600_000 });
      expect(await h.connector.verifyNotification(oldMs)).toEqual({ ok: false, reason: 'stale' });
      expect(await h.connector.verifyNotification({ headers: n.headers, rawBody: 'not json' })).toEqual({ ok: false, reason: 'malformed' });
    });

    it('refuses every notification while no webhook secret is set', async () => {
      const none = h.connectorWith({ webhook_secret: '' });
      expect(await none.verifyNotification(h.fake.notification('123'))).toEqual({ ok: false, reason: 'bad_signature' });
    });
  });
});
