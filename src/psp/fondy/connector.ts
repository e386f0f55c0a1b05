import { createHash } from 'node:crypto';
import { pspNotificationUrl } from '../../domain/links.ts';
import type * as contract from '../connector.ts';
import type { ConnectorContext, PspAccountConfig } from '../definition.ts';
import { readIfGrown } from '../kit/amounts-state.ts';
import { HttpKitConnector, kitOptions } from '../kit/connector-setup.ts';
import { parseJson } from '../kit/json-call.ts';
import { reviveTransaction, authorizeParams, chargeParams } from '../kit/operations.ts';
import { statusFault } from '../kit/status-fault.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import { PROTOCOL_VERSION, RECTOKEN, brandOf, declineMessage, expiryDate, meaningOf, readOrder, sign, signatureValid, toTransactionResult, type FondyOrder } from './mapping.ts';

/**
 * The API's base URL per environment. Fondy's platform now answers as Flitt at `pay.flitt.com`
 * (docs.flitt.com, whose test merchant and cards are Fondy's); a test or live order is told
 * apart by the merchant's mode, not by the host (docs/psp/fondy.md).
 */
export const FONDY_BASE_URLS = { test: 'https://pay.flitt.com', live: 'https://pay.flitt.com' } as const;
/**
 * The hosts Fondy and Flitt publish for the API: `pay.flitt.com` and `api.flitt.com`
 * (docs.flitt.com/llms-full.txt), `pay.fondy.eu` (docs.fondy.eu/docs/page/10, the recurring
 * endpoint) and `api.fondy.eu` (the default host of cloudipsp/node-js-sdk and
 * cloudipsp/python-sdk); `sandbox.pay.flitt.dev` appears in Flitt's test examples only.
 */
export const FONDY_HOSTS = {
  test: ['pay.flitt.com', 'api.flitt.com', 'sandbox.pay.flitt.dev', 'pay.fondy.eu', 'api.fondy.eu'],
  live: ['pay.flitt.com', 'api.flitt.com', 'pay.fondy.eu', 'api.fondy.eu'],
} as const;

/** The amount and currency of the card check at attach, reversed at once by Fondy (`verification=Y`). */
const VERIFY_AMOUNT_CENTS = 100;
const VERIFY_CURRENCY = 'EUR';

/** What the connector keeps of an order (see {@link PspState}). */
interface FondyState {
  status: contract.TransactionResult['status'];
  capturedCents: number;
  refundedCents: number;
  /** A `preauth=Y` order: captured later, or reversed whole. */
  preauth: boolean;
  currency: string;
  amountCents: number;
  /** When the order was placed (our clock, ms): the hold's lapse is counted from it. */
  placedAt: number;
  /** The `md` of a 3-D Secure step still open. */
  md?: string;
  /** A pending challenge Chipin voided: Fondy is not asked to complete it. */
  voided?: boolean;
}

/** The fields of a payment order on a stored card (`rectoken`), on session (`3dsecure_step1`) or off (`recurring`). */
function orderFields(orderId: string, input: { amountCents: number; currency: string }, rectoken: string, preauth: boolean) {
  return { order_id: orderId, order_desc: 'Chipin payment', amount: input.amountCents, currency: input.currency, rectoken, preauth: preauth ? 'Y' : 'N' };
}

/**
 * Fondy (Flitt) for one merchant's account: JSON requests `{"request": {…}}` signed with the
 * payment key (SHA1 of the key and the sorted values, `|`-joined), answers `{"response": {…}}`
 * (docs/psp/fondy.md).
 *
 * - A card is checked and stored at attach: a host-to-host order (`/api/3dsecure_step1`) with the
 *   card, `verification=Y` (Fondy reverses it once approved) and `required_rectoken=Y`; its
 *   `rectoken` is our payment method id.
 * - An on-session payment is `/api/3dsecure_step1` with the `rectoken` (`preauth=Y` for a hold):
 *   the final order, or `acs_url` + `pareq` + `md`, posted by the shopper's browser to the ACS
 *   (`challengeForm`); the ACS posts `pares` back to `returnUrl`, which {@link submitAuthentication}
 *   gives Fondy (`/api/3dsecure_step2`).
 * - Merchant-initiated: `/api/recurring` with the `rectoken`.
 * - Capture `/api/capture/order_id` (once, full or partial); void and refunds
 *   `/api/reverse/order_id` (a hold only whole; refunds partial and several, each with its
 *   `reverse_id`, Fondy's idempotency key); status `/api/status/order_id`.
 * - Chipin's transaction id is Fondy's `order_id` (derived from the idempotency key): Fondy refuses
 *   a second order with it (1013), so an order whose answer was lost is read, never placed twice.
 */
