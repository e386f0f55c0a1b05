import midtransClient, { type CoreApi } from 'midtrans-client';
import { timingSafeEqual } from 'node:crypto';
import { Redacted } from '../../domain/redacted.ts';
import type * as contract from '../connector.ts';
import { PspIntegrationError } from '../connector.ts';
import type { ConnectorContext, PspAccountConfig } from '../definition.ts';
import { checkBaseUrl, KitConnector, trimSlashes } from '../kit/connector-setup.ts';
import { reviveTransaction, authorizeParams, chargeParams, type PspOperations } from '../kit/operations.ts';
import { statusFault } from '../kit/status-fault.ts';
import { assertAmount, assertKey, assertReturnUrl } from '../input-checks.ts';
import { PspCallError, pspCallFault } from '../psp-http.ts';
import { notificationSignature, orderIdFor, readTransaction, toGrossAmount, toTransactionResult, type Before, type MidtransTransaction } from './mapping.ts';
import { readChargeback } from './disputes.ts';

const NAME = 'midtrans';

/** Midtrans' Core API hosts (docs.midtrans.com "Environment": sandbox and production; the SDK's apiConfig.js has the same). */
export const MIDTRANS_BASE_URLS = { test: 'https://api.sandbox.midtrans.com', live: 'https://api.midtrans.com' } as const;
export const MIDTRANS_HOSTS = { test: ['api.sandbox.midtrans.com'], live: ['api.midtrans.com'] } as const;

/** Midtrans' transaction ids are UUIDs; our order ids are {@link orderIdFor}'s. */
const TRANSACTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SAVED_TOKEN = /^[0-9A-Za-z-]{8,128}$/;

type Answer = Record<string, unknown>;

/** The axios fetch adapter hands us a `Request` (body inside): our fetch takes a URL and an init. */
function requestToInit(fetch: (input: string, init?: RequestInit) => Promise<Response>) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (!(input instanceof Request)) return fetch(String(input), init);
    const body = input.method === 'GET' || input.method === 'HEAD' ? undefined : await input.text();
    return fetch(input.url, {
      method: input.method,
      headers: input.headers,
      ...(body ? { body } : {}),
      ...(init?.signal ? { signal: init.signal } : input.signal ? { signal: input.signal } : {}),
    });
  };
}

function brandOf(bin: string): string {
  if (bin.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(bin)) return 'mastercard';
  if (/^3[47]/.test(bin)) return 'amex';
  if (/^35/.test(bin)) return 'jcb';
  return 'unknown';
}

/**
 * Midtrans' Core API through its official Node SDK (midtrans-client 1.4.3), card payments only
 * (docs/psp/midtrans.md):
 * - a card is registered (`GET /v2/card/register` with the client key): its `saved_token_id` is
 *   our payment method id;
 * - an on-session payment is `POST /v2/charge` with `credit_card.token_id` = the saved token,
 *   `authentication: true` (3-D Secure; the answer's `redirect_url` is the shopper's page), `type:
 *   authorize` for a hold, and `save_token_id: true` when the shopper consents to later charges
 *   (PSD2 CIT);
 * - a merchant-initiated charge is the same charge without authentication on the saved token, which
 *   Midtrans accepts only once a CIT stored it;
 * - Midtrans' idempotency is the `order_id` (it never charges one twice, "Duplicate order ID"),
 *   ours derived from the idempotency key; refunds carry a `refund_key`.
 * Amounts: IDR only, whole rupiah (mapping.ts).
 */
export class MidtransConnector extends KitConnector implements contract.PspConnector {
  readonly name = NAME;
  readonly sandbox: boolean;
  readonly #client: CoreApi;
  readonly #keys: Redacted<{ serverKey: string; clientKey: string }>;
  readonly #timeoutMs: number;
  readonly #operations: PspOperations;

