import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, type DeclineReason } from '../../src/psp/connector.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { dalenysDefinition } from '../../src/psp/dalenys/definition.ts';
import {
  EXECCODES,
  challengeFormFromRedirectHtml,
  dalenysHash,
  declineFor,
  execOutcome,
  formBody,
  fromDalenysAmount,
  readFormBody,
  readTransaction,
  toDalenysAmount,
  toStatus,
  type ExecCode,
} from '../../src/psp/dalenys/mapping.ts';
import { DALENYS_ACK, verifyNotification } from '../../src/psp/dalenys/notifications.ts';
import { bareRef, describeConnectorContract } from './connector-contract.ts';
import { ACCOUNT, DALENYS_CARDS, dalenysHarness, type DalenysHarness } from './fixtures/dalenys/harness.ts';
import payment3ds from './fixtures/dalenys/payment-3ds-response.json' with { type: 'json' };
import getTransactions from './fixtures/dalenys/get-transactions-response.json' with { type: 'json' };

describeConnectorContract('dalenys', dalenysHarness);

const key = () => `test-${randomUUID()}`;
const SECRETS = [ACCOUNT.password];

describe('dalenys HASH', () => {
  it('matches the test vectors of Dalenys’ Go client (go-be2bill hash_test.go)', () => {
    expect(dalenysHash({ c: '3', a: '1', b: '2' }, 'password')).toBe('77c71c1e70ea28525cf078537d22d1932922e3741ed83287b0dc0a117bf77999');
    // HASH itself is never part of what is signed.
    expect(dalenysHash({ c: '3', a: '1', b: '2', HASH: 'shouldnotimpact' }, 'password')).toBe('77c71c1e70ea28525cf078537d22d1932922e3741ed83287b0dc0a117bf77999');
    // One level of nested parameters, its indexes sorted: d[x]=42, d[y]=43.
    expect(dalenysHash({ c: '3', a: '1', b: '2', d: { y: '43', x: '42' } }, 'password')).toBe('376383093261372eb97909ed1a44b1adb5e8f2687f7a64f1c41d5a0c8cc0b0fa');
    const capture = { DESCRIPTION: 'Capture test 01', IDENTIFIER: 'IDENTIFIER', OPERATIONTYPE: 'capture', ORDERID: 'order_21', TRANSACTIONID: 'test1', VERSION: '2.0' };
    expect(dalenysHash(capture, 'PASSWORD')).toBe('ea22191f962b6fc708f48baff8600f8caaea3afa7e8be3f2d2dafb3249396e72');
  });

  it('any change of a name, a value or the password changes the HASH', () => {
    const params = fc.dictionary(fc.stringMatching(/^[A-Z][A-Z0-9]{0,11}$/), fc.string({ maxLength: 20 }), { minKeys: 1, maxKeys: 8 });
    fc.assert(
      fc.property(params, fc.string({ minLength: 1, maxLength: 16 }), fc.nat(), fc.string({ minLength: 1, maxLength: 4 }), (p, password, pick, extra) => {
        const keys = Object.keys(p).filter((k) => k !== 'HASH');
        fc.pre(keys.length > 0);
        const k = keys[pick % keys.length]!;
        const h = dalenysHash(p, password);
        expect(dalenysHash({ ...p, [k]: p[k] + extra }, password)).not.toBe(h);
        expect(dalenysHash(p, password + extra)).not.toBe(h);
        const { [k]: value, ...rest } = p;
        expect(dalenysHash({ ...rest, [`${k}X`]: value! }, password)).not.toBe(h);
      }),
    );
  });

  it('sends and reads the SDKs’ form body: method, params[NAME] and params[NAME][index]', () => {
    const body = formBody('payment', { AMOUNT: '100', AMOUNTS: { '2025-01-01': '50', '2025-02-01': '50' }, DESCRIPTION: 'a & b' });
    expect(body).toContain('method=payment');
    expect(decodeURIComponent(body)).toContain('params[AMOUNTS][2025-01-01]=50');
    expect(readFormBody(body)).toEqual({ method: 'payment', params: { AMOUNT: '100', AMOUNTS: { '2025-01-01': '50', '2025-02-01': '50' }, DESCRIPTION: 'a & b' } });
  });
});

