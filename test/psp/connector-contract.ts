import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PspIntegrationError,
  type CardInput,
  type DeclineReason,
  type OffSessionInput,
  type PspConnector,
  type PspState,
  type TransactionRef,
  type TransactionResult,
} from '../../src/psp/connector.ts';

/**
 * The behaviour every PSP connector owes Chipin (src/psp/connector.ts, docs/psp-connectors.md).
 * A connector's own test file calls {@link describeConnectorContract} with a fixture that builds
 * it against its test system (a real PSP's test mode, a recorded-fixture server, or the sandbox).
 */

export interface ContractCards {
  /** Approves on and off session. */
  success: CardInput;
  /** Refused with `card_declined`. */
  declined: CardInput;
  /** Asks for a 3-D Secure challenge on session. */
  challenge: CardInput;
  /** Refused with `insufficient_funds`. */
  insufficientFunds: CardInput;
  /** Attaches and authorises on session, but every off-session charge is refused with `card_declined`. */
  offSessionFails: CardInput;
}

export interface ConnectorFixture {
  connector: PspConnector;
  cards: ContractCards;
  /**
   * Does what the shopper does on the challenge page to pass 3-D Secure (and what Chipin does on
   * the shopper's return, where the PSP wants it told: Adyen's `/payments/details`), giving the
   * result Chipin would record then, if there is one.
   */
  completeChallenge(transaction: TransactionRef): Promise<TransactionResult | void>;
  /** Does what the shopper does on the challenge page to fail 3-D Secure (see {@link completeChallenge}). */
  failChallenge(transaction: TransactionRef): Promise<TransactionResult | void>;
  /**
   * Attaching a card is itself a customer-initiated transaction that stores it with the shopper's
   * consent (Ogone's reservation with `COF_TRANSACTION=FIRST`, Lyra's token registration, Adyen's
   * `/storedPaymentMethods`): a merchant-initiated charge then needs no other reference, and the
   * "no stored credential" refusal does not apply.
   */
  attachStoresCredential?: boolean;
  /**
   * Why the connector cannot ask for a 3-D Secure challenge from the server (Braintree: the
   * challenge runs in its client SDK): the 3-D Secure tests are skipped, saying so. Absent for
   * every connector that can.
   */
  noServerSideChallenge?: string;
  /** Moves the connector's clock (or its test system's) forward by whole days. */
  advanceDays(days: number): Promise<void>;
  /**
   * Another instance of the connector, as another process (or this one after a restart) builds it:
   * same credentials, same PSP test system, same database (operation log), nothing shared in memory.
   */
  fresh(): PspConnector;
  teardown(): Promise<void>;
}

/**
 * What Chipin's payment rows do for the contract: the `pspState` of each transaction's latest
 * result, stored as JSON (as `payments.psp_state` is) and given back in every later call.
 */
