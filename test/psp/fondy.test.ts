import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fondyDefinition } from '../../src/psp/fondy/definition.ts';
import {
  codeMeaning,
  declineReasonOfCode,
  readOrder,
  sign,
  signatureText,
  signatureValid,
  toTransactionResult,
  type FondyCode,
  type FondyOrder,
  type OrderStatus,
} from '../../src/psp/fondy/mapping.ts';
import { PspIntegrationError, type DeclineReason, type TransactionRef, type TransactionResult, type TransactionStatus } from '../../src/psp/connector.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { CREDENTIALS, FONDY_FAKE_CARDS, fondyHarness, type FondyHarness } from './fixtures/fondy/harness.ts';

describeConnectorContract('fondy', fondyHarness);

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';
const ref = (r: TransactionResult): TransactionRef => ({ transactionId: r.transactionId, pspState: r.pspState ?? null });

async function expectFault(p: Promise<unknown>, code: PspIntegrationError['code']): Promise<PspIntegrationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PspIntegrationError);
  expect((err as PspIntegrationError).code).toBe(code);
  return err as PspIntegrationError;
}

describe('fondy signature', () => {
  // The example of docs.flitt.com/api/building-signature: its string and its signature.
  const documented = {
    server_callback_url: 'http://myshop/callback/',
    order_id: 'TestOrder2',
    currency: 'GEL',
    merchant_id: 1549901,
    order_desc: 'Test payment',
    amount: 1000,
  };
  it('signs the payment key and the values sorted by name, joined by |, as the documented example', () => {
    // The page's string; its printed signature is not the SHA1 of that string (docs/psp/fondy.md), so the hash is checked on its own.
    expect(signatureText('test', documented)).toBe('test|1000|GEL|1549901|Test payment|TestOrder2|http://myshop/callback/');
    expect(sign('test', documented)).toBe(createHash('sha1').update('test|1000|GEL|1549901|Test payment|TestOrder2|http://myshop/callback/').digest('hex'));
  });
  it('leaves out empty and absent values, the signature and the test-mode signature string', () => {
    const withEmpty = { ...documented, merchant_data: '', product_id: null, response_signature_string: '**********|…', signature: 'x' };
    expect(signatureText('test', withEmpty)).toBe(signatureText('test', documented));
  });
  it('accepts its own signature and refuses any change of a value, of the key, or a malformed one', () => {
    const signed = { ...documented, signature: sign('test', documented) };
    expect(signatureValid('test', signed)).toBe(true);
    expect(signatureValid('test', { ...signed, amount: 1001 })).toBe(false);
    expect(signatureValid('other', signed)).toBe(false);
    expect(signatureValid('test', { ...signed, signature: 'not-hex' })).toBe(false);
    expect(signatureValid('test', { ...documented })).toBe(false);
  });
});

