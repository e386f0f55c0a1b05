import { randomUUID } from 'node:crypto';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, type DeclineReason, type TransactionStatus } from '../../src/psp/connector.ts';
import { LyraConnector } from '../../src/psp/lyra/connector.ts';
import { LYRA_DEFAULT_BASE_URL, lyraDefinition } from '../../src/psp/lyra/definition.ts';
import {
  LYRA_DETAILED_STATUSES,
  readEnvelope,
  readPayment,
  toDeclineReason,
  toDeclineReasonFromIssuerCode,
  toStatus,
  toTransactionResult,
  type LyraDetailedStatus,
} from '../../src/psp/lyra/mapping.ts';
import { NOTIFICATION_TOLERANCE_MS, readNotification } from '../../src/psp/lyra/notifications.ts';
import { Redacted } from '../../src/domain/redacted.ts';
import { describeConnectorContract } from './connector-contract.ts';
import ipnFixture from './fixtures/lyra/ipn-demo-shop-authorised.json' with { type: 'json' };
import sdkTestFixture from './fixtures/lyra/sdktest-answer.json' with { type: 'json' };
import { ACCOUNT_ID, LYRA_CARDS, ManualClock, PUBLIC_URL, lyraHarness, type LyraHarness } from './fixtures/lyra/harness.ts';
import { LOCAL_PSP_HTTP } from './fixtures/local-http.ts';
import { bareRef } from './connector-contract.ts';
import { unusedOperations } from './fixtures/operations.ts';

describeConnectorContract('lyra', () => lyraHarness());

const RETURN_URL = 'https://shop.example/return';
const key = () => `test-${randomUUID()}`;

