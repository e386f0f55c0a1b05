import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, type DeclineReason, type TransactionStatus } from '../../src/psp/connector.ts';
import { ogoneDefinition } from '../../src/psp/ogone/definition.ts';
import {
  OGONE_REFUSAL_CODES,
  OGONE_STATUSES,
  challengeFormFromHtml,
  declineFor,
  isCredentialRefusal,
  parseNcResponse,
  shaSign,
  toDeclineReason,
  toStatus,
  type OgoneRefusalCode,
  type OgoneStatus,
} from '../../src/psp/ogone/mapping.ts';
import { OGONE_ACK, verifyFeedback } from '../../src/psp/ogone/notifications.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { FAKE_NO_COF } from './fixtures/ogone/fake-server.ts';
import failedOrder from './fixtures/ogone/failed-order-response.json' with { type: 'json' };
import orderResponse from './fixtures/ogone/order-response.json' with { type: 'json' };
import queryResponse from './fixtures/ogone/query-response.json' with { type: 'json' };
import { ACCOUNT, OGONE_CARDS, ogoneHarness, type OgoneHarness } from './fixtures/ogone/harness.ts';
import { bareRef } from './connector-contract.ts';

describeConnectorContract('ogone', ogoneHarness);

const key = () => `test-${randomUUID()}`;
const SECRETS = [ACCOUNT.password, ACCOUNT.shaIn, ACCOUNT.shaOut];