describe('fondy mapping', () => {
  const order = (o: Partial<FondyOrder>): FondyOrder => ({
    orderId: 'o',
    orderStatus: 'approved',
    amount: 1000,
    actualAmount: 1000,
    reversalAmount: 0,
    currency: 'EUR',
    responseCode: '',
    rectoken: undefined,
    maskedCard: undefined,
    cardType: undefined,
    captureStatus: null,
    captureAmount: undefined,
    ...o,
  });
  const now = new Date('2026-11-27T12:00:00Z');
  const ctx = { preauth: false, placedAt: now, now, challengePending: false };

  const statuses: [OrderStatus, TransactionStatus][] = [
    ['created', 'requires_action'],
    ['processing', 'requires_action'],
    ['declined', 'declined'],
    ['approved', 'captured'],
    ['expired', 'declined'],
    ['reversed', 'refunded'],
  ];
  it.each(statuses)('a purchase %s reads %s', (s, ours) => {
    expect(toTransactionResult('o', order({ orderStatus: s, reversalAmount: s === 'reversed' ? 1000 : 0 }), ctx).status).toBe(ours);
  });

  it('a hold reads authorized, expired after 7 days, voided once reversed, captured by the amount Fondy prints', () => {
    const hold = { ...ctx, preauth: true };
    expect(toTransactionResult('o', order({}), hold).status).toBe('authorized');
    expect(toTransactionResult('o', order({}), { ...hold, now: new Date(now.getTime() + 7 * 86_400_000) }).status).toBe('expired');
    expect(toTransactionResult('o', order({ orderStatus: 'reversed', reversalAmount: 1000 }), hold).status).toBe('voided');
    const captured = toTransactionResult('o', order({ captureStatus: 'captured', captureAmount: 600 }), hold);
    expect(captured).toMatchObject({ status: 'captured', capturedCents: 600, refundedCents: 0 });
    const refunded = toTransactionResult('o', order({ captureStatus: 'captured', captureAmount: 600, reversalAmount: 200 }), hold);
    expect(refunded).toMatchObject({ status: 'refunded', capturedCents: 600, refundedCents: 200 });
  });

  it('an order expired with its challenge open is a failed authentication', () => {
    expect(toTransactionResult('o', order({ orderStatus: 'expired' }), { ...ctx, challengePending: true }).decline?.reason).toBe('authentication_failed');
  });

  it('reads capture_amount, printed in the major unit, as minor units', () => {
    const o = readOrder({
      order_id: 'o',
      order_status: 'approved',
      amount: '15118',
      currency: 'GEL',
      additional_info: JSON.stringify({ capture_status: 'captured', capture_amount: 1.0 }),
    });
    expect(o).toMatchObject({ captureStatus: 'captured', captureAmount: 100 });
    expect(readOrder({ order_id: 'o', order_status: 'paid', amount: '1', currency: 'EUR' })).toBeUndefined();
  });

  // docs.flitt.com/api/response-codes: the refusals of the card, by the reason Chipin gives.
  const codes: [FondyCode, DeclineReason][] = [
    [1000, 'card_declined'],
    [1003, 'incorrect_cvc'],
    [1004, 'card_declined'],
    [1015, 'invalid_card'],
    [1024, 'authentication_failed'],
    [1025, 'expired_card'],
    [1037, 'insufficient_funds'],
    [1042, 'card_declined'],
    [1072, 'card_declined'],
    [1075, 'authentication_failed'],
    [1089, 'processing_error'],
  ];
  it.each(codes)('response code %s reads %s', (code, reason) => {
    expect(codeMeaning(code)).toEqual({ kind: 'refused', reason });
    expect(declineReasonOfCode(String(code))).toBe(reason);
  });
  it('the request and account errors are faults, not refusals; an unknown code is a card refusal', () => {
    expect(codeMeaning(1014).kind).toBe('bad_credentials');
    expect(codeMeaning(1016).kind).toBe('bad_credentials');
    expect(codeMeaning(1018).kind).toBe('unknown_order');
    expect(codeMeaning(1013).kind).toBe('duplicate_order');
    expect(codeMeaning(1011).kind).toBe('bad_request');
    expect(declineReasonOfCode(1999)).toBe('card_declined');
  });

  it('checks the credential formats', () => {
    expect(validateCredentials(fondyDefinition, { ...CREDENTIALS }, 'test')).toBeUndefined();
    expect(validateCredentials(fondyDefinition, { ...CREDENTIALS, merchant_id: 'abc' }, 'test')?.field).toContain('merchant_id');
    expect(validateCredentials(fondyDefinition, { ...CREDENTIALS, payment_key: 'has space' }, 'test')?.field).toContain('payment_key');
  });
});