describe('lyra mapping (pure)', () => {
  const statuses: Record<LyraDetailedStatus, TransactionStatus> = {
    ACCEPTED: 'authorized',
    AUTHORISED: 'captured',
    AUTHORISED_TO_VALIDATE: 'authorized',
    CANCELLED: 'voided',
    CAPTURED: 'captured',
    CAPTURE_FAILED: 'declined',
    EXPIRED: 'expired',
    INITIAL: 'requires_action',
    NOT_CREATED: 'declined',
    PARTIALLY_AUTHORISED: 'captured',
    PENDING: 'authorized',
    PRE_AUTHORISED: 'authorized',
    REFUSED: 'declined',
    SUSPENDED: 'authorized',
    UNDER_VERIFICATION: 'authorized',
    WAITING_AUTHORISATION: 'authorized',
    WAITING_AUTHORISATION_TO_VALIDATE: 'authorized',
    WAITING_FOR_PAYMENT: 'requires_action',
  };
  it.each(LYRA_DETAILED_STATUSES.map((s) => [s, statuses[s]] as const))('detailedStatus %s → %s', (lyra, ours) => {
    expect(toStatus(lyra, 0)).toBe(ours);
  });
  it('a captured payment with a refund reads refunded', () => {
    expect(toStatus('CAPTURED', 1)).toBe('refunded');
    expect(toStatus('AUTHORISED', 1)).toBe('refunded');
  });

  const issuer: [string, DeclineReason][] = [
    ['05', 'card_declined'],
    ['5', 'card_declined'],
    ['41', 'card_declined'],
    ['43', 'card_declined'],
    ['51', 'insufficient_funds'],
    ['61', 'insufficient_funds'],
    ['33', 'expired_card'],
    ['54', 'expired_card'],
    ['14', 'invalid_card'],
    ['15', 'invalid_card'],
    ['1A', 'authentication_failed'],
    ['91', 'processing_error'],
    ['96', 'processing_error'],
    ['zz', 'card_declined'],
  ];
  it.each(issuer)('issuer return code %s → %s', (code, reason) => {
    expect(toDeclineReasonFromIssuerCode(code)).toBe(reason);
  });

  const errors: [string, string | null, string | null, DeclineReason][] = [
    ['ACQ_001', '51', null, 'insufficient_funds'],
    ['ACQ_001', '05', null, 'card_declined'],
    ['PSP_003', null, null, 'card_declined'],
    ['PSP_042', null, null, 'insufficient_funds'],
    ['PSP_023', null, null, 'expired_card'],
    ['PSP_024', null, null, 'incorrect_cvc'],
    ['PSP_026', null, null, 'invalid_card'],
    ['PSP_020', null, null, 'amount_too_large'],
    ['AUTH_149', null, null, 'authentication_failed'],
    ['INT_000', null, 'Invalid input value [name=paymentForms[0].securityCode, value=***]', 'incorrect_cvc'],
    ['INT_000', null, 'Invalid input value [name=paymentForms[0].pan, value=***]', 'invalid_card'],
    ['INT_000', null, 'Invalid input value [name=paymentForms[0].expiryYear, value=01]', 'expired_card'],
    ['INT_015', null, 'Invalid input value [name=customer.email, value=fake-email]', 'processing_error'],
    ['PSP_999', null, null, 'processing_error'],
  ];
  it.each(errors)('error %s (%s, %s) → %s', (code, detailed, message, reason) => {
    expect(toDeclineReason(code, detailed, message)).toBe(reason);
  });

  it('reads the recorded IPN answer of Lyra’s demo shop (V4/Payment)', () => {
    const payment = readPayment(JSON.parse(ipnFixture.form['kr-answer']) as Record<string, unknown>);
    expect(payment).toMatchObject({ orderStatus: 'PAID', orderId: 'myOrderId-187033' });
    expect(payment.transactions[0]).toMatchObject({
      uuid: '971b6b3b9e364e87bfbe9886b3a75df4',
      detailedStatus: 'AUTHORISED',
      operationType: 'DEBIT',
      amount: 990,
      authorizedAmount: 990,
    });
    expect(toTransactionResult('myOrderId-187033', payment)).toMatchObject({ status: 'captured', amountCents: 990, capturedCents: 990, refundedCents: 0 });
  });

  it('gives the processor details of the recorded IPN: uuid as uid, legacyTransId as the old id, orderId as reference, detailedStatus as label', () => {
    const payment = readPayment(JSON.parse(ipnFixture.form['kr-answer']) as Record<string, unknown>);
    expect(toTransactionResult('myOrderId-187033', payment).processor).toEqual({
      uid: '971b6b3b9e364e87bfbe9886b3a75df4',
      legacyId: '900147',
      reference: 'myOrderId-187033',
      statusLabel: 'AUTHORISED',
    });
  });

  it('reads the documented Charge/SDKTest answer envelope', () => {
    expect(readEnvelope(sdkTestFixture.answer)).toEqual({ status: 'SUCCESS', answer: { value: 'my testing value', _type: 'V4/Type/String' } });
    expect(() => readEnvelope({ status: 'OK', answer: {} })).toThrow();
  });
});

