import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PspIntegrationError, type DeclineReason, type TransactionStatus } from '../../src/psp/connector.ts';
import { hipayDefinition } from '../../src/psp/hipay/definition.ts';
import {
  HIPAY_REASON_CODES,
  HIPAY_STATUSES,
  readTransaction,
  toDeclineReason,
  toStatus,
  toTransactionResult,
  type HipayReasonCode,
  type HipayStatus,
} from '../../src/psp/hipay/mapping.ts';
import { signNotification } from '../../src/psp/hipay/notifications.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { CREDENTIALS, HIPAY_FAKE_CARDS, hipayHarness, type HipayHarness } from './fixtures/hipay/harness.ts';
import notificationFixture from './fixtures/hipay/notification-authorized.json' with { type: 'json' };
import transactionFixture from './fixtures/hipay/transaction-authorized.json' with { type: 'json' };
import { bareRef } from './connector-contract.ts';

describeConnectorContract('hipay', hipayHarness);

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

describe('hipay mapping', () => {
  // HiPay's documented statuses (appendix "Transaction statuses") in our words.
  const statuses: Record<HipayStatus, TransactionStatus> = {
    101: 'requires_action',
    103: 'requires_action',
    104: 'requires_action',
    105: 'requires_action',
    106: 'requires_action',
    107: 'requires_action',
    108: 'requires_action',
    109: 'declined',
    110: 'declined',
    111: 'declined',
    112: 'authorized',
    113: 'declined',
    114: 'expired',
    115: 'voided',
    116: 'authorized',
    117: 'captured',
    118: 'captured',
    119: 'captured',
    120: 'captured',
    121: 'captured',
    122: 'captured',
    123: 'captured',
    124: 'refunded',
    125: 'refunded',
    126: 'refunded',
    129: 'captured', // a chargeback is not a refund (hipay-disputes.test.ts)
    131: 'captured',
    132: 'captured',
    140: 'requires_action',
    141: 'requires_action',
    142: 'requires_action',
    143: 'voided',
    150: 'requires_action',
    151: 'declined',
    160: 'requires_action',
    161: 'requires_action',
    163: 'declined',
    165: 'captured',
    166: 'refunded',
    173: 'authorized',
    174: 'requires_action',
    175: 'voided',
    200: 'requires_action',
  };
  it.each(HIPAY_STATUSES.map((s) => [s, statuses[s]] as const))('status %i reads %s', (status, ours) => {
    expect(toStatus(status, 0)).toBe(ours);
  });
  it('a captured transaction with a refund reads refunded', () => {
    expect(toStatus(118, 1)).toBe('refunded');
    expect(toStatus(119, 1)).toBe('refunded');
  });

  const reasons: [HipayReasonCode, DeclineReason][] = [
    [4010101, 'card_declined'],
    [4000001, 'card_declined'],
    [4010303, 'card_declined'],
    [3030001, 'card_declined'],
    [4010103, 'insufficient_funds'],
    [4000003, 'insufficient_funds'],
    [4010305, 'insufficient_funds'],
    [4010204, 'expired_card'],
    [4010205, 'expired_card'],
    [4010206, 'incorrect_cvc'],
    [4010207, 'incorrect_cvc'],
    [4010202, 'invalid_card'],
    [4010203, 'invalid_card'],
    [4000011, 'authentication_failed'],
    [4010310, 'authentication_failed'],
    [3020001, 'authorization_expired'],
    [3020109, 'amount_too_large'],
    [3020110, 'amount_too_large'],
    [3020210, 'amount_too_large'],
    [3020206, 'amount_too_large'],
    [3020401, 'amount_too_large'],
    [4000004, 'processing_error'],
    [4010102, 'processing_error'],
  ];
  it.each(reasons)('reason code %i reads %s', (code, reason) => expect(toDeclineReason(code)).toBe(reason));
  it('maps every documented reason code', () => {
    for (const code of HIPAY_REASON_CODES) expect(typeof toDeclineReason(code)).toBe('string');
  });

  it('reads the recorded Gateway API transaction (reference example values)', () => {
    const t = readTransaction(transactionFixture.body);
    expect(t).toBeDefined();
    const r = toTransactionResult(t!);
    expect(r).toMatchObject({ transactionId: '800000790677', status: 'authorized', amountCents: 12585, capturedCents: 0, refundedCents: 0 });
    expect(r.expiresAt?.toISOString()).toBe('2019-02-14T10:07:09.000Z');
  });

  it('refuses to read a transaction with an unknown status or a bad amount', () => {
    expect(readTransaction({ ...transactionFixture.body, status: '999' })).toBeUndefined();
    expect(readTransaction({ ...transactionFixture.body, authorizedAmount: '12,5' })).toBeUndefined();
    expect(readTransaction({ ...transactionFixture.body, transactionReference: undefined })).toBeUndefined();
  });
});

