import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, type TransactionStatus } from '../../src/psp/connector.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { SIPS_BRANDS, sipsDefinition } from '../../src/psp/sips/definition.ts';
import {
  computeSeal,
  fromSipsAmount,
  hasValidSeal,
  responseMeaning,
  sealString,
  SIPS_RESPONSE_CODES,
  SIPS_TRANSACTION_STATUSES,
  toSipsAmount,
  toSipsCurrency,
  toStatus,
  type SipsTransactionStatus,
} from '../../src/psp/sips/mapping.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { ACCOUNT, SIPS_CARDS, sipsHarness, type SipsHarness } from './fixtures/sips/harness.ts';
import validateAndOrderSample from './fixtures/sips/validate-and-order-request.json' with { type: 'json' };

describeConnectorContract('sips', sipsHarness);

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';

describe('sips seal', () => {
  // Worldline's PHP SDK (Worldline\Sips, tests of JsonSealCalculator): the concatenated values of
  // a request, keys in alphabetical order, containers' fields in their place, lists in order.
  const request = {
    amount: 2,
    currencyCode: '978',
    orderChannel: 'INTERNET',
    normalReturnUrl: 'http://localhost/return.php',
    templateName: 'custom',
    automaticResponseUrl: 'http://test.com',
    transactionReference: 'test',
    interfaceVersion: 'IR_WS_2.35',
    keyVersion: 1,
  };

  it('concatenates the values in alphabetical order of the keys (the SDK test vector)', () => {
    expect(sealString(request)).toBe('2http://test.com978IR_WS_2.35http://localhost/return.phpINTERNETcustomtest');
  });

  it('puts a list’s items in order and a container’s fields sorted, in their place (the SDK test vectors)', () => {
    expect(sealString({ ...request, paymentMeanBrandList: ['VISA', 'MASTERCARD'] })).toBe(
      '2http://test.com978IR_WS_2.35http://localhost/return.phpINTERNETVISAMASTERCARDcustomtest',
    );
    const withContainers = {
      ...request,
      customerContact: { lastname: 'Lastname', firstname: 'Firstname' },
      customerAddress: { country: 'CustomerCountry', city: 'CustomerCity' },
    };
    expect(sealString(withContainers)).toBe('2http://test.com978CustomerCityCustomerCountryFirstnameLastnameIR_WS_2.35http://localhost/return.phpINTERNETcustomtest');
  });

  it('leaves out seal, keyVersion and sealAlgorithm', () => {
    expect(sealString({ a: 'x', seal: 'zz', keyVersion: 9, sealAlgorithm: 'HMAC-SHA-256' })).toBe('x');
  });

  it('is HMAC-SHA-256 in lower-case hex of that text with the secret key', () => {
    // RFC 4231 test case 2: HMAC-SHA-256 of "what do ya want for nothing?" with the key "Jefe".
    expect(computeSeal({ a: 'what do ya want ', b: 'for nothing?' }, 'Jefe')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('any change of a sealed field, or another key, breaks the seal (property)', () => {
    const value = fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: 0, max: 1e9 }));
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z][A-Za-z]{0,8}$/), value, { minKeys: 1, maxKeys: 6 }), fc.string({ minLength: 1, maxLength: 20 }), (fields, secret) => {
        const message = { ...fields, seal: '' };
        message.seal = computeSeal(message, secret);
        expect(hasValidSeal(message, secret)).toBe(true);
        expect(hasValidSeal(message, `${secret}x`)).toBe(false);
        for (const k of Object.keys(fields)) {
          if (k === 'seal' || k === 'keyVersion' || k === 'sealAlgorithm') continue;
          expect(hasValidSeal({ ...message, [k]: `${String(message[k as keyof typeof message])}1` }, secret)).toBe(false);
        }
      }),
    );
  });
});

