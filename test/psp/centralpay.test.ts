import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { centralpayDefinition } from '../../src/psp/centralpay/definition.ts';
import {
  CENTRALPAY_STATUSES,
  bankCodeReason,
  fromCentralpayAmount,
  merchantTransactionIdFor,
  readStoredCard,
  readTransaction,
  toCentralpayAmount,
  toStatus,
  toTransactionResult,
  type CentralpayStatus,
} from '../../src/psp/centralpay/mapping.ts';
import { PspIntegrationError, type DeclineReason, type TransactionStatus } from '../../src/psp/connector.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { bareRef, describeConnectorContract } from './connector-contract.ts';
import { CENTRALPAY_FAKE_CARDS, CREDENTIALS, centralpayHarness, type CentralpayHarness } from './fixtures/centralpay/harness.ts';
import { testCard as card } from './fixtures/sandbox/cards.ts';
import customerFixture from './fixtures/centralpay/customer-created.json' with { type: 'json' };

describeConnectorContract('centralpay', centralpayHarness);

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';

async function expectFault(p: Promise<unknown>, code: PspIntegrationError['code']): Promise<PspIntegrationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PspIntegrationError);
  expect((err as PspIntegrationError).code).toBe(code);
  return err as PspIntegrationError;
}

describe('centralpay mapping', () => {
  // CentralPay's documented transaction statuses in our words.
  const statuses: Record<CentralpayStatus, TransactionStatus> = {
    SUCCESS: 'authorized',
    CAPTURED: 'captured',
    CLEARED: 'captured',
    FAILURE: 'declined',
    CANCELED: 'voided',
    THREEDS_AUTH_FAILURE: 'declined',
    NOT_ACCEPTED: 'declined',
    FRAUD: 'declined',
  };
  it.each(CENTRALPAY_STATUSES.map((s) => [s, statuses[s]] as const))('status %s reads %s', (status, ours) => {
    expect(toStatus(status, { refundedCents: 0, lapsed: false })).toBe(ours);
  });
  it('a captured or cleared transaction with a refund reads refunded; a SUCCESS past its 7 days reads expired', () => {
    expect(toStatus('CAPTURED', { refundedCents: 1, lapsed: false })).toBe('refunded');
    expect(toStatus('CLEARED', { refundedCents: 1, lapsed: false })).toBe('refunded');
    expect(toStatus('SUCCESS', { refundedCents: 0, lapsed: true })).toBe('expired');
  });

  // The classes of CentralPay's page on bank authorisation return codes.
  const codes: [string, DeclineReason][] = [
    ['A1', 'authentication_failed'],
    ['51', 'insufficient_funds'],
    ['61', 'insufficient_funds'],
    ['54', 'expired_card'],
    ['14', 'invalid_card'],
    ['05', 'card_declined'],
    ['5', 'card_declined'],
    ['57', 'card_declined'],
    ['3', 'card_declined'],
    ['43', 'card_declined'],
    ['59', 'card_declined'],
    ['12', 'card_declined'],
    ['96', 'processing_error'],
  ];
  it.each(codes)('bank code %s reads %s', (code, reason) => expect(bankCodeReason(code)).toBe(reason));

  it('amounts are integers in minor units both ways, and nothing else passes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (cents) => {
        const sent = toCentralpayAmount(cents);
        expect(sent).toMatch(/^\d+$/);
        expect(fromCentralpayAmount(sent)).toBe(cents);
        expect(fromCentralpayAmount(cents)).toBe(cents);
      }),
    );
    for (const bad of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) expect(() => toCentralpayAmount(bad)).toThrow(RangeError);
    for (const bad of ['10.00', '1e3', '-5', '', ' 5', 12.5, null]) expect(fromCentralpayAmount(bad)).toBeUndefined();
  });

  it('our merchantTransactionId is stable per key and kind, and differs for any other key', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 255 }), fc.string({ minLength: 1, maxLength: 255 }), (a, b) => {
        expect(merchantTransactionIdFor('cit', a)).toBe(merchantTransactionIdFor('cit', a));
        expect(merchantTransactionIdFor('cit', a)).toMatch(/^chipin-cit-[0-9a-f]{32}$/);
        expect(merchantTransactionIdFor('cit', a)).not.toBe(merchantTransactionIdFor('mit', a));
        if (a !== b) expect(merchantTransactionIdFor('cit', a)).not.toBe(merchantTransactionIdFor('cit', b));
      }),
    );
  });

  it('reads the stored card of the documentation’s customer example', () => {
    expect(readStoredCard(customerFixture.body)).toEqual({
      customerId: '6bb22104-c271-43e9-8a8d-d47812dade76',
      cardId: '864b055e-7105-47e0-a4a4-37d47686ed40',
      brand: 'visa',
      last4: '0010',
      expMonth: 12,
      expYear: 2023,
    });
    expect(readStoredCard({ ...customerFixture.body, cards: [] })).toBeUndefined();
  });

  it('reads a transaction, its hold lapsing 7 days after it was created, and refuses a malformed one', () => {
    const raw = {
      transactionId: '1f0e6b1c-7b55-4c43-9a0e-3b8f5d2c4a10',
      merchantTransactionId: 'chipin-cit-00112233445566778899aabbccddeeff',
      creationDate: '2026-03-01T10:00:00.000+01:00',
      amount: 2500,
      currency: 'EUR',
      capture: false,
      transactionStatus: 'SUCCESS',
      bankCode: '0',
    };
    const t = readTransaction(raw)!;
    const r = toTransactionResult('chipin-cit-00112233445566778899aabbccddeeff', t, new Date('2026-03-02T00:00:00Z'));
    expect(r).toMatchObject({ status: 'authorized', amountCents: 2500, capturedCents: 0, refundedCents: 0 });
    expect(r.expiresAt?.toISOString()).toBe('2026-03-08T09:00:00.000Z');
    expect(toTransactionResult('x', t, new Date('2026-03-08T09:00:00Z')).status).toBe('expired');
    expect(toTransactionResult('x', readTransaction({ ...raw, transactionStatus: 'FAILURE', bankCode: '51' })!, new Date()).decline?.reason).toBe('insufficient_funds');
    expect(readTransaction({ ...raw, transactionStatus: 'PENDING' })).toBeUndefined();
    expect(readTransaction({ ...raw, amount: '25.00' })).toBeUndefined();
    expect(readTransaction({ ...raw, transactionId: 'abc' })).toBeUndefined();
  });
});

