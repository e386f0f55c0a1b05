import type * as contract from '../connector.ts';
import { PspIntegrationError, askedThreeDSecure } from '../connector.ts';
import { withAmounts } from '../kit/amounts-state.ts';
import { reviveTransaction } from '../kit/operations.ts';
import type { ConnectorContext, PspAccountConfig } from '../definition.ts';
import { HipayClient, errorOf } from './client.ts';
import { CHARGED_BACK, toNotifiedDispute } from './disputes.ts';
import { HttpKitConnector, kitOptions } from '../kit/connector-setup.ts';
import {
  fingerprintOf,
  isHipayReasonCode,
  paymentProductFor,
  readTransaction,
  referenceFor,
  toDeclineReason,
  toHipayAmount,
  toTransactionResult,
  type HipayTransaction,
} from './mapping.ts';
import { checkCardLocally } from '../kit/card-checks.ts';
import { SIGNATURE_HEADER, checkSignature, headerValue, readNotification } from './notifications.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';

/**
 * HiPay's hosts (HiPay Node SDK, Gateway/HTTP/Configuration/Configuration.js; the consultation
 * API's from HiPay's developer portal, "Transaction" v3): the gateway, the card vault that
 * tokenises card numbers, and the consultation API, for stage (test) and production (live).
 */
const STAGE_GATEWAY = 'https://stage-secure-gateway.hipay-tpp.com';
const LIVE_GATEWAY = 'https://secure-gateway.hipay-tpp.com';
const VAULT_BY_GATEWAY: Record<string, string> = {
  [STAGE_GATEWAY]: 'https://stage-secure2-vault.hipay-tpp.com',
  [LIVE_GATEWAY]: 'https://secure2-vault.hipay-tpp.com',
};
/** The consultation API (`/v3/transaction`), which lists a transaction's operations. */
const CONSULTATION_BY_GATEWAY: Record<string, string> = {
  [STAGE_GATEWAY]: 'https://stage-api-gateway.hipay.com',
  [LIVE_GATEWAY]: 'https://api-gateway.hipay.com',
};
export const HIPAY_GATEWAYS = { test: STAGE_GATEWAY, live: LIVE_GATEWAY } as const;
/** Every host above, per environment: where a HiPay account's calls may go in production (src/psp/endpoints.ts). */
export const HIPAY_HOSTS = {
  test: [STAGE_GATEWAY, VAULT_BY_GATEWAY[STAGE_GATEWAY]!, CONSULTATION_BY_GATEWAY[STAGE_GATEWAY]!].map((u) => new URL(u).hostname),
  live: [LIVE_GATEWAY, VAULT_BY_GATEWAY[LIVE_GATEWAY]!, CONSULTATION_BY_GATEWAY[LIVE_GATEWAY]!].map((u) => new URL(u).hostname),
} as const;

const TRANSACTION_REFERENCE = /^\d{1,32}$/;
/** Our payment method id: `<payment_product>:<vault token>`, since an order names both. */
const PAYMENT_METHOD = /^([a-z0-9-]{2,40}):([A-Za-z0-9]{16,128})$/;

/** Order/maintenance error codes that mean "this order id was already used" (appendix: Duplicate Order, Order Completed). */
const DUPLICATE_ORDER = new Set([3010004, 3010006]);
const UNKNOWN_ORDER = 3000001;
const UNKNOWN_TRANSACTION = 3000002;
const UNKNOWN_TOKEN = 3040001;
const ALREADY_VOIDED = 3020403;

type Maintenance = 'capture' | 'refund' | 'cancel';