describe('sips mapping', () => {
  it('sends amounts in the smallest currency unit, exactly, and reads them back (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom('EUR', 'JPY', 'KWD', 'USD', 'GBP'), (cents, currency) => {
        const sips = toSipsAmount(cents, currency);
        expect(fromSipsAmount(sips)).toBe(cents);
        expect(fromSipsAmount(String(sips))).toBe(cents);
      }),
    );
    expect(() => toSipsAmount(10.5, 'EUR')).toThrow(RangeError);
    expect(() => toSipsAmount(0, 'EUR')).toThrow(RangeError);
    expect(() => toSipsAmount(100, 'XAU')).toThrow(RangeError);
    expect(fromSipsAmount(-1)).toBeUndefined();
    expect(fromSipsAmount('10.50')).toBeUndefined();
  });

  it('names currencies by their ISO 4217 numeric code', () => {
    expect(toSipsCurrency('EUR')).toBe('978');
    expect(toSipsCurrency('GBP')).toBe('826');
    expect(toSipsCurrency('JPY')).toBe('392');
  });

  it('maps every transaction status onto ours', () => {
    const table: Record<SipsTransactionStatus, TransactionStatus> = {
      TO_VALIDATE: 'authorized',
      TO_CAPTURE: 'captured',
      CAPTURED: 'captured',
      TO_CREDIT: 'captured',
      CREDITED: 'captured',
      CANCELLED: 'voided',
      REFUSED: 'declined',
      EXPIRED: 'expired',
      TO_AUTHORIZE: 'requires_action',
      TO_CHALLENGE: 'requires_action',
    };
    for (const s of SIPS_TRANSACTION_STATUSES) expect(toStatus(s, 0)).toBe(table[s]);
    expect(toStatus('CAPTURED', 1)).toBe('refunded');
  });

  it('reads every response code as a result, a refusal or a fault', () => {
    for (const code of SIPS_RESPONSE_CODES) expect(responseMeaning(code).kind).toMatch(/^(ok|refused|pending|duplicate|unknown_transaction|fault)$/);
    expect(responseMeaning('05', '51')).toEqual({ kind: 'refused', reason: 'insufficient_funds' });
    expect(responseMeaning('05', '05')).toEqual({ kind: 'refused', reason: 'card_declined' });
    expect(responseMeaning('05', 'A1')).toEqual({ kind: 'refused', reason: 'authentication_failed' });
    expect(responseMeaning('34')).toEqual({ kind: 'fault', code: 'bad_credentials' });
    expect(responseMeaning('25')).toEqual({ kind: 'unknown_transaction' });
    expect(responseMeaning('99')).toEqual({ kind: 'fault', code: 'unreachable' });
  });
});

describe('sips definition', () => {
  const good = { brand: 'sogenactif', merchant_id: '211000000000042', secret_key: 'k3y-Not-Real_0123456789', key_version: '2' };

  it('declares the brands and its credential fields, the secret key marked secret', () => {
    expect(sipsDefinition.label).toMatch(/Mercanet/);
    expect(sipsDefinition.label).toMatch(/Sogenactif/);
    expect(sipsDefinition.label).toMatch(/Sherlock/);
    expect(sipsDefinition.credentialFields.map((f) => [f.name, f.secret])).toEqual([
      ['brand', false],
      ['merchant_id', false],
      ['secret_key', true],
      ['key_version', false],
    ]);
    for (const f of sipsDefinition.credentialFields) expect(f.description.length).toBeGreaterThan(20);
  });

  it('accepts good credentials and names the field of every wrong value (case matters)', () => {
    expect(validateCredentials(sipsDefinition, good, 'test')).toBeUndefined();
    const wrong: [string, string][] = [
      ['brand', 'Mercanet'],
      ['brand', 'bnp'],
      ['merchant_id', '21100000000004'],
      ['merchant_id', '21100000000004a'],
      ['secret_key', 'has space'],
      ['key_version', 'v1'],
    ];
    for (const [field, value] of wrong) {
      const e = validateCredentials(sipsDefinition, { ...good, [field]: value }, 'test');
      expect(e?.field, `${field}=${value}`).toBe(`credentials.${field}`);
      expect(JSON.stringify(e)).not.toContain(good.secret_key);
    }
  });

  it('chooses the brand’s published Office server per environment', () => {
    expect(sipsDefinition.baseUrl('test', { brand: 'mercanet' })).toBe('https://office-server-mercanet.test.sips-services.com');
    expect(sipsDefinition.baseUrl('live', { brand: 'mercanet' })).toBe('https://office-server.mercanet.bnpparibas.net');
    expect(sipsDefinition.baseUrl('test', { brand: 'sherlocks' })).toBe('https://office-server-sherlocks.test.sips-services.com');
    expect(sipsDefinition.baseUrl('test', { brand: 'sogenactif' })).toBe('https://office-server-sogenactif.test.sips-services.com');
    for (const brand of SIPS_BRANDS) {
      for (const env of ['test', 'live'] as const) expect(sipsDefinition.publishedHosts[env]).toContain(new URL(sipsDefinition.baseUrl(env, { brand })).hostname);
    }
  });
});

