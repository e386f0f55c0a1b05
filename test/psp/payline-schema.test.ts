import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PspIntegrationError, TransactionResult } from '../../src/psp/connector.ts';
import { REQUESTS, requestEnvelope, requestMessage, type PaylineOperation } from '../../src/psp/payline/requests.ts';
import { soapBody, soapEnvelope, textAt, type XmlMessage } from '../../src/psp/payline/soap.ts';
import { ACCOUNT, PAYLINE_CARDS, paylineHarness, type PaylineHarness } from './fixtures/payline/harness.ts';
import { schemaErrors } from './fixtures/payline/schema-check.ts';

/**
 * Payline's request envelopes against the schema derived from its WSDL
 * (test/psp/fixtures/payline/payline-*.xsd, docs/psp/payline.md "Request envelopes"): the
 * connector's table of sequences is the schema's, every envelope it sends validates, and the fake
 * refuses an envelope that leaves out a nillable element (the schema requires it, nil when empty).
 */

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';
const payment = { amount: '1000', currency: '978', action: '101', mode: 'CPT', contractNumber: ACCOUNT.contractNumber };
const order = { ref: 'CHP0123', amount: '1000', currency: '978', date: '24/11/2026 18:05' };

/** Each request element's sequence in the derived schema, marked as requests.ts marks it. */
function schemaSequences(): Record<string, string[]> {
  const xsd = readFileSync(new URL('./fixtures/payline/payline-requests.xsd', import.meta.url), 'utf8');
  const out: Record<string, string[]> = {};
  for (const m of xsd.matchAll(/^ {2}<element name="(\w+)Request">([\s\S]*?)^ {2}<\/element>$/gm)) {
    out[m[1]!] = [...m[2]!.matchAll(/<element ([^>]*)\/>/g)].map((e) => {
      const name = /name="(\w+)"/.exec(e[1]!)![1]!;
      if (e[1]!.includes('minOccurs="0"')) return `${name}?`;
      return e[1]!.includes('nillable="true"') ? `${name}*` : name;
    });
  }
  return out;
}

describe('payline request sequences', () => {
  it("are the derived schema's: the same operations, elements, order, nillable and optional ones", () => {
    expect(schemaSequences()).toEqual(Object.fromEntries(Object.entries(REQUESTS).map(([op, seq]) => [op, [...seq]])));
  });

  it('complete a message in order with nil for what is not given, and refuse a missing required or an unknown element', () => {
    expect(Object.entries(requestMessage('doReset', { version: '29', transactionID: '1', comment: 'x' }))).toEqual([
      ['version', '29'],
      ['transactionID', '1'],
      ['comment', 'x'],
      ['media', null],
      ['amount', null],
      ['currency', null],
      ['sequenceNumber', null],
    ]);
    expect(() => requestMessage('doRefund', { version: '29', transactionID: '1' })).toThrow(/needs payment/);
    expect(() => requestMessage('doReset', { version: '29', transactionID: '1', bogus: 'x' } as never)).toThrow(/no element bogus/);
    expect(requestEnvelope('doRefund', { version: '29', transactionID: '1', payment })).toContain('<impl:comment xsi:nil="true"/>');
  });
});

/** Requests with a nillable element left out: each fails the schema on that element. */
const OLD_REQUESTS: [op: PaylineOperation, message: XmlMessage, missing: string][] = [
  ['doCapture', { version: '29', transactionID: '1', payment: { ...payment, action: '201' } }, 'privateDataList'],
  [
    'verifyEnrollment',
    { version: '29', card: { type: 'CB', expirationDate: '1230' }, payment, orderRef: 'CHP0123', walletId: 'W1', walletCardInd: '1', returnURL: RETURN_URL, order },
    'transient',
  ],
  [
    'createWallet',
    {
      version: '29',
      contractNumber: ACCOUNT.contractNumber,
      wallet: { walletId: 'W1', lastName: 'Ada', card: { number: '4111111111111111', type: 'CB', expirationDate: '1230', cvx: '123' } },
    },
    'buyer',
  ],
  ['doImmediateWalletPayment', { version: '29', payment, order, walletId: 'W1', cardInd: '1' }, 'buyer'],
  ['doReset', { version: '29', transactionID: '1', comment: 'Chipin: hold released' }, 'media'],
  ['doRefund', { version: '29', transactionID: '1', payment: { ...payment, action: '421' } }, 'comment'],
  ['getTransactionDetails', { version: '29', orderRef: 'CHP0123', transactionHistory: 'Y' }, 'transactionId'],
];

describe('payline requests against the schema', () => {
  it.each(OLD_REQUESTS)('%s with a nillable element left out fails on %s; completed, it validates', async (op, message, missing) => {
    const errors = await schemaErrors(soapEnvelope(`${op}Request`, message));
    expect(errors.join('\n')).toContain(`{http://impl.ws.payline.experian.com}${missing}`);
    expect(await schemaErrors(requestEnvelope(op, message as never))).toEqual([]);
  });

  it('refuses nil on an element that is not nillable, an unknown element and text that is not XML', async () => {
    expect((await schemaErrors(soapEnvelope('getWebPaymentDetailsRequest', { version: '29', token: null }))).join()).toMatch(/nil/i);
    expect(await schemaErrors(soapEnvelope('getWebPaymentDetailsRequest', { version: '29', token: 't', extra: 'x' }))).not.toEqual([]);
    expect(await schemaErrors('<soapenv:Envelope')).not.toEqual([]);
  });
});

