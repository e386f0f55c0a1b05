import fc from 'fast-check';
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, type DeclineReason, type TransactionResult, type TransactionStatus } from '../../src/psp/connector.ts';
import { amountStepRefusal, currencyRefusal } from '../../src/psp/definition.ts';
import { midtransDefinition } from '../../src/psp/midtrans/definition.ts';
import {
  TRANSACTION_STATUSES,
  fromGrossAmount,
  notificationSignature,
  orderIdFor,
  readTransaction,
  toDeclineReason,
  toGrossAmount,
  toStatus,
  type MidtransTransactionStatus,
} from '../../src/psp/midtrans/mapping.ts';
import { CREDENTIALS, midtransHarness, type MidtransHarness } from './fixtures/midtrans/harness.ts';
import { contractInIdr } from './fixtures/midtrans/in-idr.ts';
import { describeConnectorContract } from './connector-contract.ts';

// The contract charges EUR in cents; Midtrans takes IDR in whole rupiah: each contract amount N is sent as N rupiah (fixtures/midtrans/in-idr.ts).
describeConnectorContract('midtrans', async () => contractInIdr(await midtransHarness()));

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';
const IDR = 'IDR';

describe('midtrans mapping', () => {
  it('sends IDR as whole rupiah: Chipin’s sen (ISO 4217: two decimals) divided by 100', () => {
    expect(toGrossAmount(14_500_000, IDR)).toBe(145_000);
    expect(toGrossAmount(100, IDR)).toBe(1);
  });

  it('refuses an amount with sen, and every currency but IDR, before any call', () => {
    expect(() => toGrossAmount(14_500_050, IDR)).toThrow(RangeError);
    expect(() => toGrossAmount(1000, 'EUR')).toThrow(/IDR only/);
    expect(() => toGrossAmount(0, IDR)).toThrow(RangeError);
  });

  it('reads Midtrans’ gross_amount back in sen', () => {
    expect(fromGrossAmount('145000.00')).toBe(14_500_000);
    expect(fromGrossAmount(145000)).toBe(14_500_000);
    expect(fromGrossAmount('12.5')).toBe(1250);
    expect(fromGrossAmount('-1.00')).toBeUndefined();
    expect(fromGrossAmount('abc')).toBeUndefined();
  });

  const statuses: [MidtransTransactionStatus, string | undefined, TransactionStatus][] = [
    ['pending', undefined, 'requires_action'],
    ['authorize', 'accept', 'authorized'],
    ['authorize', 'challenge', 'requires_action'],
    ['capture', 'accept', 'captured'],
    ['capture', 'challenge', 'requires_action'],
    ['capture', 'deny', 'declined'],
    ['settlement', 'accept', 'captured'],
    ['deny', 'accept', 'declined'],
    ['failure', undefined, 'declined'],
    ['cancel', 'accept', 'voided'],
    ['expire', undefined, 'expired'],
    ['refund', 'accept', 'refunded'],
    ['partial_refund', 'accept', 'refunded'],
    ['chargeback', 'accept', 'captured'], // a chargeback is not a refund (midtrans-disputes.test.ts)
    ['partial_chargeback', 'accept', 'captured'],
  ];
  it.each(statuses)('transaction_status %s (fraud_status %s) reads %s', (status, fraud, ours) => {
    expect(toStatus(status, fraud)).toBe(ours);
  });

  it('maps every Midtrans transaction status', () => {
    for (const s of TRANSACTION_STATUSES) expect(typeof toStatus(s, 'accept')).toBe('string');
  });

  const codes: [string | undefined, DeclineReason][] = [
    ['05', 'card_declined'],
    ['51', 'insufficient_funds'],
    ['54', 'expired_card'],
    ['N7', 'incorrect_cvc'],
    ['14', 'invalid_card'],
    ['96', 'processing_error'],
    [undefined, 'card_declined'],
  ];
  it.each(codes)('channel_response_code %s → %s', (code, reason) => {
    expect(toDeclineReason(code)).toBe(reason);
  });

  it('refuses to read what is not a transaction', () => {
    const ok = { transaction_id: randomUUID(), order_id: 'o-1', gross_amount: '1000.00', transaction_status: 'capture', status_code: '200' };
    expect(readTransaction(ok)).toBeDefined();
    expect(readTransaction({ ...ok, transaction_status: 'sideways' })).toBeUndefined();
    expect(readTransaction({ ...ok, gross_amount: 'x' })).toBeUndefined();
    expect(readTransaction({ status_code: '404' })).toBeUndefined();
  });

  it('derives a Midtrans order_id (≤ 50 of its characters) from the idempotency key, the same for the same key', () => {
    const a = orderIdFor('k'.repeat(300));
    expect(a).toMatch(/^[A-Za-z0-9\-_~.]{1,50}$/);
    expect(orderIdFor('k'.repeat(300))).toBe(a);
    expect(orderIdFor('other')).not.toBe(a);
  });

  it('signs notifications as Midtrans documents: SHA512(order_id + status_code + gross_amount + server_key)', () => {
    const expected = createHash('sha512').update('1111200100000.00askvnoibnosifnboseofinbofinfgbiufglnbfg').digest('hex');
    expect(notificationSignature('1111', '200', '100000.00', 'askvnoibnosifnboseofinbofinfgbiufglnbfg')).toBe(expected);
  });
});

