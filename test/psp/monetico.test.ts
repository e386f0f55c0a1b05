import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, type DeclineReason, type TransactionResult, type TransactionStatus } from '../../src/psp/connector.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import { moneticoDefinition } from '../../src/psp/monetico/definition.ts';
import {
  PAYMENT_STATES,
  REFUSAL_MOTIVES,
  computeMac,
  fromMoneticoAmount,
  macMatches,
  macText,
  orderReference,
  paymentOutcome,
  PAYMENT_CDRS,
  toDeclineReason,
  toMoneticoAmount,
  toStatus,
  usableKey,
  type PaymentState,
} from '../../src/psp/monetico/mapping.ts';
import { MONETICO_ACK, verifyReturn } from '../../src/psp/monetico/notifications.ts';
import { describeConnectorContract, StoredStates } from './connector-contract.ts';
import { caller, minimalPurchase } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ACCOUNT, MONETICO_CARDS, moneticoHarness, type MoneticoHarness } from './fixtures/monetico/harness.ts';

describeConnectorContract('monetico', moneticoHarness);

const key = () => `test-${randomUUID()}`;

describe('monetico MAC', () => {
  const fields = { TPE: '0000001', date: '05/01/2026:10:00:00', montant: '10.00EUR', reference: 'ABC123', societe: 'chipintest', version: '3.0' };

  it('seals the fields sorted by name, `name=value` joined by `*`, MAC itself left out', () => {
    expect(macText({ ...fields, MAC: 'X' })).toBe('TPE=0000001*date=05/01/2026:10:00:00*montant=10.00EUR*reference=ABC123*societe=chipintest*version=3.0');
  });

  it('is HMAC-SHA1 keyed with the 20 bytes the 40 hex characters spell, upper-case hex (vector computed with openssl dgst -sha1 -mac HMAC)', () => {
    // No test vector is published; this one comes from an independent implementation (OpenSSL).
    expect(computeMac(fields, '0123456789ABCDEF0123456789ABCDEF01234567')).toBe('4067761D02222AC383A755922CC91A9540E77DA3');
    expect(computeMac(fields, '1234567890123456789012345678901234567890')).toBe('9647D7CF4F27FD8681B934FFD4918BB94846772E');
  });

  it('derives the usable key of an older key as Euro-Information’s kits do (a final letter shifted by 23, a final M as 0)', () => {
    expect(usableKey('12345678901234567890123456789012345678P0').toString('hex')).toBe('1234567890123456789012345678901234567890');
    expect(usableKey('123456789012345678901234567890123456789M').toString('hex')).toBe('1234567890123456789012345678901234567890');
    expect(usableKey('0123456789ABCDEF0123456789ABCDEF01234567').toString('hex')).toBe('0123456789abcdef0123456789abcdef01234567');
  });

  it('any change of a field name or value breaks the MAC', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[A-Za-z_-]{1,12}$/), fc.string({ maxLength: 20 }), { minKeys: 1, maxKeys: 8 }),
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 5 }),
        (f, pick, extra) => {
          const names = Object.keys(f).filter((k) => k !== 'MAC');
          fc.pre(names.length > 0);
          const mac = computeMac(f, ACCOUNT.key);
          expect(macMatches({ ...f, MAC: mac }, ACCOUNT.key)).toBe(true);
          expect(macMatches({ ...f, MAC: mac.toLowerCase() }, ACCOUNT.key)).toBe(true);
          const name = names[pick % names.length]!;
          expect(macMatches({ ...f, [name]: f[name] + extra, MAC: mac }, ACCOUNT.key)).toBe(false);
          expect(macMatches({ ...f, [`${name}x`]: f[name]!, MAC: mac }, ACCOUNT.key)).toBe(false);
          expect(macMatches({ ...f, MAC: mac }, '0123456789ABCDEF0123456789ABCDEF01234568')).toBe(false);
        },
      ),
    );
  });
});