describe('sips connector against the fake Office server', () => {
  let h: SipsHarness;
  beforeAll(async () => {
    h = await sipsHarness();
  });
  afterAll(async () => {
    await h?.teardown();
  });

  const paid = async (capture: 'automatic' | 'manual' = 'automatic', storeForLater = false) => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: SIPS_CARDS.success });
    if (!a.ok) throw new Error('attach refused');
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 1000,
      currency: 'EUR',
      capture,
      returnUrl: RETURN_URL,
      storeForLater,
    });
    return { pm: a.paymentMethodId, r };
  };

  it('never shows a credential in JSON, toString or inspect', () => {
    const shown = [JSON.stringify(h.connector), String(h.connector), inspect(h.connector)].join(' ');
    expect(shown).not.toContain(ACCOUNT.secretKey);
    expect(shown).toContain('sips');
  });

  it('seals every request with the key version: the fake checks each seal as Sips does', async () => {
    await paid();
    const sent = h.fake.requests;
    expect(sent.length).toBeGreaterThan(2);
    for (const r of sent) {
      expect(r.body.keyVersion).toBe('3'); // a string, as the reference's request samples write it
      expect(r.body.merchantId).toBe(ACCOUNT.merchantId);
      expect(hasValidSeal(r.body, ACCOUNT.secretKey)).toBe(true);
      expect(JSON.stringify(r.body)).not.toContain(ACCOUNT.secretKey);
    }
  });

  it('posts Sips’ form to the ACS, then orders with the fields of the reference’s cardValidateAuthenticationAndOrder sample (3-D Secure 2: no paResMessage)', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: SIPS_CARDS.challenge });
    if (!a.ok) throw new Error('attach refused');
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 2500,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(r.challengeForm?.action).toBe(`${h.fake.baseUrl}/acs`);
    expect(Object.keys(r.challengeForm?.fields ?? {}).sort()).toEqual(['MD', 'PaReq', 'TermUrl']);
    expect(r.challengeForm?.fields.TermUrl).toBe(RETURN_URL);
    const ref = { transactionId: r.transactionId, pspState: r.pspState ?? null };
    // The shopper still at the ACS: Sips answers "pending", nothing is ordered.
    expect((await h.connector.retrieve(ref)).status).toBe('requires_action');
    await h.completeChallenge(ref);
    expect(await h.connector.retrieve(ref)).toMatchObject({ status: 'captured', capturedCents: 2500 });
    const sent = h.fake.requests.filter((x) => x.path.endsWith('/cardValidateAuthenticationAndOrder')).at(-1)!.body;
    const documented = Object.keys(validateAndOrderSample).filter((k) => k !== 'paResMessage');
    expect(Object.keys(sent).sort()).toEqual([...documented, 'sealAlgorithm'].sort());
  });

  it('voids a payment still at 3-D Secure: nothing is ordered, even if the shopper finishes afterwards', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: SIPS_CARDS.challenge });
    if (!a.ok) throw new Error('attach refused');
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 2500,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: RETURN_URL,
    });
    const v = await h.connector.void({ idempotencyKey: key(), transaction: { transactionId: r.transactionId, pspState: r.pspState ?? null } });
    expect(v).toMatchObject({ status: 'voided', amountCents: 2500, capturedCents: 0 });
    await h.completeChallenge({ transactionId: r.transactionId, pspState: r.pspState ?? null });
    expect(await h.connector.retrieve({ transactionId: r.transactionId, pspState: v.pspState ?? null })).toMatchObject({ status: 'voided' });
    expect(h.fake.transaction(r.transactionId)).toBeUndefined();
  });

  describe('verifyCredentials', () => {
    it('ok with the right credentials', async () => {
      expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
    });
    it('refused with a wrong secret key, key version or merchant id, without echoing them', async () => {
      for (const change of [{ secret_key: 'Wrong-Key-0000000000' }, { key_version: '4' }, { merchant_id: '211000000000043' }]) {
        const r = await h.connectorWith(change).verifyCredentials();
        expect(r.ok).toBe(false);
        expect(JSON.stringify(r)).not.toContain('Wrong-Key');
      }
    });
  });

  describe('faults', () => {
    it('an answer whose seal is wrong is not believed (bad_response)', async () => {
      const { r } = await paid();
      h.fake.fail('bad_seal', { service: 'getTransactionData' });
      const e = await h.connector.retrieve({ transactionId: r.transactionId, pspState: r.pspState ?? null }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(PspIntegrationError);
      expect((e as PspIntegrationError).code).toBe('bad_response');
    });

    it('a timeout and a 5xx are unreachable', async () => {
      h.fake.fail('timeout', { service: 'getTransactionData' });
      const fast = h.connectorWith({}, 100);
      await expect(fast.verifyCredentials()).rejects.toMatchObject({ code: 'unreachable' });
      h.fake.fail('server_error', { service: 'getTransactionData' });
      await expect(h.connector.verifyCredentials()).rejects.toMatchObject({ code: 'unreachable' });
    });

    it('a payment whose order answer was lost is found again by its transactionReference: a retry never charges twice', async () => {
      const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: SIPS_CARDS.success });
      if (!a.ok) throw new Error('attach refused');
      const k = key();
      const input = { idempotencyKey: k, paymentMethodId: a.paymentMethodId, amountCents: 1500, currency: 'EUR', capture: 'automatic' as const, returnUrl: RETURN_URL };
      h.fake.fail('timeout_after_processing', { service: 'cardValidateAuthenticationAndOrder' });
      await expect(h.connectorWith({}, 100).authorize(input)).rejects.toMatchObject({ code: 'unreachable' });
      const again = await h.connector.authorize(input);
      expect(again).toMatchObject({ status: 'captured', capturedCents: 1500 });
      const orders = h.fake.requests.filter((r) => r.path.endsWith('/cardValidateAuthenticationAndOrder') && r.body.transactionReference === again.transactionId);
      expect(orders).toHaveLength(1);
    });

    it('a 3-D Secure check whose answer was lost takes the next transactionReference: one payment, not a conflict', async () => {
      const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: SIPS_CARDS.success });
      if (!a.ok) throw new Error('attach refused');
      const input = { idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents: 1600, currency: 'EUR', capture: 'manual' as const, returnUrl: RETURN_URL };
      h.fake.fail('timeout_after_processing', { service: 'walletCheckEnrollment' });
      await expect(h.connectorWith({}, 100).authorize(input)).rejects.toMatchObject({ code: 'unreachable' });
      const again = await h.connector.authorize(input);
      expect(again).toMatchObject({ status: 'authorized', amountCents: 1600 });
      expect(await h.connector.authorize(input)).toEqual(again);
    });

    it('a refund whose answer was lost is not sent again on retry', async () => {
      const { r } = await paid();
      const k = key();
      h.fake.fail('timeout_after_processing', { service: 'cancel' });
      const fast = h.connectorWith({}, 100);
      await expect(fast.refund({ idempotencyKey: k, transaction: { transactionId: r.transactionId, pspState: r.pspState ?? null }, amountCents: 300 })).rejects.toMatchObject({
        code: 'unreachable',
      });
      const again = await h.connector.refund({ idempotencyKey: k, transaction: { transactionId: r.transactionId, pspState: r.pspState ?? null }, amountCents: 300 });
      expect(again).toMatchObject({ status: 'refunded', refundedCents: 300 });
      expect(h.fake.transaction(r.transactionId)?.currentAmount).toBe(700);
    });
  });

  describe('stored credentials (PSD2)', () => {
    it('storeForLater marks the checkout as the first of a recurring series (paymentPattern RECURRING_1)', async () => {
      const { r } = await paid('automatic', true);
      expect(h.fake.transaction(r.transactionId)?.paymentPattern).toBe('RECURRING_1');
    });

    it('an off-session charge duplicates the customer-initiated payment', async () => {
      const { pm, r } = await paid('automatic', true);
      const off = await h.connector.chargeOffSession({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 500,
        currency: 'EUR',
        storedCredential: { initialTransactionId: r.transactionId },
      });
      expect(off).toMatchObject({ status: 'captured', capturedCents: 500 });
      expect(h.fake.transaction(off.transactionId)?.fromTransactionReference).toBe(r.transactionId);
    });

    it('a merchant-initiated hold (capture manual, a re-authorisation): a duplicate with captureMode VALIDATION → TO_VALIDATE, then validated or cancelled; one hold per key', async () => {
      const { pm, r } = await paid('manual', true);
      const input = {
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 800,
        currency: 'EUR',
        storedCredential: { initialTransactionId: r.transactionId },
        capture: 'manual' as const,
      };
      const duplicates = () => h.fake.requests.filter((q) => q.path.endsWith('/cashManagement/duplicate')).length;
      const before = duplicates();
      const hold = await h.connector.chargeOffSession(input);
      expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
      expect((await h.connector.chargeOffSession(input)).transactionId).toBe(hold.transactionId);
      expect(duplicates()).toBe(before + 1);
      expect(h.fake.transaction(hold.transactionId)).toMatchObject({
        status: 'TO_VALIDATE',
        captureMode: 'VALIDATION',
        fromTransactionReference: r.transactionId,
        paymentPattern: 'RECURRING_N',
      });
      const ref = (t: typeof hold) => ({ transactionId: t.transactionId, pspState: t.pspState ?? null });
      expect(await h.connector.capture({ idempotencyKey: key(), transaction: ref(hold), amountCents: 500 })).toMatchObject({ status: 'captured', capturedCents: 500 });
      const other = await h.connector.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
      expect((await h.connector.void({ idempotencyKey: key(), transaction: ref(other) })).status).toBe('voided');
      expect(sipsDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
    });

    it('the fake refuses a duplicate of a payment that started no series', async () => {
      const { pm, r } = await paid('automatic', false);
      const off = await h.connector.chargeOffSession({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 500,
        currency: 'EUR',
        storedCredential: { initialTransactionId: r.transactionId },
      });
      expect(off.status).toBe('declined');
      expect(off.decline?.reason).toBe('authentication_failed');
    });
  });

  it('answers no notification: Sips Office sends none (retrieve reads the outcome)', async () => {
    expect(await h.connector.verifyNotification({ headers: {}, rawBody: 'Data=x&Seal=y' })).toEqual({ ok: false, reason: 'malformed' });
  });
});
