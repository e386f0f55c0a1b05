import { pspNotificationUrl } from '../../domain/links.ts';
import { createHash } from 'node:crypto';
import { Redacted } from '../../domain/redacted.ts';
import type { Clock } from '../../domain/clock.ts';
import type * as contract from '../connector.ts';
import { PspIntegrationError } from '../connector.ts';
import { reviveTransaction, authorizeParams, type PspOperations } from '../kit/operations.ts';
import { amountsBefore, withAmounts } from '../kit/amounts-state.ts';
import {
  MalformedAnswer,
  cardForm,
  decline,
  declineMessage,
  isCardInputRefusal,
  readEnvelope,
  readError,
  readPayment,
  readTransaction,
  splitOrder,
  toBrand,
  toDeclineReason,
  toTransactionResult,
  type LyraEnvelope,
  type LyraErrorAnswer,
  type LyraPayment,
} from './mapping.ts';
import { readNotification, type LyraNotificationRead } from './notifications.ts';
import { assertAmount, assertCurrency, assertReturnUrl, fingerprint } from '../input-checks.ts';
import type { PspHttp } from '../psp-http.ts';
import { connectorSetup, KitConnector, trimSlashes } from '../kit/connector-setup.ts';
import { statusFault } from '../kit/status-fault.ts';
import { PspClient, type PspLogger } from '../kit/json-call.ts';

export interface LyraConnectorOptions {
  /** The PSP account id (`psa_<uuid>` without prefix): names the notification URL. */
  accountId: string;
  environment: 'test' | 'live';
  /** `https://api.payzen.eu` (PayZen), `https://api.lyra.com`, a brand's own, or a test server. */
  baseUrl: string;
  shopId: string;
  password: Redacted;
  hmacKey: Redacted;
  clock: Clock;
  publicUrl: string;
  timeoutMs: number;
  /** The service's outbound client, scoped to this account's PSP (src/psp/psp-http.ts). */
  http: PspHttp;
  /** The operation log of this PSP account (src/psp/kit/operations.ts). */
  operations: PspOperations;
  logger?: PspLogger | undefined;
}

type Operation = 'attach' | 'authorize' | 'capture' | 'void' | 'refund' | 'charge_off_session';

const ORDER_ID = /^chipin-[0-9a-f]{40}$/;

/**
 * A payment method id is Lyra's `paymentMethodToken`, followed by `~` and the chaining reference
 * (`initialIssuerTransactionIdentifier`) of the verification that created it when Lyra gave one:
 * registering a card is itself a strongly authenticated customer-initiated transaction under
 * PSD2, so a later merchant-initiated charge can reference it even when the caller has no
 * `storedCredential`.
 */
function parsePaymentMethod(id: string): { token: string; chaining?: string } {
  const m = /^([A-Za-z0-9]{1,64})(?:~([A-Za-z0-9._-]{1,64}))?$/.exec(id);
  if (!m) throw new PspIntegrationError('lyra', 'unknown_payment_method', 'not a Lyra payment method id');
  return m[2] ? { token: m[1]!, chaining: m[2] } : { token: m[1]! };
}

/**
 * Lyra REST API V4 connector (PayZen, Systempay, Sogecommerce, Lyra Collect…: one API, one base
 * URL per brand). PCI-DSS mode: card data goes to `Charge/CreateToken`, payments use the token.
 *
 * Idempotency: Lyra's REST API has no idempotency key. Each creating call (token, payment,
 * merchant-initiated charge) carries an `orderId` derived from (operation, key), and the
 * connector looks that order up (`Order/Get`) before creating it, so a retry — from this process
 * or another, after a timeout or a crash — finds the first outcome instead of charging twice.
 * Every call goes through the operation log (src/psp/kit/operations.ts), which replays a done
 * call whichever process asks. Captures, voids and refunds act on an existing transaction and have
 * no reference of ours at Lyra: before re-sending one whose outcome is unknown (`started` in the
 * log) the connector reads the transaction and compares it with the state the caller stored before
 * the call (`pspState`: the amounts of the last result).
 */