/**
 * HiPay Enterprise (Gateway API v1) for one merchant's HiPay account.
 *
 * Idempotency: HiPay has no idempotency header. Every mutating call is therefore reconciled with
 * HiPay before it is sent:
 * - an order (authorisation, off-session charge) gets an `orderid` derived from our key (HiPay keeps
 *   an order id unique: a second order under it is refused as "Duplicate Order"); the connector first
 *   looks the order up (`GET /rest/v1/transaction?orderid=`) and, if the first attempt reached HiPay,
 *   answers what it became instead of ordering again. A fingerprint of the parameters travels in
 *   `custom_data`, so a key reused for another call is an `idempotency_conflict`;
 * - a maintenance operation gets an `operation_id` derived from our key; the connector first lists
 *   the transaction's operations (`GET /v3/transaction/{reference}`, field `merchantReference`) and
 *   does not send it twice.
 * A refused call leaves no trace at HiPay, so a replay is sent again and refused again alike.
 */
export class HipayConnector extends HttpKitConnector<{ username: string; password: string; passphrase: string }> implements contract.PspConnector {
  readonly #client: HipayClient;
  readonly #vault: string;
  readonly #consultation: string;

  constructor(account: PspAccountConfig, context: ConnectorContext) {
    const { username, password, secret_passphrase: passphrase } = account.credentials;
    if (!username || !password || !passphrase) throw new TypeError('hipay: username, password and secret_passphrase are required');
    super('hipay', { ...kitOptions(account, context), credentials: { username, password, passphrase } });
    // The base URL is the gateway API's. The vault and the consultation API live on their own hosts;
    // a custom endpoint (a proxy, or the test fake) serves all three.
    this.#vault = VAULT_BY_GATEWAY[this.baseUrl] ?? this.baseUrl;
    this.#consultation = CONSULTATION_BY_GATEWAY[this.baseUrl] ?? this.baseUrl;
    this.#client = new HipayClient(this.client, this.credentials);
  }