export class StoredStates {
  readonly #states = new Map<string, PspState | null>();
  /** Stores the result's state (through JSON, as the database does); gives the result back. */
  keep(r: TransactionResult): TransactionResult {
    if (r.pspState !== undefined) this.#states.set(r.transactionId, JSON.parse(JSON.stringify(r.pspState)) as PspState);
    else if (!this.#states.has(r.transactionId)) this.#states.set(r.transactionId, null);
    return r;
  }
  ref(transactionId: string): TransactionRef {
    return { transactionId, pspState: this.#states.get(transactionId) ?? null };
  }
}

/** The contract's calls on one connector, each given the stored state of its transaction and storing the new one. */
export function statefulCalls(psp: () => PspConnector, states: StoredStates) {
  return {
    capture: async (i: { idempotencyKey: string; transactionId: string; amountCents: number }) =>
      states.keep(await psp().capture({ idempotencyKey: i.idempotencyKey, transaction: states.ref(i.transactionId), amountCents: i.amountCents })),
    refund: async (i: { idempotencyKey: string; transactionId: string; amountCents: number }) =>
      states.keep(await psp().refund({ idempotencyKey: i.idempotencyKey, transaction: states.ref(i.transactionId), amountCents: i.amountCents })),
    void: async (i: { idempotencyKey: string; transactionId: string }) =>
      states.keep(await psp().void({ idempotencyKey: i.idempotencyKey, transaction: states.ref(i.transactionId) })),
    retrieve: async (transactionId: string) => states.keep(await psp().retrieve(states.ref(transactionId))),
    chargeOffSession: async (i: OffSessionInput) => states.keep(await psp().chargeOffSession(i)),
  };
}

const RETURN_URL = 'https://shop.example/return';

function key(): string {
  return `contract-${randomUUID()}`;
}

/** The parts of a transaction an operation may change. */
function state(r: TransactionResult) {
  return { transactionId: r.transactionId, status: r.status, amountCents: r.amountCents, capturedCents: r.capturedCents, refundedCents: r.refundedCents };
}

function expectRefused(r: TransactionResult, reason: DeclineReason): void {
  expect(r.decline?.reason).toBe(reason);
  expect(typeof r.decline?.message).toBe('string');
}

function expectInvariants(r: TransactionResult, amount: number): void {
  expect(r.amountCents).toBe(amount);
  expect(r.refundedCents).toBeGreaterThanOrEqual(0);
  expect(r.capturedCents).toBeGreaterThanOrEqual(r.refundedCents);
  expect(r.amountCents).toBeGreaterThanOrEqual(r.capturedCents);
}

export function describeConnectorContract(name: string, makeConnector: () => Promise<ConnectorFixture>): void {
  describe(`PSP connector contract: ${name}`, () => {
    let f: ConnectorFixture;
    let psp: PspConnector;

    const states = new StoredStates();
    const { capture, refund, void: voidTx, retrieve, chargeOffSession } = statefulCalls(() => psp, states);
    /** The challenge helpers, with the stored state, storing what they learn. */
    const challenge = async (how: 'completeChallenge' | 'failChallenge', transactionId: string) => {
      const r = await f[how](states.ref(transactionId));
      if (r) states.keep(r);
    };

    beforeAll(async () => {
      f = await makeConnector();
      psp = f.connector;
    });
    afterAll(async () => {
      await f?.teardown();
    });

    async function attach(card: CardInput): Promise<string> {
      const a = await psp.attachPaymentMethod({ idempotencyKey: key(), card });
      if (!a.ok) throw new Error(`attach refused: ${a.reason} ${a.message}`);
      return a.paymentMethodId;
    }

    async function authorize(paymentMethodId: string, amountCents: number, capture: 'automatic' | 'manual', idempotencyKey = key()) {
      return states.keep(await psp.authorize({ idempotencyKey, paymentMethodId, amountCents, currency: 'EUR', capture, returnUrl: RETURN_URL }));
    }

    /** A card stored by a customer-initiated payment (PSD2 CIT), with the reference a later merchant-initiated charge gives. */
    async function stored(card: CardInput): Promise<{ pm: string; storedCredential: { initialTransactionId: string; networkTransactionId?: string } }> {
      const pm = await attach(card);
      const cit = states.keep(
        await psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 100, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL, storeForLater: true }),
      );
      expect(cit.status).toBe('captured');
      return { pm, storedCredential: { initialTransactionId: cit.transactionId, ...(cit.networkTransactionId ? { networkTransactionId: cit.networkTransactionId } : {}) } };
    }

    async function hold(amountCents: number): Promise<TransactionResult> {
      const r = await authorize(await attach(f.cards.success), amountCents, 'manual');
      expect(r.status).toBe('authorized');
      return r;
    }

    /** The refusal of paying with `card` on session, at attach or at authorisation (PSPs differ). */
    async function refusalOf(card: CardInput): Promise<DeclineReason> {
      const a = await psp.attachPaymentMethod({ idempotencyKey: key(), card });
      if (!a.ok) return a.reason;
      const r = await authorize(a.paymentMethodId, 1000, 'automatic');
      expect(r.status).toBe('declined');
      expect(r.capturedCents).toBe(0);
      expect(state(await retrieve(r.transactionId))).toEqual(state(r));
      return r.decline!.reason;
    }

    it('names itself with a registry name and says whether it is a test system', () => {
      expect(psp.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(typeof psp.sandbox).toBe('boolean');
    });

    it('attaches a card and gives back only its brand, last four digits and expiry', async () => {
      const card = f.cards.success;
      const a = await psp.attachPaymentMethod({ idempotencyKey: key(), card });
      expect(a).toMatchObject({ ok: true, last4: card.number.replace(/ /g, '').slice(-4), expMonth: card.expMonth });
      if (!a.ok) return;
      expect(a.expYear % 100).toBe(card.expYear % 100);
      expect(JSON.stringify(a)).not.toContain(card.number.replace(/ /g, '').slice(0, 12));
    });

    it('captures at once with automatic capture', async () => {
      const r = await authorize(await attach(f.cards.success), 1234, 'automatic');
      expect(state(r)).toMatchObject({ status: 'captured', amountCents: 1234, capturedCents: 1234, refundedCents: 0 });
      expect(state(await retrieve(r.transactionId))).toEqual(state(r));
    });

    it('holds with manual capture, then a partial capture takes part and releases the rest', async () => {
      const r = await hold(1000);
      expect(r).toMatchObject({ capturedCents: 0, refundedCents: 0 });
      expect(r.expiresAt === undefined || r.expiresAt instanceof Date).toBe(true);
      const c = await capture({ idempotencyKey: key(), transactionId: r.transactionId, amountCents: 600 });
      expect(c.decline).toBeUndefined();
      expect(state(c)).toMatchObject({ status: 'captured', capturedCents: 600, refundedCents: 0 });
      // The released rest cannot be captured afterwards.
      const again = await capture({ idempotencyKey: key(), transactionId: r.transactionId, amountCents: 400 });
      expectRefused(again, 'amount_too_large');
      expect(state(await retrieve(r.transactionId))).toEqual(state(c));
    });

    it('refuses to capture more than authorised, as amount_too_large, and changes nothing', async () => {
      const r = await hold(500);
      const c = await capture({ idempotencyKey: key(), transactionId: r.transactionId, amountCents: 501 });
      expectRefused(c, 'amount_too_large');
      expect(state(c)).toEqual(state(r));
      expect(state(await retrieve(r.transactionId))).toEqual(state(r));
    });

    it('refunds partly, then the rest, and refuses a refund beyond what is left', async () => {
      const r = await authorize(await attach(f.cards.success), 1000, 'automatic');
      const r1 = await refund({ idempotencyKey: key(), transactionId: r.transactionId, amountCents: 300 });
      expect(r1.decline).toBeUndefined();
      expect(state(r1)).toMatchObject({ status: 'refunded', capturedCents: 1000, refundedCents: 300 });
      const tooMuch = await refund({ idempotencyKey: key(), transactionId: r.transactionId, amountCents: 701 });
      expectRefused(tooMuch, 'amount_too_large');
      expect(state(tooMuch)).toEqual(state(r1));
      const r2 = await refund({ idempotencyKey: key(), transactionId: r.transactionId, amountCents: 700 });
      expect(state(r2)).toMatchObject({ status: 'refunded', capturedCents: 1000, refundedCents: 1000 });
      const more = await refund({ idempotencyKey: key(), transactionId: r.transactionId, amountCents: 1 });
      expectRefused(more, 'amount_too_large');
      expect(state(await retrieve(r.transactionId))).toEqual(state(r2));
    });

    it('voids a hold, after which nothing can be captured', async () => {
      const r = await hold(800);
      const v = await voidTx({ idempotencyKey: key(), transactionId: r.transactionId });
      expect(v.decline).toBeUndefined();
      expect(state(v)).toMatchObject({ status: 'voided', capturedCents: 0, refundedCents: 0 });
      const c = await capture({ idempotencyKey: key(), transactionId: r.transactionId, amountCents: 800 });
      expect(c.decline).toBeDefined();
      expect(state(await retrieve(r.transactionId))).toEqual(state(v));
    });

    describe('refusals are result values, never exceptions', () => {
      it('refuses the declined card as card_declined', async () => {
        expect(await refusalOf(f.cards.declined)).toBe('card_declined');
      });
      it('refuses the card without funds as insufficient_funds', async () => {
        expect(await refusalOf(f.cards.insufficientFunds)).toBe('insufficient_funds');
      });
      it('refuses an invalid card number as invalid_card', async () => {
        expect(await refusalOf({ ...f.cards.success, number: '4242 4242 4242 4241' })).toBe('invalid_card');
      });
      it('refuses a card past its expiry date as expired_card', async () => {
        expect(await refusalOf({ ...f.cards.success, expMonth: 1, expYear: 2001 })).toBe('expired_card');
      });
      it('refuses a malformed security code as incorrect_cvc', async () => {
        expect(await refusalOf({ ...f.cards.success, cvc: '1' })).toBe('incorrect_cvc');
      });
    });

    describe('idempotency: the same key twice gives the first outcome and one effect', () => {
      it('attach', async () => {
        const k = key();
        const a = await psp.attachPaymentMethod({ idempotencyKey: k, card: f.cards.success });
        const b = await psp.attachPaymentMethod({ idempotencyKey: k, card: f.cards.success });
        expect(b).toEqual(a);
      });

      it('authorize', async () => {
        const pm = await attach(f.cards.success);
        const k = key();
        const a = await authorize(pm, 700, 'manual', k);
        const b = await authorize(pm, 700, 'manual', k);
        expect(b.transactionId).toBe(a.transactionId);
        expect(state(b)).toEqual(state(a));
      });

      it('capture', async () => {
        const r = await hold(1000);
        const k = key();
        const a = await capture({ idempotencyKey: k, transactionId: r.transactionId, amountCents: 400 });
        const b = await capture({ idempotencyKey: k, transactionId: r.transactionId, amountCents: 400 });
        expect(state(b)).toEqual(state(a));
        expect((await retrieve(r.transactionId)).capturedCents).toBe(400);
      });

      it('refund', async () => {
        const r = await authorize(await attach(f.cards.success), 1000, 'automatic');
        const k = key();
        const a = await refund({ idempotencyKey: k, transactionId: r.transactionId, amountCents: 250 });
        const b = await refund({ idempotencyKey: k, transactionId: r.transactionId, amountCents: 250 });
        expect(state(b)).toEqual(state(a));
        expect((await retrieve(r.transactionId)).refundedCents).toBe(250);
      });

      it('void', async () => {
        const r = await hold(300);
        const k = key();
        const a = await voidTx({ idempotencyKey: k, transactionId: r.transactionId });
        const b = await voidTx({ idempotencyKey: k, transactionId: r.transactionId });
        expect(state(b)).toEqual(state(a));
      });

      it('off-session charge', async () => {
        const { pm, storedCredential } = await stored(f.cards.success);
        const k = key();
        const a = await chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 900, currency: 'EUR', storedCredential });
        const b = await chargeOffSession({ idempotencyKey: k, paymentMethodId: pm, amountCents: 900, currency: 'EUR', storedCredential });
        expect(b.transactionId).toBe(a.transactionId);
        expect(state(b)).toEqual(state(a));
      });

      it('a replayed refusal stays the same refusal', async () => {
        const r = await hold(100);
        const k = key();
        const a = await capture({ idempotencyKey: k, transactionId: r.transactionId, amountCents: 101 });
        const b = await capture({ idempotencyKey: k, transactionId: r.transactionId, amountCents: 101 });
        expectRefused(a, 'amount_too_large');
        expect(b).toEqual(a);
      });
    });

    describe('3-D Secure', () => {
      it('asks for a challenge, and a completed one leaves the payment captured (automatic capture)', async (ctx) => {
        if (f.noServerSideChallenge) ctx.skip();
        const r = await authorize(await attach(f.cards.challenge), 2500, 'automatic');
        expect(r.status).toBe('requires_action');
        // Either a page to open (GET) or a form to post there, never both.
        expect(r.challengeUrl ?? r.challengeForm?.action).toMatch(/^https?:\/\//);
        expect(r.challengeUrl !== undefined && r.challengeForm !== undefined).toBe(false);
        expect(r.capturedCents).toBe(0);
        await challenge('completeChallenge', r.transactionId);
        expect(state(await retrieve(r.transactionId))).toMatchObject({ status: 'captured', capturedCents: 2500 });
      });

      it('a completed challenge leaves a manual-capture payment authorised', async (ctx) => {
        if (f.noServerSideChallenge) ctx.skip();
        const r = await authorize(await attach(f.cards.challenge), 2500, 'manual');
        await challenge('completeChallenge', r.transactionId);
        const after = await retrieve(r.transactionId);
        expect(state(after)).toMatchObject({ status: 'authorized', capturedCents: 0 });
        const c = await capture({ idempotencyKey: key(), transactionId: r.transactionId, amountCents: 2500 });
        expect(state(c)).toMatchObject({ status: 'captured', capturedCents: 2500 });
      });

      it('a failed challenge is a decline with authentication_failed', async (ctx) => {
        if (f.noServerSideChallenge) ctx.skip();
        const r = await authorize(await attach(f.cards.challenge), 2500, 'automatic');
        await challenge('failChallenge', r.transactionId);
        const after = await retrieve(r.transactionId);
        expect(after.status).toBe('declined');
        expect(after.decline?.reason).toBe('authentication_failed');
        expect(after.capturedCents).toBe(0);
      });
    });

    it('lets a hold lapse after 7 days: capture and void then answer expired / authorization_expired', async () => {
      const early = await hold(1000);
      const late = await hold(1000);
      const voided = await hold(1000);
      await f.advanceDays(6);
      expect((await retrieve(early.transactionId)).status).toBe('authorized');
      const c = await capture({ idempotencyKey: key(), transactionId: early.transactionId, amountCents: 1000 });
      expect(state(c)).toMatchObject({ status: 'captured', capturedCents: 1000 });
      await f.advanceDays(1);
      expect((await retrieve(late.transactionId)).status).toBe('expired');
      const lapsed = await capture({ idempotencyKey: key(), transactionId: late.transactionId, amountCents: 1000 });
      expect(lapsed.status).toBe('expired');
      expectRefused(lapsed, 'authorization_expired');
      expect(lapsed.capturedCents).toBe(0);
      const v = await voidTx({ idempotencyKey: key(), transactionId: voided.transactionId });
      expect(v.status).toBe('expired');
      expectRefused(v, 'authorization_expired');
      // What was captured in time stays captured.
      expect((await retrieve(early.transactionId)).status).toBe('captured');
    });

    describe('off-session charges', () => {
      it('charges a saved card, captured at once', async () => {
        const { pm, storedCredential } = await stored(f.cards.success);
        const r = await chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 4200, currency: 'EUR', storedCredential });
        expect(state(r)).toMatchObject({ status: 'captured', amountCents: 4200, capturedCents: 4200, refundedCents: 0 });
        expect(state(await retrieve(r.transactionId))).toEqual(state(r));
      });

      it('refuses a merchant-initiated charge that references no stored credential (PSD2), charging nothing', async (ctx) => {
        if (f.attachStoresCredential) ctx.skip();
        const pm = await attach(f.cards.success);
        const r = await chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 4200, currency: 'EUR' });
        expect(r.status).toBe('declined');
        expect(r.capturedCents).toBe(0);
      });