describe('centralpay definition', () => {
  it('declares login, API key and point of sale, and CentralPay’s own base URLs', () => {
    expect(centralpayDefinition.credentialFields.map((f) => [f.name, f.secret])).toEqual([
      ['login', false],
      ['api_key', true],
      ['point_of_sale_id', false],
    ]);
    expect(centralpayDefinition.baseUrl('test', {})).toBe('https://test-api.centralpay.net/v2/rest');
    expect(centralpayDefinition.baseUrl('live', {})).toBe('https://api.centralpay.net/v2/rest');
    expect(centralpayDefinition.publishedHosts).toEqual({ test: ['test-api.centralpay.net'], live: ['api.centralpay.net'] });
  });

  it('names the field of every wrong value, case included', () => {
    expect(validateCredentials(centralpayDefinition, { ...CREDENTIALS }, 'test')).toBeUndefined();
    const wrong: [Record<string, string>, string][] = [
      [{ login: 'a b' }, 'login'],
      [{ api_key: 'short' }, 'api_key'],
      [{ api_key: 'has space in it' }, 'api_key'],
      [{ point_of_sale_id: CREDENTIALS.point_of_sale_id.toUpperCase() }, 'point_of_sale_id'],
      [{ point_of_sale_id: 'not-a-uuid' }, 'point_of_sale_id'],
    ];
    for (const [change, field] of wrong) {
      const problem = validateCredentials(centralpayDefinition, { ...CREDENTIALS, ...change }, 'test');
      expect(problem?.field, JSON.stringify(change)).toBe(`credentials.${field}`);
    }
    const { login: _, ...withoutLogin } = CREDENTIALS;
    expect(validateCredentials(centralpayDefinition, withoutLogin, 'test')?.field).toBe('credentials.login');
  });
});