describe('lyra notifications (IPN: kr-hash over kr-answer)', () => {
  const keys = { password: ipnFixture.password, hmacKey: ipnFixture.hmac_key };
  const at = new Date('2018-11-08T08:36:00Z');
  const body = (form: Record<string, string>) => new URLSearchParams(form).toString();
  const headers = { 'content-type': 'application/x-www-form-urlencoded' };

  it('verifies Lyra’s recorded sample IPN and reads the fields the machinery needs', () => {
    const r = readNotification(keys, { headers, rawBody: body(ipnFixture.form) }, at);
    expect(r).toMatchObject({
      ok: true,
      result: { ok: true, transactionId: 'myOrderId-187033', status: 'captured', ack: { status: 200 } },
      details: { orderId: 'myOrderId-187033', uuid: '971b6b3b9e364e87bfbe9886b3a75df4', detailedStatus: 'AUTHORISED', shopId: '69876357', mode: 'TEST' },
    });
  });

  it('refuses a tampered answer, another key, an unknown algorithm or key name, and a stale one', () => {
    const tampered = { ...ipnFixture.form, 'kr-answer': ipnFixture.form['kr-answer'].replace('"amount":990', '"amount":9900') };
    expect(readNotification(keys, { headers, rawBody: body(tampered) }, at)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(readNotification({ ...keys, password: 'testpassword_other' }, { headers, rawBody: body(ipnFixture.form) }, at)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(readNotification(keys, { headers, rawBody: body({ ...ipnFixture.form, 'kr-hash-algorithm': 'sha1' }) }, at)).toEqual({ ok: false, reason: 'malformed' });
    expect(readNotification(keys, { headers, rawBody: body({ ...ipnFixture.form, 'kr-hash-key': 'other' }) }, at)).toEqual({ ok: false, reason: 'malformed' });
    expect(readNotification(keys, { headers, rawBody: 'garbage' }, at)).toEqual({ ok: false, reason: 'malformed' });
    expect(readNotification(keys, { headers: { 'content-type': 'application/json' }, rawBody: body(ipnFixture.form) }, at)).toEqual({ ok: false, reason: 'malformed' });
    // Signed with the password but claiming the HMAC key: the HMAC key does not match.
    expect(readNotification(keys, { headers, rawBody: body({ ...ipnFixture.form, 'kr-hash-key': 'sha256_hmac' }) }, at)).toEqual({ ok: false, reason: 'bad_signature' });
    const late = new Date(Date.parse('2018-11-08T08:35:09Z') + NOTIFICATION_TOLERANCE_MS + 1000);
    expect(readNotification(keys, { headers, rawBody: body(ipnFixture.form) }, late)).toEqual({ ok: false, reason: 'stale' });
  });

  it('accepts the browser-return signature made with the HMAC-SHA-256 key', () => {
    const answer = ipnFixture.form['kr-answer'];
    const form = { ...ipnFixture.form, 'kr-hash-key': 'sha256_hmac', 'kr-hash': createHmac('sha256', keys.hmacKey).update(answer).digest('hex') };
    expect(readNotification(keys, { headers, rawBody: body(form) }, at).ok).toBe(true);
  });

  describe('through the connector, on the fake’s own signed notifications', () => {
    let h: LyraHarness;
    beforeAll(async () => {
      h = await lyraHarness();
    });
    afterAll(() => h.teardown());

    it('verifies the fake’s IPN for a hold, then for its refund', async () => {
      const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: LYRA_CARDS.success });
      if (!a.ok) throw new Error('attach refused');
      const r = await h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: a.paymentMethodId,
        amountCents: 700,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: RETURN_URL,
      });
      const n = h.fake.notificationFor(r.transactionId);
      expect(await h.connector.verifyNotification(n)).toEqual({
        ok: true,
        transactionId: r.transactionId,
        status: 'captured',
        ack: { status: 200, contentType: 'text/plain; charset=utf-8', body: 'OK' },
      });
      await h.connector.refund({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 100 });
      expect(await h.connector.verifyNotification(h.fake.notificationFor(r.transactionId, 'sha256_hmac'))).toMatchObject({ ok: true, status: 'refunded' });
      const tampered = { ...n, rawBody: n.rawBody.replace('AUTHORISED', 'CANCELLED') };
      expect(await h.connector.verifyNotification(tampered)).toEqual({ ok: false, reason: 'bad_signature' });
    });
  });
});

