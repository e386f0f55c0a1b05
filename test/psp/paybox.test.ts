import { generateKeyPairSync, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, type DeclineReason, type TransactionResult } from '../../src/psp/connector.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { mpiUrlFor, payboxDefinition } from '../../src/psp/paybox/definition.ts';
import {
  RESPONSE_CODES,
  currencyCode,
  dateq,
  decodePaymentMethod,
  encodePaymentMethod,
  fromMontant,
  outcomeOf,
  outcomeOfAny,
  parseAnswer,
  statusLabelOf,
  toMontant,
  toStatus,
} from '../../src/psp/paybox/mapping.ts';
import { parseMpiReturn, payboxPublicKey, payboxSignedPart, signedSession, verifyMpiReturn, verifySession } from '../../src/psp/paybox/notifications.ts';
import { bareRef, describeConnectorContract } from './connector-contract.ts';
import { FAKE_PAYBOX_KEY, signedMpiQuery } from './fixtures/paybox/fake-server.ts';
import { ACCOUNT, CREDENTIALS, PAYBOX_CARDS, payboxHarness, type PayboxHarness } from './fixtures/paybox/harness.ts';

describeConnectorContract('paybox', payboxHarness);

const key = () => `test-${randomUUID()}`;
const RETURN_URL = 'https://shop.example/return';

describe('paybox mapping', () => {
  it('classifies every CODEREPONSE of the manual, refusals as decline reasons', () => {
    const reasons = new Map<string, DeclineReason>();
    for (const code of RESPONSE_CODES) {
      const o = outcomeOf(code);
      if (o.kind === 'refused') reasons.set(code, o.reason);
    }
    expect(outcomeOf('00000')).toEqual({ kind: 'ok' });
    expect(outcomeOf('00040')).toEqual({ kind: 'challenge' });
    expect(outcomeOf('00006')).toEqual({ kind: 'fault', code: 'bad_credentials' });
    expect(outcomeOf('00018')).toEqual({ kind: 'fault', code: 'unknown_transaction' });
    expect(outcomeOf('00017')).toEqual({ kind: 'fault', code: 'unknown_payment_method' });
    expect(outcomeOf('00001')).toEqual({ kind: 'fault', code: 'unreachable' });
    expect(outcomeOf('00097')).toEqual({ kind: 'fault', code: 'unreachable' });
    expect(reasons.get('00105')).toBe('card_declined');
    expect(reasons.get('00151')).toBe('insufficient_funds');
    expect(reasons.get('00154')).toBe('expired_card');
    expect(reasons.get('00008')).toBe('expired_card');
    expect(reasons.get('00004')).toBe('invalid_card');
    expect(reasons.get('00020')).toBe('incorrect_cvc');
    expect(reasons.get('00189')).toBe('authentication_failed');
    expect(reasons.get('00191')).toBe('processing_error');
  });

  it('reads an acquirer code outside the list as a refusal, anything else unknown as an unreadable answer', () => {
    expect(outcomeOfAny('00192')).toEqual({ kind: 'refused', reason: 'card_declined' });
    expect(outcomeOfAny('00077')).toEqual({ kind: 'fault', code: 'bad_response' });
    expect(outcomeOfAny('')).toEqual({ kind: 'fault', code: 'bad_response' });
  });

  it('reads the inquiry STATUS labels, accented or mangled by ISO-8859-1', () => {
    expect(toStatus(statusLabelOf('Autorisé'), false)).toBe('authorized');
    expect(toStatus(statusLabelOf('Autoris\ufffd'), true)).toBe('expired');
    expect(toStatus(statusLabelOf('Capturé'), false)).toBe('captured');
    expect(toStatus(statusLabelOf('Remboursé'), false)).toBe('refunded');
    expect(toStatus(statusLabelOf('Annulé'), false)).toBe('voided');
    expect(toStatus(statusLabelOf('Refusé'), false)).toBe('declined');
    expect(toStatus(statusLabelOf('Demande de solde (Carte cadeaux)'), false)).toBeUndefined();
  });

  it('writes MONTANT as 10 zero-padded digits of minor units, exactly, and reads it back', () => {
    expect(toMontant(1000)).toBe('0000001000');
    expect(() => toMontant(0)).toThrow(RangeError);
    expect(() => toMontant(10_000_000_000)).toThrow(RangeError);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999_999 }), (n) => {
        const m = toMontant(n);
        expect(m).toMatch(/^\d{10}$/);
        expect(fromMontant(m)).toBe(n);
      }),
    );
  });

  it('names currencies by their ISO numeric code and refuses those it cannot express', () => {
    expect(currencyCode('EUR')).toBe('978');
    expect(currencyCode('USD')).toBe('840');
    expect(() => currencyCode('JPY')).toThrow(RangeError);
  });

  it('writes DATEQ as ddmmyyyyhhmmss', () => {
    expect(dateq(new Date('2026-03-07T09:05:01Z'))).toBe('07032026090501');
  });

  it('reads a form-encoded PPPS answer and refuses one without CODEREPONSE', () => {
    expect(parseAnswer('NUMTRANS=0000000001&NUMAPPEL=0000000002&CODEREPONSE=00000&COMMENTAIRE=Demande%20trait%E9e')).toMatchObject({
      CODEREPONSE: '00000',
      NUMTRANS: '0000000001',
    });
    expect(parseAnswer('<html>Maintenance</html>')).toBeUndefined();
  });

  it('round-trips a subscriber through its payment method id, and refuses an altered one', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 9999 }), (r, t, d) => {
        const s = { refAbonne: r, token: t, dateval: String(d).padStart(4, '0') };
        expect(decodePaymentMethod(encodePaymentMethod(s))).toEqual(s);
      }),
    );
    expect(decodePaymentMethod('pm_card_visa')).toBeUndefined();
    expect(decodePaymentMethod('pbx1.bm90IGpzb24')).toBeUndefined();
  });
});