export class LyraConnector extends KitConnector implements contract.PspConnector {
  readonly name = 'lyra';
  readonly sandbox: boolean;
  readonly #accountId: string;
  readonly #baseUrl: string;
  readonly #shopId: string;
  readonly #credentials: Redacted<{ password: string; hmacKey: string }>;
  readonly #clock: Clock;
  readonly #publicUrl: string;
  readonly #client: PspClient;
  readonly #operations: PspOperations;

  constructor(opts: LyraConnectorOptions) {
    super();
    if (!/^[0-9]{8}$/.test(opts.shopId)) throw new TypeError('lyra: shop_id must be 8 digits');
    if (!(opts.password instanceof Redacted) || !(opts.hmacKey instanceof Redacted)) throw new TypeError('lyra: credentials must be Redacted');
    const setup = connectorSetup({
      psp: 'lyra',
      baseUrl: opts.baseUrl,
      timeoutMs: opts.timeoutMs,
      http: opts.http,
      logger: opts.logger,
      credentials: { password: opts.password.reveal(), hmacKey: opts.hmacKey.reveal() },
    });
    this.sandbox = opts.environment === 'test';
    this.#accountId = opts.accountId;
    this.#baseUrl = setup.baseUrl;
    this.#shopId = opts.shopId;
    this.#credentials = setup.credentials;
    this.#clock = opts.clock;
    this.#publicUrl = trimSlashes(opts.publicUrl);
    this.#client = setup.client;
    this.#operations = opts.operations;
  }

  protected get shownAs(): string {
    return `LyraConnector(${this.sandbox ? 'test' : 'live'})`;
  }

  // -------------------------------------------------------------------------------------------
  // HTTP

