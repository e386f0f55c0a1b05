import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError, type CardInput, type DeclineReason, type TransactionStatus } from '../../src/psp/connector.ts';
import { SANDBOX_HOLD_DAYS, SandboxPsp } from '../../src/psp/sandbox/connector.ts';
import { cardBrand, checkCard } from '../../src/psp/sandbox/cards.ts';
import { luhnValid } from '../../src/psp/kit/card-checks.ts';
import { toDeclineReason, toStatus, type SandboxDeclineCode, type SandboxStatus } from '../../src/psp/sandbox/mapping.ts';
import { describeConnectorContract } from './connector-contract.ts';
import { SANDBOX_CARDS, testCard } from './fixtures/sandbox/cards.ts';
import { ManualClock, PUBLIC_URL, sandboxHarness, type SandboxHarness } from './fixtures/sandbox/harness.ts';
import { bareRef } from './connector-contract.ts';

describeConnectorContract('sandbox', sandboxHarness);

const key = () => `test-${randomUUID()}`;

describe('sandbox PSP card checks', () => {
  const now = new Date('2026-05-15T12:00:00Z');
  const base: CardInput = { number: '4242 4242 4242 4242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Ada' };
  const cases: [string, Partial<CardInput>, DeclineReason | 'ok'][] = [
    ['spaces are ignored', { number: '4242 4242 4242 4242' }, 'ok'],
    ['no spaces', { number: '4242424242424242' }, 'ok'],
    ['a Luhn-valid 12-digit number', { number: '424242424242' }, 'ok'],
    ['a Luhn-valid 19-digit number', { number: '4242424242424242428' }, 'ok'],
    ['11 digits', { number: '42424242426' }, 'invalid_card'],
    ['20 digits', { number: '42424242424242424242' }, 'invalid_card'],
    ['a wrong check digit', { number: '4242 4242 4242 4241' }, 'invalid_card'],
    ['dashes', { number: '4242-4242-4242-4242' }, 'invalid_card'],
    ['letters', { number: '4242 4242 4242 424a' }, 'invalid_card'],
    ['empty', { number: '' }, 'invalid_card'],
    ['last month', { expMonth: 4, expYear: 2026 }, 'expired_card'],
    ['this month is still valid', { expMonth: 5, expYear: 2026 }, 'ok'],
    ['a two-digit year', { expMonth: 1, expYear: 27 }, 'ok'],
    ['a two-digit past year', { expMonth: 1, expYear: 25 }, 'expired_card'],
    ['month 13', { expMonth: 13 }, 'expired_card'],
    ['month 0', { expMonth: 0 }, 'expired_card'],
    ['a 4-digit CVC', { cvc: '1234' }, 'ok'],
    ['a 2-digit CVC', { cvc: '12' }, 'incorrect_cvc'],
    ['a 5-digit CVC', { cvc: '12345' }, 'incorrect_cvc'],
    ['letters in the CVC', { cvc: '12a' }, 'incorrect_cvc'],
    ['the number is checked before expiry and CVC', { number: '1', expYear: 2001, cvc: 'x' }, 'invalid_card'],
    ['expiry is checked before the CVC', { expYear: 2001, cvc: 'x' }, 'expired_card'],
    ['an Amex without 3-D Secure (the integration guide’s failing card)', { number: '3782 822463 10005', cvc: '2222' }, 'authentication_failed'],
    ['its expiry is checked first', { number: '378282246310005', expYear: 2001 }, 'expired_card'],
    ['another Amex', { number: '371449635398431', cvc: '2222' }, 'ok'],
  ];
  it.each(cases)('%s', (_name, change, expected) => {
    const r = checkCard({ ...base, ...change }, now);
    if (expected === 'ok') expect(r.ok).toBe(true);
    else expect(!r.ok && toDeclineReason(r.code)).toBe(expected);
  });

  it('Luhn: appending the right check digit always gives a valid number, any other digit an invalid one', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{11,18}$/), fc.integer({ min: 1, max: 9 }), (body, shift) => {
        const good = [...'0123456789'].find((d) => luhnValid(body + d))!;
        expect(good).toBeDefined();
        expect(luhnValid(body + String((Number(good) + shift) % 10))).toBe(false);
      }),
    );
  });

  it('names the brand from the leading digits', () => {
    expect(cardBrand('4242424242424242')).toBe('visa');
    expect(cardBrand('5555555555554444')).toBe('mastercard');
    expect(cardBrand('2223003122003222')).toBe('mastercard');
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(cardBrand('6011111111111117')).toBe('discover');
    expect(cardBrand('3056930009020004')).toBe('unknown');
  });
});