      it('the off-session-failing card authorises on session but every off-session charge is card_declined', async () => {
        const pm = await attach(f.cards.offSessionFails);
        const on = states.keep(
          await psp.authorize({ idempotencyKey: key(), paymentMethodId: pm, amountCents: 1000, currency: 'EUR', capture: 'automatic', returnUrl: RETURN_URL, storeForLater: true }),
        );
        expect(on.status).toBe('captured');
        const storedCredential = { initialTransactionId: on.transactionId, ...(on.networkTransactionId ? { networkTransactionId: on.networkTransactionId } : {}) };
        for (const amount of [1000, 1]) {
          const off = await chargeOffSession({ idempotencyKey: key(), paymentMethodId: pm, amountCents: amount, currency: 'EUR', storedCredential });
          expect(off.status).toBe('declined');
          expectRefused(off, 'card_declined');
          expect(off.capturedCents).toBe(0);
        }
      });
    });

    it('retrieve of an unknown transaction throws PspIntegrationError unknown_transaction', async () => {
      const err = await psp.retrieve({ transactionId: `unknown-${randomUUID()}`, pspState: null }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PspIntegrationError);
      expect((err as PspIntegrationError).code).toBe('unknown_transaction');
    });

    it('keeps 0 ≤ refunded ≤ captured ≤ amount through any sequence of captures, refunds, voids and retries; a refusal changes nothing', async () => {
      const pm = await attach(f.cards.success);
      type Op = { kind: 'capture' | 'refund'; amount: number } | { kind: 'void' } | { kind: 'retry' };
      const op: fc.Arbitrary<Op> = fc.oneof(
        fc.record({ kind: fc.constant('capture' as const), amount: fc.integer({ min: 1, max: 1200 }) }),
        fc.record({ kind: fc.constant('refund' as const), amount: fc.integer({ min: 1, max: 1200 }) }),
        fc.record({ kind: fc.constant('void' as const) }),
        fc.record({ kind: fc.constant('retry' as const) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 1000 }), fc.array(op, { maxLength: 7 }), async (amount, ops) => {
          let before = await authorize(pm, amount, 'manual');
          const id = before.transactionId;
          let last: { run: (k: string) => Promise<TransactionResult>; key: string; result: TransactionResult } | undefined;
          for (const o of ops) {
            let result: TransactionResult;
            if (o.kind === 'retry') {
              if (!last) continue;
              result = await last.run(last.key);
              expect(result).toEqual(last.result);
              expect(state(await retrieve(id))).toEqual(state(before));
              continue;
            }
            // A retry replays the first answer; Chipin records it only where it changes something, so
            // its (older) state is not stored here.
            const run =
              o.kind === 'void'
                ? (k: string) => psp.void({ idempotencyKey: k, transaction: states.ref(id) })
                : (k: string) => psp[o.kind]({ idempotencyKey: k, transaction: states.ref(id), amountCents: o.amount });
            const k = key();
            result = states.keep(await run(k));
            last = { run, key: k, result };
            const after = await retrieve(id);
            expect(state(result)).toEqual(state(after));
            expectInvariants(after, amount);
            if (o.kind === 'capture') {
              const allowed = before.status === 'authorized' && o.amount <= amount;
              expect(result.decline === undefined).toBe(allowed);
              if (allowed) expect(after.capturedCents).toBe(o.amount);
            }
            if (o.kind === 'refund') {
              const left = before.status === 'captured' || before.status === 'refunded' ? before.capturedCents - before.refundedCents : 0;
              expect(result.decline === undefined).toBe(o.amount <= left);
              if (o.amount <= left) expect(after.refundedCents).toBe(before.refundedCents + o.amount);
            }
            if (o.kind === 'void' && before.status === 'authorized') expect(after.status).toBe('voided');
            if (result.decline) expect(state(after)).toEqual(state(before));
            before = after;
          }
        }),
        { numRuns: 25 },
      );
    });
  });
}

