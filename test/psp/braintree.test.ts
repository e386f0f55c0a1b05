import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../../src/outbound/addresses.ts';
import { braintreeDefinition } from '../../src/psp/braintree/definition.ts';
import { braintree } from '../../src/psp/braintree/sdk.ts';
import {
  declineOf,
  declineOfGatewayRejection,
  declineOfProcessorCode,
  readTransaction,
  statusOf,
  toBraintreeAmount,
  toMinor,
  toTransactionResult,
  TRANSACTION_STATUSES,
  type BraintreeStatus,
} from '../../src/psp/braintree/mapping.ts';
import { PspIntegrationError, type DeclineReason, type TransactionStatus } from '../../src/psp/connector.ts';
import { PspHttp } from '../../src/psp/psp-http.ts';
import { bareRef, describeConnectorContract } from './connector-contract.ts';
import { braintreeHarness, BRAINTREE_CARDS, MERCHANT, type BraintreeHarness } from './fixtures/braintree/harness.ts';

describeConnectorContract('braintree', braintreeHarness);

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';

describe('braintree mapping', () => {
  const statuses: [BraintreeStatus, TransactionStatus][] = [
    ['authorized', 'authorized'],
    ['authorizing', 'authorized'],
    ['submitted_for_settlement', 'captured'],
    ['settling', 'captured'],
    ['settled', 'captured'],
    ['settlement_pending', 'captured'],
    ['settlement_confirmed', 'captured'],
    ['voided', 'voided'],
    ['authorization_expired', 'expired'],
    ['processor_declined', 'declined'],
    ['gateway_rejected', 'declined'],
    ['failed', 'declined'],
    ['settlement_declined', 'declined'],
  ];
  it.each(statuses)('transaction status %s reads %s', (status, ours) => {
    expect(statusOf(status)).toBe(ours);
  });
  it('maps every documented status', () => {
    expect(new Set(statuses.map(([s]) => s))).toEqual(new Set(TRANSACTION_STATUSES));
  });

  const codes: [string | undefined, DeclineReason][] = [
    ['2000', 'card_declined'],
    ['2001', 'insufficient_funds'],
    ['2002', 'insufficient_funds'],
    ['2004', 'expired_card'],
    ['2005', 'invalid_card'],
    ['2010', 'incorrect_cvc'],
    ['2046', 'card_declined'],
    ['2099', 'authentication_failed'],
    ['3000', 'processing_error'],
    [undefined, 'card_declined'],
  ];
  it.each(codes)('processor response %s → %s', (code, reason) => {
    expect(declineOfProcessorCode(code)).toBe(reason);
  });
  it.each([
    ['three_d_secure', 'authentication_failed'],
    ['cvv', 'incorrect_cvc'],
    ['fraud', 'card_declined'],
    ['token_issuance', 'processing_error'],
  ] as const)('gateway rejection %s → %s', (reason, ours) => {
    expect(declineOfGatewayRejection(reason)).toBe(ours);
  });

  it('amounts: minor units to the decimal Braintree takes and back, exactly', () => {
    expect(toBraintreeAmount(1, 'EUR')).toBe('0.01');
    expect(toBraintreeAmount(123456, 'EUR')).toBe('1234.56');
    expect(toBraintreeAmount(7, 'JPY')).toBe('7');
    expect(toMinor('10.00', 'EUR')).toBe(1000);
    expect(toMinor('0.1', 'EUR')).toBe(10);
    expect(toMinor('7', 'JPY')).toBe(7);
    expect(toMinor('1.005', 'EUR')).toBeUndefined();
    expect(toMinor('-1.00', 'EUR')).toBeUndefined();
    expect(toMinor(10, 'EUR')).toBeUndefined();
  });

  it('reads a sale and sums its refund credits; a declined one says why', () => {
    const sale = readTransaction({
      id: 'abc',
      status: 'settled',
      type: 'sale',
      currencyIsoCode: 'EUR',
      amount: '25.00',
      refundIds: ['r1'],
      networkTransactionId: 'nt1',
      statusHistory: [
        { status: 'authorized', amount: '30.00' },
        { status: 'submitted_for_settlement', amount: '25.00' },
      ],
    })!;
    const credit = readTransaction({ id: 'r1', status: 'submitted_for_settlement', type: 'credit', currencyIsoCode: 'EUR', amount: '5.00', refundedTransactionId: 'abc' })!;
    expect(toTransactionResult(sale, [credit])).toMatchObject({ status: 'refunded', amountCents: 3000, capturedCents: 2500, refundedCents: 500, networkTransactionId: 'nt1' });
    const declined = readTransaction({ id: 'd', status: 'processor_declined', type: 'sale', currencyIsoCode: 'EUR', amount: '1.00', processorResponseCode: '2001' })!;
    expect(declineOf(declined)?.reason).toBe('insufficient_funds');
    expect(toTransactionResult(declined)).toMatchObject({ status: 'declined', capturedCents: 0 });
  });

  it('refuses to read what is not a transaction', () => {
    expect(readTransaction(null)).toBeUndefined();
    expect(readTransaction({ id: 'a', status: 'settled', type: 'sale', currencyIsoCode: 'EUR' })).toBeUndefined();
    expect(readTransaction({ id: 'a', status: 'unheard_of', type: 'sale', currencyIsoCode: 'EUR', amount: '1.00' })).toBeUndefined();
    expect(readTransaction({ id: 'a', status: 'settled', type: 'sale', currencyIsoCode: 'EUR', amount: '1,00' })).toBeUndefined();
  });
});