describe('centralpay connector against the fake', () => {
  let h: CentralpayHarness;
  beforeAll(async () => {
    h = await centralpayHarness();
  });
  afterAll(() => h.teardown());

  async function attach(card = CENTRALPAY_FAKE_CARDS.success): Promise<string> {
    const a = await h.centralpay.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(a.message);
    return a.paymentMethodId;
  }

  it('refuses every notification: CentralPay publishes no signature scheme to check it with', async () => {
    expect(await h.centralpay.verifyNotification()).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('a 3-D Secure challenge is a form POST of creq to the ACS, which answers no GET', async () => {
    const r = await h.centralpay.authorize({
      idempotencyKey: key(),
      paymentMethodId: await attach(CENTRALPAY_FAKE_CARDS.challenge),
      amountCents: 900,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(r.status).toBe('requires_action');
    expect(r.challengeForm?.action).toBe(`${h.fake.url}/acs`);
    expect(Object.keys(r.challengeForm?.fields ?? {})).toEqual(['creq']);
    expect((await fetch(r.challengeForm!.action)).status).toBe(405);
  });

  it('a card whose 3-D Secure fails frictionless is declined as authentication_failed, and no transaction is created', async () => {
    const before = h.fake.transactionCount;
    const r = await h.centralpay.authorize({
      idempotencyKey: key(),
      paymentMethodId: await attach(card('4556 1041 6038 2032')),
      amountCents: 900,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(r).toMatchObject({ status: 'declined', capturedCents: 0, decline: { reason: 'authentication_failed' } });
    expect(h.fake.transactionCount).toBe(before);
    expect(await h.centralpay.retrieve({ transactionId: r.transactionId, pspState: r.pspState ?? null })).toMatchObject({
      status: 'declined',
      decline: { reason: 'authentication_failed' },
    });
  });

  it('voiding a payment at its challenge creates nothing, even if the shopper completes the challenge afterwards', async () => {
    const r = await h.centralpay.authorize({
      idempotencyKey: key(),
      paymentMethodId: await attach(CENTRALPAY_FAKE_CARDS.challenge),
      amountCents: 900,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    const v = await h.centralpay.void({ idempotencyKey: key(), transaction: { transactionId: r.transactionId, pspState: r.pspState ?? null } });
    expect(v).toMatchObject({ transactionId: r.transactionId, status: 'voided', capturedCents: 0 });
    await h.completeChallenge({ transactionId: r.transactionId, pspState: r.pspState ?? null });
    expect(await h.centralpay.retrieve({ transactionId: r.transactionId, pspState: v.pspState ?? null })).toMatchObject({ status: 'voided' });
    expect(h.fake.transactionsOf(r.transactionId)).toBe(0);
  });

  it('an on-session transaction without a passed authentication is refused by the fake (A1), as CentralPay refuses a payment without strong authentication', async () => {
    const pm = await attach();
    const [customerId, cardId] = pm.split(':') as [string, string];
    const res = await fetch(`${h.fake.baseUrl}/transaction`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${CREDENTIALS.login}:${CREDENTIALS.api_key}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        pointOfSaleId: CREDENTIALS.point_of_sale_id,
        merchantTransactionId: 'm-1',
        amount: '100',
        currency: 'EUR',
        customerId,
        cardId,
        source: 'EC',
      }).toString(),
    });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ transactionStatus: 'FAILURE', bankCode: 'A1' });
  });

  describe('verifyCredentials', () => {
    it('ok with the right login, a refusal naming the wrong part, unreachable when CentralPay is down', async () => {
      expect(await h.centralpay.verifyCredentials()).toEqual({ ok: true });
      const wrongKey = await h.make({ credentials: { api_key: 'notTheApiKey123' } }).verifyCredentials();
      expect(wrongKey.ok).toBe(false);
      const wrongPos = await h.make({ credentials: { point_of_sale_id: randomUUID() } }).verifyCredentials();
      expect(wrongPos).toMatchObject({ ok: false, message: expect.stringContaining('point_of_sale_id') });
      await expectFault(h.make({ baseUrl: 'http://127.0.0.1:9' }).verifyCredentials(), 'unreachable');
      h.fake.fail('http_500', { path: '/v2/rest/pointOfSale' });
      await expectFault(h.centralpay.verifyCredentials(), 'unreachable');
    });
  });

  describe('faults', () => {
    it('a timeout, a 5xx and a malformed answer are unreachable, unreachable and bad_response', async () => {
      const pm = await attach();
      const quick = h.make({ timeoutMs: 300 });
      const call = () => quick.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
      h.fake.fail('timeout', { path: '/v2/rest/transaction' });
      await expectFault(call(), 'unreachable');
      h.fake.fail('http_500', { path: '/v2/rest/transaction' });
      await expectFault(call(), 'unreachable');
      h.fake.fail('malformed', { path: '/v2/rest/transaction' });
      await expectFault(call(), 'bad_response');
      await expectFault(h.make({ credentials: { api_key: 'someoneElsesKey1' } }).retrieve(bareRef(merchantTransactionIdFor('cit', 'x'))), 'bad_credentials');
    });

    it('a charge retried after a timeout is not made twice', async () => {
      const pm = await attach();
      const quick = h.make({ timeoutMs: 300 });
      const input = { idempotencyKey: key(), paymentMethodId: pm, amountCents: 4200, currency: 'EUR', capture: 'automatic' as const, returnUrl: RETURN_URL };
      const id = merchantTransactionIdFor('cit', input.idempotencyKey);
      h.fake.fail('timeout', { path: '/v2/rest/transaction', afterEffect: true }); // CentralPay charged, the answer was lost
      await expectFault(quick.authorize(input), 'unreachable');
      expect(h.fake.transactionsOf(id)).toBe(1);
      const retried = await quick.authorize(input);
      expect(retried).toMatchObject({ transactionId: id, status: 'captured', capturedCents: 4200 });
      expect(h.fake.transactionsOf(id)).toBe(1);
      // The same key for another amount is a bug on our side.
      await expectFault(quick.authorize({ ...input, amountCents: 4300 }), 'idempotency_conflict');
    });

    it('a refund retried after a timeout is not made twice', async () => {
      const r = await h.centralpay.authorize({
        idempotencyKey: key(),
        paymentMethodId: await attach(),
        amountCents: 1000,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: RETURN_URL,
      });
      const quick = h.make({ timeoutMs: 300 });
      const input = { idempotencyKey: key(), transaction: { transactionId: r.transactionId, pspState: r.pspState ?? null }, amountCents: 400 };
      h.fake.fail('timeout', { path: '/v2/rest/refund', afterEffect: true });
      await expectFault(quick.refund(input), 'unreachable');
      expect((await quick.retrieve(bareRef(r.transactionId))).refundedCents).toBe(400);
      expect(await quick.refund(input)).toMatchObject({ status: 'refunded', refundedCents: 400 });
      expect((await quick.retrieve(bareRef(r.transactionId))).refundedCents).toBe(400);
      await expectFault(quick.refund({ ...input, amountCents: 300 }), 'idempotency_conflict');
    });
  });

  describe('stored credentials (PSD2)', () => {
    it('the fake refuses a merchant-initiated charge on a card no authenticated payment stored (soft decline A1)', async () => {
      const r = await h.centralpay.chargeOffSession({ idempotencyKey: key(), paymentMethodId: await attach(), amountCents: 900, currency: 'EUR' });
      expect(r).toMatchObject({ status: 'declined', capturedCents: 0, decline: { reason: 'authentication_failed' } });
    });

    it('after an authenticated customer-initiated payment, a merchant-initiated charge (source=RECURRING) is captured', async () => {
      const pm = await attach();
      const cit = await h.centralpay.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 2000,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: RETURN_URL,
        storeForLater: true,
      });
      expect(cit.status).toBe('captured');
      const r = await h.centralpay.chargeOffSession({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 900,
        currency: 'EUR',
        storedCredential: { initialTransactionId: cit.transactionId },
      });
      expect(r).toMatchObject({ status: 'captured', capturedCents: 900 });
      expect(h.fake.requests).toContain('POST /v2/rest/3ds2/authentication');
    });

    it('a merchant-initiated hold (capture manual, a re-authorisation): source=RECURRING with capture=false → SUCCESS, then captured or cancelled; one hold per key', async () => {
      const pm = await attach();
      const cit = await h.centralpay.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 2000,
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
      const before = h.fake.transactionCount;
      const hold = await h.centralpay.chargeOffSession(input);
      expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
      expect((await h.centralpay.chargeOffSession(input)).transactionId).toBe(hold.transactionId);
      expect(h.fake.transactionCount).toBe(before + 1);
      const seen = (await fetch(`${h.fake.baseUrl}/transaction/${String(hold.pspState?.cp)}`, {
        headers: { authorization: `Basic ${Buffer.from(`${CREDENTIALS.login}:${CREDENTIALS.api_key}`).toString('base64')}` },
      }).then((r) => r.json())) as Record<string, unknown>;
      expect(seen).toMatchObject({ source: 'RECURRING', capture: false, transactionStatus: 'SUCCESS', capturedAmount: 0 });
      expect(await h.centralpay.capture({ idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 500 })).toMatchObject({
        status: 'captured',
        capturedCents: 500,
      });
      const other = await h.centralpay.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
      expect((await h.centralpay.void({ idempotencyKey: key(), transaction: bareRef(other.transactionId) })).status).toBe('voided');
      expect(centralpayDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
    });
  });

  describe('credentials never show', () => {
    it('in JSON.stringify, String() or util.inspect of the connector, nor in error messages', async () => {
      const { inspect } = await import('node:util');
      const secrets = [CREDENTIALS.api_key, Buffer.from(`${CREDENTIALS.login}:${CREDENTIALS.api_key}`).toString('base64')];
      const shown = [JSON.stringify(h.centralpay), String(h.centralpay), inspect(h.centralpay, { depth: 10, showHidden: true })];
      const errors = [
        await expectFault(h.make({ baseUrl: 'http://127.0.0.1:9' }).retrieve(bareRef(merchantTransactionIdFor('cit', 'y'))), 'unreachable'),
        await expectFault(h.make({ credentials: { api_key: 'wrongApiKeyXyz1' } }).retrieve(bareRef(merchantTransactionIdFor('cit', 'y'))), 'bad_credentials'),
        await expectFault(h.centralpay.retrieve(bareRef('nope')), 'unknown_transaction'),
      ];
      for (const e of errors) shown.push(e.message, String(e.stack), JSON.stringify(e));
      for (const text of shown) for (const s of [...secrets, 'wrongApiKeyXyz1']) expect(text).not.toContain(s);
    });
  });
});