  protected override get shownAs(): string {
    return `HipayConnector(${this.baseUrl})`;
  }
  protected override get shownFields(): Record<string, unknown> {
    return { gateway: this.baseUrl };
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const check = checkCardLocally(input.card, this.clock.now());
    if (!check.ok) return check;
    // Always a multi-use token: Chipin may charge the card later, off session. The vault gives the
    // same token for the same card, so a repeated attach has no second effect.
    const { status, body } = await this.#client.request('POST', `${this.#vault}/rest/v2/token/create`, {
      card_number: check.digits,
      card_expiry_month: String(input.card.expMonth).padStart(2, '0'),
      card_expiry_year: String(check.year),
      card_holder: input.card.holderName,
      cvc: input.card.cvc,
      multi_use: '1',
    });
    if (status === 400) return { ok: false, reason: 'invalid_card', message: errorOf(body)?.message || 'HiPay refused the card details.' };
    if (status !== 200 && status !== 201) throw this.#unexpected('token/create', status, body);
    const t = body as Record<string, unknown>;
    const pan = typeof t.pan === 'string' ? t.pan : '';
    if (typeof t.token !== 'string' || typeof t.brand !== 'string' || !/\d{4}$/.test(pan)) {
      throw this.fault('bad_response', 'token/create: the answer lacks token, brand or pan');
    }
    const product = paymentProductFor(t.brand);
    const paymentMethodId = `${product}:${t.token}`;
    if (!PAYMENT_METHOD.test(paymentMethodId)) throw this.fault('bad_response', 'token/create: malformed token');
    return {
      ok: true,
      paymentMethodId,
      brand: t.brand.toLowerCase(),
      last4: pan.slice(-4),
      expMonth: Number(t.card_expiry_month ?? input.card.expMonth),
      expYear: Number(t.card_expiry_year ?? check.year),
    };
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const { product, token } = this.#paymentMethod(input.paymentMethodId);
    const storeForLater = input.storeForLater === true;
    const asked = askedThreeDSecure(input);
    const fields: Record<string, string> = {
      operation: input.capture === 'automatic' ? 'Sale' : 'Authorization',
      payment_product: product,
      cardtoken: token,
      amount: toHipayAmount(input.amountCents, input.currency),
      currency: input.currency,
      description: 'Chipin payment',
      // E-commerce, shopper present (appendix, "Electronic Commerce Indicator").
      eci: '7',
      // 3-D Secure if available; mandatory when the card is stored for merchant-initiated charges
      // (PSD2: the consent to store needs strong customer authentication) or the merchant wants it
      // always; bypassed (0) when the merchant wants it never, the issuer deciding whether it may
      // (docs/psp-connectors.md#the-merchants-3-d-secure-choice).
      authentication_indicator: storeForLater || asked === 'always' ? '2' : asked === 'never' ? '0' : '1',
      accept_url: input.returnUrl,
      decline_url: input.returnUrl,
      pending_url: input.returnUrl,
      exception_url: input.returnUrl,
      cancel_url: input.returnUrl,
    };
    // The customer-initiated transaction that starts a recurring use of the card (HiPay
    // "recurring_payment": 1 initiates the recurring use case; the token is multi-use).
    if (storeForLater) fields.recurring_payment = '1';
    const print = fingerprintOf(['authorize', input.paymentMethodId, input.amountCents, input.currency, input.capture, input.returnUrl, storeForLater]);
    return this.#order(referenceFor('auth', input.idempotencyKey), print, fields);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    const { product, token } = this.#paymentMethod(input.paymentMethodId);
    const manual = input.capture === 'manual';
    const fields: Record<string, string> = {
      // `Authorization` for `manual`: a merchant-initiated hold, captured or cancelled later by the
      // maintenance calls (a re-authorisation, docs/money-operations.md#re-authorisation).
      operation: manual ? 'Authorization' : 'Sale',
      payment_product: product,
      cardtoken: token,
      amount: toHipayAmount(input.amountCents, input.currency),
      currency: input.currency,
      description: 'Chipin charge',
      // Merchant-initiated: recurring e-commerce, no 3-D Secure (the shopper is absent).
      eci: '9',
      authentication_indicator: '0',
      recurring_payment: '1',
    };
    const initial = input.storedCredential?.initialTransactionId;
    if (initial !== undefined) {
      if (!TRANSACTION_REFERENCE.test(initial)) throw new RangeError('storedCredential.initialTransactionId must be a HiPay transaction reference');
      // The customer-initiated transaction that stored the card (PSD2 object, JSON-encoded as
      // HiPay's SDKs send it: PHP SDK Request/RequestSerializer.php, ThreeDSTwo/PreviousAuthInfo.php).
      fields.previous_auth_info = JSON.stringify({ transaction_reference: initial });
    }
    const print = fingerprintOf(['charge_off_session', input.paymentMethodId, input.amountCents, input.currency, initial ?? null, ...(manual ? ['manual'] : [])]);
    return this.#order(referenceFor('mit', input.idempotencyKey), print, fields);
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    return this.#once('capture', input.idempotencyKey, input.transaction, input.amountCents);
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    return this.#once('cancel', input.idempotencyKey, input.transaction, undefined);
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    return this.#once('refund', input.idempotencyKey, input.transaction, input.amountCents);
  }

  /**
   * A maintenance call through the operation log (replayed from it, whichever process asks). HiPay
   * keeps our `operation_id`: a call whose outcome is unknown is reconciled by sending it again,
   * which first asks HiPay whether that operation id was recorded ({@link #maintain}).
   */
  #once(operation: Maintenance, key: string, transaction: contract.TransactionRef, amountCents: number | undefined): Promise<contract.TransactionResult> {
    const send = () => this.#maintain(operation, key, transaction.transactionId, amountCents);
    return this.operations.once(operation, key, [transaction.transactionId, amountCents ?? null], send, send, reviveTransaction<contract.TransactionResult>);
  }

  /** HiPay reads a transaction by its reference: the id is all this needs. */
  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return this.#read(transaction.transactionId);
  }

  async #read(reference: string): Promise<contract.TransactionResult> {
    return withAmounts(toTransactionResult(await this.#transaction(reference)));
  }

  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    const check = checkSignature(this.credentials.reveal().passphrase, headerValue(input.headers, SIGNATURE_HEADER), input.rawBody);
    if (check !== 'ok') return { ok: false, reason: check };
    const read = readNotification(input.rawBody);
    if (!read.ok || new URLSearchParams(input.rawBody).get('status') !== String(CHARGED_BACK)) return read;
    // A chargeback (disputes.ts): the transaction read back tells the amount taken.
    const t = await this.#transaction(read.transactionId);
    return { ...read, status: withAmounts(toTransactionResult(t)).status, dispute: toNotifiedDispute(t) };
  }

  /** `GET /rest/v2/security-settings`: authenticated, changes nothing (HiPay Node SDK, HiPay.js). */
  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    return this.probeCredentials(async () => {
      const { status, body } = await this.#client.request('GET', `${this.baseUrl}/rest/v2/security-settings`);
      if (status !== 200) throw this.#unexpected('security-settings', status, body);
    }, 'HiPay refused the API login and password (check them under Integration → Security settings → Api credentials).');
  }

  #paymentMethod(id: string): { product: string; token: string } {
    const m = PAYMENT_METHOD.exec(id);
    if (!m) throw this.fault('unknown_payment_method', `no payment method ${JSON.stringify(id.slice(0, 80))}`);
    return { product: m[1]!, token: m[2]! };
  }

  #unexpected(where: string, status: number, body: unknown): PspIntegrationError {
    const e = errorOf(body);
    return this.fault('bad_response', `${where}: unexpected answer ${status}${e ? ` (${e.code} ${e.message})` : ''}`);
  }

  async #transaction(reference: string): Promise<HipayTransaction> {
    if (!TRANSACTION_REFERENCE.test(reference)) throw this.fault('unknown_transaction', `no transaction ${JSON.stringify(reference.slice(0, 80))}`);
    const { status, body } = await this.#client.request('GET', `${this.baseUrl}/rest/v1/transaction/${reference}`);
    if (status === 404 || (status === 400 && errorOf(body)?.code === UNKNOWN_TRANSACTION)) {
      throw this.fault('unknown_transaction', `no transaction ${reference}`);
    }
    if (status !== 200) throw this.#unexpected('transaction', status, body);
    const t = readTransaction((body as { transaction?: unknown } | null)?.transaction);
    if (!t) throw this.fault('bad_response', `transaction ${reference}: unreadable answer`);
    return t;
  }

  /** The transaction of an order id, if HiPay has one (the latest attempt). */
  async #findOrder(orderId: string): Promise<HipayTransaction | undefined> {
    const { status, body } = await this.#client.request('GET', `${this.baseUrl}/rest/v1/transaction?orderid=${encodeURIComponent(orderId)}`);
    if (status === 404 || (status === 400 && errorOf(body)?.code === UNKNOWN_ORDER)) return undefined;
    if (status !== 200) throw this.#unexpected('transaction?orderid', status, body);
    const raw = (body as { transaction?: unknown } | null)?.transaction;
    const list = Array.isArray(raw) ? raw : [raw];
    const t = readTransaction(list[list.length - 1]);
    if (!t) throw this.fault('bad_response', `order ${orderId}: unreadable answer`);
    return t;
  }

  async #order(orderId: string, print: string, fields: Record<string, string>): Promise<contract.TransactionResult> {
    const known = await this.#findOrder(orderId);
    if (known) return this.#replayed(orderId, print, known);
    const { status, body } = await this.#client.request('POST', `${this.baseUrl}/rest/v1/order`, {
      orderid: orderId,
      ...fields,
      custom_data: JSON.stringify({ chipin_fp: print }),
    });
    const error = errorOf(body);
    if (status !== 200 && error && DUPLICATE_ORDER.has(error.code)) {
      // Another process sent the same key at the same moment: its order is ours.
      const raced = await this.#findOrder(orderId);
      if (raced) return this.#replayed(orderId, print, raced);
    }
    if (status !== 200 && error?.code === UNKNOWN_TOKEN) throw this.fault('unknown_payment_method', `HiPay does not know the card token`);
    if (status !== 200) throw this.#unexpected('order', status, body);
    const t = readTransaction(body);
    if (!t) throw this.fault('bad_response', 'order: unreadable answer');
    return withAmounts(toTransactionResult(t));
  }

  #replayed(orderId: string, print: string, t: HipayTransaction): contract.TransactionResult {
    if (t.fingerprint !== undefined && t.fingerprint !== print) {
      throw this.fault('idempotency_conflict', `order ${orderId} was already placed with other parameters`);
    }
    return withAmounts(toTransactionResult(t));
  }

  async #maintain(operation: Maintenance, key: string, reference: string, amountCents: number | undefined): Promise<contract.TransactionResult> {
    assertKey(key);
    const operationId = referenceFor('op', `${operation}\n${key}`);
    const before = await this.#transaction(reference);
    const done = await this.#operationSent(reference, operationId);
    if (done) {
      const sameAmount = amountCents === undefined || done.amount === undefined || done.amount === toHipayAmount(amountCents, before.currency);
      if (!sameAmount) throw this.fault('idempotency_conflict', `operation ${operationId} was already sent with another amount`);
      return withAmounts(toTransactionResult(before));
    }
    // Chipin's contract: one capture per hold; capturing less releases the rest. HiPay would take
    // further partial captures, so the rule is kept here.
    if (operation === 'capture' && before.capturedCents > 0) {
      return { ...withAmounts(toTransactionResult(before)), decline: { reason: 'amount_too_large', message: 'Nothing left to capture: the authorisation was already captured.' } };
    }
    const form: Record<string, string> = { operation, operation_id: operationId };
    if (amountCents !== undefined) {
      form.amount = toHipayAmount(amountCents, before.currency);
      form.currency = before.currency;
    }
    const { status, body } = await this.#client.request('POST', `${this.baseUrl}/rest/v1/maintenance/transaction/${reference}`, form);
    if (status === 200) return this.#read(reference);
    const error = errorOf(body);
    if (status === 404 || error?.code === UNKNOWN_TRANSACTION) throw this.fault('unknown_transaction', `no transaction ${reference}`);
    // Voiding what is already voided: nothing is held, the void's purpose is met.
    if (operation === 'cancel' && error?.code === ALREADY_VOIDED) return this.#read(reference);
    if (status === 400 && error && isHipayReasonCode(error.code)) {
      const after = await this.#read(reference);
      return { ...after, decline: { reason: toDeclineReason(error.code), message: error.message || 'HiPay refused the operation.' } };
    }
    throw this.#unexpected(`maintenance ${operation}`, status, body);
  }

  /**
   * The operation HiPay recorded under our `operation_id`, if any (consultation API v3): HiPay's Node
   * SDK reads it as `operations[].merchantReference`, HiPay's document of the API as
   * `merchant_reference`; either names it (docs/psp/hipay.md#the-documents-and-the-content-type).
   */
  async #operationSent(reference: string, operationId: string): Promise<{ type: string; amount: string | undefined } | undefined> {
    const { status, body } = await this.#client.request('GET', `${this.#consultation}/v3/transaction/${reference}`);
    if (status === 404) return undefined;
    if (status !== 200) throw this.#unexpected('v3 transaction', status, body);
    const operations = (body as { operations?: unknown } | null)?.operations;
    if (operations !== undefined && !Array.isArray(operations)) throw this.fault('bad_response', 'v3 transaction: operations is not a list');
    for (const op of (operations ?? []) as Record<string, unknown>[]) {
      if ((op?.merchantReference ?? op?.merchant_reference) === operationId) return { type: String(op.type ?? ''), amount: typeof op.amount === 'string' ? op.amount : undefined };
    }
    return undefined;
  }
}