describe('the payline fake checks every request against the schema', () => {
  let h: PaylineHarness;
  beforeAll(async () => {
    h = await paylineHarness();
  });
  afterAll(async () => {
    await h.teardown();
  });
  const ref = (r: TransactionResult) => ({ transactionId: r.transactionId, pspState: r.pspState! });

  it('answers a doRefund without comment with a SOAP Client fault, HTTP 500, and refunds nothing', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.success });
    if (!a.ok) throw new Error('attach');
    const paid = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 1000,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    const tx = h.fake.transactionByOrder(paid.transactionId)!;
    const res = await fetch(`${h.fake.baseUrl}/DirectPaymentAPI`, {
      method: 'POST',
      headers: {
        'content-type': 'text/xml; charset=utf-8',
        soapaction: '"doRefund"',
        authorization: `Basic ${Buffer.from(`${ACCOUNT.merchantId}:${ACCOUNT.accessKey}`).toString('base64')}`,
      },
      body: soapEnvelope('doRefundRequest', { version: '29', transactionID: tx.id, payment: { ...payment, action: '421', amount: '300' } }),
    });
    expect(res.status).toBe(500);
    const body = soapBody(await res.text());
    expect(body && 'fault' in body && body.fault).toMatch(/does not validate.*comment/);
    expect(h.fake.schemaRefusals).toEqual([{ operation: 'doRefundRequest', errors: [expect.stringContaining('comment')] }]);
    expect(tx.refunded).toBe(0);
    // The connector's own refund of the same payment validates and is made.
    h.fake.schemaRefusals.length = 0;
    expect(await h.connector.refund({ idempotencyKey: key(), transaction: ref(paid), amountCents: 300 })).toMatchObject({ status: 'refunded', refundedCents: 300 });
    expect(tx.refunded).toBe(300);
  });

  it('takes every envelope the connector sends, for each of its operations', async () => {
    const from = h.fake.requests.length;
    // createWallet whose answer is lost, then getWallet on the retry.
    const k = key();
    h.fake.fail('timeout_after_processing', 'createWallet');
    const lost = await h
      .connectorWith({}, 300)
      .attachPaymentMethod({ idempotencyKey: k, card: PAYLINE_CARDS.success })
      .catch((e: unknown) => e);
    expect((lost as PspIntegrationError).code).toBe('unreachable');
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: k, card: PAYLINE_CARDS.success });
    if (!a.ok) throw new Error('attach');
    // verifyEnrollment, doImmediateWalletPayment; getTransactionDetails, doCapture, doRefund, doReset.
    const held = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 1000,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    const captured = await h.connector.capture({ idempotencyKey: key(), transaction: ref(held), amountCents: 600 });
    expect(captured.status).toBe('captured');
    expect((await h.connector.refund({ idempotencyKey: key(), transaction: ref(captured), amountCents: 100 })).status).toBe('refunded');
    const other = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 500,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    expect((await h.connector.void({ idempotencyKey: key(), transaction: ref(other) })).status).toBe('voided');
    // A merchant-initiated payment naming the customer-initiated one (linkedTransactionId).
    const mit = await h.connector.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 200,
      currency: 'EUR',
      storedCredential: { initialTransactionId: held.transactionId },
    });
    expect(mit.status).toBe('captured');
    // A challenge: doAuthorizationRedirect, then getWebPaymentDetails.
    const c = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYLINE_CARDS.challenge });
    if (!c.ok) throw new Error('attach');
    const pending = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: c.paymentMethodId,
      amountCents: 700,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(pending.status).toBe('requires_action');
    await h.connector.retrieve(ref(pending));

    const requests = h.fake.requests.slice(from);
    const sent = new Set(requests.map((r) => r.operation.replace(/Request$/, '')));
    expect([...sent].sort()).toEqual(Object.keys(REQUESTS).sort());
    expect(h.fake.schemaRefusals).toEqual([]);
    for (const r of requests) expect(await schemaErrors(r.body), r.operation).toEqual([]);
    // Every nillable element is sent, nil when empty: e.g. doRefund's comment, verifyEnrollment's leading transient.
    const refund = requests.find((r) => r.operation === 'doRefundRequest')!.body;
    expect(refund).toContain('<impl:comment xsi:nil="true"/>');
    const enrollment = soapBody(requests.find((r) => r.operation === 'verifyEnrollmentRequest')!.body);
    expect(enrollment && 'message' in enrollment && enrollment.message.children[0]?.name).toBe('transient');
    expect(enrollment && 'message' in enrollment && textAt(enrollment.message, 'version')).toBe('29');
  });
});