describe('lyra connector against the fake: PSP-specific behaviour', () => {
  let h: LyraHarness;
  let psp: LyraConnector;
  beforeAll(async () => {
    h = await lyraHarness({ timeoutMs: 1_000 });
    psp = h.connector;
  });
  afterAll(() => h.teardown());

  async function attach(card = LYRA_CARDS.success): Promise<string> {
    const a = await psp.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(`attach refused: ${a.reason}`);
    return a.paymentMethodId;
  }

  it('speaks Lyra’s API: Basic shop_id:password, /api-payment/V4/<service>, PCI card form, token payments', async () => {
    const before = h.fake.requests.length;
    const pm = await attach();
    await psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 500, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const sent = h.fake.requests.slice(before);
    expect(sent.map((r) => r.webService)).toEqual(['Order/Get', 'Charge/CreateToken', 'Order/Get', 'Charge/CreatePayment']);
    expect(sent[0]!.authorization).toBe(`Basic ${Buffer.from(`${h.fake.shopId}:${h.fake.password}`).toString('base64')}`);
    expect(sent[1]!.body.paymentForms).toEqual([expect.objectContaining({ paymentMethodType: 'CARD', pan: '4970100000000055', securityCode: '123' })]);
    expect(sent[3]!.body).toMatchObject({
      amount: 500,
      currency: 'EUR',
      paymentMethodToken: expect.stringMatching(/^[0-9a-f]{32}$/),
      transactionOptions: { cardOptions: { manualValidation: 'YES' } },
      // The public id the notification route takes: a bare uuid there is answered 404.
      ipnTargetUrl: `${PUBLIC_URL}/api/psp/psa_${ACCOUNT_ID}/notifications`,
    });
  });

  it('a CIT that stores the card asks for the mandated challenge and gives the chaining reference for later MITs', async () => {
    const pm = await attach();
    const cit = await psp.authorize({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 1000,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
      storeForLater: true,
    });
    expect(h.fake.requests.at(-1)!.body.strongAuthentication).toBe('CHALLENGE_MANDATE');
    expect(cit.networkTransactionId).toMatch(/^[0-9A-F]{16}$/);
    const mit = await psp.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: pm.split('~')[0]!,
      amountCents: 300,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId, networkTransactionId: cit.networkTransactionId },
    });
    expect(mit.status).toBe('captured');
    expect(h.fake.requests.at(-1)!.body).toMatchObject({
      formAction: 'SILENT',
      transactionOptions: { cardOptions: { initialIssuerTransactionIdentifier: cit.networkTransactionId } },
    });
    // With only the CIT's id, the connector looks its chaining reference up.
    const mit2 = await psp.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: pm.split('~')[0]!,
      amountCents: 200,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId },
    });
    expect(mit2.status).toBe('captured');
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): SILENT on the token with manualValidation YES and the chaining reference → authorized, then captured or voided; one hold per key', async () => {
    const pm = await attach();
    const cit = await psp.authorize({
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
    const hold = await psp.chargeOffSession(input);
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
    expect(h.fake.requests.at(-1)).toMatchObject({
      webService: 'Charge/CreatePayment',
      body: { formAction: 'SILENT', transactionOptions: { cardOptions: { manualValidation: 'YES', initialIssuerTransactionIdentifier: cit.networkTransactionId } } },
    });
    expect((await h.another().chargeOffSession(input)).transactionId).toBe(hold.transactionId);
    expect(h.fake.debitsOf(hold.transactionId)).toBe(1);
    expect(await psp.capture({ idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 500 })).toMatchObject({ status: 'captured', capturedCents: 500 });
    const other = await psp.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
    expect((await psp.void({ idempotencyKey: key(), transaction: bareRef(other.transactionId) })).status).toBe('voided');
    expect(lyraDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('the fake refuses a merchant-initiated payment without the stored-credential reference, as the issuer does', async () => {
    const pm = await attach();
    const token = pm.split('~')[0]!;
    // Straight at the fake: a SILENT payment with no chaining reference.
    const res = await fetch(`${h.fake.url}/api-payment/V4/Charge/CreatePayment`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${h.fake.shopId}:${h.fake.password}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 100, currency: 'EUR', orderId: `raw-${randomUUID()}`, paymentMethodToken: token, formAction: 'SILENT' }),
    });
    const json = (await res.json()) as { answer: { transactions: { detailedStatus: string; errorCode: string; detailedErrorCode: string }[] } };
    expect(json.answer.transactions[0]).toMatchObject({ detailedStatus: 'REFUSED', errorCode: 'ACQ_001', detailedErrorCode: '1A' });
    // Through the connector, with a bare token and no storedCredential: declined, not thrown.
    const r = await psp.chargeOffSession({ idempotencyKey: key(), paymentMethodId: token, amountCents: 100, currency: 'EUR' });
    expect(r).toMatchObject({ status: 'declined', capturedCents: 0, decline: { reason: 'authentication_failed' } });
  });

  it('verifyCredentials: ok, rejected (INT_905), unreachable', async () => {
    expect(await psp.verifyCredentials()).toEqual({ ok: true });
    expect(await h.another({ password: 'testpassword_wrongwrongwrongwrongwrong' }).verifyCredentials()).toEqual({ ok: false, message: expect.stringContaining('INT_905') });
    const port = await closedPort();
    const err = await h
      .another({ baseUrl: `http://127.0.0.1:${port}` })
      .verifyCredentials()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect((err as PspIntegrationError).code).toBe('unreachable');
  });

  it('wrong credentials on a payment call are bad_credentials; no header at all is HTTP 401', async () => {
    const err = await h
      .another({ password: 'testpassword_wrongwrongwrongwrongwrong' })
      .retrieve(bareRef(`chipin-${'0'.repeat(40)}`))
      .catch((e: unknown) => e);
    expect((err as PspIntegrationError).code).toBe('bad_credentials');
    const res = await fetch(`${h.fake.url}/api-payment/V4/Charge/SDKTest`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
  });

  it('faults: HTTP 500 and a timeout are unreachable, a garbled answer is bad_response', async () => {
    const pm = await attach();
    const auth = () => psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    h.fake.failNext({ kind: 'http_500' });
    await expect(auth()).rejects.toMatchObject({ code: 'unreachable' });
    h.fake.failNext({ kind: 'malformed' });
    await expect(auth()).rejects.toMatchObject({ code: 'bad_response' });
    h.fake.failNext({ kind: 'slow', delayMs: 2_500, afterEffect: false });
    await expect(auth()).rejects.toMatchObject({ code: 'unreachable' });
  });

  it('a payment retried after a timeout (the first one went through) is charged once, from this process or another', async () => {
    const pm = await attach();
    const k = key();
    const input = { idempotencyKey: k, paymentMethodId: pm, amountCents: 4200, currency: 'EUR', capture: 'automatic' as const, returnUrl: RETURN_URL };
    h.fake.failNext({ kind: 'none' }, { kind: 'slow', delayMs: 2_500, afterEffect: true }); // Order/Get passes, CreatePayment times out after charging
    await expect(psp.authorize(input)).rejects.toMatchObject({ code: 'unreachable' });
    const again = await psp.authorize(input);
    expect(again).toMatchObject({ status: 'captured', capturedCents: 4200 });
    expect(h.fake.debitsOf(again.transactionId)).toBe(1);
    const elsewhere = await h.another({ timeoutMs: 2_000 }).authorize(input);
    expect(elsewhere.transactionId).toBe(again.transactionId);
    expect(h.fake.debitsOf(again.transactionId)).toBe(1);
  });

  it('captures with Transaction/Update (lower amount, manualValidation NO), voids and refunds with Transaction/CancelOrRefund', async () => {
    const pm = await attach();
    const r = await psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1000, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    await psp.capture({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 600 });
    expect(h.fake.requests.at(-2)).toMatchObject({ webService: 'Transaction/Update', body: { cardUpdate: { amount: 600, currency: 'EUR', manualValidation: 'NO' } } });
    await psp.refund({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 100 });
    expect(h.fake.requests.at(-2)).toMatchObject({ webService: 'Transaction/CancelOrRefund', body: { amount: 100, currency: 'EUR', resolutionMode: 'AUTO' } });
    const hold = await psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 500, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    expect((await psp.void({ idempotencyKey: key(), transaction: bareRef(hold.transactionId) })).status).toBe('voided');
    expect(h.fake.requests.at(-2)).toMatchObject({ webService: 'Transaction/CancelOrRefund', body: { resolutionMode: 'CANCELLATION_ONLY' } });
  });

  it('every result carries the processor details: uid, 6-digit legacy id, the order id as reference, the live detailedStatus', async () => {
    const pm = await attach();
    const hold = await psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 700, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    expect(hold.processor).toEqual({
      uid: expect.stringMatching(/^[0-9a-f]{32}$/),
      legacyId: expect.stringMatching(/^[0-9]{6}$/),
      reference: hold.transactionId,
      statusLabel: 'AUTHORISED_TO_VALIDATE',
    });
    const captured = await psp.capture({ idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 700 });
    expect(captured.processor).toEqual({ ...hold.processor, statusLabel: 'AUTHORISED' });
    const declined = await psp.authorize({
      idempotencyKey: key(),
      paymentMethodId: await attach(LYRA_CARDS.declined),
      amountCents: 700,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(declined.processor?.statusLabel).toBe('REFUSED');
  });

  it('a pending 3-D Secure payment can be voided, and its challenge is the postData form for the ACS page', async () => {
    const pm = await attach(LYRA_CARDS.challenge);
    const r = await psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 800, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    expect(r.challengeUrl).toBeUndefined();
    expect(r.challengeForm!.action).toMatch(new RegExp(`^${h.fake.url}/acs/[0-9a-f]{32}$`));
    expect(Object.keys(r.challengeForm!.fields).sort()).toEqual(['MD', 'PaReq', 'TermUrl']);
    expect((await fetch(r.challengeForm!.action)).status).toBe(405); // the ACS wants the POST
    const page = await fetch(r.challengeForm!.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(r.challengeForm!.fields).toString(),
    });
    expect(page.status).toBe(200);
    expect(await psp.void({ idempotencyKey: key(), transaction: bareRef(r.transactionId) })).toMatchObject({ status: 'voided', capturedCents: 0 });
  });

  it('a capture retried after a timeout captures once', async () => {
    const pm = await attach();
    const r = await psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1000, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const k = key();
    h.fake.failNext({ kind: 'none' }, { kind: 'slow', delayMs: 2_500, afterEffect: true }); // Order/Get passes, Update times out after capturing
    await expect(psp.capture({ idempotencyKey: k, transaction: bareRef(r.transactionId), amountCents: 700 })).rejects.toMatchObject({ code: 'unreachable' });
    const again = await psp.capture({ idempotencyKey: k, transaction: bareRef(r.transactionId), amountCents: 700 });
    expect(again).toMatchObject({ status: 'captured', capturedCents: 700 });
    expect(again.decline).toBeUndefined();
  });

  it('a refund retried after a timeout refunds once', async () => {
    const pm = await attach();
    const r = await psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1000, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    const k = key();
    h.fake.failNext({ kind: 'none' }, { kind: 'slow', delayMs: 2_500, afterEffect: true }); // Order/Get passes, CancelOrRefund times out after refunding
    // The state Chipin stored with the payment: the amounts before the refund, which the retry compares with.
    const transaction = { transactionId: r.transactionId, pspState: r.pspState ?? null };
    await expect(psp.refund({ idempotencyKey: k, transaction, amountCents: 300 })).rejects.toMatchObject({ code: 'unreachable' });
    // Retried by another instance (another process, or this one restarted).
    const again = await h.another().refund({ idempotencyKey: k, transaction, amountCents: 300 });
    expect(again).toMatchObject({ status: 'refunded', refundedCents: 300 });
    expect((await psp.retrieve(bareRef(r.transactionId))).refundedCents).toBe(300);
  });

  it('an idempotency key reused with other parameters is idempotency_conflict, here and in another process', async () => {
    const pm = await attach();
    const k = key();
    const base = { idempotencyKey: k, paymentMethodId: pm, currency: 'EUR', capture: 'manual' as const, returnUrl: RETURN_URL };
    await psp.authorize({ ...base, amountCents: 100 });
    await expect(psp.authorize({ ...base, amountCents: 200 })).rejects.toMatchObject({ code: 'idempotency_conflict' });
    await expect(h.another().authorize({ ...base, amountCents: 200 })).rejects.toMatchObject({ code: 'idempotency_conflict' });
  });

  it('an unknown token is unknown_payment_method; an id of another shape is refused before any call', async () => {
    await expect(
      psp.authorize({ idempotencyKey: key(), paymentMethodId: 'f'.repeat(32), amountCents: 100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL }),
    ).rejects.toMatchObject({
      code: 'unknown_payment_method',
    });
    await expect(
      psp.authorize({ idempotencyKey: key(), paymentMethodId: 'sbx_pm_x', amountCents: 100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL }),
    ).rejects.toMatchObject({
      code: 'unknown_payment_method',
    });
  });

  it('rejects programming errors before any call', async () => {
    const pm = await attach();
    await expect(psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 0, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL })).rejects.toThrow(
      RangeError,
    );
    await expect(psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1, currency: 'EURO', capture: 'automatic', returnUrl: RETURN_URL })).rejects.toThrow(
      RangeError,
    );
    await expect(psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1, currency: 'EUR', capture: 'automatic', returnUrl: 'javascript:x' })).rejects.toThrow(
      RangeError,
    );
    await expect(psp.capture({ idempotencyKey: '', transaction: bareRef('x'), amountCents: 1 })).rejects.toThrow(RangeError);
  });

  it('no credential in JSON, toString, inspect or any error message', async () => {
    const secrets = [h.fake.password, h.fake.hmacKey, Buffer.from(`${h.fake.shopId}:${h.fake.password}`).toString('base64')];
    const texts: string[] = [JSON.stringify(psp), String(psp), (await import('node:util')).inspect(psp, { depth: 5 })];
    const wrong = h.another({ password: 'testpassword_wrongwrongwrongwrongwrong' });
    const errors = await Promise.all([
      wrong.retrieve(bareRef(`chipin-${'0'.repeat(40)}`)).catch((e: unknown) => e),
      h
        .another({ baseUrl: `http://127.0.0.1:${await closedPort()}` })
        .retrieve(bareRef(`chipin-${'0'.repeat(40)}`))
        .catch((e: unknown) => e),
      psp.retrieve(bareRef('nope')).catch((e: unknown) => e),
    ]);
    for (const e of errors) texts.push(String(e), JSON.stringify(e), (e as Error).stack ?? '');
    for (const t of texts) for (const s of secrets) expect(t).not.toContain(s);
    expect(JSON.stringify(psp)).toBe('{"name":"lyra","sandbox":true}');
  });
});