describe('dalenys amounts', () => {
  it('AMOUNT is the integer of the smallest subdivision, for any currency, and reads back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 12 }), fc.constantFrom('EUR', 'USD', 'JPY', 'KWD'), (cents, currency) => {
        const a = toDalenysAmount(cents, currency);
        expect(a).toMatch(/^\d+$/);
        expect(fromDalenysAmount(a)).toBe(cents);
      }),
    );
    expect(() => toDalenysAmount(12.5, 'EUR')).toThrow(RangeError);
    expect(() => toDalenysAmount(0, 'EUR')).toThrow(RangeError);
    expect(() => toDalenysAmount(100, 'XXX')).toThrow();
    expect(fromDalenysAmount('12.50')).toBeUndefined();
  });
});

describe('dalenys mapping', () => {
  it('maps every EXECCODE: accepted, pending, refused with our reason, or a fault', () => {
    const table: Record<ExecCode, string> = {
      '0000': 'accepted',
      '0001': 'pending',
      '0002': 'pending',
      '1001': 'fault:bad_request',
      '1002': 'fault:bad_request',
      '1003': 'fault:bad_credentials',
      '1004': 'fault:bad_request',
      '2001': 'fault:unknown_alias',
      '2002': 'fault:unknown_transaction',
      '2003': 'amount_too_large',
      '2004': 'amount_too_large',
      '2005': 'amount_too_large',
      '2006': 'amount_too_large',
      '2007': 'amount_too_large',
      '2008': 'amount_too_large',
      '2009': 'authorization_expired',
      '2010': 'card_declined',
      '2011': 'card_declined',
      '2012': 'card_declined',
      '3001': 'fault:bad_credentials',
      '3002': 'fault:bad_credentials',
      '3003': 'card_declined',
      '4001': 'card_declined',
      '4002': 'insufficient_funds',
      '4003': 'card_declined',
      '4004': 'authentication_failed',
      '4005': 'card_declined',
      '4006': 'card_declined',
      '4007': 'card_declined',
      '4008': 'authentication_failed',
      '4009': 'authentication_failed',
      '4010': 'card_declined',
      '4011': 'card_declined',
      '4012': 'invalid_card',
      '4013': 'card_declined',
      '4014': 'authentication_failed',
      '4015': 'processing_error',
      '4016': 'card_declined',
      '5001': 'processing_error',
      '5002': 'processing_error',
      '5003': 'fault:unreachable',
      '5004': 'processing_error',
      '5005': 'authentication_failed',
      '6001': 'card_declined',
      '6002': 'card_declined',
      '6003': 'card_declined',
      '6004': 'card_declined',
    };
    for (const code of EXECCODES) {
      const o = execOutcome(code);
      const seen = o.kind === 'refused' ? o.reason : o.kind === 'fault' ? `fault:${o.fault}` : o.kind;
      expect([code, seen]).toEqual([code, table[code]]);
    }
    expect(declineFor('4002', 'Insufficient funds')).toEqual({ reason: 'insufficient_funds' satisfies DeclineReason, message: 'Insufficient funds (EXECCODE 4002)' });
    expect(declineFor('4999', '').reason).toBe('processing_error');
  });

  it('reads the answers recorded from the SDKs’ examples: a 3-D Secure step and a getTransactions DATA entry', () => {
    const step = readTransaction({ ...payment3ds.answer, OPERATIONTYPE: 'payment' })!;
    expect(toStatus(step)).toBe('requires_action');
    const form = challengeFormFromRedirectHtml(payment3ds.answer['3DSECUREHTML'])!;
    expect(form).toEqual(payment3ds.expectedForm);
    const entry = readTransaction(getTransactions.DATA[0])!;
    expect(entry).toMatchObject({ transactionId: 'A151621', operationType: 'authorization', execCode: '0000', amountCents: 1500 });
    expect(toStatus(entry)).toBe('authorized');
    expect(toStatus({ ...entry, operationType: 'payment' })).toBe('captured');
    expect(toStatus({ ...entry, execCode: '4001' })).toBe('declined');
    expect(readTransaction({ EXECCODE: '0000' })).toBeUndefined();
  });

  it('takes 3DSECUREHTML’s action and hidden fields only, never a script or a non-http action', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect(
      challengeFormFromRedirectHtml(
        b64(
          '<form action="https://acs.example/3ds?a=1&amp;b=2" method="post"><input type="hidden" name="PaReq" value="x&amp;y"><input type="text" name="no" value="1"></form><script>evil()</script>',
        ),
      ),
    ).toEqual({
      action: 'https://acs.example/3ds?a=1&b=2',
      fields: { PaReq: 'x&y' },
    });
    expect(challengeFormFromRedirectHtml(b64('<form action="javascript:alert(1)"></form>'))).toBeUndefined();
    expect(challengeFormFromRedirectHtml(b64('<p>no form</p>'))).toBeUndefined();
  });
});