export class FondyConnector extends HttpKitConnector<{ merchantId: string; paymentKey: string }> implements contract.PspConnector {
  readonly #merchantId: string;
  readonly #publicUrl: string;
  readonly #accountId: string;

  constructor(account: PspAccountConfig, context: ConnectorContext) {
    const { merchant_id: merchantId, payment_key: paymentKey } = account.credentials;
    if (!merchantId || !paymentKey) throw new TypeError('fondy: merchant_id and payment_key are required');
    if (!/^\d{1,12}$/.test(merchantId)) throw new TypeError('fondy: merchant_id must be 1 to 12 digits');
    super('fondy', { ...kitOptions(account, context), credentials: { merchantId, paymentKey } });
    this.#merchantId = merchantId;
    this.#publicUrl = context.publicUrl;
    this.#accountId = account.id;
  }

  protected override get shownAs(): string {
    return `FondyConnector(${this.#merchantId})`;
  }
  protected override get shownFields(): Record<string, unknown> {
    return { merchantId: this.#merchantId, baseUrl: this.baseUrl };
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const c = input.card;
    const digits = c.number.replace(/[\s-]/g, '');
    const year = c.expYear >= 0 && c.expYear < 100 ? 2000 + c.expYear : c.expYear;
    const orderId = this.#orderId('attach', input.idempotencyKey);
    const send = async (): Promise<contract.AttachResult> => {
      const answer = await this.#call('3dsecure_step1', {
        order_id: orderId,
        order_desc: 'Card check',
        amount: VERIFY_AMOUNT_CENTS,
        currency: VERIFY_CURRENCY,
        card_number: digits,
        cvv2: c.cvc,
        expiry_date: expiryDate(c.expMonth, year),
        verification: 'Y',
        required_rectoken: 'Y',
        delayed: 'N',
      });
      // The order exists: an earlier attempt whose answer was lost placed it.
      if (answer.kind === 'duplicate') return this.#attached((await this.#status(orderId)) ?? answer, digits, c.expMonth, year);
      return this.#attached(answer, digits, c.expMonth, year);
    };
    const reconcile = async (): Promise<contract.AttachResult | undefined> => {
      const answer = await this.#status(orderId);
      return answer === undefined ? undefined : this.#attached(answer, digits, c.expMonth, year);
    };
    return this.operations.once('attach', input.idempotencyKey, [digits, c.expMonth, year, c.cvc], send, reconcile);
  }

  #attached(answer: Answer, digits: string, expMonth: number, expYear: number): contract.AttachResult {
    if (answer.kind === 'refused') return { ok: false, reason: answer.reason, message: declineMessage(answer.reason) };
    if (answer.kind === 'challenge') {
      // Fondy wants the cardholder at the ACS for a card check: attach has no shopper step (docs/psp/fondy.md).
      return { ok: false, reason: 'authentication_failed', message: 'Fondy asks 3-D Secure to check this card, which Chipin cannot do when saving it.' };
    }
    if (answer.kind !== 'order') throw this.fault('bad_response', 'card check: no order in the answer');
    const o = answer.order;
    if (o.orderStatus === 'declined' || o.orderStatus === 'expired') {
      const reason = toTransactionResult(o.orderId, o, this.#context(undefined)).decline?.reason ?? 'card_declined';
      return { ok: false, reason, message: declineMessage(reason) };
    }
    if ((o.orderStatus !== 'approved' && o.orderStatus !== 'reversed') || !o.rectoken || !RECTOKEN.test(o.rectoken)) {
      throw this.fault('bad_response', `card check ${o.orderStatus}: no rectoken`);
    }
    return { ok: true, paymentMethodId: o.rectoken, brand: brandOf(o.cardType, digits), last4: digits.slice(-4), expMonth, expYear };
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    const rectoken = this.#rectoken(input.paymentMethodId);
    const orderId = this.#orderId('authorize', input.idempotencyKey);
    const preauth = input.capture === 'manual';
    const initial = () => this.#placed('requires_action', input, preauth);
    const send = async (): Promise<contract.TransactionResult> => {
      const state = initial();
      const answer = await this.#call('3dsecure_step1', {
        ...orderFields(orderId, input, rectoken, preauth),
        delayed: 'N',
        server_callback_url: pspNotificationUrl(this.#publicUrl, this.#accountId),
      });
      if (answer.kind === 'challenge') {
        return {
          transactionId: orderId,
          status: 'requires_action',
          amountCents: input.amountCents,
          capturedCents: 0,
          refundedCents: 0,
          // The ACS form Fondy's direct flow describes: PaReq, MD and where the ACS sends the shopper back.
          challengeForm: { action: answer.acsUrl, fields: { PaReq: answer.pareq, MD: answer.md, TermUrl: input.returnUrl } },
          pspState: toState({ ...state, md: answer.md }),
        };
      }
      return this.#fromAnswer(orderId, answer, state, input.amountCents);
    };
    const reconcile = () => this.#found(orderId, { transactionId: orderId, pspState: toState(initial()) });
    return this.operations.once('authorize', input.idempotencyKey, authorizeParams(input), send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  /**
   * Finishes a 3-D Secure challenge: the ACS posted `pares` and `md` to `returnUrl`, which Fondy
   * wants on `/api/3dsecure_step2`. Not part of the connector contract (the return route must
   * call it, as Adyen's `submitDetails`; docs/psp/fondy.md); once per payment.
   */
  async submitAuthentication(transaction: contract.TransactionRef, result: { pares: string; md: string }): Promise<contract.TransactionResult> {
    if (typeof result.pares !== 'string' || result.pares === '' || typeof result.md !== 'string' || result.md === '') throw new RangeError('pares and md are required');
    const s = stateOf(transaction);
    if (!s?.md) throw this.fault('unknown_transaction', `no 3-D Secure step open for ${transaction.transactionId.slice(0, 80)}`);
    const orderId = transaction.transactionId;
    const send = async (): Promise<contract.TransactionResult> => {
      if (s.voided) return this.#voidedChallenge(orderId, s);
      const answer = await this.#call('3dsecure_step2', { order_id: orderId, pares: result.pares, md: result.md });
      if (answer.kind === 'challenge') throw this.fault('bad_response', '3dsecure_step2 asked for another challenge');
      return this.#fromAnswer(orderId, answer, { ...s, md: undefined }, s.amountCents);
    };
    return this.operations.once('authenticate', orderId, [result.md], send, () => this.#found(orderId, transaction), reviveTransaction<contract.TransactionResult>);
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    assertAmount(input.amountCents);
    const ref = input.transaction;
    const send = async (): Promise<contract.TransactionResult> => {
      const now = await this.#read(ref);
      const s = stateOf(now.result.pspState ? { transactionId: ref.transactionId, pspState: now.result.pspState } : ref)!;
      if (now.result.status === 'expired') return refused(now.result, 'authorization_expired', 'The authorisation already lapsed.');
      if (now.result.status !== 'authorized') return refused(now.result, 'amount_too_large', 'Nothing left to capture.');
      if (input.amountCents > now.result.amountCents) return refused(now.result, 'amount_too_large', 'The capture exceeds the authorised amount.');
      const answer = await this.#call('capture/order_id', { order_id: ref.transactionId, amount: input.amountCents, currency: now.order.currency });
      if (answer.kind === 'refused' || answer.kind === 'challenge') return refused(now.result, 'amount_too_large', 'Fondy refused the capture.');
      if (answer.kind === 'operation_refused') {
        const after = await this.#read(ref);
        return refused(after.result, after.result.status === 'expired' ? 'authorization_expired' : 'amount_too_large', 'Fondy refused the capture.');
      }
      if (answer.kind !== 'fields') throw this.fault('bad_response', 'capture: an unexpected answer');
      const captureStatus = answer.fields.capture_status;
      if (captureStatus !== 'captured' && captureStatus !== 'hold') throw this.fault('bad_response', 'capture: no capture_status');
      const after = await this.#read({ transactionId: ref.transactionId, pspState: toState({ ...s, capturedCents: input.amountCents }) });
      return after.result;
    };
    const reconcile = () => readIfGrown(ref, 'capturedCents', () => this.retrieve(ref));
    return this.operations.once('capture', input.idempotencyKey, [ref.transactionId, input.amountCents], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    const ref = input.transaction;
    const send = async (): Promise<contract.TransactionResult> => {
      const s = stateOf(ref);
      if (s?.md) {
        // A challenge still open: nothing is held yet; Chipin will not complete it.
        const now = await this.#status(ref.transactionId);
        if (now === undefined || (now.kind === 'order' && (now.order.orderStatus === 'created' || now.order.orderStatus === 'processing'))) {
          return this.#voidedChallenge(ref.transactionId, s);
        }
      }
      const now = await this.#read(ref);
      if (now.result.status === 'voided') return now.result;
      if (now.result.status === 'expired') return refused(now.result, 'authorization_expired', 'The authorisation already lapsed.');
      if (now.result.status !== 'authorized') return refused(now.result, 'amount_too_large', 'Only an authorisation not yet captured can be released.');
      // A hold is released by reversing it whole (docs.flitt.com: no partial reverse before a capture).
      const answer = await this.#call('reverse/order_id', { order_id: ref.transactionId, amount: now.order.actualAmount ?? now.order.amount, currency: now.order.currency });
      if (answer.kind !== 'fields') {
        const after = await this.#read(ref);
        return refused(after.result, after.result.status === 'expired' ? 'authorization_expired' : 'amount_too_large', 'Fondy refused to release the hold.');
      }
      if (answer.fields.reverse_status === 'declined') return refused(now.result, 'amount_too_large', 'Fondy refused to release the hold.');
      return (await this.#read(ref)).result;
    };
    const reconcile = async () => {
      const after = await this.retrieve(ref);
      return after.status === 'voided' ? after : undefined;
    };
    return this.operations.once('void', input.idempotencyKey, [ref.transactionId], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    assertAmount(input.amountCents);
    const ref = input.transaction;
    // Fondy's idempotency key of a reverse: the same reverse_id is reversed once however often it is sent.
    const reverseId = this.#orderId('refund', input.idempotencyKey);
    const send = async (): Promise<contract.TransactionResult> => {
      const now = await this.#read(ref);
      if (now.result.status !== 'captured' && now.result.status !== 'refunded') return refused(now.result, 'amount_too_large', 'Nothing captured to refund.');
      if (input.amountCents > now.result.capturedCents - now.result.refundedCents) return refused(now.result, 'amount_too_large', 'The refund exceeds what is left to refund.');
      const answer = await this.#call('reverse/order_id', { order_id: ref.transactionId, amount: input.amountCents, currency: now.order.currency, reverse_id: reverseId });
      if (answer.kind !== 'fields' || answer.fields.reverse_status === 'declined') return refused((await this.#read(ref)).result, 'amount_too_large', 'Fondy refused the refund.');
      return (await this.#read(ref)).result;
    };
    // A refund Fondy counted is answered as it stands; else it is sent again with the same
    // reverse_id, which Fondy reverses once however often it comes (docs.flitt.com/api/create-reversal).
    const reconcile = async () => (await readIfGrown(ref, 'refundedCents', () => this.retrieve(ref))) ?? send();
    return this.operations.once('refund', input.idempotencyKey, [ref.transactionId, input.amountCents], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    const rectoken = this.#rectoken(input.paymentMethodId);
    const orderId = this.#orderId('charge', input.idempotencyKey);
    const preauth = input.capture === 'manual';
    const initial = () => this.#placed('declined', input, preauth);
    const send = async (): Promise<contract.TransactionResult> => {
      const state = initial();
      // The rectoken names the card and its chain of payments: Fondy takes no other reference of the customer-initiated one.
      const answer = await this.#call('recurring', {
        ...orderFields(orderId, input, rectoken, preauth),
        server_callback_url: pspNotificationUrl(this.#publicUrl, this.#accountId),
      });
      if (answer.kind === 'challenge') throw this.fault('bad_response', 'recurring asked for 3-D Secure');
      return this.#fromAnswer(orderId, answer, state, input.amountCents);
    };
    return this.operations.once(
      'charge',
      input.idempotencyKey,
      chargeParams(input, preauth),
      send,
      () => this.#found(orderId, { transactionId: orderId, pspState: toState(initial()) }),
      reviveTransaction<contract.TransactionResult>,
    );
  }

  /**
   * What an order is from the moment it is placed (on session or off), whichever attempt finds it:
   * a hold or not (`preauth`) is told by us, not by Fondy's status answer.
   */
  #placed(status: FondyState['status'], input: { amountCents: number; currency: string }, preauth: boolean): FondyState {
    return { status, capturedCents: 0, refundedCents: 0, preauth, currency: input.currency, amountCents: input.amountCents, placedAt: this.clock.now().getTime() };
  }

  /** Fondy's view of the order (`/api/status/order_id`). */
  /**
   * With `returned` holding the ACS's `PaRes` and `MD` for this order's open step, Fondy is given
   * them first ({@link submitAuthentication}): it finishes the payment only then. Other fields, or
   * an `MD` of another step, are not Fondy's answer to this challenge and change nothing.
   */
  async retrieve(ref: contract.TransactionRef, options?: contract.RetrieveOptions): Promise<contract.TransactionResult> {
    const s = stateOf(ref);
    if (s?.voided) return this.#voidedChallenge(ref.transactionId, s);
    const pares = options?.returned?.PaRes;
    const md = options?.returned?.MD;
    if (s?.md && pares && md === s.md) return this.submitAuthentication(ref, { pares, md });
    return (await this.#read(ref)).result;
  }

  /**
   * Fondy's callback to `server_callback_url`: the order's fields as JSON, signed as its answers
   * are (checked in constant time). Fondy signs no time, so no freshness can be checked; the
   * order is read again anyway (`retrieve`).
   */
  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    let body: unknown;
    try {
      body = JSON.parse(input.rawBody);
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (typeof body !== 'object' || body === null) return { ok: false, reason: 'malformed' };
    const wrapped = (body as { response?: unknown }).response;
    const fields = (typeof wrapped === 'object' && wrapped !== null ? wrapped : body) as Record<string, unknown>;
    if (typeof fields.signature !== 'string') return { ok: false, reason: 'bad_signature' };
    if (!signatureValid(this.credentials.reveal().paymentKey, fields)) return { ok: false, reason: 'bad_signature' };
    if (String(fields.merchant_id) !== this.#merchantId) return { ok: false, reason: 'bad_signature' };
    const o = readOrder(fields);
    if (!o) return { ok: false, reason: 'malformed' };
    const r = toTransactionResult(o.orderId, o, this.#context(undefined));
    return { ok: true, transactionId: o.orderId, status: r.status };
  }

  /** The status of an order that does not exist: signed and authenticated, changes nothing (1018 proves the signature passed). */
  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    return this.probeCredentials(async () => {
      await this.#status(`chipin-credentials-check-${this.#merchantId}`);
    }, 'Fondy refused the merchant id or the payment key (check them in the merchant portal, technical settings).');
  }

  // ---------------------------------------------------------------------------------------------

  /** Our order id for (operation, key): Fondy refuses a second order with it, which makes a replay safe. */
  #orderId(op: string, key: string): string {
    return `chipin-${createHash('sha256').update(`${op}\0${key}`).digest('hex').slice(0, 40)}`;
  }

  #rectoken(paymentMethodId: string): string {
    if (typeof paymentMethodId !== 'string' || !RECTOKEN.test(paymentMethodId)) {
      throw this.fault('unknown_payment_method', `no payment method ${JSON.stringify(String(paymentMethodId).slice(0, 80))}`);
    }
    return paymentMethodId;
  }

  #context(s: FondyState | undefined, challengePending = false) {
    return {
      preauth: s?.preauth ?? false,
      placedAt: s ? new Date(s.placedAt) : undefined,
      now: this.clock.now(),
      challengePending,
      ...(s && s.capturedCents > 0 ? { capturedCents: s.capturedCents } : {}),
    };
  }

  #result(transactionId: string, o: FondyOrder, s: FondyState): contract.TransactionResult {
    const r = toTransactionResult(transactionId, o, this.#context(s, s.md !== undefined));
    const next: FondyState = { ...s, status: r.status, capturedCents: r.capturedCents, refundedCents: r.refundedCents, amountCents: o.amount, currency: o.currency };
    if (r.status !== 'requires_action') delete next.md;
    return { ...r, pspState: toState(next) };
  }

  #fromAnswer(
    orderId: string,
    answer: Exclude<Answer, { kind: 'challenge' }>,
    s: FondyState,
    amountCents: number,
  ): contract.TransactionResult | Promise<contract.TransactionResult> {
    switch (answer.kind) {
      case 'order':
        return this.#result(orderId, answer.order, s);
      case 'refused': {
        const next = { ...s, status: 'declined' as const };
        return {
          transactionId: orderId,
          status: 'declined',
          amountCents,
          capturedCents: 0,
          refundedCents: 0,
          decline: { reason: answer.reason, message: declineMessage(answer.reason) },
          pspState: toState(next),
        };
      }
      case 'duplicate':
        // The order exists: placed by an earlier attempt whose answer was lost.
        return this.#read({ transactionId: orderId, pspState: toState(s) }).then((r) => r.result);
      case 'fields':
      case 'operation_refused':
      case 'unknown_order':
        throw this.fault('bad_response', 'order answer without an order');
    }
  }

  #voidedChallenge(transactionId: string, s: FondyState): contract.TransactionResult {
    const next: FondyState = { ...s, status: 'voided', voided: true };
    delete next.md;
    return { transactionId, status: 'voided', amountCents: s.amountCents, capturedCents: 0, refundedCents: 0, pspState: toState(next) };
  }

  /** The order as Fondy shows it now, in our words; unknown_transaction when Fondy has none. */
  async #read(ref: contract.TransactionRef): Promise<{ order: FondyOrder; result: contract.TransactionResult }> {
    const answer = await this.#status(ref.transactionId);
    if (answer === undefined) throw this.fault('unknown_transaction', `no order ${JSON.stringify(ref.transactionId.slice(0, 80))}`);
    if (answer.kind !== 'order') throw this.fault('bad_response', 'status: no order');
    const o = answer.order;
    const s: FondyState = stateOf(ref) ?? {
      // A payment recorded without state: what Fondy's status tells.
      status: 'authorized',
      capturedCents: 0,
      refundedCents: 0,
      preauth: o.captureStatus !== null,
      currency: o.currency,
      amountCents: o.amount,
      placedAt: this.clock.now().getTime(),
    };
    return { order: o, result: this.#result(ref.transactionId, o, s) };
  }

  async #found(orderId: string, ref?: contract.TransactionRef): Promise<contract.TransactionResult | undefined> {
    const answer = await this.#status(orderId);
    if (answer === undefined) return undefined;
    return (await this.#read(ref ?? { transactionId: orderId, pspState: null })).result;
  }

  /** `/api/status/order_id`; undefined when Fondy knows no such order (1018). */
  async #status(orderId: string): Promise<Answer | undefined> {
    const answer = await this.#call('status/order_id', { order_id: orderId });
    if (answer.kind === 'unknown_order') return undefined;
    return answer;
  }

  /**
   * One signed request and its answer, read: an order (final), a 3-D Secure step, other fields
   * (capture, reverse), a refusal of the card, or a fault thrown (credentials, request, HTTP).
   */
  async #call(path: string, request: Record<string, string | number>): Promise<Answer> {
    const { merchantId, paymentKey } = this.credentials.reveal();
    const fields: Record<string, string | number> = { ...request, merchant_id: merchantId, version: PROTOCOL_VERSION };
    fields.signature = sign(paymentKey, fields);
    const what = `POST /api/${path}`;
    const answer = await this.client.json(what, `${this.baseUrl}/api/${path}`, { method: 'POST', headers: {}, body: { request: fields } });
    const fault = statusFault('fondy', what, answer.status);
    if (fault) throw fault;
    if (answer.status !== 200) throw this.fault('bad_response', `${what}: unexpected HTTP ${answer.status}`);
    const body = parseJson('fondy', what, answer) as { response?: unknown } | undefined;
    const r = body?.response;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw this.fault('bad_response', `${what}: no response object`);
    const res = r as Record<string, unknown>;
    if (res.response_status === 'failure') {
      const m = meaningOf(res.error_code);
      const message = typeof res.error_message === 'string' ? res.error_message.slice(0, 200) : '';
      switch (m?.kind) {
        case 'refused':
          return { kind: 'refused', reason: m.reason };
        case 'bad_credentials':
          throw this.fault('bad_credentials', `${what}: ${message}`);
        case 'unknown_order':
          return { kind: 'unknown_order' };
        case 'duplicate_order':
          return { kind: 'duplicate' };
        case 'operation_refused':
          return { kind: 'operation_refused' };
        case 'not_supported':
          throw this.fault('not_supported', `${what}: ${message}`);
        case 'bad_request':
        case undefined:
          throw this.fault('bad_response', `${what}: Fondy refused the request (${String(res.error_code)}) ${message}`);
      }
    }
    if (res.response_status !== 'success') throw this.fault('bad_response', `${what}: no response_status`);
    if (typeof res.acs_url === 'string') {
      if (!/^https?:\/\//.test(res.acs_url) || typeof res.pareq !== 'string' || typeof res.md !== 'string' || res.md === '') {
        throw this.fault('bad_response', `${what}: an unreadable 3-D Secure step`);
      }
      return { kind: 'challenge', acsUrl: res.acs_url, pareq: res.pareq, md: res.md };
    }
    if (typeof res.order_status === 'string') {
      if (res.merchant_id !== undefined && String(res.merchant_id) !== merchantId) throw this.fault('bad_response', `${what}: another merchant's order`);
      // Fondy signs its order answers as its callbacks: an answer that does not verify is not read.
      if (typeof res.signature === 'string' && !signatureValid(paymentKey, res)) throw this.fault('bad_response', `${what}: the answer's signature does not verify`);
      const o = readOrder(res);
      if (!o) throw this.fault('bad_response', `${what}: an unreadable order`);
      return { kind: 'order', order: o };
    }
    return { kind: 'fields', fields: res };
  }
}

type Answer =
  | { kind: 'order'; order: FondyOrder }
  | { kind: 'challenge'; acsUrl: string; pareq: string; md: string }
  | { kind: 'refused'; reason: contract.DeclineReason }
  | { kind: 'fields'; fields: Record<string, unknown> }
  | { kind: 'unknown_order' }
  | { kind: 'duplicate' }
  | { kind: 'operation_refused' };

function refused(now: contract.TransactionResult, reason: 'amount_too_large' | 'authorization_expired', message: string): contract.TransactionResult {
  return { ...now, decline: { reason, message } };
}

function toState(s: FondyState): contract.PspState {
  return JSON.parse(JSON.stringify(s)) as contract.PspState;
}

function stateOf(ref: contract.TransactionRef): FondyState | undefined {
  const s = ref.pspState;
  if (!s || typeof s !== 'object' || typeof s.preauth !== 'boolean' || typeof s.placedAt !== 'number') return undefined;
  return s as unknown as FondyState;
}
