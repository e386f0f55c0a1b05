import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, type TransactionResult } from '../../src/psp/connector.ts';
import { paylineDefinition } from '../../src/psp/payline/definition.ts';
import { declineReason, fromPaylineAmount, parsePaylineDate, paylineDate, paylineHistory, toPaylineAmount } from '../../src/psp/payline/mapping.ts';
import { parseXml, soapBody, soapEnvelope, textAt } from '../../src/psp/payline/soap.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { describeConnectorContract, describeFreshInstance } from './connector-contract.ts';
import { ACCOUNT, CREDENTIALS, PAYLINE_CARDS, paylineHarness, type PaylineHarness } from './fixtures/payline/harness.ts';
import { MIT_WITHOUT_REFERENCE } from './fixtures/payline/fake-server.ts';

describeConnectorContract('payline', paylineHarness);
describeFreshInstance('payline', paylineHarness);

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';

describe('payline amounts', () => {
  it('sends minor units as the same integer (10.00 EUR is 1000), and reads them back exactly', () => {
    expect(toPaylineAmount(1000, 'EUR')).toBe('1000');
    expect(toPaylineAmount(500, 'JPY')).toBe('500');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999_999 }), fc.constantFrom('EUR', 'USD', 'GBP', 'JPY', 'CHF'), (cents, currency) => {
        expect(fromPaylineAmount(toPaylineAmount(cents, currency))).toBe(cents);
      }),
    );
  });

  it('refuses fractional, non-positive amounts and currencies without a numeric code', () => {
    expect(() => toPaylineAmount(10.5, 'EUR')).toThrow(RangeError);
    expect(() => toPaylineAmount(0, 'EUR')).toThrow(RangeError);
    expect(() => toPaylineAmount(100, 'XXX')).toThrow(RangeError);
    expect(() => toPaylineAmount(1_000_000_000_000, 'EUR')).toThrow(RangeError);
    expect(fromPaylineAmount('10.00')).toBeUndefined();
  });

  it('writes and reads the dd/mm/yyyy HH:MM dates of orders and authorisations', () => {
    const d = new Date(Date.UTC(2026, 10, 24, 18, 5));
    expect(paylineDate(d)).toBe('24/11/2026 18:05');
    expect(parsePaylineDate('24/11/2026 18:05')?.toISOString()).toBe(d.toISOString());
    expect(parsePaylineDate('2026-11-24')).toBeUndefined();
  });
});

describe("payline's associated transactions", () => {
  it('adds up accepted captures and refunds only; an accepted reset says the hold was released', () => {
    const list = (items: string) => parseXml(`<associatedTransactionsList>${items}</associatedTransactionsList>`);
    const item = (type: string, amount: string, status: string) =>
      `<associatedTransactions><transactionId>1</transactionId><type>${type}</type><amount>${amount}</amount><status>${status}</status></associatedTransactions>`;
    expect(paylineHistory(undefined)).toBeUndefined();
    expect(
      paylineHistory(
        list(item('AUTHOR+CAP', '1000', 'OK') + item('REFUND', '300', 'OK') + item('REFUND', '200', 'KO') + item('REFUND', '150', 'OK') + item('REFUND', '1.5', 'OK')),
      ),
    ).toEqual({ capturedCents: 0, refundedCents: 450, reset: false });
    expect(paylineHistory(list(item('AUTHOR', '900', 'OK') + item('CAPTURE', '600', 'OK')))).toEqual({ capturedCents: 600, refundedCents: 0, reset: false });
    expect(paylineHistory(list(item('AUTHOR', '900', 'OK') + item('RESET', '900', 'OK')))).toEqual({ capturedCents: 0, refundedCents: 0, reset: true });
  });
});

describe('payline result codes', () => {
  it('maps the documented refusal codes onto the contract reasons', () => {
    expect(declineReason('01101')).toBe('expired_card');
    expect(declineReason('01111')).toBe('invalid_card');
    expect(declineReason('01130')).toBe('incorrect_cvc');
    expect(declineReason('01116')).toBe('insufficient_funds');
    expect(declineReason('01100')).toBe('card_declined');
    expect(declineReason('03022')).toBe('authentication_failed');
    expect(declineReason('02101')).toBe('processing_error');
  });
});