describe('dalenys definition', () => {
  const good = { identifier: 'CHIPIN TEST', password: 'Pa55word' };
  it('declares its credential kind: identifier and password, the password secret', () => {
    expect(dalenysDefinition.name).toBe('dalenys');
    expect(dalenysDefinition.label).toMatch(/Dalenys/);
    expect(dalenysDefinition.label).toMatch(/Be2bill/);
    expect(dalenysDefinition.credentialFields.map((f) => [f.name, f.secret, f.required])).toEqual([
      ['identifier', false, true],
      ['password', true, true],
    ]);
    for (const f of dalenysDefinition.credentialFields) expect(f.description.length).toBeGreaterThan(40);
  });
  it('names the field of every wrong value', () => {
    expect(validateCredentials(dalenysDefinition, good, 'test')).toBeUndefined();
    expect(validateCredentials(dalenysDefinition, { password: 'x' }, 'test')?.field).toBe('credentials.identifier');
    expect(validateCredentials(dalenysDefinition, { ...good, identifier: 'bad[id]' }, 'test')?.field).toBe('credentials.identifier');
    expect(validateCredentials(dalenysDefinition, { ...good, password: ' padded ' }, 'live')?.field).toBe('credentials.password');
    expect(validateCredentials(dalenysDefinition, { identifier: 'X' }, 'live')?.field).toBe('credentials.password');
    expect(validateCredentials(dalenysDefinition, { ...good, other: 'y' }, 'test')?.field).toBe('credentials.other');
  });
  it('names the published hosts, the test one by default', () => {
    expect(dalenysDefinition.baseUrl('test', good)).toBe('https://secure-test.dalenys.com');
    expect(dalenysDefinition.baseUrl('live', good)).toBe('https://secure-magenta1.dalenys.com');
    expect(dalenysDefinition.publishedHosts.live).toContain('secure-magenta2.dalenys.com');
  });
});