describe('monetico amounts', () => {
  it('writes "10.00EUR" from minor units, exactly', () => {
    expect(toMoneticoAmount(1000, 'EUR')).toBe('10.00EUR');
    expect(toMoneticoAmount(1, 'EUR')).toBe('0.01EUR');
    expect(toMoneticoAmount(0, 'EUR')).toBe('0.00EUR');
    expect(toMoneticoAmount(123456789, 'USD')).toBe('1234567.89USD');
    expect(toMoneticoAmount(500, 'JPY')).toBe('500JPY');
    expect(() => toMoneticoAmount(1000, 'KWD')).toThrow(RangeError);
    expect(() => toMoneticoAmount(10.5, 'EUR')).toThrow(RangeError);
  });

  it('reads the forms the reference shows ("95.25EUR", "42EUR", "10.5EUR", a trailing space)', () => {
    expect(fromMoneticoAmount('95.25EUR')).toEqual({ amountCents: 9525, currency: 'EUR' });
    expect(fromMoneticoAmount('42EUR')).toEqual({ amountCents: 4200, currency: 'EUR' });
    expect(fromMoneticoAmount('10.5EUR')).toEqual({ amountCents: 1050, currency: 'EUR' });
    expect(fromMoneticoAmount('10EUR ')).toEqual({ amountCents: 1000, currency: 'EUR' });
    expect(fromMoneticoAmount('10,00EUR')).toBeUndefined();
    expect(fromMoneticoAmount('10.001EUR')).toBeUndefined();
    expect(fromMoneticoAmount('10.00')).toBeUndefined();
    expect(fromMoneticoAmount('10.00XXX')).toBeUndefined();
  });

  it('round-trips every integer amount of minor units (no float anywhere)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_999_999_999_999 }), fc.constantFrom('EUR', 'USD', 'GBP', 'CHF', 'JPY'), (cents, currency) => {
        const text = toMoneticoAmount(cents, currency);
        expect(text).toMatch(/^[0-9]+(\.[0-9]{1,2})?[A-Z]{3}$/);
        expect(fromMoneticoAmount(text)).toEqual({ amountCents: cents, currency });
      }),
    );
  });
});

describe('monetico mapping', () => {
  it('maps every payment state onto ours', () => {
    const table: Record<PaymentState, TransactionStatus> = { PA: 'authorized', AN: 'voided', RE: 'declined', GR: 'declined', AP: 'declined', EC: 'requires_action' };
    expect(Object.keys(table).sort()).toEqual([...PAYMENT_STATES].sort());
    for (const s of PAYMENT_STATES) expect(toStatus(s, 0, 0, false)).toBe(table[s]);
    expect(toStatus('PA', 500, 0, false)).toBe('captured');
    expect(toStatus('PA', 500, 100, false)).toBe('refunded');
    expect(toStatus('PA', 0, 0, true)).toBe('expired');
    expect(toStatus('PA', 500, 0, true)).toBe('captured');
  });

  it('maps refusal motives and the acquirer’s answer to decline reasons', () => {
    const table: Array<[(typeof REFUSAL_MOTIVES)[number], string | undefined, DeclineReason]> = [
      ['Refus', '51', 'insufficient_funds'],
      ['Refus', '61', 'insufficient_funds'],
      ['Refus', '54', 'expired_card'],
      ['Refus', '14', 'invalid_card'],
      ['Refus', 'N7', 'incorrect_cvc'],
      ['Refus', '05', 'card_declined'],
      ['Refus', undefined, 'card_declined'],
      ['Appel Phonie', undefined, 'card_declined'],
      ['Interdit', undefined, 'card_declined'],
      ['filtrage', undefined, 'card_declined'],
      ['scoring', undefined, 'card_declined'],
      ['3DSecure', undefined, 'authentication_failed'],
    ];
    for (const [motive, code, reason] of table) expect(toDeclineReason(motive, code)).toBe(reason);
  });

  it('reads every direct-payment cdr: a refusal, a 3-D Secure step, a duplicate, a credential refusal or a fault', () => {
    for (const cdr of PAYMENT_CDRS) expect(['accepted', 'challenge', 'refused', 'duplicate', 'credentials', 'fault']).toContain(paymentOutcome(cdr).kind);
    expect(paymentOutcome('-3')).toEqual({ kind: 'credentials' });
    expect(paymentOutcome('-5')).toEqual({ kind: 'refused', reason: 'invalid_card' });
  });

  it('derives a 12-character alphanumeric reference per operation and key', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (k) => {
        const r = orderReference('authorize', k);
        expect(r).toMatch(/^[A-Z0-9]{12}$/);
        expect(orderReference('authorize', k)).toBe(r);
        expect(orderReference('charge', k)).not.toBe(r);
      }),
    );
  });
});

