import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import type * as SdkHttpClientModule from '@adyen/api-library/lib/src/httpClient/httpURLConnectionClient.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { AdyenConnector } from '../../src/psp/adyen/connector.ts';
import { adyenDefinition } from '../../src/psp/adyen/definition.ts';
import {
  ADYEN_HOLD_DAYS,
  CARD_VALIDATION_ERRORS,
  REFUSAL_REASONS,
  RESULT_CODES,
  isResultCode,
  refusalDecline,
  resultMeaning,
  toStatus,
  type AdyenPaymentState,
  type AdyenResultCode,
  type ResultMeaning,
} from '../../src/psp/adyen/mapping.ts';
import { checkItemSignature, notificationBody, parseNotification, signingString, type NotificationItem } from '../../src/psp/adyen/notifications.ts';
import { PspIntegrationError, type DeclineReason, type TransactionRef, type TransactionResult, type TransactionStatus } from '../../src/psp/connector.ts';
import { PspHttp } from '../../src/psp/psp-http.ts';
import { bareRef, describeConnectorContract } from './connector-contract.ts';
import { ADYEN_CARDS, PUBLIC_URL, adyenHarness, type AdyenHarness } from './fixtures/adyen/harness.ts';
import { LOCAL_PSP_HTTP } from './fixtures/local-http.ts';

describeConnectorContract('adyen', adyenHarness);

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://chipin.example/return';