describe('dalenys connector against the fake', () => {
  let h: DalenysHarness;
  beforeAll(async () => {
    h = await dalenysHarness();
  });
  afterAll(() => h?.teardown());

  async function attach(card = DALENYS_CARDS.success): Promise<string> {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(a.reason);
    return a.paymentMethodId;
  }
  const lastCall = (method: string) => h.fake.requests.filter((q) => q.method === method).at(-1)!.params;
  const expectNoSecret = (text: string) => {
    for (const s of SECRETS) expect(text).not.toContain(s);
  };
  const codeOf = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as PspIntegrationError).code;

  it('never shows a credential in JSON, toString or inspect', () => {
    for (const text of [JSON.stringify(h.connector), String(h.connector), inspect(h.connector, { depth: 5, showHidden: true })]) expectNoSecret(text);
    expect(JSON.parse(JSON.stringify(h.connector))).toEqual({ name: 'dalenys', sandbox: true });
  });

  it('signs every call: IDENTIFIER, VERSION, OPERATIONTYPE as the method, and a HASH the fake checks', async () => {
    await attach();
    const p = lastCall('authorization');
    expect(p).toMatchObject({ IDENTIFIER: ACCOUNT.identifier, OPERATIONTYPE: 'authorization', VERSION: '3.0', CREATEALIAS: 'yes', AMOUNT: '1' });
    expect(p.HASH).toMatch(/^[0-9a-f]{64}$/);
  });

  describe('verifyCredentials', () => {
    it('ok with the right credentials', async () => {
      expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
    });
    it('refused with a wrong password or identifier (case matters), without echoing them', async () => {
      for (const change of [{ password: 'wrong-password-123' }, { password: ACCOUNT.password.toUpperCase() }, { identifier: 'chipin test' }]) {
        const r = await h.connectorWith(change).verifyCredentials();
        expect(r.ok).toBe(false);
        if (!r.ok) expectNoSecret(r.message + Object.values(change).join(''));
      }
    });
    it('throws unreachable when Dalenys does not answer', async () => {
      h.fake.failNext('timeout');
      expect(await codeOf(h.connectorWith({}, 200).verifyCredentials())).toBe('unreachable');
    });
  });

  describe('faults', () => {
    it('a timeout or a 5xx is unreachable, a 403 bad_credentials, an unreadable answer bad_response', async () => {
      const pm = await attach();
      const charge = () => h.connectorWith({}, 300).chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR' });
      h.fake.failNext('timeout', 1, 'process');
      expect(await codeOf(charge())).toBe('unreachable');
      h.fake.failNext('server_error', 1, 'process');
      expect(await codeOf(charge())).toBe('unreachable');
      h.fake.failNext('forbidden', 1, 'process');
      expect(await codeOf(charge())).toBe('bad_credentials');
      h.fake.failNext('malformed', 1, 'process');
      expect(await codeOf(charge())).toBe('bad_response');
    });
    it('maintenance (5003) is unreachable, and the retry with the same key charges once', async () => {
      const pm = await attach();
      const k = key();
      const before = h.fake.transactionCount;
      h.fake.failNext('maintenance', 1, 'process');
      expect(await codeOf(h.connector.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 400, currency: 'EUR' }))).toBe('unreachable');
      expect(h.fake.transactionCount).toBe(before);
      expect(await h.connector.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 400, currency: 'EUR' })).toMatchObject({
        status: 'captured',
        capturedCents: 400,
      });
      expect(h.fake.transactionCount).toBe(before + 1);
    });
    it('a wrong password is bad_credentials, and no error carries a credential', async () => {
      const err = (await h
        .connectorWith({ password: 'not-the-password-789' })
        .retrieve(bareRef('A0000001'))
        .catch((e: unknown) => e)) as PspIntegrationError;
      expect(err.code).toBe('bad_credentials');
      expectNoSecret(err.message + inspect(err) + JSON.stringify(err));
      expect(err.message).not.toContain('not-the-password-789');
    });
    it('a charge whose answer was lost is found again by its ORDERID: the retry never charges twice', async () => {
      const pm = await attach();
      const k = key();
      const before = h.fake.transactionCount;
      h.fake.failNext('timeout_after_processing', 1, 'process');
      const first = await h
        .connectorWith({}, 300)
        .chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 700, currency: 'EUR' })
        .catch((e: unknown) => e);
      expect((first as PspIntegrationError).code).toBe('unreachable');
      const again = await h.connector.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 700, currency: 'EUR' });
      expect(again).toMatchObject({ status: 'captured', capturedCents: 700 });
      expect(h.fake.transactionCount).toBe(before + 1);
      expect(await codeOf(h.connector.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 701, currency: 'EUR' }))).toBe('idempotency_conflict');
    });
    it('a refund whose answer was lost is not sent again by another instance', async () => {
      const r = await h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: await attach(),
        amountCents: 1500,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: 'https://shop.example/back',
      });
      const k = key();
      const transaction = { transactionId: r.transactionId, pspState: r.pspState ?? null };
      h.fake.failNext('timeout_after_processing', 1, 'process');
      const first = await h
        .connectorWith({}, 300)
        .refund({ idempotencyKey: k, transaction, amountCents: 500 })
        .catch((e: unknown) => e);
      expect((first as PspIntegrationError).code).toBe('unreachable');
      const again = await h.connectorWith({}, 2_000).refund({ idempotencyKey: k, transaction, amountCents: 500 });
      expect(again).toMatchObject({ status: 'refunded', refundedCents: 500 });
      expect(h.fake.transaction(r.transactionId)!.refunded).toBe(500);
    });
  });

  describe('stored credentials (PSD2)', () => {
    it('the card is stored by the shopper’s card check (CREATEALIAS); on-session payments are one-click with 3-D Secure', async () => {
      const pm = await attach();
      await h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 900,
        currency: 'EUR',
        capture: 'manual',
        returnUrl: 'https://shop.example/back',
        storeForLater: true,
      });
      expect(lastCall('authorization')).toMatchObject({ ALIAS: pm, ALIASMODE: 'oneclick', '3DSECURE': 'yes', '3DSECUREPREFERENCE': 'sca' });
      await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 900, currency: 'EUR', capture: 'manual', returnUrl: 'https://shop.example/back' });
      expect(lastCall('authorization')['3DSECUREPREFERENCE']).toBeUndefined();
    });
    it('an off-session charge is a subscription payment on the ALIAS, without 3-D Secure', async () => {
      const pm = await attach();
      await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 300, currency: 'EUR' });
      const p = lastCall('payment');
      expect(p).toMatchObject({ ALIAS: pm, ALIASMODE: 'subscription' });
      expect(p['3DSECURE']).toBeUndefined();
    });
    it('the fake refuses a merchant-initiated charge without the stored credential: no ALIASMODE, an unknown ALIAS, or no card at all', async () => {
      const pm = await attach();
      const post = async (params: Record<string, string>) => {
        const all = {
          IDENTIFIER: ACCOUNT.identifier,
          OPERATIONTYPE: 'payment',
          VERSION: '3.0',
          AMOUNT: '100',
          ORDERID: key().slice(0, 30),
          DESCRIPTION: 'x',
          CLIENTIDENT: 'c',
          CLIENTEMAIL: 'c@x.invalid',
          ...params,
        };
        const res = await fetch(`${h.fake.url}/front/service/rest/process`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: formBody('payment', { ...all, HASH: dalenysHash(all, ACCOUNT.password) }),
        });
        return (await res.json()) as Record<string, string>;
      };
      const before = h.fake.transactionCount;
      expect((await post({ ALIAS: pm })).EXECCODE).toBe('1001');
      expect((await post({ ALIAS: 'ALNOTSTORED', ALIASMODE: 'subscription' })).EXECCODE).toBe('2001');
      expect((await post({})).EXECCODE).toBe('1001');
      expect((await post({ ALIAS: pm, ALIASMODE: 'subscription', '3DSECURE': 'yes' })).EXECCODE).toBe('1002');
      expect(h.fake.transactionCount).toBe(before);
      expect((await post({ ALIAS: pm, ALIASMODE: 'subscription' })).EXECCODE).toBe('0000');
    });
    it('an unknown ALIAS is unknown_payment_method', async () => {
      expect(await codeOf(h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: 'ALNOSUCHALIAS', amountCents: 300, currency: 'EUR' }))).toBe(
        'unknown_payment_method',
      );
    });
  });

  describe('3-D Secure', () => {
    it('answers 3DSECUREHTML’s form for the relay: the issuer page takes a POST only', async () => {
      const pm = await attach(DALENYS_CARDS.challenge);
      const r = await h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: pm,
        amountCents: 2500,
        currency: 'EUR',
        capture: 'automatic',
        returnUrl: 'https://shop.example/back',
      });
      expect(r.status).toBe('requires_action');
      expect(r.challengeUrl).toBeUndefined();
      expect(r.challengeForm?.action).toBe(`${h.fake.url}/front/service/acs`);
      expect(Object.keys(r.challengeForm!.fields).sort()).toEqual(['MD', 'TRANSACTIONID']);
      expect((await fetch(r.challengeForm!.action)).status).toBe(405);
    });
  });

  describe('notifications', () => {
    const hold = async () =>
      h.connector.authorize({
        idempotencyKey: key(),
        paymentMethodId: await attach(),
        amountCents: 1200,
        currency: 'EUR',
        capture: 'manual',
        returnUrl: 'https://shop.example/back',
      });
    it('accepts one signed with the account password and answers OK', async () => {
      const r = await hold();
      const body = h.fake.notificationFor(r.transactionId);
      expect(await h.connector.verifyNotification({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: body })).toEqual({
        ok: true,
        transactionId: r.transactionId,
        status: 'authorized',
        ack: DALENYS_ACK,
      });
      expect(DALENYS_ACK.body).toBe('OK');
    });
    it('refuses a tampered one, one signed with another password, and an unsigned one', async () => {
      const r = await hold();
      const body = h.fake.notificationFor(r.transactionId);
      const tampered = body.replace('EXECCODE=0000', 'EXECCODE=4001');
      expect(tampered).not.toBe(body);
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: tampered })).toEqual({ ok: false, reason: 'bad_signature' });
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: `${body}&EXTRA=1` })).toEqual({ ok: false, reason: 'bad_signature' });
      expect(verifyNotification(body, 'another-password')).toEqual({ ok: false, reason: 'bad_signature' });
      expect(verifyNotification(body.replace(/&HASH=[^&]*/, ''), ACCOUNT.password)).toEqual({ ok: false, reason: 'malformed' });
    });
    it('has no timestamp to be stale by (Dalenys signs none): an old notification still verifies', async () => {
      const r = await hold();
      const body = h.fake.notificationFor(r.transactionId);
      h.clock.advance(30 * 86_400_000);
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: body })).toMatchObject({ ok: true });
    });
  });
});
