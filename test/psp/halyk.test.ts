import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, UnusableCredentialError, type DeclineReason, type PspConnector, type TransactionStatus } from '../../src/psp/connector.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { HALYK_BASE_URLS, HALYK_OAUTH_URLS } from '../../src/psp/halyk/connector.ts';
import { halykDefinition } from '../../src/psp/halyk/definition.ts';
import {
  EPAY_ERROR_CODES,
  EPAY_STATUSES,
  declineOf,
  errorReason,
  fromEpayAmount,
  invoiceIdFor,
  readStatus,
  toEpayAmount,
  toStatus,
  type EpayStatus,
} from '../../src/psp/halyk/mapping.ts';
import type { PspHttp } from '../../src/psp/psp-http.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { CREDENTIALS, HALYK_FAKE_CARDS, halykHarness, type HalykHarness } from './fixtures/halyk/harness.ts';
import { testOperations } from './fixtures/operations.ts';

describeConnectorContract('halyk', halykHarness);

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

describe('halyk mapping', () => {
  // ePay's statuses in our words.
  const statuses: Record<EpayStatus, TransactionStatus> = {
    NEW: 'requires_action',
    '3D': 'requires_action',
    AUTH: 'authorized',
    CHARGE: 'captured',
    CANCEL: 'voided',
    CANCEL_OLD: 'expired',
    REFUND: 'refunded',
    REJECT: 'declined',
    FAILED: 'declined',
  };
  it.each(EPAY_STATUSES.map((s) => [s, statuses[s]] as const))('status %s reads %s', (status, ours) => {
    expect(toStatus(status, { refundedCents: 0, lapsed: false })).toBe(ours);
  });
  it('a charge with a refund reads refunded; a hold past its days reads expired', () => {
    expect(toStatus('CHARGE', { refundedCents: 1, lapsed: false })).toBe('refunded');
    expect(toStatus('AUTH', { refundedCents: 0, lapsed: true })).toBe('expired');
  });

  // The SDK's texts for its payment error codes.
  const codes: [number, DeclineReason][] = [
    [484, 'insufficient_funds'],
    [457, 'expired_card'],
    [478, 'expired_card'],
    [485, 'expired_card'],
    [471, 'invalid_card'],
    [472, 'invalid_card'],
    [455, 'authentication_failed'],
    [473, 'authentication_failed'],
    [496, 'authentication_failed'],
    [466, 'card_declined'],
    [481, 'card_declined'],
    [483, 'card_declined'],
    [488, 'card_declined'],
    [461, 'processing_error'],
    [494, 'processing_error'],
  ];
  it.each(codes)('error code %s reads %s', (code, reason) => expect(declineOf(code).reason).toBe(reason));
  it('every code the SDK names has a reason; a code it does not name (or none) refuses the card, saying the code', () => {
    for (const c of EPAY_ERROR_CODES) expect(typeof errorReason(c)).toBe('string');
    expect(declineOf('484').reason).toBe('insufficient_funds');
    expect(declineOf(100)).toEqual({ reason: 'card_declined', message: 'ePay refused the payment (code 100).' });
    expect(declineOf(undefined).reason).toBe('card_declined');
  });

  it('amounts go to major units as exact decimals and back, also through a JSON number; nothing else passes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 14 }), (cents) => {
        const sent = toEpayAmount(cents, 'KZT');
        expect(sent).toMatch(/^\d+\.\d{2}$/);
        expect(fromEpayAmount(sent, 'KZT')).toBe(cents);
        expect(fromEpayAmount(JSON.parse(JSON.stringify({ a: Number(sent) })).a, 'KZT')).toBe(cents);
      }),
    );
    expect(toEpayAmount(1222, 'KZT')).toBe('12.22');
    expect(toEpayAmount(5, 'USD')).toBe('0.05');
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => toEpayAmount(bad, 'KZT')).toThrow(RangeError);
    for (const bad of ['1.234', '1e3', '-5', '', ' 5', null, 1e21]) expect(fromEpayAmount(bad, 'KZT')).toBeUndefined();
  });

  it('our invoice number is 15 digits, stable per key and kind, and differs for any other key or kind', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 255 }), fc.string({ minLength: 1, maxLength: 255 }), (a, b) => {
        expect(invoiceIdFor('cit', a)).toBe(invoiceIdFor('cit', a));
        expect(invoiceIdFor('cit', a)).toMatch(/^\d{15}$/);
        expect(invoiceIdFor('cit', a)).not.toBe(invoiceIdFor('mit', a));
        if (a !== b) expect(invoiceIdFor('cit', a)).not.toBe(invoiceIdFor('cit', b));
      }),
    );
  });

  it("reads the status page's example transaction, and an answer without a transaction as none", () => {
    const read = readStatus({
      resultCode: '100',
      resultMessage: 'SUCCESS',
      transaction: {
        id: 'af2089fe-43b1-47eb-a61f-c78dd196e18d',
        createdDate: '2022-11-15T03:52:17.289853+06:00',
        invoiceID: '205218074',
        amount: 12.22,
        payoutAmount: 10,
        orgAmount: 22.22,
        currency: 'KZT',
        statusName: 'REFUND',
        reasonCode: 0,
      },
    });
    expect(read).toMatchObject({ found: true, transaction: { invoiceId: '205218074', statusName: 'REFUND', amountCents: 1222, originalCents: 2222, currency: 'KZT' } });
    expect(readStatus({ resultCode: '102', resultMessage: 'not found' })).toEqual({ found: false });
    expect(readStatus({ resultCode: '100', transaction: { id: 'x' } })).toBeUndefined();
  });

  it('takes the fields ePay gives and refuses malformed ones', () => {
    expect(validateCredentials(halykDefinition, { ...CREDENTIALS }, 'test')).toBeUndefined();
    expect(validateCredentials(halykDefinition, { ...CREDENTIALS, client_secret: 'U01gQZVL##lJ$NhJ' }, 'test')).toBeUndefined();
    expect(validateCredentials(halykDefinition, { ...CREDENTIALS, terminal_id: 'terminal-1' }, 'test')?.field).toBe('credentials.terminal_id');
    expect(validateCredentials(halykDefinition, { ...CREDENTIALS, client_secret: 'has a space' }, 'test')?.field).toBe('credentials.client_secret');
    expect(validateCredentials(halykDefinition, { ...CREDENTIALS, public_key: 'not base64!' }, 'test')?.field).toBe('credentials.public_key');
    // Matches the pattern, yet no key: parsed, not only patterned.
    expect(validateCredentials(halykDefinition, { ...CREDENTIALS, public_key: Buffer.alloc(300, 0x5a).toString('base64') }, 'test')).toMatchObject({
      field: 'credentials.public_key',
      message: expect.stringMatching(/^cannot be used: expected an RSA public key/) as unknown,
    });
  });
});