  constructor(account: PspAccountConfig, context: ConnectorContext) {
    super();
    const serverKey = account.credentials.server_key ?? '';
    const clientKey = account.credentials.client_key ?? '';
    if (!/^(SB-)?Mid-server-[A-Za-z0-9_-]{8,}$/.test(serverKey)) throw new TypeError('midtrans: the server key must look like SB-Mid-server-… or Mid-server-…');
    if (!/^(SB-)?Mid-client-[A-Za-z0-9_-]{8,}$/.test(clientKey)) throw new TypeError('midtrans: the client key must look like SB-Mid-client-… or Mid-client-…');
    if (!Number.isSafeInteger(context.timeoutMs) || context.timeoutMs <= 0) throw new TypeError('midtrans: timeoutMs must be a positive integer');
    const url = checkBaseUrl(NAME, account.baseUrl);
    if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
      throw new TypeError('midtrans: baseUrl must be scheme, host and port only (the SDK adds /v2/…)');
    }
    const baseUrl = trimSlashes(url.toString());
    this.sandbox = account.environment === 'test';
    this.#timeoutMs = context.timeoutMs;
    this.#operations = context.operations;
    this.#keys = new Redacted({ serverKey, clientKey });
    const client = new midtransClient.CoreApi({ isProduction: !this.sandbox, serverKey, clientKey });
    // The SDK takes its host from isProduction (apiConfig.js getCoreApiBaseUrl): this account's
    // base URL instead, so an endpoint_url (a test double, a proxy) is honoured.
    client.apiConfig.getCoreApiBaseUrl = () => baseUrl;
    // Every request through the service's one outbound client: the SDK's axios instance
    // (httpClient.js `http_client`) on axios' fetch adapter with our fetch (axios ≥ 1.7).
    const defaults = client.httpClient.http_client.defaults;
    defaults.adapter = 'fetch';
    defaults.env = { ...defaults.env, fetch: requestToInit(context.http.fetchWith(context.timeoutMs)) };
    defaults.maxRedirects = 0;
    defaults.timeout = context.timeoutMs;
    // The SDK gives every GET an empty JSON body (httpClient.js: `data: {}`), which node's http
    // adapter sent along and a fetch Request refuses: Midtrans' GET endpoints take none.
    client.httpClient.http_client.interceptors.request.use((config) => {
      if (config.method?.toLowerCase() === 'get') config.data = undefined;
      return config;
    });
    this.#client = client;
  }

  protected get shownAs(): string {
    return `MidtransConnector(${this.sandbox ? 'sandbox' : 'production'})`;
  }

  /** Midtrans' answer of a failed call (the SDK's MidtransError), or undefined when there was none. */
  #answerOf(e: unknown): { status: number; body: Answer } | undefined {
    if (!(e instanceof midtransClient.MidtransError)) return undefined;
    const status = Number(e.httpStatusCode);
    if (e.httpStatusCode === null || !Number.isInteger(status) || status < 100) return undefined;
    const body = typeof e.ApiResponse === 'object' && e.ApiResponse !== null ? (e.ApiResponse as Answer) : {};
    return { status, body };
  }

  /** A failure that is not a refusal, as the contract's closed set; never Midtrans' message (it may echo the request). */
  #fault(e: unknown, missing: 'unknown_transaction' | 'unknown_payment_method' = 'unknown_transaction'): PspIntegrationError {
    if (e instanceof PspIntegrationError) return e;
    const a = this.#answerOf(e);
    if (!a) {
      let cause: unknown = e;
      for (let i = 0; i < 4 && cause instanceof Error; i++) {
        if (cause instanceof PspCallError) return pspCallFault(NAME, 'Midtrans', cause, this.#timeoutMs);
        cause = (cause as Error & { rawHttpClientData?: unknown }).rawHttpClientData ?? cause.cause;
      }
      return new PspIntegrationError(NAME, 'unreachable', 'Midtrans: the call failed or brought no answer');
    }
    const byStatus = statusFault(NAME, 'Midtrans', a.status);
    if (byStatus) return byStatus;
    if (a.status === 404) return new PspIntegrationError(NAME, missing, `Midtrans does not know this ${missing === 'unknown_transaction' ? 'transaction' : 'saved card'}`);
    return new PspIntegrationError(NAME, 'bad_response', `Midtrans refused the request (status_code ${a.status})`);
  }

  #transaction(value: unknown): MidtransTransaction {
    const t = readTransaction(value);
    if (!t) throw new PspIntegrationError(NAME, 'bad_response', 'Midtrans sent a transaction we cannot read');
    return t;
  }

  #once(op: string, key: string, params: readonly unknown[], send: () => Promise<contract.TransactionResult>): Promise<contract.TransactionResult> {
    return this.#operations.once(op, key, params, send, send, reviveTransaction<contract.TransactionResult>);
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const { card } = input;
    const digits = card.number.replace(/ /g, '');
    const params = [digits, card.expMonth, card.expYear, card.cvc, card.holderName];
    // Registering a card twice gives the same card another token: harmless, so a retry just registers again.
    const send = () => this.#attach(digits, input);
    return this.#operations.once('attach', input.idempotencyKey, params, send, send);
  }

  async #attach(digits: string, input: contract.AttachInput): Promise<contract.AttachResult> {
    const { card } = input;
    let answer: Answer;
    try {
      answer = await this.#client.cardRegister({
        card_number: digits,
        card_exp_month: String(card.expMonth).padStart(2, '0'),
        card_exp_year: String(card.expYear),
        card_cvv: card.cvc,
        client_key: this.#keys.reveal().clientKey,
      });
    } catch (e) {
      const a = this.#answerOf(e);
      // 400: the card data is invalid (validation_messages), a refusal of the card, not a fault.
      if (a && a.status === 400) {
        const messages = Array.isArray(a.body.validation_messages) ? a.body.validation_messages.join(' ') : '';
        return {
          ok: false,
          reason: /expir/i.test(messages) ? 'expired_card' : /cvv/i.test(messages) ? 'incorrect_cvc' : 'invalid_card',
          message: messages || 'Midtrans refused the card details',
        };
      }
      throw this.#fault(e);
    }
    const token = answer.saved_token_id;
    const masked = typeof answer.masked_card === 'string' ? answer.masked_card : '';
    if (typeof token !== 'string' || !SAVED_TOKEN.test(token) || !/^\d{6}-\d{4}$/.test(masked))
      throw new PspIntegrationError(NAME, 'bad_response', 'Midtrans sent a card registration we cannot read');
    return { ok: true, paymentMethodId: token, brand: brandOf(masked), last4: masked.slice(-4), expMonth: card.expMonth, expYear: card.expYear };
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    assertAmount(input.amountCents);
    assertReturnUrl(input.returnUrl);
    const gross = toGrossAmount(input.amountCents, input.currency);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const params = authorizeParams(input);
    return this.#once('authorize', input.idempotencyKey, params, () =>
      this.#charge(input.idempotencyKey, input.paymentMethodId, gross, {
        authentication: true,
        ...(input.capture === 'manual' ? { type: 'authorize' } : {}),
        // PSD2 CIT that stores the card for merchant-initiated charges.
        ...(input.storeForLater ? { save_token_id: true } : {}),
        callback_url: input.returnUrl,
      }),
    );
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    assertAmount(input.amountCents);
    const gross = toGrossAmount(input.amountCents, input.currency);
    const manual = input.capture === 'manual';
    const params = chargeParams(input, manual);
    // A merchant-initiated charge: the saved token a CIT stored is the stored-credential reference
    // Midtrans knows; no authentication (the shopper is absent). `manual`: a pre-authorisation
    // (`type: authorize`), captured or cancelled later (a re-authorisation,
    // docs/money-operations.md#re-authorisation).
    return this.#once('charge_off_session', input.idempotencyKey, params, () =>
      this.#charge(input.idempotencyKey, input.paymentMethodId, gross, manual ? { type: 'authorize' } : {}),
    );
  }

  async #charge(key: string, token: string, gross: number, creditCard: Answer): Promise<contract.TransactionResult> {
    if (!SAVED_TOKEN.test(token)) throw new PspIntegrationError(NAME, 'unknown_payment_method', 'not a Midtrans saved token');
    const orderId = orderIdFor(key);
    let answer: Answer;
    try {
      answer = await this.#client.charge({
        payment_type: 'credit_card',
        transaction_details: { order_id: orderId, gross_amount: gross },
        credit_card: { token_id: token, ...creditCard },
      });
    } catch (e) {
      const a = this.#answerOf(e);
      // 406: the order id was used: our earlier attempt reached Midtrans; its transaction is the answer.
      if (a && a.status === 406) return this.#status(orderId, undefined);
      // A refusal by the bank or the fraud system comes as a transaction (202 deny, 411/412 token refused).
      if (a && readTransaction(a.body)) return toTransactionResult(this.#transaction(a.body));
      if (a && (a.status === 411 || a.status === 412)) throw new PspIntegrationError(NAME, 'unknown_payment_method', 'Midtrans refused the saved token');
      throw this.#fault(e);
    }
    return toTransactionResult(this.#transaction(answer));
  }

  async #status(id: string, ref: contract.TransactionRef | undefined): Promise<contract.TransactionResult> {
    let answer: Answer;
    try {
      answer = await this.#client.transaction.status(id);
    } catch (e) {
      throw this.#fault(e);
    }
    return toTransactionResult(this.#transaction(answer), amountsOf(ref));
  }

  #id(ref: contract.TransactionRef): string {
    if (!TRANSACTION_ID.test(ref.transactionId)) throw new PspIntegrationError(NAME, 'unknown_transaction', 'not a Midtrans transaction id');
    return ref.transactionId;
  }

  /** A call that changes a transaction; Midtrans' 412 ("cannot be updated") leaves it as it was, which is the refusal's result. */
  async #operate(
    ref: contract.TransactionRef,
    call: () => Promise<Answer>,
    after: (r: contract.TransactionResult) => contract.TransactionResult,
  ): Promise<contract.TransactionResult> {
    const id = this.#id(ref);
    try {
      await call();
    } catch (e) {
      const a = this.#answerOf(e);
      if (a && (a.status === 412 || a.status === 418)) {
        const now = await this.#status(id, ref);
        const reason = now.status === 'expired' ? 'authorization_expired' : 'amount_too_large';
        return { ...now, decline: { reason, message: typeof a.body.status_message === 'string' ? a.body.status_message : 'Midtrans refused the operation' } };
      }
      throw this.#fault(e);
    }
    return after(await this.#status(id, ref));
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    assertAmount(input.amountCents);
    const id = this.#id(input.transaction);
    return this.#once('capture', input.idempotencyKey, [id, input.amountCents], async () => {
      const gross = toGrossAmount(input.amountCents, 'IDR');
      return this.#operate(
        input.transaction,
        () => this.#client.capture({ transaction_id: id, gross_amount: gross }),
        (r) => withState(r, { capturedCents: r.status === 'captured' ? input.amountCents : r.capturedCents }),
      );
    });
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    const id = this.#id(input.transaction);
    return this.#once('void', input.idempotencyKey, [id], () =>
      this.#operate(
        input.transaction,
        () => this.#client.transaction.cancel(id),
        // Our own cancel: voided, never read as a lapse.
        (r) => (r.status === 'expired' ? { ...r, status: 'voided', pspState: { ...(r.pspState ?? {}), status: 'voided' } } : r),
      ),
    );
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    assertAmount(input.amountCents);
    const id = this.#id(input.transaction);
    return this.#once('refund', input.idempotencyKey, [id, input.amountCents], () =>
      this.#operate(
        input.transaction,
        // refund_key: Midtrans' idempotency key of a refund (the same key is one refund).
        () => this.#client.transaction.refund(id, { refund_key: orderIdFor(input.idempotencyKey), amount: toGrossAmount(input.amountCents, 'IDR'), reason: 'Chipin refund' }),
        (r) => r,
      ),
    );
  }

  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return this.#status(this.#id(transaction), transaction);
  }

  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    let body: unknown;
    try {
      body = JSON.parse(input.rawBody);
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (typeof body !== 'object' || body === null) return { ok: false, reason: 'malformed' };
    const o = body as Answer;
    const { order_id: orderId, status_code: statusCode, gross_amount: grossAmount, signature_key: signature } = o;
    if (typeof orderId !== 'string' || typeof statusCode !== 'string' || typeof grossAmount !== 'string' || typeof signature !== 'string')
      return { ok: false, reason: 'malformed' };
    const expected = Buffer.from(notificationSignature(orderId, statusCode, grossAmount, this.#keys.reveal().serverKey), 'utf8');
    const given = Buffer.from(signature.toLowerCase(), 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' };
    const t = readTransaction(o);
    if (!t) return { ok: false, reason: 'malformed' };
    const dispute = readChargeback(t);
    return { ok: true, transactionId: t.transactionId, status: toTransactionResult(t).status, ...(dispute ? { dispute } : {}) };
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    try {
      // The status of an order that does not exist: 404 with good keys, 401 with bad ones; changes nothing.
      await this.#client.transaction.status('chipin-credential-check');
      return { ok: true };
    } catch (e) {
      const a = this.#answerOf(e);
      if (a && a.status === 404) return { ok: true };
      const f = this.#fault(e);
      if (f.code === 'bad_credentials') return { ok: false, message: f.message.replace(/^midtrans: /, '') };
      throw f;
    }
  }
}

function amountsOf(ref: contract.TransactionRef | undefined): Before | undefined {
  const s = ref?.pspState;
  if (!s || typeof s.capturedCents !== 'number' || typeof s.refundedCents !== 'number') return undefined;
  const status = typeof s.status === 'string' ? (s.status as contract.TransactionStatus) : undefined;
  return { capturedCents: s.capturedCents, refundedCents: s.refundedCents, ...(status ? { status } : {}) };
}

function withState(r: contract.TransactionResult, amounts: { capturedCents: number }): contract.TransactionResult {
  return { ...r, capturedCents: amounts.capturedCents, pspState: { ...(r.pspState ?? {}), capturedCents: amounts.capturedCents } };
}