describe('payline SOAP', () => {
  it('escapes every text it sends, so a value cannot add elements', () => {
    const xml = soapEnvelope('doCaptureRequest', { version: '29', transactionID: '1</impl:transactionID><impl:x>&' });
    const body = soapBody(xml);
    expect(body && 'message' in body && textAt(body.message, 'transactionID')).toBe('1</impl:transactionID><impl:x>&');
  });

  it('refuses a DTD, unknown entities and unbalanced tags', () => {
    expect(parseXml('<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')).toBeUndefined();
    expect(parseXml('<x>&nope;</x>')).toBeUndefined();
    expect(parseXml('<x><y></x>')).toBeUndefined();
    expect(textAt(parseXml('<a:x xmlns:a="u"><a:y>1 &amp; 2</a:y></a:x>'), 'y')).toBe('1 & 2');
  });

  it('reads back exactly any text it sent, so two different values never read the same', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const body = soapBody(soapEnvelope('getTransactionDetailsRequest', { version: '29', orderRef: s }));
        const read = body && 'message' in body ? body.message.children.find((c) => c.name === 'orderRef')?.text : undefined;
        expect(read).toBe(s);
      }),
    );
  });
});

describe('payline definition', () => {
  it('names the field of every wrong credential value', () => {
    const fields = paylineDefinition.credentialFields;
    const check = (c: Record<string, string>) => validateCredentials(paylineDefinition, c, 'test');
    expect(check(CREDENTIALS)).toBeUndefined();
    expect(check({ ...CREDENTIALS, merchant_id: 'abc' })?.field).toBe('credentials.merchant_id');
    expect(check({ ...CREDENTIALS, access_key: 'short' })?.field).toBe('credentials.access_key');
    expect(check({ ...CREDENTIALS, access_key: 'key-with-dash!' })?.field).toBe('credentials.access_key');
    expect(check({ ...CREDENTIALS, contract_number: '12 34' })?.field).toBe('credentials.contract_number');
    expect(fields.map((f) => f.name)).toEqual(['merchant_id', 'access_key', 'contract_number']);
  });
});