describe('halyk connector against the fake ePay', () => {
  let h: HalykHarness;
  beforeAll(async () => {
    h = await halykHarness();
  });
  afterAll(async () => {
    await h?.teardown();
  });

  const posts = (path: string) => h.fake.requests.filter((r) => r.method === 'POST' && r.path === path);
  async function attach(card = HALYK_FAKE_CARDS.success): Promise<string> {
    const a = await h.halyk.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(`attach refused: ${a.reason}`);
    return a.paymentMethodId;
  }

  it('attach sends the card only as a cryptogram, under the Cyrillic-spelt field, with cardSave and amount 0', async () => {
    await attach();
    const body = JSON.parse(posts('/api/payment/cryptopay').at(-1)!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ amount: 0, currency: 'KZT', cardSave: true });
    expect(typeof body['\u0441ryptogram']).toBe('string');
    expect(body.cryptogram).toBeUndefined();
    for (const r of h.fake.requests) expect(r.body + r.query).not.toContain('4405639704015096');
  });

  it('gets a token for each operation, naming the payment its invoice, amount and currency; amounts go in tenge with decimals', async () => {
    const pm = await attach();
    const before = h.fake.requests.length;
    const k = key();
    const r = await h.halyk.authorize({ idempotencyKey: k, paymentMethodId: pm, amountCents: 1222, currency: 'KZT', capture: 'manual', returnUrl: RETURN_URL });
    expect(r).toMatchObject({ status: 'authorized', amountCents: 1222, transactionId: invoiceIdFor('cit', k) });
    const calls = h.fake.requests.slice(before);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /api/oauth2/token', 'POST /api/payments/cards/auth']);
    const token = new URLSearchParams(calls[0]!.body);
    expect(Object.fromEntries(token)).toMatchObject({
      grant_type: 'client_credentials',
      invoiceID: r.transactionId,
      amount: '12.22',
      currency: 'KZT',
      terminal: CREDENTIALS.terminal_id,
    });
    expect(calls[1]!.body).toContain('"amount":12.22');
    const c = await h.halyk.capture({ idempotencyKey: key(), transaction: { transactionId: r.transactionId, pspState: r.pspState ?? null }, amountCents: 600 });
    expect(c).toMatchObject({ status: 'captured', capturedCents: 600 });
    const charge = h.fake.requests.filter((x) => x.path.endsWith('/charge')).at(-1)!;
    expect(charge.query).toBe('?amount=6.00');
    // A token serves one call: a second use is refused by the fake as by ePay.
    expect(new Set(h.fake.requests.map((x) => x.headers.authorization)).size).toBeGreaterThan(1);
  });

  it('an account whose stored public_key is no RSA key is still built: attach fails as a typed fault naming the field, reads (the reconciliation) go on', async () => {
    const pm = await attach();
    const r = await h.halyk.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1222, currency: 'KZT', capture: 'manual', returnUrl: RETURN_URL });
    // Base64 of bytes that are no key, as a pattern-filled sweep saved it before keys were parsed.
    const broken = h.make({ credentials: { public_key: Buffer.alloc(300, 0x5a).toString('base64') } });
    const before = h.fake.requests.length;
    const refused = broken.attachPaymentMethod({ idempotencyKey: key(), card: HALYK_FAKE_CARDS.success });
    await expect(refused).rejects.toBeInstanceOf(UnusableCredentialError);
    await expect(refused).rejects.toMatchObject({ code: 'bad_credentials', field: 'credentials.public_key' });
    expect(h.fake.requests.length).toBe(before);
    expect(await broken.retrieve({ transactionId: r.transactionId, pspState: r.pspState ?? null })).toMatchObject({ status: 'authorized', amountCents: 1222 });
  });

  it('refused client credentials are a credentials fault, and verifyCredentials says so', async () => {
    const wrong = h.make({ credentials: { client_secret: 'notTheSecret1234' } });
    await expectFault(wrong.attachPaymentMethod({ idempotencyKey: key(), card: HALYK_FAKE_CARDS.success }), 'bad_credentials');
    expect(await wrong.verifyCredentials()).toMatchObject({ ok: false });
    expect(await h.halyk.verifyCredentials()).toEqual({ ok: true });
    const other = h.make({ credentials: { terminal_id: randomUUID() } });
    await expectFault(other.retrieve({ transactionId: '123456789012345', pspState: null }), 'bad_credentials');
  });

  it('a payment ePay refuses in its error shape ({code, message}, HTTP 400) is a decline, and an operation it refuses changes nothing', async () => {
    const pm = await attach();
    h.fake.refuseNext('/api/payments/cards/auth', 477);
    const r = await h.halyk.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1000, currency: 'KZT', capture: 'automatic', returnUrl: RETURN_URL });
    expect(r).toMatchObject({ status: 'declined', capturedCents: 0, decline: { reason: 'processing_error' } });
    expect(await h.halyk.retrieve({ transactionId: r.transactionId, pspState: r.pspState ?? null })).toMatchObject({ status: 'declined', decline: { reason: 'processing_error' } });

    const held = await h.halyk.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1000, currency: 'KZT', capture: 'manual', returnUrl: RETURN_URL });
    const ref = { transactionId: held.transactionId, pspState: held.pspState ?? null };
    h.fake.refuseNext('/api/operation/', 100);
    const c = await h.halyk.capture({ idempotencyKey: key(), transaction: ref, amountCents: 1000 });
    expect(c).toMatchObject({ status: 'authorized', capturedCents: 0, decline: { reason: 'amount_too_large' } });
    expect(h.fake.transaction(held.transactionId)?.status).toBe('AUTH');
  });

  it('declines map from the codes ePay answers: 484 insufficient funds, 466 card declined, 473 failed 3-D Secure', async () => {
    const pay = async (card = HALYK_FAKE_CARDS.success) =>
      h.halyk.authorize({ idempotencyKey: key(), paymentMethodId: await attach(card), amountCents: 1000, currency: 'KZT', capture: 'automatic', returnUrl: RETURN_URL });
    expect((await pay(HALYK_FAKE_CARDS.insufficientFunds)).decline?.reason).toBe('insufficient_funds');
    expect((await pay(HALYK_FAKE_CARDS.declined)).decline?.reason).toBe('card_declined');
    const challenged = await pay(HALYK_FAKE_CARDS.challenge);
    expect(challenged.challengeForm).toMatchObject({ action: `${h.fake.url}/acs`, fields: { PaReq: expect.any(String), MD: expect.any(String), TermUrl: expect.any(String) } });
    await h.fake.resolveChallenge(challenged.transactionId, 'fail');
    expect((await h.halyk.retrieve({ transactionId: challenged.transactionId, pspState: challenged.pspState ?? null })).decline?.reason).toBe('authentication_failed');
  });

  it('a payment whose answer was lost is not made twice: the retry finds it under its invoice and charges it once', async () => {
    const pm = await attach();
    const k = key();
    const input = { idempotencyKey: k, paymentMethodId: pm, amountCents: 2500, currency: 'KZT', capture: 'automatic' as const, returnUrl: RETURN_URL };
    h.fake.fail('timeout', { path: '/api/payments/cards/auth', afterEffect: true });
    await expectFault(h.make({ timeoutMs: 300 }).authorize(input), 'unreachable');
    const paid = posts('/api/payments/cards/auth').length;
    const r = await h.fresh().authorize(input);
    expect(r).toMatchObject({ status: 'captured', capturedCents: 2500 });
    expect(posts('/api/payments/cards/auth').length).toBe(paid);
    expect(h.fake.transaction(r.transactionId)).toMatchObject({ status: 'CHARGE', amount: 2500 });
  });

  it('a refund or capture whose answer was lost is not made twice', async () => {
    const pm = await attach();
    const held = await h.halyk.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 3000, currency: 'KZT', capture: 'manual', returnUrl: RETURN_URL });
    const captureKey = key();
    h.fake.fail('http_500', { path: '/api/operation/', afterEffect: true });
    const ref = { transactionId: held.transactionId, pspState: held.pspState ?? null };
    await expectFault(h.halyk.capture({ idempotencyKey: captureKey, transaction: ref, amountCents: 3000 }), 'unreachable');
    const captured = await h.halyk.capture({ idempotencyKey: captureKey, transaction: ref, amountCents: 3000 });
    expect(captured).toMatchObject({ status: 'captured', capturedCents: 3000 });
    const charges = h.fake.requests.filter((x) => x.path === `/api/operation/${h.fake.transaction(held.transactionId)!.id}/charge`);
    expect(charges).toHaveLength(1);

    const refundKey = key();
    const after = { transactionId: held.transactionId, pspState: captured.pspState ?? null };
    h.fake.fail('timeout', { path: '/api/operation/', afterEffect: true });
    await expectFault(h.make({ timeoutMs: 300 }).refund({ idempotencyKey: refundKey, transaction: after, amountCents: 1200 }), 'unreachable');
    const refunded = await h.fresh().refund({ idempotencyKey: refundKey, transaction: after, amountCents: 1200 });
    expect(refunded).toMatchObject({ status: 'refunded', capturedCents: 3000, refundedCents: 1200 });
    expect(h.fake.transaction(held.transactionId)).toMatchObject({ refunded: 1200, amount: 1800 });
  });

  it('refuses a currency ePay does not take before any call, and an id that is no CardID as an unknown payment method', async () => {
    const before = h.fake.requests.length;
    await expect(
      h.halyk.authorize({ idempotencyKey: key(), paymentMethodId: randomUUID(), amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL }),
    ).rejects.toThrow(RangeError);
    await expectFault(h.halyk.chargeOffSession({ idempotencyKey: key(), paymentMethodId: 'pm_1', amountCents: 100, currency: 'KZT' }), 'unknown_payment_method');
    expect(h.fake.requests.length).toBe(before);
  });

  it('refuses every postLink: ePay does not sign it', async () => {
    expect(await (h.halyk as PspConnector).verifyNotification({ headers: {}, rawBody: '{"invoiceId":"123456","code":"ok"}' })).toEqual({ ok: false, reason: 'bad_signature' });
  });
});

describe('halyk endpoints', () => {
  it("on ePay's published API base, takes its token from ePay's OAuth server of the same environment", async () => {
    const urls: string[] = [];
    const http: PspHttp = {
      request: async (url: string) => {
        urls.push(url);
        return { status: 401, headers: {}, text: '' };
      },
    } as unknown as PspHttp;
    const clock = new ManualClock();
    const operations = await testOperations(clock);
    try {
      for (const environment of ['test', 'live'] as const) {
        const c = halykDefinition.create(
          { id: randomUUID(), environment, credentials: { ...CREDENTIALS }, baseUrl: HALYK_BASE_URLS[environment] },
          { clock, publicUrl: 'https://chipin.example', timeoutMs: 1000, http, operations: operations.forAccount('halyk', randomUUID()) },
        );
        expect(await c.verifyCredentials()).toMatchObject({ ok: false });
        expect(urls.at(-1)).toBe(`${HALYK_OAUTH_URLS[environment]}/oauth2/token`);
      }
    } finally {
      await operations.close();
    }
  });
});