describe('hipay definition', () => {
  it('declares the three credentials and HiPay’s own base URLs', () => {
    expect(hipayDefinition.credentialFields.map((f) => [f.name, f.secret])).toEqual([
      ['username', false],
      ['password', true],
      ['secret_passphrase', true],
    ]);
    expect(hipayDefinition.baseUrl('test', {})).toBe('https://stage-secure-gateway.hipay-tpp.com');
    expect(hipayDefinition.baseUrl('live', {})).toBe('https://secure-gateway.hipay-tpp.com');
    for (const f of hipayDefinition.credentialFields) expect(() => new RegExp(`^(?:${f.pattern})$`)).not.toThrow();
    expect(new RegExp(`^(?:${hipayDefinition.credentialFields[0]!.pattern})$`).test(CREDENTIALS.username)).toBe(true);
  });
});

describe('hipay connector against the fake', () => {
  let h: HipayHarness;
  beforeAll(async () => {
    h = await hipayHarness();
  });
  afterAll(() => h.teardown());

  async function attach(card = HIPAY_FAKE_CARDS.success): Promise<string> {
    const a = await h.hipay.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(a.message);
    return a.paymentMethodId;
  }

  describe('notifications: X-ALLOPASS-SIGNATURE = sha(raw body + passphrase)', () => {
    it('accepts the fake’s notification signed with SHA-1, SHA-256 or SHA-512, and answers 200', async () => {
      const r = await h.hipay.authorize({ idempotencyKey: key(), paymentMethodId: await attach(), amountCents: 500, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
      for (const algorithm of ['sha1', 'sha256', 'sha512'] as const) {
        const n = h.fake.notificationFor(r.transactionId, algorithm);
        expect(await h.hipay.verifyNotification(n)).toEqual({
          ok: true,
          transactionId: r.transactionId,
          status: 'captured',
          ack: { status: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' },
        });
      }
      // Header names are case-insensitive.
      const n = h.fake.notificationFor(r.transactionId);
      expect((await h.hipay.verifyNotification({ headers: { 'X-ALLOPASS-SIGNATURE': n.headers['x-allopass-signature'] }, rawBody: n.rawBody })).ok).toBe(true);
    });

    it('refuses a tampered body, another passphrase, a missing or garbled header', async () => {
      const r = await h.hipay.authorize({ idempotencyKey: key(), paymentMethodId: await attach(), amountCents: 500, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
      const n = h.fake.notificationFor(r.transactionId);
      expect(await h.hipay.verifyNotification({ headers: n.headers, rawBody: n.rawBody.replace('status=118', 'status=125') })).toEqual({ ok: false, reason: 'bad_signature' });
      const stranger = h.make({ credentials: { secret_passphrase: 'another-passphrase-123' } });
      expect(await stranger.verifyNotification(n)).toEqual({ ok: false, reason: 'bad_signature' });
      expect(await h.hipay.verifyNotification({ headers: {}, rawBody: n.rawBody })).toEqual({ ok: false, reason: 'malformed' });
      for (const bad of ['abc', 'z'.repeat(40), '0'.repeat(41)]) {
        expect(await h.hipay.verifyNotification({ headers: { 'x-allopass-signature': bad }, rawBody: n.rawBody })).toEqual({ ok: false, reason: 'malformed' });
      }
      // HiPay signs no timestamp: an old notification stays valid (see notifications.ts).
      h.clock.advance(3 * 86_400_000);
      expect((await h.hipay.verifyNotification(n)).ok).toBe(true);
    });

    it('refuses a well-signed body that is not a HiPay notification as malformed', async () => {
      const rawBody = 'hello=world';
      const sig = signNotification(CREDENTIALS.secret_passphrase, rawBody);
      expect(await h.hipay.verifyNotification({ headers: { 'x-allopass-signature': sig }, rawBody })).toEqual({ ok: false, reason: 'malformed' });
    });

    it('reads the recorded notification (documentation example)', async () => {
      const reader = h.make({ credentials: { secret_passphrase: notificationFixture.passphrase } });
      expect(await reader.verifyNotification({ headers: notificationFixture.headers, rawBody: notificationFixture.raw_body })).toMatchObject({
        ok: true,
        transactionId: '781357613392',
        status: 'authorized',
      });
      expect(await reader.verifyNotification({ headers: notificationFixture.headers, rawBody: `${notificationFixture.raw_body}&x=1` })).toEqual({
        ok: false,
        reason: 'bad_signature',
      });
    });
  });

  describe('verifyCredentials', () => {
    it('ok with the right login, a refusal with a wrong password, unreachable when HiPay is down', async () => {
      expect(await h.hipay.verifyCredentials()).toEqual({ ok: true });
      const wrong = await h.make({ credentials: { password: 'not-the-password' } }).verifyCredentials();
      expect(wrong.ok).toBe(false);
      await expectFault(h.make({ baseUrl: 'http://127.0.0.1:9' }).verifyCredentials(), 'unreachable');
      h.fake.fail('http_500', { path: '/rest/v2/security-settings' });
      await expectFault(h.hipay.verifyCredentials(), 'unreachable');
    });
  });

  it("refuses a request invalid under HiPay's published Gateway, Tokenization and consultation API documents as HiPay does (400, code, message, description), so the suites above check the connector against them", async () => {
    const pm = await attach();
    const token = pm.split(':')[1]!;
    const auth = `Basic ${Buffer.from(`${CREDENTIALS.username}:${CREDENTIALS.password}`).toString('base64')}`;
    const call = (method: string, path: string, fields?: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${h.fake.url}${path}`, {
        method,
        headers: { authorization: auth, accept: 'application/json', ...(fields ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
        ...(fields ? { body: new URLSearchParams(fields).toString() } : {}),
      });
    const refused = async (r: Response, code: number, field: string) => {
      expect(r.status).toBe(400);
      const answer = (await r.json()) as { code: number; message: string; description: string };
      expect(answer).toMatchObject({ code, message: code === 1010101 ? 'Required Parameter Missing' : 'Invalid Parameter' });
      expect(answer.description).toContain(field);
    };
    const order = {
      orderid: `doc-check-${randomUUID()}`,
      operation: 'Authorization',
      payment_product: 'visa',
      cardtoken: token,
      amount: '1.00',
      currency: 'EUR',
      description: 'doc check',
      eci: '7',
    };
    const { cardtoken: _, ...withoutToken } = order;
    await refused(await call('POST', '/rest/v1/order', withoutToken), 1010101, 'cardtoken');
    await refused(await call('POST', '/rest/v1/order', { ...order, operation: 'Hold' }), 1010201, 'operation');
    await refused(await call('POST', '/rest/v1/order', { ...order, eci: '5' }), 1010201, 'eci');
    await refused(await call('POST', '/rest/v1/order', { ...order, amount: 'ten' }), 1010201, 'amount');
    await refused(await call('POST', '/rest/v1/maintenance/transaction/800000000001', { operation: 'void' }), 1010201, 'operation');
    const card = { card_number: '4111111111111111', card_expiry_month: '05', card_expiry_year: '2040', card_holder: 'Doc Check' };
    await refused(await call('POST', '/rest/v2/token/create', { ...card, card_expiry_month: 'May' }), 1010201, 'card_expiry_month');
    await refused(await call('POST', '/rest/v2/token/create', { ...card, multi_use: '2' }), 1010201, 'multi_use');
    await refused(await call('GET', '/v3/transaction/not-a-number'), 1010201, 'transaction_reference');
    await refused(await call('GET', '/rest/v1/transaction'), 1010101, 'orderid');
    // The documents give multipart/form-data; HiPay's SDKs send (and its servers take) a form, nothing else (docs/psp/hipay.md).
    await refused(await call('POST', '/rest/v1/order', order, { 'content-type': 'text/plain' }), 1010201, 'content type');
    await refused(await call('POST', '/rest/v1/order/reverse', order), 1010201, 'not an operation');
    // Authentication comes first, as at HiPay.
    expect((await call('POST', '/rest/v1/order', withoutToken, { authorization: 'Basic bm9ib2R5Om5vdGhpbmc=' })).status).toBe(401);
    // The same requests, valid under the documents, pass their check; security-settings, in no document, is not checked.
    expect((await call('POST', '/rest/v1/order', order)).status).toBe(200);
    expect((await call('POST', '/rest/v2/token/create', card)).status).toBe(201);
    expect((await call('GET', '/rest/v2/security-settings')).status).toBe(200);
  });

  describe('faults', () => {
    it('a timeout, a 5xx and a malformed answer are unreachable, unreachable and bad_response', async () => {
      const pm = await attach();
      const quick = h.make({ timeoutMs: 300 });
      const call = () => quick.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
      h.fake.fail('timeout', { path: '/rest/v1/order' });
      await expectFault(call(), 'unreachable');
      h.fake.fail('http_500', { path: '/rest/v1/order' });
      await expectFault(call(), 'unreachable');
      h.fake.fail('malformed', { path: '/rest/v1/order' });
      await expectFault(call(), 'bad_response');
      await expectFault(h.make({ credentials: { username: 'someone-else' } }).retrieve(bareRef('800000000001')), 'bad_credentials');
    });

    it('a charge retried after a timeout is not made twice', async () => {
      const pm = await attach();
      const quick = h.make({ timeoutMs: 300 });
      const k = key();
      const input = { idempotencyKey: k, paymentMethodId: pm, amountCents: 4200, currency: 'EUR', capture: 'automatic' as const, returnUrl: RETURN_URL };
      const before = h.fake.transactionCount;
      h.fake.fail('timeout', { path: '/rest/v1/order', afterEffect: true }); // HiPay charged, the answer was lost
      await expectFault(quick.authorize(input), 'unreachable');
      expect(h.fake.transactionCount).toBe(before + 1);
      const retried = await quick.authorize(input);
      expect(retried).toMatchObject({ status: 'captured', capturedCents: 4200 });
      expect(h.fake.transactionCount).toBe(before + 1);
      // The same key for another amount is a bug on our side.
      await expectFault(quick.authorize({ ...input, amountCents: 4300 }), 'idempotency_conflict');
    });

    // HiPay's Node SDK reads our operation_id in the consultation API as `merchantReference`, its
    // document of that API writes `merchant_reference`: a lost refund is found under either.
    for (const [spelling, named] of [
      ['sdk', ''],
      ['document', " when HiPay's consultation API names our operation_id merchant_reference, as its document writes it"],
    ] as const) {
      it(`a refund retried after a timeout is not made twice${named}`, async () => {
        const r = await h.hipay.authorize({
          idempotencyKey: key(),
          paymentMethodId: await attach(),
          amountCents: 1000,
          currency: 'EUR',
          capture: 'automatic',
          returnUrl: RETURN_URL,
        });
        h.fake.operationReferenceSpelling = spelling;
        onTestFinished(() => {
          h.fake.operationReferenceSpelling = 'sdk';
        });
        const quick = h.make({ timeoutMs: 300 });
        const input = { idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 400 };
        h.fake.fail('timeout', { path: '/rest/v1/maintenance', afterEffect: true });
        await expectFault(quick.refund(input), 'unreachable');
        expect((await quick.retrieve(bareRef(r.transactionId))).refundedCents).toBe(400);
        expect(await quick.refund(input)).toMatchObject({ status: 'refunded', refundedCents: 400 });
        expect((await quick.retrieve(bareRef(r.transactionId))).refundedCents).toBe(400);
        await expectFault(quick.refund({ ...input, amountCents: 300 }), 'idempotency_conflict');
      });
    }
  });

  describe('stored credentials (PSD2)', () => {
    it('the fake refuses a merchant-initiated charge without the initial transaction', async () => {
      const pm = await attach();
      const r = await h.hipay.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 900, currency: 'EUR' });
      expect(r.status).toBe('declined');
      expect(r.decline?.reason).toBe('authentication_failed');
      expect(r.capturedCents).toBe(0);
    });

    it('a MIT naming the customer-initiated transaction that stored the card is captured', async () => {
      const pm = await attach();
      const cit = await h.hipay.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 2000,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: RETURN_URL,
        storeForLater: true,
      });
      expect(cit.status).toBe('captured');
      const r = await h.hipay.chargeOffSession({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 900,
        currency: 'EUR',
        storedCredential: { initialTransactionId: cit.transactionId },
      });
      expect(r).toMatchObject({ status: 'captured', capturedCents: 900 });
      // A CIT that did not ask to store the card does not count.
      const plain = await h.hipay.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 2000, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
      const refused = await h.hipay.chargeOffSession({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 900,
        currency: 'EUR',
        storedCredential: { initialTransactionId: plain.transactionId },
      });
      expect(refused.status).toBe('declined');
    });

    it('a merchant-initiated hold (capture manual, a re-authorisation): operation Authorization, eci 9 → authorized (116), then captured or cancelled; one hold per key', async () => {
      const pm = await attach();
      const cit = await h.hipay.authorize({
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
      const hold = await h.hipay.chargeOffSession(input);
      expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
      expect((await h.make().chargeOffSession(input)).transactionId).toBe(hold.transactionId);
      expect(h.fake.transactionCount).toBe(before + 1);
      const seen = (await fetch(`${h.fake.url}/rest/v1/transaction/${hold.transactionId}`, {
        headers: { accept: 'application/json', authorization: `Basic ${Buffer.from(`${CREDENTIALS.username}:${CREDENTIALS.password}`).toString('base64')}` },
      }).then((r) => r.json())) as { transaction: Record<string, unknown> };
      expect(seen.transaction).toMatchObject({ eci: '9', status: '116', capturedAmount: '0.00' });
      expect(await h.hipay.capture({ idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 500 })).toMatchObject({
        status: 'captured',
        capturedCents: 500,
      });
      const other = await h.hipay.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
      expect((await h.hipay.void({ idempotencyKey: key(), transaction: bareRef(other.transactionId) })).status).toBe('voided');
      expect(hipayDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
    });
  });

  describe('credentials never show', () => {
    it('in JSON.stringify, String() or util.inspect of the connector, nor in error messages', async () => {
      const { inspect } = await import('node:util');
      const secrets = [CREDENTIALS.password, CREDENTIALS.secret_passphrase, Buffer.from(`${CREDENTIALS.username}:${CREDENTIALS.password}`).toString('base64')];
      const shown = [JSON.stringify(h.hipay), String(h.hipay), inspect(h.hipay, { depth: 10, showHidden: true })];
      const errors = [
        await expectFault(h.make({ baseUrl: 'http://127.0.0.1:9' }).retrieve(bareRef('800000000001')), 'unreachable'),
        await expectFault(h.make({ credentials: { password: 'wrong-password-xyz' } }).retrieve(bareRef('800000000001')), 'bad_credentials'),
        await expectFault(h.hipay.retrieve(bareRef('nope')), 'unknown_transaction'),
      ];
      for (const e of errors) shown.push(e.message, String(e.stack), JSON.stringify(e));
      for (const text of shown) for (const s of [...secrets, 'wrong-password-xyz']) expect(text).not.toContain(s);
    });
  });
});