describe('lyra definition', () => {
  it('declares the credential fields, environments and PayZen’s base URL', () => {
    expect(lyraDefinition).toMatchObject({ name: 'lyra', environments: ['test', 'live'] });
    expect(lyraDefinition.credentialFields.map((f) => [f.name, f.secret])).toEqual([
      ['shop_id', false],
      ['password', true],
      ['hmac_key', true],
    ]);
    expect(lyraDefinition.baseUrl('test', {})).toBe(LYRA_DEFAULT_BASE_URL);
    expect(lyraDefinition.baseUrl('live', {})).toBe('https://api.payzen.eu');
    const field = (n: string) => new RegExp(`^(?:${lyraDefinition.credentialFields.find((f) => f.name === n)!.pattern})$`);
    expect(field('shop_id').test('69876357')).toBe(true);
    expect(field('shop_id').test('6987635')).toBe(false);
    expect(field('password').test('testpassword_DEMOPRIVATEKEY23G4475zXZQ2UA5x7M')).toBe(true);
    expect(field('password').test('testpublickey_DEMOPUBLICKEY95me92597fd28tGD4r5')).toBe(false);
    expect(field('hmac_key').test('38453613e7f44dc58732bad3dca2bca3')).toBe(true);
  });

  it('refuses a production password in the test environment and the other way round', () => {
    const creds = { shop_id: '69876357', password: 'prodpassword_abcdefghijklmnopqrstuvwxyz', hmac_key: 'x'.repeat(32) };
    expect(lyraDefinition.validate!(creds, 'test')).toMatchObject({ field: 'password' });
    expect(lyraDefinition.validate!(creds, 'live')).toBeUndefined();
    expect(lyraDefinition.validate!({ ...creds, password: 'testpassword_abcdefghijklmnopqrstuvwxyz' }, 'live')).toMatchObject({ field: 'password' });
  });

  it('builds a connector without calling Lyra, and refuses a bad configuration', () => {
    const ctx = { clock: new ManualClock(), publicUrl: PUBLIC_URL, timeoutMs: 1000, http: LOCAL_PSP_HTTP, operations: unusedOperations(new ManualClock()) };
    const c = lyraDefinition.create(
      { id: ACCOUNT_ID, environment: 'live', credentials: { shop_id: '69876357', password: 'prodpassword_x', hmac_key: 'k' }, baseUrl: 'https://api.lyra.com' },
      ctx,
    );
    expect(c).toMatchObject({ name: 'lyra', sandbox: false });
    expect(
      () => new LyraConnector({ accountId: 'a', environment: 'test', baseUrl: 'ftp://x', shopId: '69876357', password: new Redacted('p'), hmacKey: new Redacted('k'), ...ctx }),
    ).toThrow(/baseUrl/);
    expect(
      () => new LyraConnector({ accountId: 'a', environment: 'test', baseUrl: 'https://x', shopId: 'abc', password: new Redacted('p'), hmacKey: new Redacted('k'), ...ctx }),
    ).toThrow(/shop_id/);
  });
});

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