describe('paybox RemoteMPI return (notifications)', () => {
  const cle = ACCOUNT.cle;

  it('signs the IdSession with the account key: any change of reference, signature or key breaks it', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 60 }).filter((s) => !s.includes('.')),
        fc.string({ minLength: 1, maxLength: 60 }),
        (reference, other) => {
          const id = signedSession(reference, cle);
          expect(verifySession(id, cle)).toBe(reference);
          if (other !== cle) expect(verifySession(id, other)).toBeUndefined();
          const flipped = id.slice(0, -1) + (id.endsWith('0') ? '1' : '0');
          expect(verifySession(flipped, cle)).toBeUndefined();
          if (`${other}` !== reference && !other.includes('.')) expect(verifySession(`${other}${id.slice(id.lastIndexOf('.'))}`, cle)).toBeUndefined();
        },
      ),
    );
  });

  it('reads an authenticated return, a failed one, and a non-enrolled card', () => {
    const s = signedSession('Cabc', cle);
    expect(parseMpiReturn(`IdSession=${s}&3DENROLLED=Y&3DSTATUS=Y&ID3D=42&StatusPBX=Autorisation%20%E0%20faire`)).toEqual({ idSession: s, id3d: '42', authenticated: true });
    expect(parseMpiReturn(`IdSession=${s}&3DENROLLED=Y&3DSTATUS=N&ID3D=&StatusPBX=Erreur`)).toMatchObject({ authenticated: false });
    expect(parseMpiReturn(`IdSession=${s}&3DENROLLED=N&ID3D=43`)).toMatchObject({ authenticated: true });
    expect(parseMpiReturn('3DSTATUS=Y')).toBeUndefined();
  });

  it('refuses a return whose IdSession Chipin did not sign, and names the transaction of one it did', () => {
    const paybox = payboxPublicKey(FAKE_PAYBOX_KEY.publicKey);
    const s = signedSession('Cabc', cle);
    const signed = (fields: Record<string, string>) => signedMpiQuery(fields);
    expect(verifyMpiReturn(signed({ IdSession: 'Cabc.00000000000000000000000000000000', '3DSTATUS': 'Y', ID3D: '1' }), cle, paybox)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(verifyMpiReturn('nothing=here', cle, paybox)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyMpiReturn(signed({ IdSession: s, '3DSTATUS': 'Y', '3DENROLLED': 'Y', ID3D: '1' }), cle, paybox)).toMatchObject({
      ok: true,
      transactionId: 'Cabc',
      event: { id3d: '1', authenticated: true },
    });
  });

  // The shopper's browser carries the return's 3DSTATUS, 3DENROLLED, ID3D and StatusPBX: they are
  // read only once Paybox's signature verifies (docs/security.md#payboxs-3-d-secure-return).
  describe("Paybox's signature of the return (Check, RSA SHA-1 over the parameters before it)", () => {
    const paybox = payboxPublicKey(FAKE_PAYBOX_KEY.publicKey)!;
    const s = signedSession('Cdef', cle);
    const failed = { IdSession: s, StatusPBX: 'Timeout', '3DSTATUS': 'N', '3DSIGNVAL': 'Y', '3DENROLLED': 'Y', '3DERROR': '0', ID3D: '2000000481516' };
    const authenticated = { ...failed, StatusPBX: 'Autorisation à faire', '3DSTATUS': 'Y' };

    it('trusts a return Paybox signed, whatever it says, and reads only the part it signed', () => {
      expect(verifyMpiReturn(signedMpiQuery(failed), cle, paybox)).toMatchObject({ ok: true, status: 'declined', event: { authenticated: false, id3d: '2000000481516' } });
      expect(verifyMpiReturn(signedMpiQuery(authenticated), cle, paybox)).toMatchObject({ ok: true, status: 'requires_action', event: { authenticated: true } });
      expect(signedMpiQuery(authenticated)).toContain('StatusPBX=Autorisation%20%e0%20faire&');
      expect(payboxSignedPart(signedMpiQuery(failed), paybox)).toBe(signedMpiQuery(failed).replace(/&Check=[^&]*$/, ''));
    });

    it('refuses a failed return claimed authenticated: 3DSTATUS, 3DENROLLED, StatusPBX or ID3D changed, the signature dropped or moved, a field added', () => {
      const q = signedMpiQuery(failed);
      for (const forged of [
        q.replace('3DSTATUS=N', '3DSTATUS=Y'),
        q.replace('3DSTATUS=N', '3DSTATUS=A'),
        q.replace('3DENROLLED=Y', '3DENROLLED=N'),
        q.replace('StatusPBX=Timeout', 'StatusPBX=Autorisation%20%e0%20faire'),
        q.replace('ID3D=2000000481516', 'ID3D=2000000481517'),
        q.replace(/&Check=[^&]*$/, ''),
        q.replace(/&Check=[^&]*$/, '') + '&3DSTATUS=Y',
        `${q}&3DSTATUS=Y`,
        `3DSTATUS=Y&${q}`,
        q.replace('&Check=', '&3DSTATUS=Y&Check='),
      ]) {
        expect(forged).not.toBe(q);
        expect(verifyMpiReturn(forged, cle, paybox), forged).toEqual({ ok: false, reason: 'bad_signature' });
      }
    });

    it('changes any one byte of a field and the signature fails', () => {
      const q = signedMpiQuery(authenticated);
      const cut = q.indexOf('&Check=');
      fc.assert(
        fc.property(fc.nat({ max: cut - 1 }), fc.constantFrom('0', '1', 'Y', 'N', 'A', 'x'), (at, c) => {
          fc.pre(q[at] !== c && q[at] !== '&' && q[at] !== '=' && q[at] !== '%' && !/%[0-9a-f]?$/i.test(q.slice(0, at)));
          const changed = q.slice(0, at) + c + q.slice(at + 1);
          expect(verifyMpiReturn(changed, cle, paybox)).toMatchObject({ ok: false });
        }),
        { seed: 60, numRuns: 200 },
      );
    });

    it('trusts nothing without the key, or under another key', () => {
      const other = generateKeyPairSync('rsa', { modulusLength: 1024 });
      const q = signedMpiQuery(authenticated);
      expect(verifyMpiReturn(q, cle, undefined)).toEqual({ ok: false, reason: 'bad_signature' });
      expect(verifyMpiReturn(q, cle, other.publicKey)).toEqual({ ok: false, reason: 'bad_signature' });
      expect(verifyMpiReturn(signedMpiQuery(authenticated, other.privateKey), cle, paybox)).toEqual({ ok: false, reason: 'bad_signature' });
    });

    it('reads the key as pubkey.pem is written, or its base64 alone, and refuses anything else', () => {
      const pem = `-----BEGIN PUBLIC KEY-----\n${FAKE_PAYBOX_KEY.publicKey.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
      for (const text of [pem, pem.replace(/\n/g, ''), pem.replace(/\n/g, ' '), FAKE_PAYBOX_KEY.publicKey]) expect(payboxPublicKey(text), text).toBeDefined();
      for (const text of [undefined, '', 'not a key', FAKE_PAYBOX_KEY.publicKey.slice(0, 100)]) expect(payboxPublicKey(text), String(text)).toBeUndefined();
    });
  });
});

describe('paybox definition', () => {
  const check = (c: Record<string, string>) => validateCredentials(payboxDefinition, c, 'test');

  it('accepts the documented formats', () => {
    expect(check(CREDENTIALS)).toBeUndefined();
    expect(check({ ...CREDENTIALS, rank: '01' })).toBeUndefined();
  });

  it('names the field of every wrong value', () => {
    expect(check({ ...CREDENTIALS, site: '123456' })?.field).toBe('credentials.site');
    expect(check({ ...CREDENTIALS, site: '12345678' })?.field).toBe('credentials.site');
    expect(check({ ...CREDENTIALS, rank: '1' })?.field).toBe('credentials.rank');
    expect(check({ ...CREDENTIALS, rank: '1a' })?.field).toBe('credentials.rank');
    expect(check({ ...CREDENTIALS, identifier: '1234567890' })?.field).toBe('credentials.identifier');
    expect(check({ ...CREDENTIALS, cle: 'short' })?.field).toBe('credentials.cle');
    expect(check({ ...CREDENTIALS, cle: 'has space!' })?.field).toBe('credentials.cle');
    const { cle: _cle, ...withoutKey } = CREDENTIALS;
    expect(check(withoutKey)?.field).toBe('credentials.cle');
    // Paybox's public key is required: the 3-D Secure return's signature is checked with it.
    const { public_key: _pk, ...withoutPublicKey } = CREDENTIALS;
    expect(check(withoutPublicKey)?.field).toBe('credentials.public_key');
    expect(check({ ...CREDENTIALS, public_key: 'A'.repeat(200) })?.field).toBe('credentials.public_key');
    expect(check({ ...CREDENTIALS, public_key: 'not a key at all' })?.field).toBe('credentials.public_key');
    expect(check({ ...CREDENTIALS, public_key: `-----BEGIN PUBLIC KEY-----${CREDENTIALS.public_key}-----END PUBLIC KEY-----` })).toBeUndefined();
  });

  it('publishes the PPPS hosts and finds the RemoteMPI beside them', () => {
    expect(payboxDefinition.baseUrl('test', {})).toBe('https://preprod-ppps.paybox.com');
    expect(payboxDefinition.publishedHosts.live).toEqual(expect.arrayContaining(['ppps.paybox.com', 'ppps1.paybox.com']));
    expect(mpiUrlFor('https://preprod-ppps.paybox.com')).toBe('https://preprod-tpeweb.paybox.com/cgi/RemoteMPI.cgi');
    expect(mpiUrlFor('https://ppps.e-transactions.fr')).toBe('https://tpeweb.e-transactions.fr/cgi/RemoteMPI.cgi');
    expect(mpiUrlFor('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000/cgi/RemoteMPI.cgi');
  });
});

describe('paybox connector against the fake', () => {
  let h: PayboxHarness;
  beforeAll(async () => {
    h = await payboxHarness();
  });
  afterAll(async () => {
    await h?.teardown();
  });

  async function attach(): Promise<string> {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYBOX_CARDS.success });
    if (!a.ok) throw new Error(a.message);
    return a.paymentMethodId;
  }

  it('speaks Direct Plus: VERSION 00104, SITE, RANG, CLE, a 10-digit NUMQUESTION and DATEQ on every question', async () => {
    await attach();
    const last = h.fake.requests.at(-1)!;
    expect(last.path).toBe('/PPPS.php');
    expect(last.params).toMatchObject({ VERSION: '00104', SITE: ACCOUNT.site, RANG: ACCOUNT.rank, CLE: '***' });
    expect(last.params.NUMQUESTION).toMatch(/^\d{10}$/);
    expect(last.params.DATEQ).toMatch(/^\d{14}$/);
  });

  it('registers the card as a subscriber and never sends its number again: later payments carry REFABONNE and the token', async () => {
    const pm = await attach();
    const sub = decodePaymentMethod(pm)!;
    expect(JSON.stringify(pm)).not.toContain('4012001037');
    await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 500, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const auth = h.fake.requests.at(-1)!.params;
    expect(auth).toMatchObject({ TYPE: '00051', REFABONNE: sub.refAbonne, PORTEUR: sub.token, DATEVAL: sub.dateval, MONTANT: '0000000500', DEVISE: '978', ACTIVITE: '024' });
  });

  it('marks a merchant-initiated charge ACTIVITE 027 on the subscriber (TYPE 00053)', async () => {
    const pm = await attach();
    const r = await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 700, currency: 'EUR' });
    expect(r.status).toBe('captured');
    expect(h.fake.requests.at(-1)!.params).toMatchObject({ TYPE: '00053', ACTIVITE: '027' });
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): TYPE 00051 with ACTIVITE 027 on the subscriber → authorized, then captured (00052) or cancelled (00055); one hold per key', async () => {
    const pm = await attach();
    const input = { idempotencyKey: key(), paymentMethodId: pm, amountCents: 800, currency: 'EUR', capture: 'manual' as const };
    const hold = await h.connector.chargeOffSession(input);
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
    expect(h.fake.requests.at(-1)!.params).toMatchObject({ TYPE: '00051', ACTIVITE: '027', REFABONNE: decodePaymentMethod(pm)!.refAbonne });
    const sent = h.fake.requests.length;
    expect((await h.connectorWith({}).chargeOffSession(input)).transactionId).toBe(hold.transactionId);
    expect(h.fake.requests.length).toBe(sent);
    const ref = (r: TransactionResult) => ({ transactionId: r.transactionId, pspState: r.pspState! });
    expect(await h.connector.capture({ idempotencyKey: key(), transaction: ref(hold), amountCents: 500 })).toMatchObject({ status: 'captured', capturedCents: 500 });
    expect(h.fake.requests.at(-1)!.params.TYPE).toBe('00052');
    const other = await h.connector.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
    expect((await h.connector.void({ idempotencyKey: key(), transaction: ref(other) })).status).toBe('voided');
    expect(h.fake.transactionByReference(other.transactionId)?.label).toBe('Annulé');
    expect(payboxDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('refuses a charge on a payment method that is no Paybox subscriber, or an unknown subscriber, as unknown_payment_method', async () => {
    const e1 = await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: 'pm_card_visa', amountCents: 700, currency: 'EUR' }).catch((e: unknown) => e);
    expect((e1 as PspIntegrationError).code).toBe('unknown_payment_method');
    const forged = encodePaymentMethod({ refAbonne: 'Cnobody', token: 'SLDLrcsLMPCdeadbeef', dateval: '1230' });
    const e2 = await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: forged, amountCents: 700, currency: 'EUR' }).catch((e: unknown) => e);
    expect((e2 as PspIntegrationError).code).toBe('unknown_payment_method');
  });

  it('asks for 3-D Secure as a RemoteMPI form that names the card by its token, never its number', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYBOX_CARDS.challenge });
    if (!a.ok) throw new Error(a.message);
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 900,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(r.status).toBe('requires_action');
    expect(r.challengeForm?.action).toBe(`${h.fake.url}/cgi/RemoteMPI.cgi`);
    expect(r.challengeForm?.fields).toMatchObject({
      IdMerchant: ACCOUNT.identifier,
      Amount: '900',
      Currency: '978',
      URLRetour: RETURN_URL,
      CCNumber: decodePaymentMethod(a.paymentMethodId)!.token,
    });
    expect(r.challengeForm?.fields.URLHttpDirect).toMatch(/\/api\/psp\/psa_[0-9a-f-]+\/notifications$/);
    expect(JSON.stringify(r)).not.toContain('4000000000000002');
    // A notification for another transaction is not this one's authentication.
    const other = await h.connector.retrieve(
      { transactionId: r.transactionId, pspState: r.pspState! },
      { notification: { kind: 'remote_mpi', idSession: signedSession('Cother', ACCOUNT.cle), id3d: 'x', authenticated: true } },
    );
    expect(other.status).toBe('requires_action');
  });

  it('refuses wrong credentials (CODEREPONSE 00006) as a verification failure, and accepts the right ones', async () => {
    expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
    const v = await h.connectorWith({ cle: 'WrongKey99' }).verifyCredentials();
    expect(v.ok).toBe(false);
    const e = await h
      .connectorWith({ rank: '043' })
      .attachPaymentMethod({ idempotencyKey: key(), card: PAYBOX_CARDS.success })
      .catch((x: unknown) => x);
    expect((e as PspIntegrationError).code).toBe('bad_credentials');
  });

  it('a retrieve without the stored state is unknown_transaction (Paybox answers a status, never the amounts)', async () => {
    const pm = await attach();
    const r = await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 300, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const e = await h.connector.retrieve(bareRef(r.transactionId)).catch((x: unknown) => x);
    expect((e as PspIntegrationError).code).toBe('unknown_transaction');
  });

  it('an authorisation whose answer was lost is found by its REFERENCE (TYPE 00011), not sent twice', async () => {
    const pm = await attach();
    const k = key();
    h.fake.failNext('timeout_after_processing', 1, '00053');
    const fast = h.connectorWith({}, 500);
    const e = await fast
      .authorize({ idempotencyKey: k, paymentMethodId: pm, amountCents: 1100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL })
      .catch((x: unknown) => x);
    expect((e as PspIntegrationError).code).toBe('unreachable');
    const before = h.fake.transactionCount;
    const r = await h.connector.authorize({ idempotencyKey: k, paymentMethodId: pm, amountCents: 1100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL });
    expect(r.status).toBe('captured');
    expect(h.fake.transactionCount).toBe(before);
    expect(h.fake.requests.at(-1)!.params.TYPE).toBe('00011');
  });

  it('a registration whose answer was lost is registered afresh (the token was never seen): one subscriber, a working card', async () => {
    const k = key();
    h.fake.failNext('timeout_after_processing', 1, '00056');
    const e = await h
      .connectorWith({}, 500)
      .attachPaymentMethod({ idempotencyKey: k, card: PAYBOX_CARDS.success })
      .catch((x: unknown) => x);
    expect((e as PspIntegrationError).code).toBe('unreachable');
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: k, card: PAYBOX_CARDS.success });
    if (!a.ok) throw new Error(a.message);
    const types = h.fake.requests.slice(-4).map((r) => r.params.TYPE);
    expect(types).toEqual(['00056', '00058', '00056', '00055']);
    const r = await h.connector.chargeOffSession({ idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents: 250, currency: 'EUR' });
    expect(r.status).toBe('captured');
  });

  it('a capture whose answer was lost is reconciled from the status, not sent twice', async () => {
    const pm = await attach();
    const r = await h.connector.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1000, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL });
    const k = key();
    h.fake.failNext('timeout_after_processing', 1, '00052');
    const ref = { transactionId: r.transactionId, pspState: r.pspState! };
    const e = await h
      .connectorWith({}, 500)
      .capture({ idempotencyKey: k, transaction: ref, amountCents: 600 })
      .catch((x: unknown) => x);
    expect((e as PspIntegrationError).code).toBe('unreachable');
    const c = await h.connector.capture({ idempotencyKey: k, transaction: ref, amountCents: 600 });
    expect(c).toMatchObject({ status: 'captured', capturedCents: 600 });
    expect(h.fake.requests.filter((x) => x.params.TYPE === '00052' && x.params.NUMTRANS === (r.pspState as { numTrans: string }).numTrans)).toHaveLength(1);
  });

  /** A payment of 1000 captured at once, as Chipin stores it. */
  async function captured(): Promise<{ transactionId: string; pspState: NonNullable<TransactionResult['pspState']> }> {
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: await attach(),
      amountCents: 1000,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: RETURN_URL,
    });
    expect(r.status).toBe('captured');
    return { transactionId: r.transactionId, pspState: r.pspState! };
  }
  const refundsOf = (ref: { pspState: unknown }) =>
    h.fake.requests.filter((x) => x.params.TYPE === '00014' && x.params.NUMTRANS === (ref.pspState as { numTrans: string }).numTrans);

  it('a refund carries a REFERENCE of its own, derived from its key; one whose answer was lost is found by it (TYPE 00011) by a new process: one refund', async () => {
    const ref = await captured();
    const k = key();
    h.fake.failNext('timeout_after_processing', 1, '00014');
    const e = await h
      .connectorWith({}, 500)
      .refund({ idempotencyKey: k, transaction: ref, amountCents: 300 })
      .catch((x: unknown) => x);
    expect((e as PspIntegrationError).code).toBe('unreachable');
    const again = await h.fresh().refund({ idempotencyKey: k, transaction: ref, amountCents: 300 });
    expect(again.decline).toBeUndefined();
    expect(again).toMatchObject({ status: 'refunded', capturedCents: 1000, refundedCents: 300 });
    expect(refundsOf(ref)).toHaveLength(1);
    const sent = refundsOf(ref)[0]!.params;
    expect(sent.REFERENCE).not.toBe(ref.transactionId);
    expect(h.fake.refunds.filter((t) => t.reference === sent.REFERENCE).map((t) => t.amount)).toEqual([300]);
    expect(h.fake.requests.at(-1)!.params).toMatchObject({ TYPE: '00011', REFERENCE: sent.REFERENCE, MONTANT: '0000000300' });
  });

  it('a second partial refund whose answer was lost (the status says Remboursé either way) is found by its REFERENCE: not sent twice', async () => {
    const ref = await captured();
    const first = await h.connector.refund({ idempotencyKey: key(), transaction: ref, amountCents: 200 });
    const afterFirst = { transactionId: ref.transactionId, pspState: first.pspState! };
    const k = key();
    h.fake.failNext('timeout_after_processing', 1, '00014');
    await expect(h.connectorWith({}, 500).refund({ idempotencyKey: k, transaction: afterFirst, amountCents: 200 })).rejects.toMatchObject({ code: 'unreachable' });
    const again = await h.fresh().refund({ idempotencyKey: k, transaction: afterFirst, amountCents: 200 });
    expect(again).toMatchObject({ status: 'refunded', capturedCents: 1000, refundedCents: 400 });
    expect(refundsOf(ref)).toHaveLength(2);
    expect(h.fake.transactionByReference(ref.transactionId)!.refunded).toBe(400);
  });

  it('a second partial refund that never reached Paybox is sent on the retry', async () => {
    const ref = await captured();
    const first = await h.connector.refund({ idempotencyKey: key(), transaction: ref, amountCents: 200 });
    const afterFirst = { transactionId: ref.transactionId, pspState: first.pspState! };
    const k = key();
    h.fake.failNext('timeout', 1, '00014');
    await expect(h.connectorWith({}, 500).refund({ idempotencyKey: k, transaction: afterFirst, amountCents: 200 })).rejects.toMatchObject({ code: 'unreachable' });
    expect(h.fake.transactionByReference(ref.transactionId)!.refunded).toBe(200);
    const again = await h.fresh().refund({ idempotencyKey: k, transaction: afterFirst, amountCents: 200 });
    expect(again).toMatchObject({ status: 'refunded', refundedCents: 400 });
    expect(h.fake.transactionByReference(ref.transactionId)!.refunded).toBe(400);
  });

  it('a 5xx page or an answer that is not PPPS is a fault, not a refusal', async () => {
    h.fake.failNext('server_error', 1, '00056');
    const e1 = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYBOX_CARDS.success }).catch((x: unknown) => x);
    expect((e1 as PspIntegrationError).code).toBe('unreachable');
    h.fake.failNext('malformed', 1, '00056');
    const e2 = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYBOX_CARDS.success }).catch((x: unknown) => x);
    expect((e2 as PspIntegrationError).code).toBe('bad_response');
  });

  it('refuses an answer to another question (NUMQUESTION not echoed) as bad_response', async () => {
    h.fake.failNext('other_question', 1, '00056');
    const e = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: PAYBOX_CARDS.success }).catch((x: unknown) => x);
    expect((e as PspIntegrationError).code).toBe('bad_response');
  });

  it('never shows its key: not in JSON, String() or errors', async () => {
    const shown = [JSON.stringify(h.connector), String(h.connector)];
    const e = await h
      .connectorWith({ cle: 'WrongKey99' })
      .attachPaymentMethod({ idempotencyKey: key(), card: PAYBOX_CARDS.success })
      .catch((x: unknown) => x);
    shown.push(String(e));
    for (const s of shown) {
      expect(s).not.toContain(ACCOUNT.cle);
      expect(s).not.toContain('WrongKey99');
    }
  });
});