describe('ogone mapping', () => {
  it('maps every Ogone status onto ours', () => {
    const table: Record<OgoneStatus, TransactionStatus> = {
      0: 'declined',
      1: 'declined',
      2: 'declined',
      93: 'declined',
      4: 'requires_action',
      40: 'requires_action',
      41: 'requires_action',
      46: 'requires_action',
      50: 'requires_action',
      51: 'requires_action',
      52: 'requires_action',
      55: 'requires_action',
      59: 'requires_action',
      99: 'requires_action',
      5: 'authorized',
      63: 'authorized',
      6: 'voided',
      61: 'voided',
      62: 'voided',
      64: 'voided',
      7: 'voided',
      71: 'voided',
      72: 'voided',
      74: 'voided',
      75: 'voided',
      73: 'captured',
      9: 'captured',
      91: 'captured',
      92: 'captured',
      95: 'captured',
      94: 'captured',
      96: 'captured',
      83: 'captured',
      8: 'refunded',
      81: 'refunded',
      82: 'refunded',
      84: 'refunded',
      85: 'refunded',
    };
    expect(
      Object.keys(table)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([...OGONE_STATUSES].sort((a, b) => a - b));
    for (const s of OGONE_STATUSES) expect(toStatus(s, 0)).toBe(table[s]);
    expect(toStatus(9, 1)).toBe('refunded');
    expect(toStatus(5, 0, true)).toBe('expired');
  });

  it('maps every known NCERROR refusal onto a DeclineReason, anything else to processing_error', () => {
    const table: Record<OgoneRefusalCode, DeclineReason> = {
      '30001001': 'card_declined',
      '30051001': 'card_declined',
      '30041001': 'card_declined',
      '30431001': 'card_declined',
      '30571001': 'card_declined',
      '30511001': 'insufficient_funds',
      '30611001': 'insufficient_funds',
      '30541001': 'expired_card',
      '30331001': 'expired_card',
      '30141001': 'invalid_card',
      '40001134': 'authentication_failed',
      '40001135': 'authentication_failed',
      '50001054': 'invalid_card',
      '50001005': 'expired_card',
      '50001090': 'incorrect_cvc',
      '50001127': 'amount_too_large',
      '50001174': 'amount_too_large',
      '50001048': 'authorization_expired',
      '30001010': 'processing_error',
      '30911001': 'processing_error',
    };
    expect(Object.keys(table).sort()).toEqual([...OGONE_REFUSAL_CODES].sort());
    for (const c of OGONE_REFUSAL_CODES) expect(toDeclineReason(c)).toBe(table[c]);
    expect(declineFor('39999999', 'something').reason).toBe('processing_error');
    expect(declineFor('30511001', 'Insufficient funds').message).toContain('Insufficient funds');
  });

  it('signs like Ogone: upper-cased names sorted, NAME=value+passphrase each, empty values left out, upper-case hex', () => {
    // The string activemerchant's unit test (ogone_test.rb) digests for these parameters.
    const params = { orderID: '1', amount: '100', currency: 'EUR', CARDNO: '4111111111111111', PSPID: 'MrPSPID', Operation: 'RES', ALIAS: '2', CN: 'Client Name', COM: '' };
    const text =
      'ALIAS=2mynicesigAMOUNT=100mynicesigCARDNO=4111111111111111mynicesigCN=Client NamemynicesigCURRENCY=EURmynicesigOPERATION=RESmynicesigORDERID=1mynicesigPSPID=MrPSPIDmynicesig';
    expect(shaSign(params, 'mynicesig', 'sha1')).toBe(createHash('sha1').update(text).digest('hex').toUpperCase());
    expect(shaSign(params, 'mynicesig', 'sha512')).toBe(createHash('sha512').update(text).digest('hex').toUpperCase());
  });

  it('reads the recorded answers of the DirectLink guide', () => {
    const o = parseNcResponse(orderResponse.body)!;
    expect(o.attrs).toMatchObject({ PAYID: orderResponse.expected.PAYID, STATUS: '5', amount: '125', currency: 'EUR' });
    expect(toStatus(Number(o.attrs.STATUS) as OgoneStatus, 0)).toBe(orderResponse.expected.status);
    const q = parseNcResponse(queryResponse.body)!;
    expect(q.attrs).toMatchObject({ PAYIDSUB: '3', STATUS: '9', CARDNO: queryResponse.expected.CARDNO });
    expect(toStatus(Number(q.attrs.STATUS) as OgoneStatus, 0)).toBe(queryResponse.expected.status);
    const f = parseNcResponse(failedOrder.body)!;
    expect(f.attrs).toMatchObject({ PAYID: '0', STATUS: '0', NCERROR: '50001111' });
    expect(parseNcResponse('<html>Service Unavailable</html>')).toBeUndefined();
    expect(parseNcResponse('<?xml version="1.0"?><ncresp')).toBeUndefined();
  });

  it('reads the HTML_ANSWER form as the action and hidden fields to post, never a script', () => {
    const html =
      '<form name="f" action="https://acs.example/3ds" method="post"><input type="hidden" name="PaReq" value="a&amp;b" /><input type="hidden" name="MD" value="X1" /><input type="text" name="visible" value="no" /></form><SCRIPT>self.document.forms.f.submit();</SCRIPT>';
    expect(challengeFormFromHtml(html)).toEqual({ action: 'https://acs.example/3ds', fields: { PaReq: 'a&b', MD: 'X1' } });
    expect(challengeFormFromHtml('<form action="javascript:alert(1)"></form>')).toBeUndefined();
  });

  it('recognises the credential refusals (SHA-IN, user, IP, referer)', () => {
    for (const t of ['unknown order/1/s/', 'unknown order/0/s/', 'unknown order/1/i/67.192.100.64', 'unknown order/1/r/']) expect(isCredentialRefusal(t)).toBe(true);
    expect(isCredentialRefusal('unknown orderID or PAYID')).toBe(false);
  });
});

describe('ogone definition', () => {
  const good = { pspid: 'shop', user_id: 'api', password: 'p', sha_in: 'in', sha_out: 'out', hash_algorithm: 'sha512' };
  it('declares its credential fields, secrets marked', () => {
    expect(ogoneDefinition.name).toBe('ogone');
    expect(ogoneDefinition.environments).toEqual(['test', 'live']);
    expect(ogoneDefinition.credentialFields.map((f) => [f.name, f.secret])).toEqual([
      ['pspid', false],
      ['user_id', false],
      ['password', true],
      ['sha_in', true],
      ['sha_out', true],
      ['hash_algorithm', false],
    ]);
    expect(ogoneDefinition.credentialFields.find((f) => f.name === 'hash_algorithm')?.enum).toEqual(['sha1', 'sha256', 'sha512']);
  });
  it('refuses a [ in either passphrase, naming the field, and an unknown algorithm', () => {
    expect(ogoneDefinition.validate!(good, 'test')).toBeUndefined();
    expect(ogoneDefinition.validate!({ ...good, sha_in: 'a[b' }, 'test')?.field).toBe('sha_in');
    expect(ogoneDefinition.validate!({ ...good, sha_out: '[' }, 'live')?.field).toBe('sha_out');
    expect(ogoneDefinition.validate!({ ...good, hash_algorithm: 'md5' }, 'test')?.field).toBe('hash_algorithm');
  });
  it('names the documented DirectLink folders', () => {
    expect(ogoneDefinition.baseUrl('test', good)).toBe('https://ogone.test.v-psp.com/ncol/test');
    expect(ogoneDefinition.baseUrl('live', good)).toBe('https://secure.ogone.com/ncol/prod');
  });
});

describe('ogone connector against the fake DirectLink', () => {
  let h: OgoneHarness;
  beforeAll(async () => {
    h = await ogoneHarness();
  });
  afterAll(() => h?.teardown());

  async function attach(card = OGONE_CARDS.success): Promise<string> {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(a.reason);
    return a.paymentMethodId;
  }
  const authorize = async (capture: 'automatic' | 'manual', idempotencyKey = key(), storeForLater = false) =>
    h.connector.authorize({ idempotencyKey, paymentMethodId: await attach(), amountCents: 1500, currency: 'EUR', capture, returnUrl: 'https://shop.example/back', storeForLater });

  function expectNoSecret(text: string): void {
    for (const s of SECRETS) expect(text).not.toContain(s);
  }

  it('never shows a credential in JSON, toString or inspect', () => {
    for (const text of [JSON.stringify(h.connector), String(h.connector), inspect(h.connector, { depth: 5, showHidden: true })]) expectNoSecret(text);
    expect(JSON.parse(JSON.stringify(h.connector))).toEqual({ name: 'ogone', sandbox: true });
  });

  describe('verifyCredentials', () => {
    it('ok with the right credentials', async () => {
      expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
    });
    it('refused with a wrong password or SHA-IN passphrase, without echoing them', async () => {
      for (const change of [{ password: 'wrong-password-123' }, { sha_in: 'wrong-sha-in-456' }, { user_id: 'nobody' }]) {
        const r = await h.connectorWith(change).verifyCredentials();
        expect(r.ok).toBe(false);
        if (!r.ok) expectNoSecret(r.message + Object.values(change).join(''));
      }
    });
    it('throws unreachable when the PSP does not answer', async () => {
      h.fake.failNext('timeout');
      const err = await h
        .connectorWith({}, 200)
        .verifyCredentials()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PspIntegrationError);
      expect((err as PspIntegrationError).code).toBe('unreachable');
    });
  });

  describe('faults', () => {
    const codeOf = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as PspIntegrationError).code;
    it('a timeout is unreachable', async () => {
      h.fake.failNext('timeout');
      expect(await codeOf(h.connectorWith({}, 200).retrieve(bareRef('3014726')))).toBe('unreachable');
    });
    it('a 5xx is unreachable, a 403 bad_credentials, an unreadable answer bad_response', async () => {
      const pm = await attach();
      const charge = () => h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR' });
      h.fake.failNext('server_error');
      expect(await codeOf(charge())).toBe('unreachable');
      h.fake.failNext('forbidden');
      expect(await codeOf(charge())).toBe('bad_credentials');
      h.fake.failNext('malformed');
      expect(await codeOf(charge())).toBe('bad_response');
    });
    it('bad credentials are bad_credentials, and no error message carries a credential', async () => {
      const err = (await h
        .connectorWith({ sha_in: 'not-the-sha-in-789' })
        .retrieve(bareRef('3014726'))
        .catch((e: unknown) => e)) as PspIntegrationError;
      expect(err.code).toBe('bad_credentials');
      expectNoSecret(err.message + inspect(err) + JSON.stringify(err));
      expect(err.message).not.toContain('not-the-sha-in-789');
    });
    it('an order whose answer was lost is found again by its ORDERID: a retry never charges twice', async () => {
      const pm = await attach();
      const k = key();
      const before = h.fake.transactionCount;
      // The order is taken but its answer never comes, and neither does the first look-up.
      h.fake.failNext('timeout_after_processing', 1, 'orderdirect.asp');
      h.fake.failNext('timeout', 1, 'querydirect.asp');
      const slow = h.connectorWith({}, 300);
      const first = await slow.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 700, currency: 'EUR' }).catch((e: unknown) => e);
      expect((first as PspIntegrationError).code).toBe('unreachable');
      const again = await h.connector.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 700, currency: 'EUR' });
      expect(again).toMatchObject({ status: 'captured', capturedCents: 700 });
      expect(h.fake.transactionCount).toBe(before + 1);
      const other = await h.connector.chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 701, currency: 'EUR' }).catch((e: unknown) => e);
      expect((other as PspIntegrationError).code).toBe('idempotency_conflict');
    });
    it('an order whose answer was lost but found at once is answered without a second order', async () => {
      const pm = await attach();
      const before = h.fake.transactionCount;
      h.fake.failNext('timeout_after_processing', 1, 'orderdirect.asp');
      const r = await h.connectorWith({}, 300).chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 650, currency: 'EUR' });
      expect(r).toMatchObject({ status: 'captured', capturedCents: 650 });
      expect(h.fake.transactionCount).toBe(before + 1);
    });
    it('a refund whose answer was lost is not sent again on retry', async () => {
      const r = await authorize('automatic');
      const c = h.connectorWith({}, 300);
      const k = key();
      h.fake.failNext('timeout_after_processing', 1, 'maintenancedirect.asp');
      // The state Chipin stored with the payment: the amounts before the refund, which the retry compares with.
      const transaction = { transactionId: r.transactionId, pspState: r.pspState ?? null };
      const first = await c.refund({ idempotencyKey: k, transaction, amountCents: 500 }).catch((e: unknown) => e);
      expect((first as PspIntegrationError).code).toBe('unreachable');
      // Retried by another instance (another process, or this one restarted).
      const again = await h.connectorWith({}, 300).refund({ idempotencyKey: k, transaction, amountCents: 500 });
      expect(again).toMatchObject({ status: 'refunded', refundedCents: 500 });
      expect(h.fake.transaction(r.transactionId)!.refunded).toBe(500);
    });
  });

  describe('stored credentials (PSD2)', () => {
    it('the card is stored by a customer-initiated first payment; storeForLater marks the checkout as one', async () => {
      const r = await authorize('automatic', key(), true);
      expect(r.status).toBe('captured');
      const sent = h.fake.requests.filter((q) => q.page === 'orderdirect.asp').at(-1)!.params;
      expect(sent).toMatchObject({ COF_INITIATOR: 'CIT', COF_TRANSACTION: 'FIRST', COF_SCHEDULE: 'UNSCHED', FLAG3D: 'Y' });
      await authorize('automatic');
      expect(h.fake.requests.filter((q) => q.page === 'orderdirect.asp').at(-1)!.params).toMatchObject({ COF_INITIATOR: 'CIT', COF_TRANSACTION: 'SUBSEQ' });
    });
    it('an off-session charge is a merchant-initiated subsequent one on the alias', async () => {
      const pm = await attach();
      await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 300, currency: 'EUR' });
      expect(h.fake.requests.filter((q) => q.page === 'orderdirect.asp').at(-1)!.params).toMatchObject({ ALIAS: pm, COF_INITIATOR: 'MIT', COF_TRANSACTION: 'SUBSEQ', ECI: '9' });
    });
    it('a merchant-initiated hold (capture manual, a re-authorisation): RES on the alias, MIT SUBSEQ UNSCHED → authorized (status 5), then captured or deleted; one order per key', async () => {
      const pm = await attach();
      const input = { idempotencyKey: key(), paymentMethodId: pm, amountCents: 800, currency: 'EUR', capture: 'manual' as const };
      const hold = await h.connector.chargeOffSession(input);
      expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
      expect(h.fake.requests.filter((q) => q.page === 'orderdirect.asp').at(-1)!.params).toMatchObject({
        OPERATION: 'RES',
        ALIAS: pm,
        ECI: '9',
        COF_INITIATOR: 'MIT',
        COF_TRANSACTION: 'SUBSEQ',
        COF_SCHEDULE: 'UNSCHED',
      });
      const before = h.fake.transactionCount;
      expect((await h.connectorWith({}).chargeOffSession(input)).transactionId).toBe(hold.transactionId);
      expect(h.fake.transactionCount).toBe(before);
      expect(await h.connector.capture({ idempotencyKey: key(), transaction: bareRef(hold.transactionId), amountCents: 500 })).toMatchObject({
        status: 'captured',
        capturedCents: 500,
      });
      const other = await h.connector.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
      expect((await h.connector.void({ idempotencyKey: key(), transaction: bareRef(other.transactionId) })).status).toBe('voided');
      expect(ogoneDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
    });
    it('the fake refuses a MIT on a card no customer-initiated first payment stored, or without COF_TRANSACTION', async () => {
      const post = async (params: Record<string, string>) => {
        const all = { PSPID: ACCOUNT.pspid, USERID: ACCOUNT.userId, PSWD: ACCOUNT.password, CURRENCY: 'EUR', AMOUNT: '100', ...params };
        const res = await fetch(`${h.fake.baseUrl}/orderdirect.asp`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ ...all, SHASIGN: shaSign(all, ACCOUNT.shaIn, ACCOUNT.algorithm) }).toString(),
        });
        return parseNcResponse(await res.text())!.attrs;
      };
      const alias = `NOCOF${Date.now()}`;
      const plain = await post({ ORDERID: `p${Date.now()}`, OPERATION: 'RES', CARDNO: '4111111111111111', ED: '1239', CVC: '123', ALIAS: alias });
      expect(plain.STATUS).toBe('5');
      const mit = await post({ ORDERID: `m${Date.now()}`, OPERATION: 'SAL', ALIAS: alias, ECI: '9', COF_INITIATOR: 'MIT', COF_TRANSACTION: 'SUBSEQ', COF_SCHEDULE: 'UNSCHED' });
      expect(mit).toMatchObject({ STATUS: '2', NCERROR: FAKE_NO_COF });
      const pm = await attach();
      const noRef = await post({ ORDERID: `n${Date.now()}`, OPERATION: 'SAL', ALIAS: pm, ECI: '9', COF_INITIATOR: 'MIT' });
      expect(noRef).toMatchObject({ STATUS: '2', NCERROR: FAKE_NO_COF });
    });
  });

  describe('post-sale feedback (SHA-OUT)', () => {
    it('accepts a feedback signed with the SHA-OUT passphrase and answers what Ogone expects', async () => {
      const r = await authorize('automatic');
      const body = h.fake.feedbackFor(r.transactionId);
      expect(await h.connector.verifyNotification({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: body })).toEqual({
        ok: true,
        transactionId: r.transactionId,
        status: 'captured',
        ack: OGONE_ACK,
      });
    });
    it('refuses a tampered one, one signed with another passphrase or algorithm, and an unsigned one', async () => {
      const r = await authorize('manual');
      const body = h.fake.feedbackFor(r.transactionId);
      const tampered = body.replace(/STATUS=5/, 'STATUS=9');
      expect(tampered).not.toBe(body);
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: tampered })).toEqual({ ok: false, reason: 'bad_signature' });
      expect(verifyFeedback(body, 'another-passphrase', 'sha512')).toEqual({ ok: false, reason: 'bad_signature' });
      expect(verifyFeedback(body, ACCOUNT.shaOut, 'sha256')).toEqual({ ok: false, reason: 'bad_signature' });
      expect(verifyFeedback(body.replace(/&SHASIGN=[^&]*/, ''), ACCOUNT.shaOut, 'sha512')).toEqual({ ok: false, reason: 'malformed' });
    });
    it('a parameter outside the SHA-OUT list is not signed, so it changes nothing', async () => {
      const r = await authorize('manual');
      const body = h.fake.feedbackFor(r.transactionId) + '&MYPARAM=anything';
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: body })).toMatchObject({ ok: true, status: 'authorized' });
    });
    it('has no timestamp to be stale by (Ogone signs none): an old feedback still verifies', async () => {
      const r = await authorize('manual');
      const body = h.fake.feedbackFor(r.transactionId);
      h.clock.advance(30 * 86_400_000);
      expect(await h.connector.verifyNotification({ headers: {}, rawBody: body })).toMatchObject({ ok: true });
    });
  });
});