describe('braintree connector on its fake', () => {
  let h: BraintreeHarness;
  beforeAll(async () => {
    h = await braintreeHarness();
  });
  afterAll(async () => {
    await h.teardown();
  });

  async function card(): Promise<string> {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: BRAINTREE_CARDS.success });
    if (!a.ok) throw new Error(a.message);
    return a.paymentMethodId;
  }

  it('sends what the SDK sends: Basic auth, API version 6, JSON with underscored keys, to /merchants/<id>/', async () => {
    const pm = await card();
    await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1234, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL, storeForLater: true });
    const sale = h.fake.requests.at(-1)!;
    expect(sale.method).toBe('POST');
    expect(sale.path).toBe(`/merchants/${MERCHANT.merchantId}/transactions`);
    expect(sale.headers['x-apiversion']).toBe('6');
    expect(sale.headers.accept).toBe('application/xml');
    expect(sale.headers['accept-encoding']).toBeUndefined();
    expect(sale.body).toEqual({
      transaction: {
        amount: '12.34',
        payment_method_token: pm,
        order_id: expect.any(String),
        transaction_source: 'recurring_first',
        options: { submit_for_settlement: false },
        type: 'sale',
      },
    });
  });

  it('a MIT is sent as unscheduled with the stored card’s network transaction id', async () => {
    const pm = await card();
    const cit = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 100,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
      storeForLater: true,
    });
    expect(cit.networkTransactionId).toBeTruthy();
    const mit = await h.connector.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 500,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId, networkTransactionId: cit.networkTransactionId! },
    });
    expect(mit.status).toBe('captured');
    expect(h.fake.requests.at(-1)!.body).toMatchObject({
      transaction: {
        transaction_source: 'unscheduled',
        external_vault: { status: 'vaulted', previous_network_transaction_id: cit.networkTransactionId },
        options: { submit_for_settlement: true },
      },
    });
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): an unscheduled sale not submitted for settlement → authorized, then settled or voided', async () => {
    const pm = await card();
    const cit = await h.connector.authorize({
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
      storedCredential: { initialTransactionId: cit.transactionId, networkTransactionId: cit.networkTransactionId! },
      capture: 'manual' as const,
    };
    const hold = await h.connector.chargeOffSession(input);
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
    expect(h.fake.requests.at(-1)!.body).toMatchObject({ transaction: { transaction_source: 'unscheduled', options: { submit_for_settlement: false } } });
    expect(h.fake.transaction(hold.transactionId)).toMatchObject({ status: 'authorized', source: 'unscheduled' });
    expect((await h.connector.chargeOffSession(input)).transactionId).toBe(hold.transactionId);
    expect(await h.connector.capture({ idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 500 })).toMatchObject({
      status: 'captured',
      capturedCents: 500,
    });
    const other = await h.connector.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
    expect((await h.connector.void({ idempotencyKey: key(), transaction: bareRef(other.transactionId) })).status).toBe('voided');
    expect(braintreeDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('a card needing 3-D Secure is declined authentication_failed (no server-side challenge)', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: BRAINTREE_CARDS.challenge });
    if (!a.ok) throw new Error(a.message);
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 2500,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(r).toMatchObject({ status: 'declined', capturedCents: 0, decline: { reason: 'authentication_failed' } });
  });

  it('a sale in another currency than the merchant account’s is a fault, not a payment in the wrong currency', async () => {
    const pm = await card();
    const err = await h.connector
      .authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'USD', capture: 'manual', returnUrl: RETURN_URL })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect((err as PspIntegrationError).code).toBe('not_supported');
  });

  describe('a lost answer is found again by orderId, never sent twice (Braintree keeps no idempotency key)', () => {
    const salePath = (path: string) => path.endsWith('/transactions');

    it('a sale whose answer was lost, asked again: one sale at Braintree, the same transaction answered', async () => {
      const pm = await card();
      const input = { idempotencyKey: key(), paymentMethodId: pm, amountCents: 1500, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL } as const;
      const before = h.fake.transactionCount;
      h.fake.failNext('timeout_after_processing', 1, salePath);
      await expect(h.connector.authorize(input)).rejects.toMatchObject({ code: 'unreachable' });
      expect(h.fake.transactionCount).toBe(before + 1);
      const again = await h.connector.authorize(input);
      expect(h.fake.transactionCount).toBe(before + 1);
      expect(h.fake.transaction(again.transactionId)).toMatchObject({ type: 'sale', orderId: input.idempotencyKey, amount: 1500 });
      expect(again).toMatchObject({ status: 'captured', amountCents: 1500, capturedCents: 1500 });
      expect(h.fake.requests.some((r) => r.path.endsWith('/transactions/advanced_search_ids') && (r.body.search as Record<string, unknown>).order_id !== undefined)).toBe(true);
    });

    it('a sale never made (the call refused before Braintree acted) is sent when asked again', async () => {
      const pm = await card();
      const input = { idempotencyKey: key(), paymentMethodId: pm, amountCents: 900, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL } as const;
      const before = h.fake.transactionCount;
      h.fake.failNext('timeout', 1, salePath);
      await expect(h.connector.authorize(input)).rejects.toMatchObject({ code: 'unreachable' });
      expect(h.fake.transactionCount).toBe(before);
      const again = await h.connector.authorize(input);
      expect(again.status).toBe('authorized');
      expect(h.fake.transactionCount).toBe(before + 1);
    });

    it('an off-session charge whose answer was lost, asked again: one charge, the same transaction', async () => {
      const pm = await card();
      const cit = await h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 100,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: RETURN_URL,
        storeForLater: true,
      });
      const input = {
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 700,
        currency: 'EUR',
        storedCredential: { initialTransactionId: cit.transactionId, networkTransactionId: cit.networkTransactionId! },
      };
      const before = h.fake.transactionCount;
      h.fake.failNext('timeout_after_processing', 1, salePath);
      await expect(h.connector.chargeOffSession(input)).rejects.toMatchObject({ code: 'unreachable' });
      const again = await h.connector.chargeOffSession(input);
      expect(h.fake.transactionCount).toBe(before + 1);
      expect(h.fake.transaction(again.transactionId)).toMatchObject({ type: 'sale', orderId: input.idempotencyKey, amount: 700, source: 'unscheduled' });
      expect(again).toMatchObject({ status: 'captured', capturedCents: 700 });
    });

    it('a refund whose answer was lost, asked again: one credit at Braintree, the sale answered refunded once', async () => {
      const pm = await card();
      const sale = await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 2000, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
      const input = { idempotencyKey: key(), transaction: { transactionId: sale.transactionId, pspState: sale.pspState ?? null }, amountCents: 800 };
      const before = h.fake.refundCount;
      h.fake.failNext('timeout_after_processing', 1, (path) => path.endsWith('/refund'));
      await expect(h.connector.refund(input)).rejects.toMatchObject({ code: 'unreachable' });
      expect(h.fake.refundCount).toBe(before + 1);
      const again = await h.connector.refund(input);
      expect(h.fake.refundCount).toBe(before + 1);
      expect(h.fake.transaction(sale.transactionId)?.refundIds).toHaveLength(1);
      expect(h.fake.transaction(h.fake.transaction(sale.transactionId)!.refundIds[0]!)).toMatchObject({ type: 'credit', orderId: input.idempotencyKey, amount: 800 });
      expect(again).toMatchObject({ transactionId: sale.transactionId, refundedCents: 800 });
    });
  });

  describe('outbound calls go through our client', () => {
    it('a redirect from the fake is a fault, never followed', async () => {
      h.fake.failNext('redirect');
      const err = await h.connector.retrieve({ transactionId: 'abc', pspState: null }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PspIntegrationError);
      expect((err as PspIntegrationError).code).toBe('bad_response');
      expect((err as Error).message).toMatch(/redirect/);
    });

    it('an address the policy refuses is never called: unreachable', async () => {
      const before = h.fake.requests.length;
      const production = new PspHttp(new AddressPolicy('production', [], 'PSP_ENDPOINT_ALLOWLIST'));
      const err = await h
        .connectorWith({ http: production })
        .retrieve({ transactionId: 'abc', pspState: null })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PspIntegrationError);
      expect((err as PspIntegrationError).code).toBe('unreachable');
      expect(h.fake.requests.length).toBe(before);
    });

    it('a 5xx is unreachable (outcome unknown), a malformed answer bad_response', async () => {
      h.fake.failNext('server_error');
      await expect(h.connector.retrieve({ transactionId: 'abc', pspState: null })).rejects.toMatchObject({ code: 'unreachable' });
      h.fake.failNext('malformed');
      await expect(h.connector.retrieve({ transactionId: 'abc', pspState: null })).rejects.toMatchObject({ code: 'bad_response' });
    });
  });

  describe('notifications (bt_signature / bt_payload, checked by the SDK)', () => {
    const signer = (privateKey = MERCHANT.privateKey) =>
      new braintree.BraintreeGateway({ environment: braintree.Environment.Sandbox, merchantId: MERCHANT.merchantId, publicKey: MERCHANT.publicKey, privateKey });
    const form = (n: { bt_signature: string; bt_payload: string }) => new URLSearchParams(n).toString();

    it('a signed transaction notification is read back from Braintree: the sale and its status', async () => {
      const pm = await card();
      const sale = await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 700, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
      const n = signer().webhookTesting.sampleNotification('transaction_settled', sale.transactionId);
      expect(await h.connector.verifyNotification({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: form(n) })).toEqual({
        ok: true,
        transactionId: sale.transactionId,
        status: 'captured',
      });
    });

    it('refuses a payload signed with another key, a tampered payload and a body without the fields', async () => {
      const other = signer('anotherprivatekey000').webhookTesting.sampleNotification('transaction_settled', 'abc');
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: form(other) })).toEqual({ ok: false, reason: 'bad_signature' });
      const good = signer().webhookTesting.sampleNotification('transaction_settled', 'abc');
      const tampered = { ...good, bt_payload: Buffer.from(Buffer.from(good.bt_payload, 'base64').toString().replace('abc', 'abd')).toString('base64') };
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: form(tampered) })).toEqual({ ok: false, reason: 'bad_signature' });
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: 'hello=1' })).toEqual({ ok: false, reason: 'malformed' });
    });
  });

  describe('credentials', () => {
    it('verifyCredentials: ok with the right keys, refused with a wrong private key, without echoing it', async () => {
      expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
      const wrong = await h.connectorWith({ credentials: { private_key: 'wrongprivatekey0000' } }).verifyCredentials();
      expect(wrong.ok).toBe(false);
      expect(JSON.stringify(wrong)).not.toContain('wrongprivatekey');
    });

    it('the private key is in no log line, JSON or inspection of the connector', () => {
      const shown = `${String(h.connector)} ${JSON.stringify(h.connector)} ${inspect(h.connector, { depth: 5, showHidden: true })}`;
      expect(shown).not.toContain(MERCHANT.privateKey);
    });

    it('hosts: the SDK’s sandbox and production hosts; a base URL with a path is refused', () => {
      expect(braintreeDefinition.baseUrl('test', {})).toBe('https://api.sandbox.braintreegateway.com');
      expect(braintreeDefinition.baseUrl('live', {})).toBe('https://api.braintreegateway.com');
      expect(() => h.connectorWith({ baseUrl: `${h.fake.url}/merchants` })).toThrow(/scheme, host and port/);
    });
  });
});
