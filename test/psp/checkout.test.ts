import { createHmac, randomUUID } from 'node:crypto';
import { Checkout } from 'checkout-sdk-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../../src/outbound/addresses.ts';
import type { DeclineReason, TransactionStatus } from '../../src/psp/connector.ts';
import { PspHttp } from '../../src/psp/psp-http.ts';
import { ckoReference } from '../../src/psp/checkout/connector.ts';
import { checkoutDefinition } from '../../src/psp/checkout/definition.ts';
import { PAYMENT_STATUSES, readPayment, toDeclineReason, toStatus, toTransactionResult, type CheckoutPaymentStatus } from '../../src/psp/checkout/mapping.ts';
import { bareRef, describeConnectorContract } from './connector-contract.ts';
import { CHECKOUT_FAKE_CARDS, CREDENTIALS, checkoutHarness, type CheckoutHarness } from './fixtures/checkout/harness.ts';

describeConnectorContract('checkout', checkoutHarness);

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';
const PAY = 'pay_mbabizu24mvu3mela5njyhpit4';

describe('checkout action reference', () => {
  it('is at most 30 printable characters, the key itself when it fits, and one key always gives the same reference', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), (k) => {
        const ref = ckoReference(k);
        expect(ref.length).toBeLessThanOrEqual(30);
        expect(ref).toMatch(/^[\x21-\x7e]+$/);
        expect(ckoReference(k)).toBe(ref);
        if (k.length <= 30 && /^[\x21-\x7e]+$/.test(k)) expect(ref).toBe(k);
      }),
    );
  });
});

describe('checkout mapping', () => {
  const statuses: [CheckoutPaymentStatus, TransactionStatus][] = [
    ['Pending', 'requires_action'],
    ['Authorized', 'authorized'],
    ['Card Verified', 'authorized'],
    ['Partially Captured', 'captured'],
    ['Captured', 'captured'],
    ['Partially Refunded', 'refunded'],
    ['Refunded', 'refunded'],
    ['Voided', 'voided'],
    ['Cancelled', 'voided'],
    ['Declined', 'declined'],
    ['Expired', 'expired'],
  ];
  it.each(statuses)('payment status %s reads %s', (status, ours) => {
    expect(toStatus(status)).toBe(ours);
  });
  it('maps every listed status', () => {
    for (const s of PAYMENT_STATUSES) expect(typeof toStatus(s)).toBe('string');
  });

  const codes: [string | undefined, DeclineReason][] = [
    ['20005', 'card_declined'],
    ['20051', 'insufficient_funds'],
    ['20061', 'insufficient_funds'],
    ['20054', 'expired_card'],
    ['20087', 'incorrect_cvc'],
    ['20014', 'invalid_card'],
    ['20151', 'authentication_failed'],
    ['20154', 'authentication_failed'],
    ['20096', 'processing_error'],
    ['30004', 'card_declined'],
    [undefined, 'card_declined'],
  ];
  it.each(codes)('response code %s → %s', (code, reason) => {
    expect(toDeclineReason(code)).toBe(reason);
  });

  it('reads the API reference’s 201 example of "Request a payment" (Authorized, scheme id kept)', () => {
    const example = {
      id: PAY,
      action_id: 'act_mbabizu24mvu3mela5njyhpit4',
      amount: 6540,
      currency: 'USD',
      approved: true,
      status: 'Authorized',
      auth_code: '770687',
      response_code: '10000',
      response_summary: 'Approved',
      source: { type: 'card', id: 'src_nwd3m4in3hkuddfpjsaevunhdy', last4: '4242', bin: '424242' },
      scheme_id: '489341065491658',
      _links: { self: { href: `https://api.sandbox.checkout.com/payments/${PAY}` } },
    };
    const p = readPayment(example);
    expect(p).toBeDefined();
    expect(toTransactionResult(p!)).toEqual({
      transactionId: PAY,
      status: 'authorized',
      amountCents: 6540,
      capturedCents: 0,
      refundedCents: 0,
      networkTransactionId: '489341065491658',
    });
  });

  it('reads a 202 Pending answer as requires_action with the redirect to open', () => {
    const p = readPayment({ id: PAY, status: 'Pending', amount: 100, _links: { redirect: { href: 'https://3ds.example/acs' } } });
    expect(toTransactionResult(p!)).toMatchObject({ status: 'requires_action', challengeUrl: 'https://3ds.example/acs', capturedCents: 0 });
  });

  it('refuses to read what is not a payment', () => {
    expect(readPayment({ id: PAY, status: 'Sideways', amount: 1 })).toBeUndefined();
    expect(readPayment({ id: 'pi_123', status: 'Authorized', amount: 1 })).toBeUndefined();
    expect(readPayment({ id: PAY, status: 'Authorized', amount: -1 })).toBeUndefined();
    expect(readPayment({ id: PAY, status: 'Captured', amount: 1, balances: { total_captured: 'x' } })).toBeUndefined();
    expect(readPayment(null)).toBeUndefined();
  });
});