function fixture<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./fixtures/adyen/${name}`, import.meta.url), 'utf8')) as T;
}

async function fault(p: Promise<unknown>): Promise<PspIntegrationError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(PspIntegrationError);
  return e as PspIntegrationError;
}

/** The transaction of a result with the state Chipin stores from it (through JSON, as the database does). */
function stored(r: TransactionResult): TransactionRef {
  return { transactionId: r.transactionId, pspState: JSON.parse(JSON.stringify(r.pspState ?? null)) as TransactionRef['pspState'] };
}

describe('adyen mapping', () => {
  it('gives every v72 resultCode a meaning', () => {
    const table: Record<AdyenResultCode, ResultMeaning> = {
      AuthenticationFinished: 'unexpected',
      AuthenticationNotRequired: 'unexpected',
      Authorised: 'authorised',
      Cancelled: 'cancelled',
      ChallengeShopper: 'action',
      Error: 'refused',
      IdentifyShopper: 'action',
      PartiallyAuthorised: 'unexpected',
      Pending: 'pending',
      PresentToShopper: 'pending',
      Received: 'pending',
      RedirectShopper: 'action',
      Refused: 'refused',
      Success: 'unexpected',
    };
    expect([...RESULT_CODES].sort()).toEqual(Object.keys(table).sort());
    for (const [code, meaning] of Object.entries(table)) expect(resultMeaning(code as AdyenResultCode)).toBe(meaning);
    expect(isResultCode('Authorized')).toBe(false);
  });

  it.each<[string, DeclineReason]>([
    ['2', 'card_declined'],
    ['5', 'card_declined'],
    ['6', 'expired_card'],
    ['8', 'invalid_card'],
    ['9', 'processing_error'],
    ['11', 'authentication_failed'],
    ['12', 'insufficient_funds'],
    ['24', 'incorrect_cvc'],
    ['28', 'insufficient_funds'],
    ['38', 'authentication_failed'],
    ['42', 'authentication_failed'],
    ['46', 'card_declined'],
  ])('maps refusalReasonCode %s to %s', (code, reason) => {
    expect(refusalDecline(code, undefined).reason).toBe(reason);
    expect(REFUSAL_REASONS[code]?.reason).toBe(reason);
  });

  it('reads an unknown refusal code as a plain decline, keeping Adyen’s text', () => {
    expect(refusalDecline('999', 'Something new')).toEqual({ reason: 'card_declined', message: 'Something new' });
  });

  it('maps the card validation error codes (422) onto refusals', () => {
    expect(CARD_VALIDATION_ERRORS).toEqual({ '101': 'invalid_card', '102': 'invalid_card', '103': 'incorrect_cvc', '129': 'expired_card' });
  });

  it('maps every tracked payment state onto ours', () => {
    const table: Record<AdyenPaymentState['status'], TransactionStatus> = {
      pending_action: 'requires_action',
      authorised: 'authorized',
      captured: 'captured',
      cancelled: 'voided',
      refused: 'declined',
      lapsed: 'expired',
    };
    for (const [s, ours] of Object.entries(table)) expect(toStatus(s as AdyenPaymentState['status'], 0)).toBe(ours);
    expect(toStatus('captured', 1)).toBe('refunded');
  });

  it('reads the recorded payment answers of Adyen’s API reference', () => {
    const authorised = fixture('payment-authorised-200.json');
    expect(isResultCode(authorised.resultCode) && resultMeaning(authorised.resultCode)).toBe('authorised');
    const redirect = fixture<{ resultCode: string; action: { type: string; method: string } }>('payment-redirect-shopper-200.json');
    expect(isResultCode(redirect.resultCode) && resultMeaning(redirect.resultCode)).toBe('action');
    expect(redirect.action).toMatchObject({ type: 'redirect', method: 'GET' });
    expect(fixture('capture-received-201.json')).toMatchObject({ status: 'received' });
  });
});

describe('adyen notifications', () => {
  let h: AdyenHarness;
  beforeAll(async () => {
    h = await adyenHarness();
  });
  afterAll(() => h?.teardown());

  it('verifies the recorded AUTHORISATION and CAPTURE webhooks with their key, and answers [accepted]', async () => {
    for (const [name, id, status] of [
      ['notification-authorisation.json', 'QFQTPCQ8HXSKGK82', 'authorized'],
      ['notification-capture.json', '9913140798220028', 'captured'],
    ] as const) {
      const f = fixture<{ _hmacKeyHex: string; _signingString: string; rawBody: string }>(name);
      const parsed = parseNotification(f.rawBody)!;
      expect(signingString(parsed.items[0]!)).toBe(f._signingString);
      expect(checkItemSignature(f._hmacKeyHex, parsed.items[0]!)).toBe(true);
      const c = h.build({ merchant_account: 'YOUR_MERCHANT_ACCOUNT', hmac_key: f._hmacKeyHex });
      expect(await c.verifyNotification({ headers: {}, rawBody: f.rawBody })).toEqual({
        ok: true,
        transactionId: id,
        status,
        ack: { status: 200, contentType: 'text/plain', body: '[accepted]' },
        // What only the webhook tells, for `retrieve` to fold into the payment's stored state.
        event: { items: [expect.objectContaining({ eventCode: parseNotification(f.rawBody)!.items[0]!.eventCode, pspReference: parsed.items[0]!.pspReference })] },
      });
    }
  });

  it('refuses a tampered, a wrongly keyed, an unsigned and another account’s webhook; reads garbage as malformed', async () => {
    const f = fixture<{ _hmacKeyHex: string; rawBody: string }>('notification-authorisation.json');
    const c = h.build({ merchant_account: 'YOUR_MERCHANT_ACCOUNT', hmac_key: f._hmacKeyHex });
    const tampered = f.rawBody.replace('"value":1000', '"value":1');
    expect(tampered).not.toBe(f.rawBody);
    expect(await c.verifyNotification({ headers: {}, rawBody: tampered })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.build({ merchant_account: 'YOUR_MERCHANT_ACCOUNT' }).verifyNotification({ headers: {}, rawBody: f.rawBody })).toEqual({ ok: false, reason: 'bad_signature' });
    const unsigned = f.rawBody.replace(/"hmacSignature":"[^"]*"/, '"hmacSignature":""');
    expect(await c.verifyNotification({ headers: {}, rawBody: unsigned })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.build({ hmac_key: f._hmacKeyHex }).verifyNotification({ headers: {}, rawBody: f.rawBody })).toEqual({ ok: false, reason: 'bad_signature' });
    // An account saved before its webhook existed has no HMAC key yet: every notification is refused.
    expect(await h.build({ merchant_account: 'YOUR_MERCHANT_ACCOUNT', hmac_key: '' }).verifyNotification({ headers: {}, rawBody: f.rawBody })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    for (const raw of ['', '{', '{"live":"false"}', '{"live":"false","notificationItems":[{"NotificationRequestItem":{"pspReference":"X"}}]}']) {
      expect(await c.verifyNotification({ headers: {}, rawBody: raw })).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('signs nothing time-bound, so an old webhook is not stale: it repeats what Adyen already said', async () => {
    const f = fixture<{ _hmacKeyHex: string; rawBody: string }>('notification-capture.json');
    const c = h.build({ merchant_account: 'YOUR_MERCHANT_ACCOUNT', hmac_key: f._hmacKeyHex });
    h.clock.advance(400 * 86_400_000);
    expect(await c.verifyNotification({ headers: {}, rawBody: f.rawBody })).toMatchObject({ ok: true });
  });

  it('a POST redirect action becomes a form to post (url and data), which the issuer page takes', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: { ...ADYEN_CARDS.challenge, holderName: 'POST_REDIRECT' } });
    if (!a.ok) throw new Error(a.reason);
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 1500,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    expect(r.status).toBe('requires_action');
    expect(r.challengeUrl).toBeUndefined();
    expect(r.challengeForm).toEqual({
      action: `${h.fake.url}/checkoutshopper/threeDS/redirect`,
      fields: { PaReq: expect.any(String), MD: expect.any(String), TermUrl: RETURN_URL },
    });
    const page = await fetch(r.challengeForm!.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(r.challengeForm!.fields).toString(),
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="outcome"');
  });

  it('the fake signs its webhooks as Adyen does, and the AUTHORISATION after a challenge settles the payment without /payments/details', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.challenge });
    if (!a.ok) throw new Error(a.reason);
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 1500,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    expect(r.status).toBe('requires_action');
    const redirectResult = await h.shopperChallenge(stored(r), 'complete');
    expect(redirectResult).toBeTruthy();
    expect((await h.connector.retrieve(stored(r))).status).toBe('requires_action');
    // Adyen authorises when /payments/details is called; here it is called outside this
    // connector, and the webhook tells. Without the payment's stored state no instance can say
    // anything of it: Adyen cannot be asked.
    const before = h.fake.notifications.length;
    await expect(h.build().submitDetails(bareRef(r.transactionId), redirectResult)).rejects.toMatchObject({ code: 'unknown_transaction' });
    const res = await fetch(`${h.fake.url}/v72/payments/details`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': h.credentials.api_key },
      body: JSON.stringify({ details: { redirectResult } }),
    });
    expect(await res.json()).toMatchObject({ resultCode: 'Authorised', pspReference: r.transactionId });
    const hook = h.fake.notifications.slice(before).find((n) => n.includes('"AUTHORISATION"'))!;
    const v = await h.connector.verifyNotification({ headers: { 'content-type': 'application/json' }, rawBody: hook });
    expect(v).toMatchObject({ ok: true, transactionId: r.transactionId, status: 'authorized', ack: { body: '[accepted]' } });
    // Any instance (another process) folds the webhook into the payment's stored state.
    const seen = await h.build().retrieve(stored(r), { notification: v.ok ? v.event : undefined });
    expect(seen).toMatchObject({ status: 'authorized', capturedCents: 0 });
    expect(seen.pspState).toMatchObject({ status: 'authorised' });
  });

  it('a failed capture webhook (the hold had lapsed at Adyen) puts the payment back to authorised', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 700,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    const c = await h.connector.capture({ idempotencyKey: key(), transaction: stored(r), amountCents: 700 });
    expect(c.status).toBe('captured');
    const ok = h.fake.notifications.at(-1)!;
    const item = parseNotification(ok)!.items[0]!;
    const failed: NotificationItem = { ...item, success: 'false', reason: 'Authorisation expired', additionalData: {} };
    const v = await h.connector.verifyNotification({ headers: {}, rawBody: notificationBody(h.credentials.hmac_key, [failed]) });
    expect(v).toMatchObject({ ok: true, transactionId: r.transactionId, status: 'authorized' });
    expect(await h.build().retrieve(stored(c), { notification: v.ok ? v.event : undefined })).toMatchObject({ status: 'authorized', capturedCents: 0 });
  });

  // An item carries no freshness Adyen signs, and the payment's state is rebuilt from
  // items; an old signed item must not move a payment backwards (docs/psp/adyen.md#notifications).
  describe('an item that would move a payment backwards is ignored', () => {
    /** What Chipin does with a webhook body: verified, then folded into the payment's stored state. */
    const fold = async (state: TransactionResult, body: string) => {
      const v = await h.connector.verifyNotification({ headers: {}, rawBody: body });
      if (!v.ok) throw new Error(v.reason);
      return h.build().retrieve(stored(state), { notification: v.event });
    };
    const hold = async (amountCents: number) => {
      const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success });
      if (!a.ok) throw new Error(a.reason);
      return h.connector.authorize({ idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    };

    it('a failed capture replayed after the payment was captured again leaves it captured, its eventDate rewritten or not', async () => {
      const r = await hold(700);
      const first = await h.connector.capture({ idempotencyKey: key(), transaction: stored(r), amountCents: 700 });
      const capture = parseNotification(h.fake.notifications.at(-1)!)!.items[0]!;
      // Adyen reports the first capture failed: the payment is authorised again.
      const failedBody = notificationBody(h.credentials.hmac_key, [{ ...capture, success: 'false', reason: 'Insufficient balance on payment', additionalData: {} }]);
      const back = await fold(first, failedBody);
      expect(back).toMatchObject({ status: 'authorized', capturedCents: 0 });
      // Captured again, with another modification.
      h.clock.advance(60_000);
      const again = await h.connector.capture({ idempotencyKey: key(), transaction: stored(back), amountCents: 700 });
      expect(again).toMatchObject({ status: 'captured', capturedCents: 700 });
      // The first capture's failure, signed by Adyen, sent again: as it was, and with a fresh
      // eventDate (eventDate is not in the HMAC's string). Nothing moves.
      expect(await fold(again, failedBody)).toMatchObject({ status: 'captured', capturedCents: 700 });
      const fresh = notificationBody(h.credentials.hmac_key, [{ ...capture, success: 'false', eventDate: h.clock.now().toISOString(), additionalData: {} }]);
      expect(await fold(again, fresh)).toMatchObject({ status: 'captured', capturedCents: 700 });
    });

    it('an older event delivered after a newer one for the same pspReference is ignored: a refund that failed does not come back', async () => {
      const r = await hold(900);
      const captured = await h.connector.capture({ idempotencyKey: key(), transaction: stored(r), amountCents: 900 });
      const refunded = await h.connector.refund({ idempotencyKey: key(), transaction: stored(captured), amountCents: 300 });
      expect(refunded).toMatchObject({ status: 'refunded', refundedCents: 300 });
      const refund = parseNotification(h.fake.notifications.at(-1)!)!.items[0]!;
      expect(refund).toMatchObject({ eventCode: 'REFUND', success: 'true' });
      // Later, the refund fails at the scheme: REFUND_FAILED, delivered first...
      const failedAt = new Date(Date.parse(refund.eventDate!) + 3_600_000).toISOString();
      const failed = await fold(refunded, notificationBody(h.credentials.hmac_key, [{ ...refund, eventCode: 'REFUND_FAILED', eventDate: failedAt, additionalData: {} }]));
      expect(failed).toMatchObject({ status: 'captured', refundedCents: 0 });
      // ... and the REFUND of an hour before comes after it (a retried delivery): the refund stays failed.
      expect(await fold(failed, notificationBody(h.credentials.hmac_key, [{ ...refund, additionalData: {} }]))).toMatchObject({ status: 'captured', refundedCents: 0 });
      // A newer event of another modification still applies.
      const second = await h.connector.refund({ idempotencyKey: key(), transaction: stored(failed), amountCents: 200 });
      expect(second).toMatchObject({ status: 'refunded', refundedCents: 200 });
    });
  });

  it('a batched webhook answers every payment it reports on, each with its own items, so none is left unapplied', async () => {
    const capturedHold = async (amountCents: number) => {
      const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success });
      if (!a.ok) throw new Error(a.reason);
      const r = await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
      const c = await h.connector.capture({ idempotencyKey: key(), transaction: stored(r), amountCents });
      const item = parseNotification(h.fake.notifications.at(-1)!)!.items[0]!;
      return { r, c, failed: { ...item, success: 'false', reason: 'Authorisation expired', additionalData: {} } as NotificationItem };
    };
    const one = await capturedHold(700);
    const two = await capturedHold(900);
    const v = await h.connector.verifyNotification({ headers: {}, rawBody: notificationBody(h.credentials.hmac_key, [one.failed, two.failed]) });
    if (!v.ok) throw new Error(v.reason);
    expect(v).toMatchObject({ transactionId: one.r.transactionId, status: 'authorized' });
    expect(v.also).toHaveLength(1);
    const other = v.also![0]!;
    expect(other).toMatchObject({ transactionId: two.r.transactionId, status: 'authorized' });
    // Each payment folds only its own items: the other's failed capture leaves it alone.
    expect(await h.build().retrieve(stored(one.c), { notification: v.event })).toMatchObject({ status: 'authorized', capturedCents: 0, amountCents: 700 });
    expect(await h.build().retrieve(stored(two.c), { notification: other.event })).toMatchObject({ status: 'authorized', capturedCents: 0, amountCents: 900 });
    expect(await h.build().retrieve(stored(two.c), { notification: v.event })).toMatchObject({ status: 'captured', capturedCents: 900 });
    // One badly signed item refuses the whole batch.
    const tampered = JSON.parse(notificationBody(h.credentials.hmac_key, [one.failed, two.failed])) as {
      notificationItems: { NotificationRequestItem: { amount: { value: number } } }[];
    };
    tampered.notificationItems[1]!.NotificationRequestItem.amount.value += 1;
    expect(await h.connector.verifyNotification({ headers: {}, rawBody: JSON.stringify(tampered) })).toEqual({ ok: false, reason: 'bad_signature' });
  });
});

describe('adyen connector against the fake', () => {
  let h: AdyenHarness;
  beforeAll(async () => {
    h = await adyenHarness();
  });
  afterAll(() => h?.teardown());

  async function attach(): Promise<string> {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    return a.paymentMethodId;
  }

  it("refuses a request invalid under Adyen's published Checkout API document as Adyen does (422, validation), so the suites above check the connector against it", async () => {
    // A fake of its own: the other tests read every request their fake received.
    const own = await adyenHarness();
    onTestFinished(() => own.teardown());
    const a = await own.connector.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    const post = (path: string, body: unknown) =>
      fetch(`${own.fake.url}/v72${path}`, { method: 'POST', headers: { 'x-api-key': own.credentials.api_key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const payment = {
      merchantAccount: own.credentials.merchant_account,
      amount: { currency: 'EUR', value: 100 },
      reference: 'doc-check',
      returnUrl: RETURN_URL,
      paymentMethod: { type: 'scheme', storedPaymentMethodId: a.paymentMethodId },
    };
    const { returnUrl: _, ...withoutReturnUrl } = payment;
    for (const [body, field] of [
      [withoutReturnUrl, 'returnUrl'],
      [{ ...payment, amount: { currency: 'EUR', value: '100' } }, 'value'],
      [{ ...payment, shopperInteraction: 'Telephone' }, 'shopperInteraction'],
    ] as const) {
      const r = await post('/payments', body);
      expect(r.status).toBe(422);
      const answer = (await r.json()) as { errorType: string; errorCode: string; message: string };
      expect(answer).toMatchObject({ errorType: 'validation', errorCode: '702' });
      expect(answer.message).toContain(field);
    }
    const unknown = await post('/payments/ABCDEFGHIJKLMNOP/reversal', { merchantAccount: payment.merchantAccount });
    expect(unknown.status).toBe(422);
    // The same payment, valid under the document, passes its check (the fake's own rules may still refuse it).
    const checked = (await (await post('/payments', payment)).json()) as { errorCode?: string };
    expect(checked.errorCode).not.toBe('702');
  });

  it('sends X-API-Key and a 64-character Idempotency-Key derived from (operation, key) on every change', async () => {
    const pm = await attach();
    const k = key();
    await h.connector.authorize({ idempotencyKey: k, paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const posts = h.fake.requests.filter((r) => r.method === 'POST');
    for (const r of posts) {
      expect(r.headers['x-api-key']).toBe(h.credentials.api_key);
      expect(r.headers['idempotency-key']).toMatch(/^[0-9a-f]{64}$/);
    }
    const auth = posts.at(-1)!;
    expect(auth.path).toBe('/v72/payments');
    expect(auth.body).toMatchObject({ shopperInteraction: 'Ecommerce', recurringProcessingModel: 'CardOnFile', additionalData: { manualCapture: 'true' } });
    expect(auth.headers['idempotency-key']).not.toBe(posts.at(-2)!.headers['idempotency-key']);
  });

  it('sends every request through the outbound client to the account’s base URL: a host it refuses is not called, a 308 is not followed, the SDK’s own HTTP client is never used', async () => {
    const { default: SdkHttpClient } = createRequire(import.meta.url)('@adyen/api-library/lib/src/httpClient/httpURLConnectionClient.js') as typeof SdkHttpClientModule.default;
    const sdkOwn = vi.spyOn(SdkHttpClient.prototype, 'request');
    onTestFinished(() => sdkOwn.mockRestore());
    const pm = await attach();
    const pay = (c: AdyenConnector) => c.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    // The SDK writes https://checkout-test.adyen.com/v72/…: the call reaches the account's base URL (the fake).
    const n = h.fake.requests.length;
    expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
    expect(h.fake.requests.slice(n).map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v72/paymentMethods']);
    // A host the outbound client refuses (in production, one Adyen does not publish) is not called.
    const refusing = h.build({ http: new PspHttp(LOCAL_PSP_HTTP.policy, () => 'not a host Adyen publishes') });
    const refused = await fault(pay(refusing));
    expect(refused.code).toBe('unreachable');
    expect(refused.message).toContain('not a host Adyen publishes');
    expect(h.fake.requests.length).toBe(n + 1);
    // A 308 (which the SDK's own client follows) is a fault: nothing is sent where it points.
    h.fake.fail('redirect308');
    const redirected = await fault(pay(h.connector));
    expect(redirected.code).toBe('bad_response');
    expect(redirected.message).toContain('308');
    expect(h.fake.requests.length).toBe(n + 2);
    expect(sdkOwn).not.toHaveBeenCalled();
  });

  it('a leader checkout with storeForLater is a CIT that stores the card; the MIT references it (PSD2)', async () => {
    const pm = await attach();
    const cit = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 1000,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
      storeForLater: true,
    });
    expect(cit.status).toBe('captured');
    expect(cit.networkTransactionId).toMatch(/^[0-9]{15}$/);
    expect(h.fake.requests.at(-1)!.body).toMatchObject({
      storePaymentMethod: true,
      shopperInteraction: 'Ecommerce',
      recurringProcessingModel: 'UnscheduledCardOnFile',
      captureDelayHours: 0,
    });
    const mit = await h.connector.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 300,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId, networkTransactionId: cit.networkTransactionId },
    });
    expect(mit.status).toBe('captured');
    expect(h.fake.requests.at(-1)!.body).toMatchObject({
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'UnscheduledCardOnFile',
      paymentMethod: { type: 'scheme', storedPaymentMethodId: pm.split(':')[1] },
      additionalData: { networkTxReference: cit.networkTransactionId },
    });
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): ContAuth + UnscheduledCardOnFile + additionalData.manualCapture → authorised, then captured or cancelled', async () => {
    const pm = await attach();
    const cit = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 1000,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
      storeForLater: true,
    });
    const hold = (k: string, amountCents: number) =>
      h.connector.chargeOffSession({
        idempotencyKey: k,
        paymentMethodId: pm,
        amountCents,
        currency: 'EUR',
        storedCredential: { initialTransactionId: cit.transactionId, networkTransactionId: cit.networkTransactionId },
        capture: 'manual',
      });
    const k = key();
    const first = await hold(k, 800);
    expect(first).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
    const sent = h.fake.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'UnscheduledCardOnFile',
      additionalData: { manualCapture: 'true', networkTxReference: cit.networkTransactionId },
    });
    expect(sent.captureDelayHours).toBeUndefined();
    expect(h.fake.payments.get(first.transactionId)).toMatchObject({ status: 'Authorised', captured: 0, shopperInteraction: 'ContAuth' });
    // Replayed by its key; the same key for an automatic charge is another call.
    expect((await hold(k, 800)).transactionId).toBe(first.transactionId);
    const auto = await fault(
      h.connector.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 800, currency: 'EUR', storedCredential: { initialTransactionId: cit.transactionId } }),
    );
    expect(auto.code).toBe('idempotency_conflict');
    const captured = await h.connector.capture({ idempotencyKey: key(), transaction: stored(first), amountCents: 500 });
    expect(captured).toMatchObject({ status: 'captured', capturedCents: 500 });
    const second = await hold(key(), 300);
    expect((await h.connector.void({ idempotencyKey: key(), transaction: stored(second) })).status).toBe('voided');
    expect(adyenDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('the fake refuses a MIT that lacks the stored-credential reference (38 Authentication required)', async () => {
    const pm = await attach();
    const [shopperReference, storedPaymentMethodId] = pm.split(':');
    const mit = (extra: Record<string, unknown>) =>
      fetch(`${h.fake.url}/v72/payments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': h.credentials.api_key },
        body: JSON.stringify({
          merchantAccount: h.credentials.merchant_account,
          amount: { value: 500, currency: 'EUR' },
          reference: `mit-${randomUUID()}`,
          paymentMethod: { type: 'scheme', storedPaymentMethodId },
          shopperReference,
          shopperInteraction: 'ContAuth',
          recurringProcessingModel: 'UnscheduledCardOnFile',
          returnUrl: PUBLIC_URL,
          ...extra,
        }),
      }).then((r) => r.json());
    expect(await mit({})).toMatchObject({ resultCode: 'Refused', refusalReasonCode: '38', refusalReason: 'Authentication required' });
    expect(await mit({ additionalData: { networkTxReference: '123456789012345' } })).toMatchObject({ resultCode: 'Refused', refusalReasonCode: '38' });
    // The connector finds the reference on Adyen's token when the caller has none.
    const r = await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 500, currency: 'EUR' });
    expect(r.status).toBe('captured');
  });

  it('reports a manual hold’s lapse date 7 days out', async () => {
    const r = await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: await attach(), amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    expect(r.expiresAt?.getTime()).toBe(h.clock.now().getTime() + ADYEN_HOLD_DAYS * 86_400_000);
  });

  it('the same key with other parameters is an idempotency_conflict, here and in another process', async () => {
    const pm = await attach();
    const k = key();
    await h.connector.authorize({ idempotencyKey: k, paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const again = { idempotencyKey: k, paymentMethodId: pm, amountCents: 101, currency: 'EUR', capture: 'manual' as const, returnUrl: RETURN_URL };
    expect((await fault(h.connector.authorize(again))).code).toBe('idempotency_conflict');
    // Another instance (another process) finds the key in the operation log they share.
    expect((await fault(h.build().authorize(again))).code).toBe('idempotency_conflict');
  });

  describe('credentials', () => {
    it('verifyCredentials: ok, API key refused, merchant account refused, unreachable', async () => {
      expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
      expect(await h.build({ api_key: 'AQEwrongwrongwrongwrongwrong' }).verifyCredentials()).toMatchObject({ ok: false, message: expect.stringContaining('401') });
      expect(await h.build({ merchant_account: 'SomeoneElseECOM' }).verifyCredentials()).toMatchObject({ ok: false, message: expect.stringContaining('403') });
      expect((await fault(h.build({ baseUrl: 'http://127.0.0.1:1' }).verifyCredentials())).code).toBe('unreachable');
    });

    it('a refused API key on a payment call is bad_credentials', async () => {
      const c = h.build({ api_key: 'AQEwrongwrongwrongwrongwrong' });
      expect((await fault(c.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success }))).code).toBe('bad_credentials');
    });

    it('no credential shows in errors, JSON, toString or inspect', async () => {
      const { api_key, hmac_key, merchant_account } = h.credentials;
      const errors: PspIntegrationError[] = [];
      errors.push(await fault(h.build({ api_key: `${api_key}x` }).attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success })));
      errors.push(await fault(h.build({ merchant_account: `${merchant_account}x` }).attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success })));
      errors.push(await fault(h.build({ baseUrl: 'http://127.0.0.1:1' }).retrieve(bareRef('nope'))));
      errors.push(await fault(h.build({ baseUrl: 'http://127.0.0.1:1' }).attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success })));
      h.fake.fail('http500');
      errors.push(await fault(h.connector.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success })));
      const shown = [
        JSON.stringify(h.connector),
        String(h.connector),
        inspect(h.connector, { showHidden: true, depth: 5 }),
        ...errors.flatMap((e) => [e.message, String(e.stack), JSON.stringify(e)]),
      ].join('\n');
      for (const secret of [api_key, hmac_key, hmac_key.toLowerCase(), merchant_account]) expect(shown).not.toContain(secret);
    });
  });

  describe('faults', () => {
    it('a timeout is unreachable; a 5xx is unreachable; a malformed answer is bad_response', async () => {
      const pm = await attach();
      const quick = h.build({ timeoutMs: 200 });
      const auth = (c: AdyenConnector) =>
        c.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
      h.fake.fail('timeout');
      const t = await fault(auth(quick));
      expect(t.code).toBe('unreachable');
      expect(t.message).toContain('200 ms');
      h.fake.fail('http500');
      expect((await fault(auth(h.connector))).code).toBe('unreachable');
      h.fake.fail('malformed');
      expect((await fault(auth(h.connector))).code).toBe('bad_response');
    });

    it('a call retried after a timeout never charges twice (Adyen replays the first answer for the key)', async () => {
      const pm = await attach();
      const quick = h.build({ timeoutMs: 200 });
      const input = { idempotencyKey: key(), paymentMethodId: pm, amountCents: 4321, currency: 'EUR', capture: 'automatic' as const, returnUrl: RETURN_URL };
      const before = h.fake.paymentCount();
      h.fake.fail('hang_after_effect');
      expect((await fault(quick.authorize(input))).code).toBe('unreachable');
      expect(h.fake.paymentCount()).toBe(before + 1);
      const retried = await quick.authorize(input);
      expect(retried.status).toBe('captured');
      expect(h.fake.paymentCount()).toBe(before + 1);
      // A capture whose answer is lost the same way is counted once too.
      const hold = await quick.authorize({ ...input, idempotencyKey: key(), capture: 'manual' });
      const cap = { idempotencyKey: key(), transaction: stored(hold), amountCents: 4000 };
      h.fake.fail('hang_after_effect');
      expect((await fault(quick.capture(cap))).code).toBe('unreachable');
      expect(h.fake.payments.get(hold.transactionId)).toMatchObject({ captured: 4000 });
      expect(await quick.capture(cap)).toMatchObject({ status: 'captured', capturedCents: 4000 });
      expect(h.fake.payments.get(hold.transactionId)).toMatchObject({ captured: 4000 });
    });
  });
});