describe('monetico return interface (CGI2)', () => {
  const sealed = (f: Record<string, string>, k = ACCOUNT.key) => new URLSearchParams({ ...f, MAC: computeMac(f, k) }).toString();
  const call = {
    TPE: ACCOUNT.tpe,
    date: '05/01/2026_a_10:00:00',
    montant: '10.00EUR',
    reference: 'C00000000001',
    'texte-libre': '',
    'code-retour': 'payetest',
    cvx: 'oui',
    vld: '1230',
    brand: 'VI',
    numauto: '123456',
  };

  it('accepts a call sealed with the key and answers the documented acknowledgement', () => {
    expect(verifyReturn(sealed(call), ACCOUNT.key, ACCOUNT.tpe)).toEqual({ ok: true, transactionId: 'C00000000001', status: 'authorized', ack: MONETICO_ACK });
    expect(MONETICO_ACK.body).toBe('version=2\ncdr=0\n');
    expect(verifyReturn(sealed({ ...call, 'code-retour': 'Annulation', motifrefus: 'Refus' }), ACCOUNT.key, ACCOUNT.tpe)).toMatchObject({ ok: true, status: 'declined' });
  });

  it('refuses another key, an altered field, another TPE, a missing MAC', () => {
    expect(verifyReturn(sealed(call, '1234567890123456789012345678901234567890'), ACCOUNT.key, ACCOUNT.tpe)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyReturn(sealed(call).replace('10.00EUR', '1.00EUR'), ACCOUNT.key, ACCOUNT.tpe)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyReturn(sealed({ ...call, TPE: '0000002' }), ACCOUNT.key, ACCOUNT.tpe)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyReturn(new URLSearchParams(call).toString(), ACCOUNT.key, ACCOUNT.tpe)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('monetico definition', () => {
  const valid = { tpe: '0000001', societe: 'chipintest', key: ACCOUNT.key };
  const problem = (c: Record<string, string>) => validateCredentials(moneticoDefinition, c, 'test');

  it('accepts the three fields', () => {
    expect(problem(valid)).toBeUndefined();
    expect(problem({ ...valid, key: '12345678901234567890123456789012345678P0' })).toBeUndefined();
  });

  it('names the field of every wrong value', () => {
    expect(problem({ ...valid, tpe: '000001' })?.field).toBe('credentials.tpe');
    expect(problem({ ...valid, tpe: '0000001 ' })?.field).toBe('credentials.tpe');
    expect(problem({ ...valid, societe: 'chipin test' })?.field).toBe('credentials.societe');
    expect(problem({ ...valid, key: ACCOUNT.key.slice(1) })?.field).toBe('credentials.key');
    expect(problem({ ...valid, key: `${ACCOUNT.key.slice(0, 39)}g` })?.field).toBe('credentials.key');
    expect(problem({ ...valid, key: `${ACCOUNT.key.slice(0, 38)}[0` })?.field).toBe('credentials.key');
    // A letter the older form shifts out of hexadecimal (Q–W) is refused too.
    expect(problem({ ...valid, key: `${ACCOUNT.key.slice(0, 38)}Q0` })?.field).toBe('credentials.key');
  });

  it('lists its hosts and base URLs per environment', () => {
    expect(moneticoDefinition.baseUrl('test', valid)).toBe('https://p.monetico-services.com/test');
    expect(moneticoDefinition.baseUrl('live', valid)).toBe('https://p.monetico-services.com');
    expect(moneticoDefinition.publishedHosts.live).toContain('p.monetico-services.com');
  });
});

describe('monetico connector', () => {
  let h: MoneticoHarness;
  beforeAll(async () => {
    h = await moneticoHarness();
  });
  afterAll(async () => {
    await h?.teardown();
  });

  it('seals every request with the MAC and sends no card number beyond paiement.cgi', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: MONETICO_CARDS.success });
    expect(a.ok).toBe(true);
    for (const r of h.fake.requests) {
      expect(r.fields.MAC).toMatch(/^[0-9A-F]{40}$/);
      expect(r.fields.version).toBe('3.0');
      if (r.page !== 'paiement.cgi') expect(r.fields.numero_carte).toBeUndefined();
    }
  });

  it('verifies credentials: the right ones pass, a wrong key or TPE is refused', async () => {
    expect(await h.connector.verifyCredentials()).toEqual({ ok: true });
    expect(await h.connectorWith({ key: '1234567890123456789012345678901234567890' }).verifyCredentials()).toMatchObject({ ok: false });
    expect(await h.connectorWith({ tpe: '0000009' }).verifyCredentials()).toMatchObject({ ok: false });
  });

  it('a merchant-initiated charge carries the alias and the customer-initiated payment’s reference', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: MONETICO_CARDS.success });
    if (!a.ok) throw new Error('attach refused');
    const cit = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 100,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: 'https://shop.example/r',
      storeForLater: true,
    });
    const mit = await h.connector.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 900,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId },
    });
    expect(mit.status).toBe('captured');
    const sent = h.fake.requests.filter((r) => r.page === 'paiement.cgi' && r.fields.reference === mit.transactionId);
    expect(sent[0]?.fields).toMatchObject({ aliascb: a.paymentMethodId, numero_dossier: cit.transactionId, '3dsdebrayable': '1' });
  });

  it('a merchant-initiated hold (capture manual, a re-authorisation): paiement.cgi with the alias, 3dsdebrayable and numero_dossier, not captured → authorized, then captured or cancelled; one order per key', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: MONETICO_CARDS.success });
    if (!a.ok) throw new Error('attach refused');
    const cit = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 1000,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: 'https://shop.example/r',
      storeForLater: true,
    });
    const input = {
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 800,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId },
      capture: 'manual' as const,
    };
    const hold = await h.connector.chargeOffSession(input);
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 800, capturedCents: 0 });
    const sent = h.fake.requests.filter((r) => r.fields.reference === hold.transactionId);
    expect(sent.map((r) => r.page)).not.toContain('capture_paiement.cgi');
    expect(sent.find((r) => r.page === 'paiement.cgi')?.fields).toMatchObject({ aliascb: a.paymentMethodId, numero_dossier: cit.transactionId, '3dsdebrayable': '1' });
    const count = h.fake.orderCount;
    expect((await h.connectorWith({}).chargeOffSession(input)).transactionId).toBe(hold.transactionId);
    expect(h.fake.orderCount).toBe(count);
    const ref = (r: TransactionResult) => ({ transactionId: r.transactionId, pspState: r.pspState! });
    expect(await h.connector.capture({ idempotencyKey: key(), transaction: ref(hold), amountCents: 500 })).toMatchObject({ status: 'captured', capturedCents: 500 });
    const other = await h.connector.chargeOffSession({ ...input, idempotencyKey: key(), amountCents: 300 });
    expect((await h.connector.void({ idempotencyKey: key(), transaction: ref(other) })).status).toBe('voided');
    expect(moneticoDefinition.authorizationValidity).toMatchObject({ offSessionHold: true });
  });

  it('a lost answer is reconciled by reading the order: one payment, not two', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: MONETICO_CARDS.success });
    if (!a.ok) throw new Error('attach refused');
    const k = key();
    const input = { idempotencyKey: k, paymentMethodId: a.paymentMethodId, amountCents: 700, currency: 'EUR', capture: 'manual' as const, returnUrl: 'https://shop.example/r' };
    h.fake.hangMs = 300;
    h.fake.failNext('timeout_after_processing', 1, 'paiement.cgi');
    const short = h.connectorWith({}, 200);
    const err = await short.authorize(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    const count = h.fake.orderCount;
    const r = await h.fresh().authorize(input);
    expect(r.status).toBe('authorized');
    expect(h.fake.orderCount).toBe(count);
  });

  it('answers a wrong key as bad_credentials, naming no secret', async () => {
    const bad = h.connectorWith({ key: '1234567890123456789012345678901234567890' });
    const err = await bad
      .authorize({ idempotencyKey: key(), paymentMethodId: 'chipinx', amountCents: 100, currency: 'EUR', capture: 'manual', returnUrl: 'https://shop.example/r' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect((err as PspIntegrationError).code).toBe('bad_credentials');
    expect(String((err as Error).message)).not.toContain('1234567890123456789012345678901234567890');
    expect(inspect(bad)).not.toContain(ACCOUNT.key);
    expect(JSON.stringify(bad)).not.toContain(ACCOUNT.key);
  });

  it('verifies the return-interface call Monetico makes for a payment, then the order is read again', async () => {
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: MONETICO_CARDS.success });
    if (!a.ok) throw new Error('attach refused');
    const r = await h.connector.authorize({
      idempotencyKey: key(),
      paymentMethodId: a.paymentMethodId,
      amountCents: 2500,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: 'https://shop.example/r',
    });
    const body = h.fake.returnCallFor(r.transactionId);
    const n = await h.connector.verifyNotification({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: body });
    expect(n).toEqual({ ok: true, transactionId: r.transactionId, status: 'authorized', ack: MONETICO_ACK });
    const altered = body.replace('montant=25.00EUR', 'montant=2.50EUR');
    expect(altered).not.toBe(body);
    expect(await h.connector.verifyNotification({ headers: {}, rawBody: altered })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await h.connector.verifyNotification({ headers: {}, rawBody: 'not a form' })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('the fake checks the merchant’s MAC and serves the issuer’s page to a POST only', async () => {
    const f = {
      version: '3.0',
      TPE: ACCOUNT.tpe,
      societe: ACCOUNT.societe,
      date: '05/01/2026:10:00:00',
      reference: 'CHIPINCHECK0',
      date_commande: '05/01/2026',
      montant: '0.01EUR',
    };
    const post = (body: Record<string, string>) =>
      fetch(`${h.fake.baseUrl}/etatpaiement.cgi`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body).toString(),
      }).then((r) => r.text());
    expect(await post({ ...f, MAC: computeMac(f, ACCOUNT.key) })).toContain('<cdr>-1</cdr>');
    expect(await post({ ...f, MAC: computeMac({ ...f, montant: '0.02EUR' }, ACCOUNT.key) })).toContain('<cdr>-3</cdr>');
    expect((await fetch(`${h.fake.baseUrl}/acs`)).status).toBe(405);
  });

  it('a transaction without its stored order date and amount cannot be read: unknown_transaction', async () => {
    const states = new StoredStates();
    const err = await h.connector.retrieve(states.ref('C00000000001')).catch((e: unknown) => e);
    expect((err as PspIntegrationError).code).toBe('unknown_transaction');
  });
});