/**
 * Connectors keep no payment state in memory (docs/psp-connectors.md#state-and-idempotency): a
 * transaction authorised by one instance is captured, refunded and voided by another built as a
 * new process would build it, from the state stored with the payment (through JSON) alone. Runs
 * on both databases (the operation log is in the database): see test/psp/fresh-instance.test.ts.
 */
export function describeFreshInstance(name: string, makeConnector: () => Promise<ConnectorFixture>): void {
  describe(`PSP connector contract, across processes: ${name}`, () => {
    let f: ConnectorFixture;
    beforeAll(async () => {
      f = await makeConnector();
    });
    afterAll(async () => {
      await f?.teardown();
    });

    it('a fresh connector instance (new process) captures, refunds and voids a payment authorised by another', async () => {
      const states = new StoredStates();
      const first = f.connector;
      const a = await first.attachPaymentMethod({ idempotencyKey: key(), card: f.cards.success });
      if (!a.ok) throw new Error(`attach refused: ${a.reason}`);
      const hold = (amountCents: number) =>
        first
          .authorize({ idempotencyKey: key(), paymentMethodId: a.paymentMethodId, amountCents, currency: 'EUR', capture: 'manual', returnUrl: RETURN_URL })
          .then((r) => states.keep(r));
      const toCapture = await hold(1000);
      const toVoid = await hold(700);
      expect([toCapture.status, toVoid.status]).toEqual(['authorized', 'authorized']);

      // Each step on an instance of its own, as a deadline job in another process or after a restart.
      const captureKey = key();
      const captured = await statefulCalls(() => f.fresh(), states).capture({ idempotencyKey: captureKey, transactionId: toCapture.transactionId, amountCents: 1000 });
      expect(captured.decline).toBeUndefined();
      expect(state(captured)).toMatchObject({ status: 'captured', capturedCents: 1000, refundedCents: 0 });
      // The same key from yet another instance is the same capture, not a second one.
      const replayed = await f.fresh().capture({ idempotencyKey: captureKey, transaction: states.ref(toCapture.transactionId), amountCents: 1000 });
      expect(state(replayed)).toEqual(state(captured));

      const refunded = await statefulCalls(() => f.fresh(), states).refund({ idempotencyKey: key(), transactionId: toCapture.transactionId, amountCents: 400 });
      expect(refunded.decline).toBeUndefined();
      expect(state(refunded)).toMatchObject({ status: 'refunded', capturedCents: 1000, refundedCents: 400 });

      const voided = await statefulCalls(() => f.fresh(), states).void({ idempotencyKey: key(), transactionId: toVoid.transactionId });
      expect(voided.decline).toBeUndefined();
      expect(state(voided)).toMatchObject({ status: 'voided', capturedCents: 0 });

      // And any instance reads both as they now stand.
      const later = statefulCalls(() => f.fresh(), states);
      expect(state(await later.retrieve(toCapture.transactionId))).toEqual(state(refunded));
      expect(state(await later.retrieve(toVoid.transactionId))).toEqual(state(voided));
    });
  });
}

/** A transaction named by its id alone, without the connector's stored state: enough for a PSP that can be read by id. */
export function bareRef(transactionId: string): TransactionRef {
  return { transactionId, pspState: null };
}