describe('fondy connector against its fake', () => {
  let h: FondyHarness;
  beforeAll(async () => {
    h = await fondyHarness();
  });
  afterAll(async () => {
    await h.teardown();
  });

  async function attach(card = FONDY_FAKE_CARDS.success): Promise<string> {
    const a = await h.fondy.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(`attach refused: ${a.reason}`);
    return a.paymentMethodId;
  }

  /** A request to the fake as another client would send it. */
  async function post(path: string, request: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await fetch(`${h.fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request }) });
    expect(res.status).toBe(200);
    return ((await res.json()) as { response: Record<string, unknown> }).response;
  }

  it('a request with a wrong signature is refused 1014 Invalid signature, in Fondy’s error shape', async () => {
    const request = { order_id: 'x', merchant_id: CREDENTIALS.merchant_id, version: '1.0.1' };
    const r = await post('/api/status/order_id', { ...request, signature: sign('not-the-key', request) });
    expect(r).toMatchObject({ response_status: 'failure', error_code: 1014, error_message: 'Invalid signature' });
    expect(typeof r.request_id).toBe('string');
    const ok = await post('/api/status/order_id', { ...request, signature: sign(CREDENTIALS.payment_key, request) });
    expect(ok).toMatchObject({ response_status: 'failure', error_code: 1018 });
  });

  it('an invalid request (no amount) is refused 1011 in Fondy’s error shape, and the connector never sends one', async () => {
    const request = { order_id: `o-${randomUUID()}`, merchant_id: CREDENTIALS.merchant_id, order_desc: 'x', currency: 'EUR', rectoken: 'abcdefgh' };
    const r = await post('/api/3dsecure_step1', { ...request, signature: sign(CREDENTIALS.payment_key, request) });
    expect(r).toMatchObject({ response_status: 'failure', error_code: 1011, error_message: 'Parameter `amount` is missing' });
  });

  it('a wrong payment key: verifyCredentials says so, and every call is a bad_credentials fault', async () => {
    expect(await h.fondy.verifyCredentials()).toEqual({ ok: true });
    const wrong = h.make({ credentials: { payment_key: 'wrongKey123' } });
    const v = await wrong.verifyCredentials();
    expect(v.ok).toBe(false);
    await expectFault(
      wrong.authorize({ idempotencyKey: key(), paymentMethodId: await attach(), amountCents: 100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL }),
      'bad_credentials',
    );
  });

  it('sends a hold as preauth=Y on the rectoken, with the callback URL, and never the card after attach', async () => {
    const pm = await attach();
    const r = await h.fondy.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 700, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    expect(r.status).toBe('authorized');
    const sent = h.fake.received.filter((x) => x.request.order_id === r.transactionId && x.path === '/api/3dsecure_step1');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.request).toMatchObject({ rectoken: pm, preauth: 'Y', amount: 700, currency: 'EUR', version: '1.0.1', delayed: 'N' });
    expect(String(sent[0]!.request.server_callback_url)).toMatch(/^http:\/\/127\.0\.0\.1:3000\/api\/psp\/psa_[^/]+\/notifications$/);
    expect(sent[0]!.request.card_number).toBeUndefined();
  });

  it('a 3-D Secure card answers the ACS form (PaReq, MD, TermUrl = the return URL) to post from the shopper’s browser', async () => {
    const pm = await attach(FONDY_FAKE_CARDS.challenge);
    const r = await h.fondy.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 900, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    expect(r.status).toBe('requires_action');
    expect(r.challengeForm?.action).toBe(`${h.fake.url}/acs`);
    expect(Object.keys(r.challengeForm?.fields ?? {}).sort()).toEqual(['MD', 'PaReq', 'TermUrl']);
    expect(r.challengeForm?.fields.TermUrl).toBe(RETURN_URL);
    const get = await fetch(`${h.fake.url}/acs`);
    expect(get.status).toBe(405);
  });

  it('an authorisation whose answer was lost is placed once: the retry reads the order Fondy refused to place twice', async () => {
    const pm = await attach();
    const k = key();
    h.fake.fail('timeout', { path: '/api/3dsecure_step1', afterEffect: true });
    const input = { idempotencyKey: k, paymentMethodId: pm, amountCents: 1300, currency: 'EUR', capture: 'automatic' as const, returnUrl: RETURN_URL };
    await expectFault(h.fondy.authorize(input), 'unreachable');
    const before = h.fake.orderCount;
    const r = await h.make().authorize(input);
    expect(r).toMatchObject({ status: 'captured', capturedCents: 1300 });
    expect(h.fake.orderCount).toBe(before);
    expect(h.fake.ordersOf(r.transactionId)).toBe(1);
  });

  it('a hold whose answer was lost reads authorised on the retry, not captured', async () => {
    const pm = await attach();
    const input = { idempotencyKey: key(), paymentMethodId: pm, amountCents: 1100, currency: 'EUR', capture: 'manual' as const, returnUrl: RETURN_URL };
    h.fake.fail('timeout', { path: '/api/3dsecure_step1', afterEffect: true });
    await expectFault(h.fondy.authorize(input), 'unreachable');
    const r = await h.make().authorize(input);
    expect(r).toMatchObject({ status: 'authorized', capturedCents: 0 });
    const c = await h.fondy.capture({ idempotencyKey: key(), transaction: ref(r), amountCents: 1100 });
    expect(c).toMatchObject({ status: 'captured', capturedCents: 1100 });
  });

  it('a full refund whose answer was lost answers refunded on the retry, made once', async () => {
    const pm = await attach();
    const paid = await h.fondy.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 600, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    const k = key();
    h.fake.fail('timeout', { path: '/api/reverse/order_id', afterEffect: true });
    await expectFault(h.fondy.refund({ idempotencyKey: k, transaction: ref(paid), amountCents: 600 }), 'unreachable');
    const r = await h.make().refund({ idempotencyKey: k, transaction: ref(paid), amountCents: 600 });
    expect(r.decline).toBeUndefined();
    expect(r).toMatchObject({ status: 'refunded', capturedCents: 600, refundedCents: 600 });
    expect(h.fake.reversals.filter((x) => x.orderId === paid.transactionId)).toHaveLength(1);
  });

  it('a refund whose answer was lost is made once: the retry carries the same reverse_id', async () => {
    const pm = await attach();
    const paid = await h.fondy.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 2000, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    const k = key();
    h.fake.fail('timeout', { path: '/api/reverse/order_id', afterEffect: true });
    await expectFault(h.fondy.refund({ idempotencyKey: k, transaction: ref(paid), amountCents: 500 }), 'unreachable');
    const r = await h.make().refund({ idempotencyKey: k, transaction: ref(paid), amountCents: 500 });
    expect(r).toMatchObject({ status: 'refunded', capturedCents: 2000, refundedCents: 500 });
    expect(h.fake.reversals.filter((x) => x.orderId === paid.transactionId)).toHaveLength(1);
  });

  it('an off-session charge whose answer was lost is charged once', async () => {
    const pm = await attach();
    await h.fondy.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL, storeForLater: true });
    const k = key();
    h.fake.fail('http_500', { path: '/api/recurring', afterEffect: true });
    await expectFault(h.fondy.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 800, currency: 'EUR' }), 'unreachable');
    const r = await h.make().chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 800, currency: 'EUR' });
    expect(r).toMatchObject({ status: 'captured', capturedCents: 800 });
    expect(h.fake.received.filter((x) => x.path === '/api/recurring' && x.request.order_id === r.transactionId)).toHaveLength(1);
  });

  it('maps declines: the declined test card, no funds, a card never paid on session charged off session', async () => {
    expect(await h.fondy.attachPaymentMethod({ idempotencyKey: key(), card: FONDY_FAKE_CARDS.declined })).toMatchObject({ ok: false, reason: 'card_declined' });
    expect(await h.fondy.attachPaymentMethod({ idempotencyKey: key(), card: FONDY_FAKE_CARDS.insufficientFunds })).toMatchObject({ ok: false, reason: 'insufficient_funds' });
    const pm = await attach();
    const off = await h.fondy.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR' });
    expect(off).toMatchObject({ status: 'declined', capturedCents: 0, decline: { reason: 'card_declined' } });
  });

  it('a failed challenge declines with 1024: authentication_failed', async () => {
    const pm = await attach(FONDY_FAKE_CARDS.challenge);
    const r = await h.fondy.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 900, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    const after = await h.failChallenge(ref(r));
    expect(after).toMatchObject({ status: 'declined', decline: { reason: 'authentication_failed' } });
  });

  describe('callbacks', () => {
    async function paidOrder(): Promise<TransactionResult> {
      return h.fondy.authorize({ idempotencyKey: key(), paymentMethodId: await attach(), amountCents: 300, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    }
    it('a callback signed with the payment key names the order and its status', async () => {
      const r = await paidOrder();
      const n = await h.fondy.verifyNotification({ headers: { 'content-type': 'application/json' }, rawBody: h.fake.callbackBody(r.transactionId) });
      expect(n).toMatchObject({ ok: true, transactionId: r.transactionId, status: 'captured' });
    });
    it('refuses a callback signed with another key, an altered one, and one that is not JSON', async () => {
      const r = await paidOrder();
      const other = h.fake.callbackBody(r.transactionId, 'someOtherKey');
      expect(await h.fondy.verifyNotification({ headers: {}, rawBody: other })).toEqual({ ok: false, reason: 'bad_signature' });
      const altered = h.fake.callbackBody(r.transactionId).replace('"amount":"300"', '"amount":"30000"');
      expect(await h.fondy.verifyNotification({ headers: {}, rawBody: altered })).toEqual({ ok: false, reason: 'bad_signature' });
      expect(await h.fondy.verifyNotification({ headers: {}, rawBody: 'order_id=1' })).toEqual({ ok: false, reason: 'malformed' });
    });
  });

  it('shows no credential when logged or serialised', () => {
    const shown = `${String(h.fondy)} ${JSON.stringify(h.fondy)}`;
    expect(shown).not.toContain(CREDENTIALS.payment_key);
    expect(shown).toContain(CREDENTIALS.merchant_id);
  });
});