describe('monetico return interface through the service (POST /api/psp/{psa_id}/notifications)', () => {
  let app: TestApp;
  let h: MoneticoHarness;
  beforeAll(async () => {
    app = await startTestApp({ jobPollIntervalMs: 0 });
    h = await moneticoHarness();
  });
  afterAll(async () => {
    await app?.close();
    await h?.teardown();
  });

  it('verifies the call with the account’s key, answers version=2 cdr=0, and refuses a forged one changing nothing', async () => {
    const m = await caller(app);
    const json = (method: 'POST' | 'PATCH', url: string, payload: unknown) =>
      app.server.inject({ method, url, headers: { authorization: m.dashboard, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    const created = await json('POST', '/api/backoffice/psp_accounts', {
      psp: 'monetico',
      environment: 'test',
      label: 'Monetico',
      credentials: { ...ACCOUNT },
      endpoint_url: h.fake.baseUrl,
    });
    expect(created.statusCode, created.body).toBe(201);
    const psa = created.json().id as string;
    const offer = m.offer('DEFERRED');
    expect((await json('PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: psa })).statusCode).toBe(200);
    const p = (await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000, merchant_uid: offer }))).json() as { id: string };
    const paid = await m.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: MONETICO_CARDS.success.number });
    expect(paid.statusCode, paid.body).toBe(200);
    const { rows } = await app.services.db.query<{ status: string; psp_transaction_id: string }>('SELECT status, psp_transaction_id FROM payments WHERE purchase_id = $1', [p.id]);
    const txn = rows[0]!.psp_transaction_id;
    expect(rows[0]!.status).toBe('authorized');

    const body = h.fake.returnCallFor(txn);
    const post = (payload: string) =>
      app.server.inject({ method: 'POST', url: `/api/psp/${psa}/notifications`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
    const forged = await post(body.replace(/MAC=([0-9A-F])/, (_m, c: string) => `MAC=${c === '0' ? '1' : '0'}`));
    expect(forged.statusCode).toBe(401);
    const ok = await post(body);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.body).toBe('version=2\ncdr=0\n');
    const after = await app.services.db.query<{ status: string }>('SELECT status FROM payments WHERE purchase_id = $1', [p.id]);
    expect(after.rows[0]!.status).toBe('authorized');
  });
});