describe('sandbox PSP mapping', () => {
  it('maps every sandbox status and refusal code onto Chipin’s', () => {
    const statuses: Record<SandboxStatus, TransactionStatus> = {
      pending_authentication: 'requires_action',
      held: 'authorized',
      settled: 'captured',
      cancelled: 'voided',
      failed: 'declined',
      lapsed: 'expired',
    };
    for (const [s, ours] of Object.entries(statuses)) expect(toStatus(s as SandboxStatus, 0)).toBe(ours);
    expect(toStatus('settled', 1)).toBe('refunded');
    const codes: Record<SandboxDeclineCode, DeclineReason> = {
      do_not_honor: 'card_declined',
      insufficient_funds: 'insufficient_funds',
      expired_card: 'expired_card',
      incorrect_cvc: 'incorrect_cvc',
      invalid_number: 'invalid_card',
      authentication_failed: 'authentication_failed',
      authorization_lapsed: 'authorization_expired',
      exceeds_available: 'amount_too_large',
      processing_error: 'processing_error',
    };
    for (const [c, ours] of Object.entries(codes)) expect(toDeclineReason(c as SandboxDeclineCode)).toBe(ours);
  });
});

describe('sandbox PSP', () => {
  let h: SandboxHarness;
  let psp: SandboxPsp;
  beforeAll(async () => {
    h = await sandboxHarness();
    psp = h.connector;
  });
  afterAll(() => h?.teardown());

  async function attach(card: CardInput): Promise<string> {
    const a = await psp.attachPaymentMethod({ idempotencyKey: key(), card });
    if (!a.ok) throw new Error(a.reason);
    return a.paymentMethodId;
  }
  const authorize = (paymentMethodId: string, amountCents: number, capture: 'automatic' | 'manual', returnUrl = 'https://shop.example/back') =>
    psp.authorize({ idempotencyKey: key(), paymentMethodId, amountCents, currency: 'EUR', capture, returnUrl });

  it('approves an unknown Luhn-valid number like 4242 4242 4242 4242, with its brand', async () => {
    const a = await psp.attachPaymentMethod({ idempotencyKey: key(), card: testCard('5555 5555 5555 4444') });
    expect(a).toMatchObject({ ok: true, brand: 'mastercard', last4: '4444' });
    const r = await authorize((a as { paymentMethodId: string }).paymentMethodId, 999, 'automatic');
    expect(r.status).toBe('captured');
    const off = await psp.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: (a as { paymentMethodId: string }).paymentMethodId,
      amountCents: 5,
      currency: 'JPY',
      storedCredential: { initialTransactionId: r.transactionId },
    });
    expect(off.status).toBe('captured');
  });

  it('charges the 3-D Secure card off session without a challenge (the shopper authenticated on the first payment)', async () => {
    const pm = await attach(SANDBOX_CARDS.challenge);
    const cit = await psp.authorize({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 100,
      currency: 'EUR',
      capture: 'automatic',
      returnUrl: 'https://shop.example/back',
      storeForLater: true,
    });
    // Before the shopper authenticated, nothing is stored: a merchant-initiated charge is refused.
    const early = await psp.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 100,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId },
    });
    expect(early.decline?.reason).toBe('authentication_failed');
    await h.completeChallenge(bareRef(cit.transactionId));
    const r = await psp.chargeOffSession({
      idempotencyKey: key(),
      paymentMethodId: pm,
      amountCents: 100,
      currency: 'EUR',
      storedCredential: { initialTransactionId: cit.transactionId },
    });
    expect(r.status).toBe('captured');
  });

  it('refuses a merchant-initiated charge without a reference to the customer-initiated one that stored the card (PSD2)', async () => {
    const pm = await attach(SANDBOX_CARDS.success);
    const other = await attach(SANDBOX_CARDS.success);
    const cit = await authorize(other, 100, 'automatic');
    for (const storedCredential of [undefined, { initialTransactionId: 'sbx_txn_00000000-0000-4000-8000-000000000000' }, { initialTransactionId: cit.transactionId }]) {
      const r = await psp.chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR', ...(storedCredential ? { storedCredential } : {}) });
      expect(r.status).toBe('declined');
      expect(r.decline?.reason).toBe('authentication_failed');
      expect(r.capturedCents).toBe(0);
    }
  });

  it('refuses the declined and no-funds cards off session too', async () => {
    for (const [card, reason] of [
      [SANDBOX_CARDS.declined, 'card_declined'],
      [SANDBOX_CARDS.insufficientFunds, 'insufficient_funds'],
    ] as const) {
      const r = await psp.chargeOffSession({ idempotencyKey: key(), paymentMethodId: await attach(card), amountCents: 100, currency: 'EUR' });
      expect(r.status).toBe('declined');
      expect(r.decline?.reason).toBe(reason);
    }
  });

  it('a manual hold expires exactly 7 days after authorisation, by the clock it was given', async () => {
    const r = await authorize(await attach(SANDBOX_CARDS.success), 100, 'manual');
    expect(r.expiresAt?.getTime()).toBe(h.clock.now().getTime() + SANDBOX_HOLD_DAYS * 86_400_000);
    h.clock.advance(SANDBOX_HOLD_DAYS * 86_400_000 - 1);
    expect((await psp.retrieve(bareRef(r.transactionId))).status).toBe('authorized');
    h.clock.advance(1);
    expect((await psp.retrieve(bareRef(r.transactionId))).status).toBe('expired');
  });

  it('the challenge URL is the public URL’s challenge page of the transaction', async () => {
    const r = await authorize(await attach(SANDBOX_CARDS.challenge), 100, 'automatic');
    expect(r.challengeUrl).toBe(`${PUBLIC_URL}/sandbox-psp/challenge/${r.transactionId}`);
  });

  it('voiding a pending challenge cancels it, and the challenge can no longer change it', async () => {
    const r = await authorize(await attach(SANDBOX_CARDS.challenge), 100, 'automatic');
    const v = await psp.void({ idempotencyKey: key(), transaction: bareRef(r.transactionId) });
    expect(v.status).toBe('voided');
    const view = await psp.challengeView(r.transactionId);
    expect(view?.pending).toBe(false);
    expect(await psp.resolveChallenge(r.transactionId, view!.token, 'complete')).toMatchObject({ ok: true, changed: false });
    expect((await psp.retrieve(bareRef(r.transactionId))).status).toBe('voided');
  });

  it('refuses a challenge answer with a wrong token and changes nothing', async () => {
    const r = await authorize(await attach(SANDBOX_CARDS.challenge), 100, 'automatic');
    expect(await psp.resolveChallenge(r.transactionId, 'forged', 'complete')).toEqual({ ok: false, reason: 'bad_token' });
    expect(await psp.resolveChallenge(r.transactionId, '', 'complete')).toEqual({ ok: false, reason: 'bad_token' });
    expect((await psp.retrieve(bareRef(r.transactionId))).status).toBe('requires_action');
  });

  it('refuses an idempotency key reused with other parameters', async () => {
    const r = await authorize(await attach(SANDBOX_CARDS.success), 1000, 'manual');
    const k = key();
    await psp.capture({ idempotencyKey: k, transaction: bareRef(r.transactionId), amountCents: 100 });
    const err = await psp.capture({ idempotencyKey: k, transaction: bareRef(r.transactionId), amountCents: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect((err as PspIntegrationError).code).toBe('idempotency_conflict');
    // The same key for another operation is another key.
    const refund = await psp.refund({ idempotencyKey: k, transaction: bareRef(r.transactionId), amountCents: 100 });
    expect(refund.refundedCents).toBe(100);
  });

  it('an unknown payment method is an integration fault, not a refusal', async () => {
    const err = await authorize('sbx_pm_nope', 100, 'automatic').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect((err as PspIntegrationError).code).toBe('unknown_payment_method');
  });

  it('rejects programming errors (bad amount, currency, return URL) before touching anything', async () => {
    const pm = await attach(SANDBOX_CARDS.success);
    await expect(authorize(pm, 0, 'automatic')).rejects.toThrow(RangeError);
    await expect(authorize(pm, 1.5, 'automatic')).rejects.toThrow(RangeError);
    await expect(
      psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1, currency: 'EURO', capture: 'automatic', returnUrl: 'https://x.example' }),
    ).rejects.toThrow(RangeError);
    await expect(authorize(pm, 100, 'automatic', 'javascript:alert(1)')).rejects.toThrow(RangeError);
    await expect(psp.attachPaymentMethod({ idempotencyKey: '', card: SANDBOX_CARDS.success })).rejects.toThrow(RangeError);
  });

  it('refuses bad options at construction (boot)', () => {
    expect(() => new SandboxPsp({ db: h.db, clock: h.clock, publicUrl: 'not a url', notificationSecret: h.secret })).toThrow(/publicUrl/);
    expect(() => new SandboxPsp({ db: h.db, clock: h.clock, publicUrl: 'ftp://x', notificationSecret: h.secret })).toThrow(/publicUrl/);
    expect(() => new SandboxPsp({ db: h.db, clock: h.clock, publicUrl: PUBLIC_URL, notificationSecret: Buffer.alloc(16) })).toThrow(/notificationSecret/);
  });

  it('keeps its state in the database: another instance (a restart, a second process) sees it and replays its keys', async () => {
    const other = await h.another();
    try {
      const r = await authorize(await attach(SANDBOX_CARDS.success), 1000, 'manual');
      expect((await other.connector.retrieve(bareRef(r.transactionId))).status).toBe('authorized');
      const k = key();
      const a = await other.connector.capture({ idempotencyKey: k, transaction: bareRef(r.transactionId), amountCents: 700 });
      const b = await psp.capture({ idempotencyKey: k, transaction: bareRef(r.transactionId), amountCents: 700 });
      expect(b).toEqual(a);
      expect((await psp.retrieve(bareRef(r.transactionId))).capturedCents).toBe(700);
    } finally {
      await other.close();
    }
  });

  it('never over-refunds under concurrent refunds from two processes, and one key is one effect even when raced', async () => {
    const other = await h.another();
    try {
      const r = await authorize(await attach(SANDBOX_CARDS.success), 1000, 'automatic');
      const attempts = Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? other.connector : psp).refund({ idempotencyKey: key(), transaction: bareRef(r.transactionId), amountCents: 300 }),
      );
      const results = await Promise.all(attempts);
      expect(results.filter((x) => !x.decline)).toHaveLength(3);
      expect((await psp.retrieve(bareRef(r.transactionId))).refundedCents).toBe(900);

      const k = key();
      const raced = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? other.connector : psp).refund({ idempotencyKey: k, transaction: bareRef(r.transactionId), amountCents: 50 })),
      );
      for (const x of raced) expect(x).toEqual(raced[0]);
      expect((await psp.retrieve(bareRef(r.transactionId))).refundedCents).toBe(950);
    } finally {
      await other.close();
    }
  });

  it('stores no card number and no CVC in any sandbox table', async () => {
    const cvc = '8642';
    const numbers = [...Object.values(SANDBOX_CARDS).map((c) => c.number), '5555 5555 5555 4444', '4242 4242 4242 4241'];
    for (const number of numbers) {
      const a = await psp.attachPaymentMethod({ idempotencyKey: key(), card: testCard(number, cvc) });
      if (a.ok) {
        const r = await authorize(a.paymentMethodId, 100, 'manual');
        await psp.chargeOffSession({ idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents: 100, currency: 'EUR' });
        if (r.status === 'requires_action') await h.completeChallenge(bareRef(r.transactionId));
      }
    }
    await psp.attachPaymentMethod({ idempotencyKey: key(), card: testCard('4242 4242 4242 4242', '864') });
    await psp.attachPaymentMethod({ idempotencyKey: key(), card: testCard('4242 4242 4242 4242', '86420') }); // refused: incorrect_cvc

    const { rows: tables } = await h.db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'sandbox_psp%' AND table_schema = current_schema() ORDER BY 1",
    );
    expect(tables.map((t) => t.table_name)).toEqual(['sandbox_psp_disputes', 'sandbox_psp_idempotency', 'sandbox_psp_payment_methods', 'sandbox_psp_transactions']);
    const { rows: columns } = await h.db.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name LIKE 'sandbox_psp%' AND table_schema = current_schema()",
    );
    for (const c of columns) expect(c.column_name).not.toMatch(/number|pan|cvc|cvv|security/i);

    // Identifier and token columns have fixed shapes (checked below), so they cannot carry card data.
    const ID = /^sbx_(pm|txn|dp)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const shapes: Record<string, RegExp> = {
      id: ID,
      payment_method_id: ID,
      transaction_id: ID,
      challenge_token: /^[A-Za-z0-9_-]{32}$/,
      fingerprint: /^[0-9a-f]{64}$/,
    };
    const cvcAlone = new RegExp(`(?<![0-9A-Za-z])(${cvc}|864|86420)(?![0-9A-Za-z])`);
    let seen = 0;
    for (const { table_name } of tables) {
      const { rows } = await h.db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM ${table_name} t`);
      for (const { row } of rows) {
        seen++;
        const values = JSON.parse(row) as Record<string, unknown>;
        for (const [col, value] of Object.entries(values)) {
          if (value === null) continue;
          if (col === 'idempotency_key') continue; // chosen by the caller (here: test-<uuid>)
          if (shapes[col]) {
            expect(String(value)).toMatch(shapes[col]!);
            continue;
          }
          // Stored results hold ids (a uuid's last group may be all digits): blank those out.
          const text = JSON.stringify(value).replace(/sbx_(pm|txn)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');
          expect(text, col).not.toMatch(/[0-9]{12,}/); // no card number, whole or in part
          expect(text, col).not.toMatch(cvcAlone);
        }
      }
    }
    expect(seen).toBeGreaterThan(10);
  });

  describe('notifications', () => {
    it('verifies its own signed notification and reads the status in Chipin’s words', async () => {
      const r = await authorize(await attach(SANDBOX_CARDS.success), 500, 'manual');
      const n = await psp.notificationFor(r.transactionId);
      expect(n.headers['sandbox-psp-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(await psp.verifyNotification(n)).toEqual({ ok: true, transactionId: r.transactionId, status: 'authorized' });
      // Header names are case-insensitive.
      const upper = { 'Sandbox-PSP-Signature': n.headers['sandbox-psp-signature'] };
      expect((await psp.verifyNotification({ headers: upper, rawBody: n.rawBody })).ok).toBe(true);
    });

    it('refuses a changed body, another key, a missing or garbled header, and a stale one', async () => {
      const r = await authorize(await attach(SANDBOX_CARDS.success), 500, 'automatic');
      const n = await psp.notificationFor(r.transactionId);
      const sig = n.headers['sandbox-psp-signature']!;
      expect(await psp.verifyNotification({ headers: n.headers, rawBody: n.rawBody.replace('settled', 'cancelled') })).toEqual({ ok: false, reason: 'bad_signature' });
      const stranger = new SandboxPsp({ db: h.db, clock: h.clock, publicUrl: PUBLIC_URL, notificationSecret: Buffer.alloc(32, 7) });
      expect(await stranger.verifyNotification(n)).toEqual({ ok: false, reason: 'bad_signature' });
      expect(await psp.verifyNotification({ headers: {}, rawBody: n.rawBody })).toEqual({ ok: false, reason: 'malformed' });
      for (const bad of ['v1=abc', 't=1', 'garbage', `t=x,${sig.split(',')[1]}`]) {
        expect(await psp.verifyNotification({ headers: { 'sandbox-psp-signature': bad }, rawBody: n.rawBody })).toEqual({ ok: false, reason: 'malformed' });
      }
      // A rotated-in second signature may sit beside the good one.
      const rotated = `${sig},v1=${'0'.repeat(64)}`;
      expect((await psp.verifyNotification({ headers: { 'sandbox-psp-signature': rotated }, rawBody: n.rawBody })).ok).toBe(true);
      h.clock.advance(4 * 60_000); // within the 5 minutes
      expect((await psp.verifyNotification(n)).ok).toBe(true);
      h.clock.advance(62_000);
      expect(await psp.verifyNotification(n)).toEqual({ ok: false, reason: 'stale' });
    });

    it('reads the recorded notification fixture', async () => {
      const fixture = (await import('./fixtures/sandbox/notification-transaction-updated.json', { with: { type: 'json' } })).default;
      const at = new ManualClock(new Date(fixture.received_at));
      const reader = new SandboxPsp({ db: h.db, clock: at, publicUrl: PUBLIC_URL, notificationSecret: Buffer.from(fixture.secret_hex, 'hex') });
      expect(await reader.verifyNotification({ headers: fixture.headers, rawBody: fixture.raw_body })).toEqual({
        ok: true,
        transactionId: 'sbx_txn_0b6a2c52-6f43-4a53-9a43-8f1b7f6c2d10',
        status: 'refunded',
      });
      expect(await reader.verifyNotification({ headers: fixture.headers, rawBody: fixture.raw_body + ' ' })).toEqual({ ok: false, reason: 'bad_signature' });
    });
  });
});