describe('adyen definition', () => {
  it('has the credential fields, the documented base URLs and the live prefix rule', () => {
    expect(adyenDefinition.credentialFields.map((f) => [f.name, f.secret])).toEqual([
      ['merchant_account', false],
      ['api_key', true],
      ['hmac_key', true],
      ['report_api_key', true],
      ['live_url_prefix', false],
    ]);
    expect(adyenDefinition.baseUrl('test', {})).toBe('https://checkout-test.adyen.com');
    expect(adyenDefinition.baseUrl('live', { live_url_prefix: '1797a841fbb37ca7-AdyenDemo' })).toBe('https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout');
    expect(adyenDefinition.validate!({ merchant_account: 'A' }, 'live')).toMatchObject({ field: 'live_url_prefix' });
    expect(adyenDefinition.validate!({ live_url_prefix: 'x-Y' }, 'test')).toMatchObject({ field: 'live_url_prefix' });
    expect(adyenDefinition.validate!({ live_url_prefix: 'x-Y' }, 'live')).toBeUndefined();
    const hmac = new RegExp(`^${adyenDefinition.credentialFields.find((f) => f.name === 'hmac_key')!.pattern}$`);
    expect(hmac.test('44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056')).toBe(true);
    expect(hmac.test('not-hex')).toBe(false);
  });
});