  /** One POST to `<baseUrl>/api-payment/V4/<ws>` with HTTP Basic `shop_id:password`. */
  async #call(ws: string, body: Record<string, unknown>): Promise<LyraEnvelope> {
    const auth = Buffer.from(`${this.#shopId}:${this.#credentials.reveal().password}`, 'utf8').toString('base64');
    const { status, text } = await this.#client.json(ws, `${this.#baseUrl}/api-payment/V4/${ws}`, { method: 'POST', headers: { authorization: `Basic ${auth}` }, body });
    const fault = statusFault(this.name, ws, status);
    if (fault) throw fault;
    if (status !== 200) throw this.fault('bad_response', `${ws}: unexpected HTTP ${status}`);
    try {
      return readEnvelope(JSON.parse(text));
    } catch {
      throw this.fault('bad_response', `${ws}: the answer is not a V4 response`);
    }
  }

  /** An ERROR answer that is not a refusal: a fault. Lyra's message is not copied (it may echo input). */
  #errorFault(ws: string, e: LyraErrorAnswer): PspIntegrationError {
    if (e.errorCode === 'PSP_010') return this.fault('unknown_transaction', `${ws}: transaction not found (PSP_010)`);
    if (e.errorCode === 'PSP_030' || e.errorCode === 'PSP_031' || e.errorCode === 'PSP_036') {
      return this.fault('unknown_payment_method', `${ws}: payment method token unknown or unusable (${e.errorCode})`);
    }
    // INT_905 "invalid login or private key" comes in an HTTP 200 ERROR answer.
    if (e.errorCode === 'INT_905') return this.fault('bad_credentials', `${ws}: Lyra refused the shop id and password (INT_905)`);
    if (e.errorCode === 'PSP_001') return this.fault('bad_credentials', `${ws}: action not allowed for this shop (PSP_001)`);
    return this.fault('bad_response', `${ws}: Lyra error ${e.errorCode}`);
  }

  #read<T>(ws: string, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof MalformedAnswer) throw this.fault('bad_response', `${ws}: ${e.message}`);
      throw e;
    }
  }

  /** The order Chipin created under `orderId`, or undefined when Lyra has none. */
  async #findOrder(orderId: string): Promise<LyraPayment | undefined> {
    const env = await this.#call('Order/Get', { orderId });
    if (env.status === 'ERROR') {
      const e = this.#read('Order/Get', () => readError(env.answer));
      if (e.errorCode === 'PSP_010') return undefined;
      throw this.#errorFault('Order/Get', e);
    }
    const payment = this.#read('Order/Get', () => readPayment(env.answer));
    return payment.transactions.length > 0 ? payment : undefined;
  }

  async #transaction(transactionId: string): Promise<{ payment: LyraPayment; result: contract.TransactionResult }> {
    if (!ORDER_ID.test(transactionId)) throw this.fault('unknown_transaction', 'not a Lyra transaction id of this connector');
    const payment = await this.#findOrder(transactionId);
    if (!payment || !splitOrder(payment).debit) throw this.fault('unknown_transaction', 'no such transaction at Lyra');
    return { payment, result: this.#read('Order/Get', () => toTransactionResult(transactionId, payment)) };
  }

  #orderId(op: Operation, key: string): string {
    return `chipin-${createHash('sha256').update(`${op}\0${key}`).digest('hex').slice(0, 40)}`;
  }

  #notificationUrl(): string {
    return pspNotificationUrl(this.#publicUrl, this.#accountId);
  }

  /**
   * Runs a call once per (operation, key) through the operation log. Creations (`reconcile`
   * absent) reconcile by themselves: they look their order up before creating it.
   */
  #once<T extends contract.TransactionResult | contract.AttachResult>(
    op: Operation,
    key: string,
    params: readonly unknown[],
    send: () => Promise<T>,
    reconcile: () => Promise<T | undefined> = send,
  ): Promise<T> {
    const stated = <R extends T | undefined>(r: R): R => (r && 'status' in r ? (withAmounts(r) as R) : r);
    return this.#operations.once(
      op,
      key,
      params,
      async () => stated(await send()),
      async () => stated(await reconcile()),
      reviveTransaction as (stored: unknown) => T,
    );
  }

  /** A replayed creation must have been made with the same parameters (kept in the order's metadata). */
  #checkReplay(op: Operation, key: string, payment: LyraPayment, print: string): void {
    const stored = payment.transactions.find((t) => t.metadata?.chipin_fingerprint)?.metadata?.chipin_fingerprint;
    if (stored !== undefined && stored !== print) {
      throw this.fault('idempotency_conflict', `idempotency key "${key}" was already used for another ${op} call`);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Contract

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    const card = input.card;
    const last4 = card.number.replace(/[\s-]/g, '').slice(-4);
    // Nothing that could rebuild the card goes into the fingerprint.
    const params = [last4, card.expMonth, card.expYear];
    return this.#once('attach', input.idempotencyKey, params, async (): Promise<contract.AttachResult> => {
      const orderId = this.#orderId('attach', input.idempotencyKey);
      let payment = await this.#findOrder(orderId);
      if (!payment) {
        const env = await this.#call('Charge/CreateToken', {
          orderId,
          currency: 'EUR',
          paymentForms: [cardForm(card)],
          // Lyra requires a customer e-mail for tokens; Chipin's contract does not carry the shopper's.
          customer: { email: `payments@${new URL(this.#publicUrl).hostname}`, reference: orderId },
          ipnTargetUrl: this.#notificationUrl(),
        });
        if (env.status === 'ERROR') {
          const e = this.#read('Charge/CreateToken', () => readError(env.answer));
          if (isCardInputRefusal(e.errorCode, e.detailedErrorMessage)) {
            const reason = toDeclineReason(e.errorCode, e.detailedErrorCode, e.detailedErrorMessage);
            return { ok: false, reason, message: declineMessage(reason) };
          }
          throw this.#errorFault('Charge/CreateToken', e);
        }
        payment = this.#read('Charge/CreateToken', () => readPayment(env.answer));
      }
      const t = payment.transactions[0];
      if (!t) throw this.fault('bad_response', 'Charge/CreateToken: no transaction in the answer');
      if (t.detailedStatus === 'REFUSED' || t.detailedStatus === 'NOT_CREATED') {
        const reason = toDeclineReason(t.errorCode, t.detailedErrorCode, t.detailedErrorMessage);
        return { ok: false, reason, message: declineMessage(reason) };
      }
      if (!t.paymentMethodToken) throw this.fault('bad_response', 'Charge/CreateToken: no paymentMethodToken');
      const chaining = t.initialIssuerTransactionIdentifier;
      return {
        ok: true,
        paymentMethodId: chaining && /^[A-Za-z0-9._-]{1,64}$/.test(chaining) ? `${t.paymentMethodToken}~${chaining}` : t.paymentMethodToken,
        brand: toBrand(t.card.brand),
        last4,
        expMonth: t.card.expiryMonth ?? card.expMonth,
        expYear: t.card.expiryYear ?? card.expYear,
      };
    });
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    assertCurrency(input.currency);
    assertReturnUrl(input.returnUrl);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const { token } = parsePaymentMethod(input.paymentMethodId);
    const params = authorizeParams(input);
    const print = fingerprint(['authorize', ...params]);
    return this.#once('authorize', input.idempotencyKey, params, async () => {
      const orderId = this.#orderId('authorize', input.idempotencyKey);
      const existing = await this.#findOrder(orderId);
      if (existing) {
        this.#checkReplay('authorize', input.idempotencyKey, existing, print);
        return this.#read('Order/Get', () => toTransactionResult(orderId, existing));
      }
      return this.#createPayment('Charge/CreatePayment', orderId, input.amountCents, {
        amount: input.amountCents,
        currency: input.currency,
        orderId,
        paymentMethodToken: token,
        formAction: 'PAYMENT',
        // The leader's checkout that stores the card for later charges is the PSD2
        // customer-initiated transaction: ask for the challenge the regulation requires.
        strongAuthentication: input.storeForLater ? 'CHALLENGE_MANDATE' : 'AUTO',
        transactionOptions: { cardOptions: { manualValidation: input.capture === 'manual' ? 'YES' : 'NO' } },
        merchantPostUrlSuccess: input.returnUrl,
        merchantPostUrlRefused: input.returnUrl,
        ipnTargetUrl: this.#notificationUrl(),
        metadata: { chipin_fingerprint: print },
      });
    });
  }

  /** Charge/CreatePayment, its answer in our words: a payment, a 3-D Secure redirect, or a refusal. */
  async #createPayment(ws: string, orderId: string, amountCents: number, body: Record<string, unknown>): Promise<contract.TransactionResult> {
    const env = await this.#call(ws, body);
    if (env.status === 'ERROR') {
      const e = this.#read(ws, () => readError(env.answer));
      throw this.#errorFault(ws, e);
    }
    if (env.answer._type === 'V4/Charge/RedirectRequest') {
      const redirectUrl = env.answer.redirectUrl;
      if (typeof redirectUrl !== 'string' || !/^https?:\/\//.test(redirectUrl)) throw this.fault('bad_response', `${ws}: redirect without a URL`);
      const pending = { transactionId: orderId, status: 'requires_action' as const, amountCents, capturedCents: 0, refundedCents: 0 };
      // With postData the issuer's page wants those fields POSTed (our relay page does it); without, a plain redirect.
      const postData = env.answer.postData;
      if (postData !== undefined && postData !== null) {
        if (typeof postData !== 'object' || !Object.values(postData).every((v) => typeof v === 'string'))
          throw this.fault('bad_response', `${ws}: postData is not a set of strings`);
        return { ...pending, challengeForm: { action: redirectUrl, fields: postData as Record<string, string> } };
      }
      return { ...pending, challengeUrl: redirectUrl };
    }
    const payment = this.#read(ws, () => readPayment(env.answer));
    return this.#read(ws, () => toTransactionResult(orderId, payment));
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const transactionId = input.transaction.transactionId;
    const before = amountsBefore(input.transaction);
    const reconcile = async () => {
      // A retry whose first attempt reached Lyra finds the capture done: that is its outcome.
      const { result } = await this.#transaction(transactionId);
      const wasHeld = before === undefined || before.status === 'authorized';
      return wasHeld && result.status === 'captured' && result.capturedCents === input.amountCents ? result : undefined;
    };
    return this.#once(
      'capture',
      input.idempotencyKey,
      [transactionId, input.amountCents],
      async () => {
        const { payment, result } = await this.#transaction(transactionId);
        if (result.status === 'expired') return { ...result, decline: decline('authorization_expired') };
        if (result.status !== 'authorized') return { ...result, decline: decline('amount_too_large', `Nothing to capture: the transaction is ${result.status}.`) };
        if (input.amountCents > result.amountCents) return { ...result, decline: decline('amount_too_large', `At most ${result.amountCents} can be captured.`) };
        const debit = splitOrder(payment).debit!;
        // Validating with a lower amount captures that amount and releases the rest.
        const env = await this.#call('Transaction/Update', {
          uuid: debit.uuid,
          cardUpdate: { amount: input.amountCents, currency: debit.currency, manualValidation: 'NO' },
        });
        if (env.status === 'ERROR') return this.#refusedOperation('Transaction/Update', env, transactionId);
        this.#read('Transaction/Update', () => readTransaction(env.answer));
        return (await this.#transaction(transactionId)).result;
      },
      reconcile,
    );
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const transactionId = input.transaction.transactionId;
    const reconcile = async () => {
      const { result } = await this.#transaction(transactionId);
      return result.status === 'voided' ? result : undefined;
    };
    return this.#once(
      'void',
      input.idempotencyKey,
      [transactionId],
      async () => {
        const { payment, result } = await this.#transaction(transactionId);
        switch (result.status) {
          case 'voided':
          case 'declined':
            return result; // nothing is held: the void's purpose is met
          case 'expired':
            return { ...result, decline: decline('authorization_expired') };
          case 'captured':
          case 'refunded':
            return { ...result, decline: decline('amount_too_large', 'Nothing to void: the transaction is captured; refund it instead.') };
          case 'authorized':
          case 'requires_action':
            break;
        }
        const debit = splitOrder(payment).debit!;
        const env = await this.#call('Transaction/CancelOrRefund', { uuid: debit.uuid, resolutionMode: 'CANCELLATION_ONLY' });
        if (env.status === 'ERROR') return this.#refusedOperation('Transaction/CancelOrRefund', env, transactionId);
        return (await this.#transaction(transactionId)).result;
      },
      reconcile,
    );
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const transactionId = input.transaction.transactionId;
    const before = amountsBefore(input.transaction);
    const reconcile = async () => {
      // Without the amounts before the call (a payment recorded before connectors returned their
      // state) nothing tells a refund made from one not made: sent again (see docs/psp/lyra.md).
      if (!before) return undefined;
      const { result } = await this.#transaction(transactionId);
      return result.refundedCents >= before.refundedCents + input.amountCents ? result : undefined;
    };
    return this.#once(
      'refund',
      input.idempotencyKey,
      [transactionId, input.amountCents],
      async () => {
        const { payment, result } = await this.#transaction(transactionId);
        const refundable = result.status === 'captured' || result.status === 'refunded' ? result.capturedCents - result.refundedCents : 0;
        if (input.amountCents > refundable) return { ...result, decline: decline('amount_too_large', `At most ${refundable} can be refunded.`) };
        const debit = splitOrder(payment).debit!;
        // AUTO: Lyra cancels the part not yet remitted to the bank, refunds what was.
        const env = await this.#call('Transaction/CancelOrRefund', { uuid: debit.uuid, amount: input.amountCents, currency: debit.currency, resolutionMode: 'AUTO' });
        if (env.status === 'ERROR') return this.#refusedOperation('Transaction/CancelOrRefund', env, transactionId);
        return (await this.#transaction(transactionId)).result;
      },
      reconcile,
    );
  }

  /** A capture/void/refund Lyra refused: a refusal when the transaction does not allow it, else a fault. */
  async #refusedOperation(ws: string, env: LyraEnvelope, transactionId: string): Promise<contract.TransactionResult> {
    const e = this.#read(ws, () => readError(env.answer));
    if (e.errorCode === 'PSP_011' || e.errorCode === 'PSP_020' || e.errorCode === 'PSP_075' || e.errorCode === 'PSP_076') {
      const { result } = await this.#transaction(transactionId);
      if (result.status === 'expired') return { ...result, decline: decline('authorization_expired') };
      return { ...result, decline: decline('amount_too_large', `Lyra refused the operation (${e.errorCode}).`) };
    }
    throw this.#errorFault(ws, e);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    assertCurrency(input.currency);
    const { token, chaining } = parsePaymentMethod(input.paymentMethodId);
    const stored = input.storedCredential;
    const manual = input.capture === 'manual';
    const params = [
      input.paymentMethodId,
      input.amountCents,
      input.currency,
      stored?.initialTransactionId ?? null,
      stored?.networkTransactionId ?? null,
      ...(manual ? ['manual'] : []),
    ];
    const print = fingerprint(['charge_off_session', ...params]);
    return this.#once('charge_off_session', input.idempotencyKey, params, async () => {
      const orderId = this.#orderId('charge_off_session', input.idempotencyKey);
      const existing = await this.#findOrder(orderId);
      if (existing) {
        this.#checkReplay('charge_off_session', input.idempotencyKey, existing, print);
        return this.#read('Order/Get', () => toTransactionResult(orderId, existing));
      }
      // The issuer declines a MIT without the chaining reference of the CIT that stored the card.
      let reference = stored?.networkTransactionId;
      if (!reference && stored?.initialTransactionId) reference = (await this.#transaction(stored.initialTransactionId)).result.networkTransactionId;
      reference ??= chaining;
      return this.#createPayment('Charge/CreatePayment', orderId, input.amountCents, {
        amount: input.amountCents,
        currency: input.currency,
        orderId,
        paymentMethodToken: token,
        // SILENT: a payment by token without the buyer (no form, no 3-D Secure): a merchant-initiated transaction.
        formAction: 'SILENT',
        // manualValidation YES: a merchant-initiated hold (AUTHORISED_TO_VALIDATE), validated by the
        // capture's Transaction/Update or cancelled by the void, as the checkout's own hold (a
        // re-authorisation, docs/money-operations.md#re-authorisation); NO: captured at once.
        transactionOptions: { cardOptions: { manualValidation: manual ? 'YES' : 'NO', ...(reference ? { initialIssuerTransactionIdentifier: reference } : {}) } },
        ipnTargetUrl: this.#notificationUrl(),
        metadata: { chipin_fingerprint: print },
      });
    });
  }

  /** Lyra reads a transaction by its order id: the id is all this needs. */
  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return withAmounts((await this.#transaction(transaction.transactionId)).result);
  }

  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    const read = this.readNotification(input);
    return read.ok ? read.result : read;
  }

  /** {@link verifyNotification} with the Lyra fields the machinery may need (order id, uuid, detailedStatus). */
  readNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): LyraNotificationRead {
    return readNotification(this.#credentials.reveal(), input, this.#clock.now());
  }

  /** `Charge/SDKTest`: Lyra's documented harmless call, authenticated like any other. */
  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    return this.probeCredentials(async () => {
      const env = await this.#call('Charge/SDKTest', { value: 'chipin' });
      if (env.status === 'ERROR') {
        const e = this.#read('Charge/SDKTest', () => readError(env.answer));
        if (e.errorCode === 'INT_905') return { ok: false, message: 'Lyra refused the shop id and password (INT_905).' };
        throw this.#errorFault('Charge/SDKTest', e);
      }
    }, 'Lyra refused the shop id and password.');
  }
}