describe('midtrans definition', () => {
  it('wants sandbox keys (SB-…) for a test account and production keys for a live one', () => {
    expect(midtransDefinition.validate!({ ...CREDENTIALS }, 'test')).toBeUndefined();
    expect(midtransDefinition.validate!({ ...CREDENTIALS }, 'live')?.field).toBe('server_key');
    expect(midtransDefinition.baseUrl('test', {})).toBe('https://api.sandbox.midtrans.com');
    expect(midtransDefinition.baseUrl('live', {})).toBe('https://api.midtrans.com');
  });

  it('takes offers in IDR only, naming the currencies it takes', () => {
    expect(currencyRefusal(midtransDefinition, 'IDR')).toBeUndefined();
    expect(currencyRefusal(midtransDefinition, 'EUR')).toBe('Midtrans takes IDR only; this offer is in EUR');
  });

  it('refuses an IDR amount with sen (never rounds it) and takes every whole number of rupiah', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e12 }), (sen) => {
        const refused = amountStepRefusal(midtransDefinition, 'IDR', sen);
        expect(refused === undefined).toBe(sen % 100 === 0);
        if (refused) expect(refused).toBe('must be a multiple of 100 (whole units of IDR: Midtrans takes no minor unit)');
      }),
    );
  });
});

describe('midtrans connector on the fake (the SDK through our outbound client)', () => {
  let h: MidtransHarness;
  beforeAll(async () => {
    h = await midtransHarness();
  });
  afterAll(async () => {
    await h.teardown();
  });

  async function pm(card = h.cards.success): Promise<string> {
    const a = await h.midtrans.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(a.message);
    return a.paymentMethodId;
  }
  const ref = (r: TransactionResult) => ({ transactionId: r.transactionId, pspState: r.pspState ?? null });

  it('registers a card and tells its brand and last digits', async () => {
    const a = await h.midtrans.attachPaymentMethod({ idempotencyKey: key(), card: h.cards.success });
    expect(a).toMatchObject({ ok: true, brand: 'visa', last4: '1114' });
    expect(h.fake.requests).toContain('GET /v2/card/register');
  });

  it('refuses an invalid card number as a result, not an exception', async () => {
    const a = await h.midtrans.attachPaymentMethod({ idempotencyKey: key(), card: { ...h.cards.success, number: '4811111111111115' } });
    expect(a).toMatchObject({ ok: false, reason: 'invalid_card' });
  });

  it('charges at once, then refunds partly and fully', async () => {
    const r = await h.midtrans.authorize({
      idempotencyKey: key(),
      paymentMethodId: await pm(),
      amountCents: 1_000_000,
      currency: IDR,
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(r).toMatchObject({ status: 'captured', amountCents: 1_000_000, capturedCents: 1_000_000, refundedCents: 0 });
    const r1 = await h.midtrans.refund({ idempotencyKey: key(), transaction: ref(r), amountCents: 300_000 });
    expect(r1).toMatchObject({ status: 'refunded', refundedCents: 300_000 });
    const tooMuch = await h.midtrans.refund({ idempotencyKey: key(), transaction: ref(r1), amountCents: 800_000 });
    expect(tooMuch.decline?.reason).toBe('amount_too_large');
    const r2 = await h.midtrans.refund({ idempotencyKey: key(), transaction: ref(r1), amountCents: 700_000 });
    expect(r2).toMatchObject({ status: 'refunded', refundedCents: 1_000_000 });
  });

  it('holds, captures part of the hold, and a hold can be voided', async () => {
    const method = await pm();
    const held = await h.midtrans.authorize({ idempotencyKey: key(), paymentMethodId: method, amountCents: 500_000, currency: IDR, capture: 'manual', returnUrl: RETURN_URL });
    expect(held).toMatchObject({ status: 'authorized', capturedCents: 0 });
    const c = await h.midtrans.capture({ idempotencyKey: key(), transaction: ref(held), amountCents: 300_000 });
    expect(c).toMatchObject({ status: 'captured', capturedCents: 300_000 });
    expect((await h.midtrans.retrieve(ref(c))).capturedCents).toBe(300_000);
    const other = await h.midtrans.authorize({ idempotencyKey: key(), paymentMethodId: method, amountCents: 500_000, currency: IDR, capture: 'manual', returnUrl: RETURN_URL });
    expect(await h.midtrans.void({ idempotencyKey: key(), transaction: ref(other) })).toMatchObject({ status: 'voided' });
  });

  it('declines the bank’s refusals with their reason', async () => {
    const declined = await h.midtrans.authorize({
      idempotencyKey: key(),
      paymentMethodId: await pm(h.cards.declined),
      amountCents: 10_000,
      currency: IDR,
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(declined).toMatchObject({ status: 'declined', decline: { reason: 'card_declined' } });
    const poor = await h.midtrans.authorize({
      idempotencyKey: key(),
      paymentMethodId: await pm(h.cards.insufficientFunds),
      amountCents: 10_000,
      currency: IDR,
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(poor.decline?.reason).toBe('insufficient_funds');
  });

  it('sends the shopper to the 3-D Secure page (a GET) and reads the outcome back', async () => {
    const method = await pm(h.cards.challenge);
    const r = await h.midtrans.authorize({ idempotencyKey: key(), paymentMethodId: method, amountCents: 20_000, currency: IDR, capture: 'automatic', returnUrl: RETURN_URL });
    expect(r.status).toBe('requires_action');
    expect((await fetch(r.challengeUrl!)).status).toBe(200);
    await h.completeChallenge(ref(r));
    expect(await h.midtrans.retrieve(ref(r))).toMatchObject({ status: 'captured', capturedCents: 20_000 });
    const failed = await h.midtrans.authorize({ idempotencyKey: key(), paymentMethodId: method, amountCents: 20_000, currency: IDR, capture: 'automatic', returnUrl: RETURN_URL });
    await h.failChallenge(ref(failed));
    expect((await h.midtrans.retrieve(ref(failed))).status).toBe('declined');
  });

  it('charges off session only a card a customer-initiated payment stored (save_token_id), as Midtrans does', async () => {
    const method = await pm();
    const early = await h.midtrans.chargeOffSession({ idempotencyKey: key(), paymentMethodId: method, amountCents: 40_000, currency: IDR });
    expect(early.status).toBe('declined');
    const cit = await h.midtrans.authorize({
      idempotencyKey: key(),
      paymentMethodId: method,
      amountCents: 10_000,
      currency: IDR,
      capture: 'automatic',
      returnUrl: RETURN_URL,
      storeForLater: true,
    });
    expect(cit.status).toBe('captured');
    const mit = await h.midtrans.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: method,
      amountCents: 40_000,
      currency: IDR,
      storedCredential: { initialTransactionId: cit.transactionId },
    });
    expect(mit).toMatchObject({ status: 'captured', capturedCents: 40_000 });
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): type authorize on the saved token, no authentication → authorize, then captured or cancelled; one hold per key', async () => {
    const method = await pm();
    const cit = await h.midtrans.authorize({
      idempotencyKey: key(),
      paymentMethodId: method,
      amountCents: 10_000,
      currency: IDR,
      capture: 'manual',
      returnUrl: RETURN_URL,
      storeForLater: true,
    });
    const k = key();
    const input = {
      idempotencyKey: k,
      paymentMethodId: method,
      amountCents: 30_000,
      currency: IDR,
      storedCredential: { initialTransactionId: cit.transactionId },
      capture: 'manual' as const,
    };
    const hold = await h.midtrans.chargeOffSession(input);
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 30_000, capturedCents: 0 });
    expect(h.fake.creditCardOf(orderIdFor(k))).toEqual({ token_id: method, type: 'authorize' });
    expect((await h.fresh().chargeOffSession(input)).transactionId).toBe(hold.transactionId);
    expect(h.fake.transactionsOf(orderIdFor(k))).toBe(1);
    expect(await h.midtrans.capture({ idempotencyKey: key(), transaction: ref(hold), amountCents: 20_000 })).toMatchObject({ status: 'captured', capturedCents: 20_000 });
    const other = await h.midtrans.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 5_000 });
    expect((await h.midtrans.void({ idempotencyKey: key(), transaction: ref(other) })).status).toBe('voided');
    expect(midtransDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('charges once per idempotency key, in this instance or a fresh one', async () => {
    const method = await pm();
    const k = key();
    const input = { idempotencyKey: k, paymentMethodId: method, amountCents: 10_000, currency: IDR, capture: 'automatic' as const, returnUrl: RETURN_URL };
    const a = await h.midtrans.authorize(input);
    const b = await h.fresh().authorize(input);
    expect(b.transactionId).toBe(a.transactionId);
    expect(h.fake.transactionsOf(orderIdFor(k))).toBe(1);
  });

  it('recovers the transaction when a charge reached Midtrans but its answer was lost (duplicate order_id)', async () => {
    const method = await pm();
    const k = key();
    h.fake.fail('timeout', { path: '/v2/charge', afterEffect: true });
    const input = { idempotencyKey: k, paymentMethodId: method, amountCents: 10_000, currency: IDR, capture: 'automatic' as const, returnUrl: RETURN_URL };
    await expect(h.make({ timeoutMs: 300 }).authorize(input)).rejects.toMatchObject({ code: 'unreachable' });
    const again = await h.midtrans.authorize(input);
    expect(again.status).toBe('captured');
    expect(h.fake.transactionsOf(orderIdFor(k))).toBe(1);
  });

  it('refuses other currencies and amounts with sen before calling Midtrans', async () => {
    const method = await pm();
    await expect(
      h.midtrans.authorize({ idempotencyKey: key(), paymentMethodId: method, amountCents: 1000, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL }),
    ).rejects.toThrow(RangeError);
    await expect(
      h.midtrans.authorize({ idempotencyKey: key(), paymentMethodId: method, amountCents: 1050, currency: IDR, capture: 'automatic', returnUrl: RETURN_URL }),
    ).rejects.toThrow(RangeError);
  });

  it('verifies notifications by their signature_key', async () => {
    const r = await h.midtrans.authorize({ idempotencyKey: key(), paymentMethodId: await pm(), amountCents: 10_000, currency: IDR, capture: 'automatic', returnUrl: RETURN_URL });
    const body = h.fake.notificationFor(r.transactionId);
    expect(await h.midtrans.verifyNotification({ headers: {}, rawBody: body })).toEqual({ ok: true, transactionId: r.transactionId, status: 'captured' });
    const tampered = body.replace('"100.00"', '"999.00"');
    expect(await h.midtrans.verifyNotification({ headers: {}, rawBody: tampered })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.midtrans.verifyNotification({ headers: {}, rawBody: 'nope' })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('proves good keys and refuses wrong ones; a wrong server key is bad_credentials on a call', async () => {
    expect(await h.midtrans.verifyCredentials()).toEqual({ ok: true });
    const wrong = h.make({ credentials: { server_key: 'SB-Mid-server-wrongKey00000000' } });
    expect(await wrong.verifyCredentials()).toMatchObject({ ok: false });
    await expect(wrong.retrieve({ transactionId: randomUUID(), pspState: null })).rejects.toMatchObject({ code: 'bad_credentials' });
  });

  it('answers an unknown transaction as unknown_transaction', async () => {
    await expect(h.midtrans.retrieve({ transactionId: randomUUID(), pspState: null })).rejects.toBeInstanceOf(PspIntegrationError);
    await expect(h.midtrans.retrieve({ transactionId: randomUUID(), pspState: null })).rejects.toMatchObject({ code: 'unknown_transaction' });
  });

  it('keeps the keys out of logs and errors', async () => {
    const { inspect } = await import('node:util');
    expect(inspect(h.midtrans)).not.toContain(CREDENTIALS.server_key);
    expect(JSON.stringify(h.midtrans)).not.toContain(CREDENTIALS.server_key);
  });
});