describe('payline against its fake', () => {
  let h: PaylineHarness;
  beforeAll(async () => {
    h = await paylineHarness();
  });
  afterAll(async () => {
    await h.teardown();
  });

  it('sends SOAP with HTTP Basic merchant id : access key and the operation as SOAPAction', async () => {
    await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.success });
    const last = h.fake.requests.at(-1)!;
    expect(last.operation).toBe('createWalletRequest');
    expect(last.soapAction).toBe('"createWallet"');
    expect(last.service).toBe('DirectPaymentAPI');
  });

  it('verifyCredentials: accepted with the account, refused with a wrong access key or contract number', async () => {
    expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
    expect((await h.connectorWith({ access_key: 'WrongAccessKey000000' }).verifyCredentials()).ok).toBe(false);
  });

  it('a wrong contract number is bad_credentials on a payment call', async () => {
    const err = await h
      .connectorWith({ contract_number: '7654321' })
      .attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.success })
      .catch((e: unknown) => e);
    expect((err as PspIntegrationError).code).toBe('bad_credentials');
  });

  it('the fake refuses a merchant-initiated payment that names no customer-initiated one', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.success });
    if (!a.ok) throw new Error('attach');
    const r = await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents: 100, currency: 'EUR' });
    expect(r.status).toBe('declined');
    expect(h.fake.transactionByOrder(r.transactionId)?.code).toBe(MIT_WITHOUT_REFERENCE);
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): doImmediateWalletPayment action 100 naming the CIT → authorized, then captured or reset; one payment per key', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.success });
    if (!a.ok) throw new Error('attach');
    const cit = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 1000,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
      storeForLater: true,
    });
    const input = {
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 800,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId },
      capture: 'manual' as const,
    };
    const hold = await h.connector.chargeOffSession(input);
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
    const sentHold = h.fake.requests.filter((r) => r.operation === 'doImmediateWalletPaymentRequest').at(-1)!.body;
    expect(sentHold).toContain('<impl:linkedTransactionId>');
    expect(h.fake.transactionByOrder(hold.transactionId)).toMatchObject({ action: '100', code: '00000', captured: 0 });
    const again = await h.connectorWith({}).chargeOffSession(input);
    expect(again.transactionId).toBe(hold.transactionId);
    expect(h.fake.requests.filter((r) => r.operation === 'doImmediateWalletPaymentRequest' && r.body.includes(hold.transactionId)).length).toBe(1);
    const ref = (r: TransactionResult) => ({ transactionId: r.transactionId, pspState: r.pspState! });
    expect(await h.connector.capture({ idempotencyKey: key(), transaction: ref(hold), amountCents: 500 })).toMatchObject({ status: 'captured', capturedCents: 500 });
    const other = await h.connector.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
    expect((await h.connector.void({ idempotencyKey: key(), transaction: ref(other) })).status).toBe('voided');
    expect(paylineDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('a wallet made before its answer was lost is read back on the retry, not made twice', async () => {
    const k = key();
    h.fake.fail('timeout_after_processing', 'createWallet');
    const first = await h
      .connectorWith({}, 300)
      .attachPaymentMethod({ idempotencyKey: k, card: PAYLINE_CARDS.success })
      .catch((e: unknown) => e);
    expect((first as PspIntegrationError).code).toBe('unreachable');
    const again = await h.connector.attachPaymentMethod({ idempotencyKey: k, card: PAYLINE_CARDS.success });
    expect(again).toMatchObject({ ok: true, last4: '1111' });
    if (!again.ok) throw new Error('attach');
    const walletId = again.paymentMethodId.split('.')[0]!;
    expect(h.fake.wallets.get(walletId)?.token).toBe(again.paymentMethodId.split('.').slice(3).join('.'));
    expect(h.fake.requests.filter((r) => r.operation === 'getWalletRequest').length).toBe(1);
  });

  it('a timeout after Payline took a payment is reconciled by its order reference: one payment', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.success });
    if (!a.ok) throw new Error('attach');
    const k = key();
    const quick = h.connectorWith({}, 300);
    h.fake.fail('timeout_after_processing', 'doImmediateWalletPayment');
    const first = await quick
      .authorize({ idempotencyKey: k, paymentMethodId: a.paymentMethodId, amountCents: 700, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL })
      .catch((e: unknown) => e);
    expect((first as PspIntegrationError).code).toBe('unreachable');
    const again = await h.connector.authorize({
      idempotencyKey: k,
      paymentMethodId: a.paymentMethodId,
      amountCents: 700,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(again.status).toBe('captured');
    expect(h.fake.requests.filter((r) => r.operation === 'doImmediateWalletPaymentRequest' && r.body.includes(again.transactionId)).length).toBe(1);
  });

  /** A captured payment of 1000 and its reference as Chipin stores it. */
  async function capturedPayment(): Promise<{ transaction: { transactionId: string; pspState: NonNullable<TransactionResult['pspState']> }; paylineId: string }> {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.success });
    if (!a.ok) throw new Error('attach');
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 1000,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(r.status).toBe('captured');
    return { transaction: { transactionId: r.transactionId, pspState: r.pspState! }, paylineId: h.fake.transactionByOrder(r.transactionId)!.id };
  }

  const sent = (operation: string, paylineId: string) => h.fake.requests.filter((r) => r.operation === `${operation}Request` && r.body.includes(`>${paylineId}<`)).length;

  it("a refund whose answer was lost is found in Payline's associated transactions by a new process: one refund at Payline", async () => {
    const { transaction, paylineId } = await capturedPayment();
    const k = key();
    h.fake.fail('timeout_after_processing', 'doRefund');
    await expect(h.connectorWith({}, 300).refund({ idempotencyKey: k, transaction, amountCents: 300 })).rejects.toMatchObject({ code: 'unreachable' });
    expect(h.fake.transactions.get(paylineId)!.refunded).toBe(300);
    const again = await h.fresh().refund({ idempotencyKey: k, transaction, amountCents: 300 });
    expect(again.decline).toBeUndefined();
    expect(again).toMatchObject({ status: 'refunded', capturedCents: 1000, refundedCents: 300 });
    expect(sent('doRefund', paylineId)).toBe(1);
    expect(h.fake.transactions.get(paylineId)!.refunded).toBe(300);
    expect(h.fake.requests.at(-1)!.body).toContain('<impl:transactionHistory>Y</impl:transactionHistory>');
  });

  it('a second partial refund whose answer was lost is told from the first by the amounts: one more refund, not two', async () => {
    const { transaction, paylineId } = await capturedPayment();
    const first = await h.connector.refund({ idempotencyKey: key(), transaction, amountCents: 200 });
    const afterFirst = { transactionId: transaction.transactionId, pspState: first.pspState! };
    const k = key();
    h.fake.fail('timeout_after_processing', 'doRefund');
    await expect(h.connectorWith({}, 300).refund({ idempotencyKey: k, transaction: afterFirst, amountCents: 200 })).rejects.toMatchObject({ code: 'unreachable' });
    const again = await h.fresh().refund({ idempotencyKey: k, transaction: afterFirst, amountCents: 200 });
    expect(again).toMatchObject({ status: 'refunded', capturedCents: 1000, refundedCents: 400 });
    expect(sent('doRefund', paylineId)).toBe(2);
    expect(h.fake.transactions.get(paylineId)!.refunded).toBe(400);
    // A read with the state from before both refunds shows Payline's own total.
    expect((await h.fresh().retrieve(transaction)).refundedCents).toBe(400);
  });

  it('a refund that never reached Payline is sent on the retry', async () => {
    const { transaction, paylineId } = await capturedPayment();
    const k = key();
    h.fake.fail('timeout', 'doRefund');
    await expect(h.connectorWith({}, 300).refund({ idempotencyKey: k, transaction, amountCents: 250 })).rejects.toMatchObject({ code: 'unreachable' });
    expect(h.fake.transactions.get(paylineId)!.refunded).toBe(0);
    const again = await h.fresh().refund({ idempotencyKey: k, transaction, amountCents: 250 });
    expect(again).toMatchObject({ status: 'refunded', refundedCents: 250 });
    expect(h.fake.transactions.get(paylineId)!.refunded).toBe(250);
  });

  it('a capture whose answer was lost is found, not refused as a second capture', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.success });
    if (!a.ok) throw new Error('attach');
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 900,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    const transaction = { transactionId: r.transactionId, pspState: r.pspState! };
    const k = key();
    h.fake.fail('timeout_after_processing', 'doCapture');
    await expect(h.connectorWith({}, 300).capture({ idempotencyKey: k, transaction, amountCents: 600 })).rejects.toMatchObject({ code: 'unreachable' });
    const again = await h.fresh().capture({ idempotencyKey: k, transaction, amountCents: 600 });
    expect(again.decline).toBeUndefined();
    expect(again).toMatchObject({ status: 'captured', capturedCents: 600 });
    expect(sent('doCapture', h.fake.transactionByOrder(r.transactionId)!.id)).toBe(1);
  });

  it('a reset whose answer was lost is found, not refused as a second reset', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.success });
    if (!a.ok) throw new Error('attach');
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 700,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    const transaction = { transactionId: r.transactionId, pspState: r.pspState! };
    const k = key();
    h.fake.fail('timeout_after_processing', 'doReset');
    await expect(h.connectorWith({}, 300).void({ idempotencyKey: k, transaction })).rejects.toMatchObject({ code: 'unreachable' });
    const again = await h.fresh().void({ idempotencyKey: k, transaction });
    expect(again.decline).toBeUndefined();
    expect(again.status).toBe('voided');
    expect(sent('doReset', h.fake.transactionByOrder(r.transactionId)!.id)).toBe(1);
  });

  it("3-D Secure: Payline's page is opened with a GET, and its outcome read with getWebPaymentDetails and the page's token", async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.challenge });
    if (!a.ok) throw new Error('attach');
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 1200,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    expect(r.status).toBe('requires_action');
    expect(r.challengeForm).toBeUndefined();
    const token = new URL(r.challengeUrl!).searchParams.get('token');
    expect(token).toBeTruthy();
    const redirect = h.fake.requests.at(-1)!;
    expect(redirect.operation).toBe('doAuthorizationRedirectRequest');
    expect(redirect.body).toContain('<impl:securityMode>SSL</impl:securityMode>');
    // While the shopper is on the page, the payment waits.
    expect((await h.connector.retrieve({ transactionId: r.transactionId, pspState: r.pspState! })).status).toBe('requires_action');
    await h.completeChallenge({ transactionId: r.transactionId, pspState: r.pspState! });
    const after = await h.connector.retrieve({ transactionId: r.transactionId, pspState: r.pspState! });
    expect(after).toMatchObject({ status: 'authorized', amountCents: 1200 });
    const read = h.fake.requests.at(-1)!;
    expect(read).toMatchObject({ service: 'WebPaymentAPI', operation: 'getWebPaymentDetailsRequest' });
    expect(read.body).toContain(token!);
  });

  it('maps HTTP faults: 401 bad_credentials, 503 unreachable, a page that is not SOAP bad_response', async () => {
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: unknown) => (e as PspIntegrationError).code,
      );
    expect(await codeOf(h.connectorWith({ merchant_id: '999' }).retrieve({ transactionId: 'CHPx', pspState: null }))).toBe('bad_credentials');
    h.fake.fail('server_error', 'getTransactionDetails');
    expect(await codeOf(h.connector.retrieve({ transactionId: 'CHPx', pspState: null }))).toBe('unreachable');
    h.fake.fail('not_soap', 'getTransactionDetails');
    expect(await codeOf(h.connector.retrieve({ transactionId: 'CHPx', pspState: null }))).toBe('bad_response');
  });

  it('refuses every POST to the notification route: Payline notifies by GET, unsigned, and retrieve reads the outcome', async () => {
    expect(await h.connector.verifyNotification()).toEqual({ ok: false, reason: 'malformed' });
  });

  it('never puts the access key in a result, an error or its own description', async () => {
    const quick = h.connectorWith({}, 200);
    h.fake.fail('timeout', 'getTransactionDetails');
    const e = await quick.retrieve({ transactionId: 'CHPabc', pspState: null }).catch((x: unknown) => x);
    expect(String(e)).not.toContain(ACCOUNT.accessKey);
    expect(JSON.stringify(h.connector)).not.toContain(ACCOUNT.accessKey);
    expect(String(h.connector)).toBe('PaylineConnector(test)');
  });
});