describe('checkout definition', () => {
  it('wants a sandbox key for a test account and a production key for a live one', () => {
    expect(checkoutDefinition.validate!({ secret_key: CREDENTIALS.secret_key }, 'test')).toBeUndefined();
    expect(checkoutDefinition.validate!({ secret_key: CREDENTIALS.secret_key }, 'live')?.field).toBe('secret_key');
    expect(checkoutDefinition.validate!({ secret_key: 'sk_chipinfakekeyaaaaaaaaaaaaaa' }, 'test')?.field).toBe('secret_key');
  });
});

describe('checkout against the fake', () => {
  let h: CheckoutHarness;
  beforeAll(async () => {
    h = await checkoutHarness();
  });
  afterAll(() => h?.teardown());

  async function captured(amount = 500) {
    const a = await h.checkout.attachPaymentMethod({ idempotencyKey: key(), card: CHECKOUT_FAKE_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    return h.checkout.authorize({ idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents: amount, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
  }

  it('sends the secret key as a bearer token and a Cko-Idempotency-Key on every payment request', async () => {
    await captured();
    const posts = h.fake.requests.filter((e) => e.startsWith('POST /payments'));
    expect(posts.length).toBe(2);
    for (const p of posts) expect(p).toMatch(/ key$/);
  });

  it('answers bad_credentials when the key is refused, and verifyCredentials says so', async () => {
    const stranger = h.make({ credentials: { secret_key: 'sk_sbox_otherkeyaaaaaaaaaaaaaaaaaaa' } });
    expect(await stranger.verifyCredentials()).toMatchObject({ ok: false });
    expect(await h.checkout.verifyCredentials()).toEqual({ ok: true });
    const err = await stranger.attachPaymentMethod({ idempotencyKey: key(), card: CHECKOUT_FAKE_CARDS.success }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('bad_credentials');
  });

  it('verifies a Cko-Signature event and reads it in our words', async () => {
    const r = await captured();
    const n = h.fake.event(r.transactionId);
    expect(await h.checkout.verifyNotification(n)).toEqual({ ok: true, transactionId: r.transactionId, status: 'captured' });
    await h.checkout.refund({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 100 });
    expect(await h.checkout.verifyNotification(h.fake.event(r.transactionId))).toMatchObject({ ok: true, status: 'refunded' });
  });

  it('refuses a tampered body, another secret, a missing header, and every event when no secret is set', async () => {
    const r = await captured();
    const n = h.fake.event(r.transactionId);
    expect(await h.checkout.verifyNotification({ ...n, rawBody: n.rawBody.replace('payment_captured', 'payment_voided') })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.make({ credentials: { webhook_secret: 'another-webhook-secret-000' } }).verifyNotification(n)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.checkout.verifyNotification({ headers: {}, rawBody: n.rawBody })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.make({ credentials: { webhook_secret: '' } }).verifyNotification(n)).toEqual({ ok: false, reason: 'bad_signature' });
    const body = JSON.stringify({ type: 'payment_captured', data: { id: 'not-a-payment' } });
    const sig = createHmac('sha256', CREDENTIALS.webhook_secret).update(body).digest('hex');
    expect(await h.checkout.verifyNotification({ headers: { 'Cko-Signature': sig }, rawBody: body })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('captures, voids and refunds under 64-character keys send a reference the document allows (at most 50, here 30)', async () => {
    // Keys as Chipin's use cases make them (an installment's `<purchase>:<n>:rest`-like keys run to 64).
    const long = (tag: string) => `${randomUUID()}:${randomUUID()}`.slice(0, 60) + tag;
    const a = await h.checkout.attachPaymentMethod({ idempotencyKey: key(), card: CHECKOUT_FAKE_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    const hold = await h.checkout.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 900,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    const capture = await h.checkout.capture({ idempotencyKey: long(':cap'), transaction: bareRef(hold.transactionId), amountCents: 900 });
    expect(capture.decline).toBeUndefined();
    expect(capture.status).toBe('captured');
    const refund = await h.checkout.refund({ idempotencyKey: long(':ref'), transaction: bareRef(hold.transactionId), amountCents: 400 });
    expect(refund.decline).toBeUndefined();
    expect(refund.refundedCents).toBe(400);
    const other = await h.checkout.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 300,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    expect((await h.checkout.void({ idempotencyKey: long(':voi'), transaction: bareRef(other.transactionId) })).status).toBe('voided');
  });

  it("the fake refuses an action's reference over the document's 50 characters, as Checkout.com refuses a field", async () => {
    const r = await captured();
    const send = (reference: string) =>
      fetch(`${h.fake.url}/payments/${r.transactionId}/refunds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CREDENTIALS.secret_key}`, 'content-type': 'application/json', 'cko-idempotency-key': key() },
        body: JSON.stringify({ amount: 100, reference }),
      });
    const refused = await send('r'.repeat(51));
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ error_type: 'request_invalid', error_codes: ['reference_invalid'] });
    expect((await send('r'.repeat(50))).status).toBe(202);
  });

  it("refuses a request invalid under Checkout.com's published API document as Checkout.com does (422, request_invalid), so the suites above check the connector against it", async () => {
    const a = await h.checkout.attachPaymentMethod({ idempotencyKey: key(), card: CHECKOUT_FAKE_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    const post = (path: string, body: unknown) =>
      fetch(`${h.fake.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CREDENTIALS.secret_key}`, 'content-type': 'application/json', 'cko-idempotency-key': key() },
        body: JSON.stringify(body),
      });
    const payment = {
      source: { type: 'id', id: a.paymentMethodId },
      amount: 100,
      currency: 'EUR',
      capture: false,
      processing_channel_id: CREDENTIALS.processing_channel_id,
      '3ds': { enabled: true },
      success_url: RETURN_URL,
      failure_url: RETURN_URL,
      payment_type: 'Regular',
      merchant_initiated: false,
    };
    const { currency: _, ...withoutCurrency } = payment;
    for (const [body, code] of [
      [withoutCurrency, 'currency_required'],
      [{ ...payment, amount: '100' }, 'amount_invalid'],
      [{ ...payment, reference: 'r'.repeat(51) }, 'reference_invalid'],
      [{ ...payment, '3ds': { enabled: 'yes' } }, '3ds_enabled_invalid'],
      [{ ...payment, source: { id: a.paymentMethodId } }, 'source_type_required'],
      [{ ...payment, success_url: 'not a URL' }, 'success_url_invalid'],
    ] as const) {
      const r = await post('/payments', body);
      expect(r.status).toBe(422);
      // The field, and only it: what only a payout requires is not a payment's problem.
      expect(await r.json()).toMatchObject({ request_id: expect.stringMatching(/^req_/), error_type: 'request_invalid', error_codes: [code] });
    }
    const capture = await post(`/payments/${PAY}/captures`, { amount: '100' });
    expect(await capture.json()).toMatchObject({ error_type: 'request_invalid', error_codes: ['amount_invalid'] });
    // The same payment, valid under the document, passes its check; so does `Unscheduled`, which
    // the SDK has and the document lacks (its `notChecked`, docs/psp/checkout.md#where-the-document-and-the-sdk-disagree).
    expect((await post('/payments', payment)).status).toBe(201);
    expect((await post('/payments', { ...payment, payment_type: 'Unscheduled' })).status).toBe(201);
  });

  it('replays an authorisation whose answer was lost with the same Cko-Idempotency-Key: one payment, the first answer', async () => {
    const a = await h.checkout.attachPaymentMethod({ idempotencyKey: key(), card: CHECKOUT_FAKE_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    const input = { idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents: 700, currency: 'EUR', capture: 'manual' as const, returnUrl: RETURN_URL };
    const before = h.fake.paymentCount;
    h.fake.fail('timeout', { path: '/payments', afterEffect: true });
    const err = await h
      .make({ timeoutMs: 200 })
      .authorize(input)
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('unreachable');
    expect(h.fake.paymentCount).toBe(before + 1);
    const r = await h.checkout.authorize(input);
    expect(r).toMatchObject({ status: 'authorized', amountCents: 700 });
    expect(h.fake.paymentCount).toBe(before + 1);
    expect((await h.checkout.retrieve(bareRef(r.transactionId))).status).toBe('authorized');
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): capture false, merchant_initiated, Unscheduled with previous_payment_id → authorized, then captured or voided', async () => {
    const a = await h.checkout.attachPaymentMethod({ idempotencyKey: key(), card: CHECKOUT_FAKE_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    const pm = a.paymentMethodId;
    const cit = await h.checkout.authorize({
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
    const hold = await h.checkout.chargeOffSession(input);
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
    const details = (await fetch(`${h.fake.url}/payments/${hold.transactionId}`, { headers: { Authorization: `Bearer ${CREDENTIALS.secret_key}` } }).then((r) =>
      r.json(),
    )) as Record<string, unknown>;
    expect(details).toMatchObject({ status: 'Authorized', merchant_initiated: true, payment_type: 'Unscheduled', balances: { total_captured: 0, available_to_capture: 800 } });
    expect((await h.checkout.chargeOffSession(input)).transactionId).toBe(hold.transactionId);
    expect(await h.checkout.capture({ idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 500 })).toMatchObject({
      status: 'captured',
      capturedCents: 500,
    });
    const other = await h.checkout.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
    expect((await h.checkout.void({ idempotencyKey: key(), transaction: bareRef(other.transactionId) })).status).toBe('voided');
    // Without the stored-credential reference the fake refuses the MIT, held or not (20057).
    expect((await h.checkout.chargeOffSession({ ...input, idempotencyKey: key(), storedCredential: undefined })).status).toBe('declined');
    expect(checkoutDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('reads a 403 on an action as the action refused, not the key', async () => {
    const r = await captured(300);
    const v = await h.checkout.void({ idempotencyKey: key(), transaction: bareRef(r.transactionId) });
    expect(v).toMatchObject({ status: 'captured', decline: { reason: 'amount_too_large' } });
  });

  it('keeps the secret key out of what the connector shows', () => {
    expect(JSON.stringify(h.checkout)).not.toContain(CREDENTIALS.secret_key);
    expect(String(h.checkout)).not.toContain(CREDENTIALS.secret_key);
  });
});

describe('checkout through the official SDK (checkout-sdk-node, docs/psp/checkout.md#the-sdk)', () => {
  let h: CheckoutHarness;
  beforeAll(async () => {
    h = await checkoutHarness();
  });
  afterAll(() => h?.teardown());

  async function authorised(amount = 500) {
    const a = await h.checkout.attachPaymentMethod({ idempotencyKey: key(), card: CHECKOUT_FAKE_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    return h.checkout.authorize({ idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents: amount, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
  }

  it('each SDK method the connector uses calls the global fetch before its first await, at the host it is given (the hook the connector relies on)', async () => {
    const cko = new Checkout(CREDENTIALS.secret_key, { host: 'https://psp.invalid' });
    const before = globalThis.fetch;
    const sent: string[] = [];
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      sent.push(`${String(init?.method).toUpperCase()} ${String(input)}`);
      return Promise.resolve(new Response('{}', { status: 200 }));
    }) as typeof fetch;
    let calls: Promise<unknown>[];
    try {
      calls = [
        cko.payments.request({ source: { type: 'id', id: 'src_x' }, amount: 1, currency: 'EUR' }, 'k'),
        cko.payments.get(PAY),
        cko.payments.capture(PAY, { amount: 1 }, 'k'),
        cko.payments.void(PAY, {}, 'k'),
        cko.payments.refund(PAY, { amount: 1 }, 'k'),
        cko.payments.getPaymentList({ reference: 'r' }),
        cko.disputes.getDetails('dsp_x'),
        cko.disputes.provideEvidence('dsp_x', { additional_evidence_text: 't' }),
        cko.disputes.submit('dsp_x'),
      ];
    } finally {
      globalThis.fetch = before;
    }
    await Promise.all(calls);
    expect(sent).toEqual([
      'POST https://psp.invalid/payments',
      `GET https://psp.invalid/payments/${PAY}`,
      `POST https://psp.invalid/payments/${PAY}/captures`,
      `POST https://psp.invalid/payments/${PAY}/voids`,
      `POST https://psp.invalid/payments/${PAY}/refunds`,
      'GET https://psp.invalid/payments?reference=r',
      'GET https://psp.invalid/disputes/dsp_x',
      'PUT https://psp.invalid/disputes/dsp_x/evidence',
      'POST https://psp.invalid/disputes/dsp_x/evidence',
    ]);
  });

  it('sends every request through the outbound client and leaves the global fetch as it was, after a success and after a thrown error', async () => {
    const before = globalThis.fetch;
    const r = await authorised();
    expect(globalThis.fetch).toBe(before);
    const n = h.fake.requests.length;
    expect((await h.checkout.retrieve(bareRef(r.transactionId))).status).toBe('authorized');
    expect(globalThis.fetch).toBe(before);
    const unknown = await h.checkout.retrieve(bareRef(PAY)).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'unknown_transaction' });
    expect(globalThis.fetch).toBe(before);
    expect(h.fake.requests.slice(n)).toEqual([`GET /payments/${r.transactionId} -`, `GET /payments/${PAY} -`]);
    // A host the outbound client refuses is never called: the call fails, nothing reaches the fake.
    const refusing = new PspHttp(new AddressPolicy('sandbox', [], 'PSP_ENDPOINT_ALLOWLIST'), (host) => `refused: ${host} is not a Checkout.com host`);
    const fenced = h.make({ http: refusing });
    const m = h.fake.requests.length;
    const err = await fenced.retrieve(bareRef(r.transactionId)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unreachable', message: expect.stringContaining('is not a Checkout.com host') });
    expect(await fenced.verifyCredentials().catch((e: unknown) => e)).toMatchObject({ code: 'unreachable' });
    expect(h.fake.requests.length).toBe(m);
    expect(globalThis.fetch).toBe(before);
  });

  it('does not follow a 307 from Checkout.com: the answer is a fault and the redirect target is not asked', async () => {
    const r = await authorised();
    const n = h.fake.requests.length;
    h.fake.fail('redirect', { path: `/payments/${r.transactionId}/captures` });
    const err = await h.checkout.capture({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 500 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'bad_response', message: expect.stringContaining('redirect') });
    expect(h.fake.requests.slice(n)).toEqual([`POST /payments/${r.transactionId}/captures key`]);
    // And on a read, which the kit's client asks twice at most when there is no answer: a redirect is an answer, asked once.
    h.fake.fail('redirect', { path: `/payments/${r.transactionId}` });
    expect(await h.checkout.retrieve(bareRef(r.transactionId)).catch((e: unknown) => e)).toMatchObject({ code: 'bad_response' });
    expect(h.fake.requests.slice(n + 1)).toEqual([`GET /payments/${r.transactionId} -`]);
  });

  it('sends a Cko-Idempotency-Key on every action, the reference within the document, and nothing the document refuses', async () => {
    const r = await authorised(900);
    const n = h.fake.requests.length;
    await h.checkout.capture({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 900 });
    await h.checkout.refund({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 100 });
    const other = await authorised(300);
    await h.checkout.void({ idempotencyKey: key(), transaction: bareRef(other.transactionId) });
    const actions = h.fake.requests.slice(n).filter((e) => /^POST \/payments\/pay_\w+\/(captures|refunds|voids)/.test(e));
    expect(actions.length).toBe(3);
    for (const a of actions) expect(a).toMatch(/ key$/);
  });

  it('refuses to call when CKO_SECRET_KEY is set in the environment, which the SDK would send in place of the account key', async () => {
    const n = h.fake.requests.length;
    process.env.CKO_SECRET_KEY = 'sk_sbox_someoneelsekeyaaaaaaaaaaaaa';
    try {
      expect(await h.checkout.retrieve(bareRef(PAY)).catch((e: unknown) => e)).toMatchObject({ code: 'bad_credentials', message: expect.stringContaining('CKO_SECRET') });
    } finally {
      delete process.env.CKO_SECRET_KEY;
    }
    expect(h.fake.requests.length).toBe(n);
  });

  it('a currency the SDK does not list is refused by the SDK before any request, as a fault', async () => {
    const a = await h.checkout.attachPaymentMethod({ idempotencyKey: key(), card: CHECKOUT_FAKE_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    const n = h.fake.requests.length;
    const err = await h.checkout
      .authorize({ idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents: 100, currency: 'XCG', capture: 'manual', returnUrl: RETURN_URL })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'bad_response', message: expect.stringContaining('refused the request before sending it') });
    expect(h.fake.requests.length).toBe(n);
  });
});
