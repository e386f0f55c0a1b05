import { createHash } from 'node:crypto';
import { CardToken, Chargeback, Customer, CustomerCard, MercadoPagoConfig, MercadoPagoError, MPConnectionError, MPIdempotencyError, Payment, PaymentRefund } from 'mercadopago';
// The SDK's one exit point reads these two at call time (node_modules/mercadopago/dist/utils/restClient, config): see #send.
import { AppConfig } from 'mercadopago/dist/utils/config/index.js';
import { Redacted } from '../../domain/redacted.ts';
import type { Clock } from '../../domain/clock.ts';
import type * as contract from '../connector.ts';
import { PspIntegrationError, askedThreeDSecure } from '../connector.ts';
import { checkBaseUrl, KitConnector, type KitConnectorOptions } from '../kit/connector-setup.ts';
import { callWithGlobalFetch } from '../kit/global-fetch.ts';
import { statusFault } from '../kit/status-fault.ts';
import { reviveTransaction, authorizeParams, type PspOperations } from '../kit/operations.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import { PspCallError, pspCallFault } from '../psp-http.ts';
import { declineFor, readPayment, toMpAmount, toTransactionResult, type PaymentView } from './mapping.ts';
import { disputedPaymentId, readChargeback, toNotifiedDispute } from './disputes.ts';
import { verifySignedNotification } from './notifications.ts';
import { readCursor, toRecord, writeCursor } from './records.ts';

/** `baseUrl` is `https://api.mercadopago.com`, or a test double's URL: scheme, host and port only; the SDK sends every request through `http` (see #send). */
export interface MercadoPagoConnectorOptions extends KitConnectorOptions {
  /** `TEST-…` / `APP_USR-…`. */
  accessToken: string;
  /** The application's webhook secret; empty until the webhook is configured. */
  webhookSecret: string;
  /** Payments per page of {@link MercadoPagoConnector.listTransactions} (the search's `limit`), 50 if absent. */
  listPageSize?: number;
}

const NAME = 'mercadopago';
const PAYMENT_ID = /^\d{1,20}$/;
/** Our saved card: `<customer id>:<card id>`, both Mercado Pago's. */
const SAVED_CARD = /^([0-9A-Za-z-]{1,64}):(\d{1,30})$/;
/** X-Idempotency-Key: kept short (the API documents a UUID-like key). */
const MAX_KEY = 64;

function stepKey(key: string, step: string): string {
  const k = `${key}:${step}`;
  return k.length <= MAX_KEY ? k : `chipin-${createHash('sha256').update(k).digest('hex').slice(0, 56)}`;
}

/**
 * Mercado Pago through its official Node SDK (`mercadopago` 3.6.1), Payments API `/v1/payments`.
 * A card is tokenised (`/v1/card_tokens`) and saved on a customer (`/v1/customers/{id}/cards`);
 * every payment on a saved card is made with a fresh token of that card (`card_id` +
 * `customer_id`), as Mercado Pago's "Cards and customers" guide does. Every POST and PUT carries
 * an `X-Idempotency-Key` derived from ours; the SDK's own retries are off (`maxRetries: 0`).
 */
export class MercadoPagoConnector extends KitConnector implements contract.PspConnector {
  readonly name = NAME;
  readonly sandbox: boolean;
  readonly #accessToken: Redacted<string>;
  readonly #webhookSecret: Redacted<string>;
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #operations: PspOperations;
  readonly #listPageSize: number;

  constructor(opts: MercadoPagoConnectorOptions) {
    super();
    if (!/^(TEST|APP_USR)-[0-9A-Za-z-]+$/.test(opts.accessToken ?? '')) throw new TypeError('mercadopago: the access token must look like TEST-… or APP_USR-…');
    if (opts.webhookSecret && !/^\S+$/.test(opts.webhookSecret)) throw new TypeError('mercadopago: the webhook secret must have no spaces');
    if (!Number.isSafeInteger(opts.timeoutMs) || opts.timeoutMs <= 0) throw new TypeError('mercadopago: timeoutMs must be a positive integer');
    const url = checkBaseUrl(NAME, opts.baseUrl);
    if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
      throw new TypeError('mercadopago: baseUrl must be scheme, host and port only (the SDK adds /v1/…)');
    }
    this.#baseUrl = url.origin;
    this.sandbox = opts.sandbox;
    this.#accessToken = new Redacted(opts.accessToken);
    this.#webhookSecret = new Redacted(opts.webhookSecret);
    this.#fetch = opts.http.fetchWith(opts.timeoutMs);
    this.#clock = opts.clock;
    this.#timeoutMs = opts.timeoutMs;
    this.#operations = opts.operations;
    this.#listPageSize = opts.listPageSize ?? 50;
    if (!Number.isSafeInteger(this.#listPageSize) || this.#listPageSize < 1 || this.#listPageSize > 1000) throw new TypeError('mercadopago: listPageSize must be 1 to 1000');
  }

  protected get shownAs(): string {
    return `MercadoPagoConnector(${this.sandbox ? 'test' : 'live'})`;
  }

  /** A fresh SDK configuration per call: the SDK's clients merge each call's options into their config and keep them. */
  #config(idempotencyKey?: string): MercadoPagoConfig {
    return new MercadoPagoConfig({
      accessToken: this.#accessToken.reveal(),
      options: { timeout: this.#timeoutMs, maxRetries: 0, ...(idempotencyKey ? { idempotencyKey } : {}) },
    });
  }

  /**
   * Runs one SDK call through the service's outbound client. The SDK has no fetch or base-URL
   * option: its single exit point (`RestClient.fetch`) builds the URL from the static
   * `AppConfig.BASE_URL` and calls the global `fetch`, both synchronously before its first await
   * (with retries off, it calls fetch once). So both are set for exactly that synchronous span
   * and restored before anything else can run: no other code, in this process, ever sees them
   * (src/psp/kit/global-fetch.ts, shared with the Checkout.com connector). A fetch call outside
   * that span (an SDK upgrade that changed this) is caught: the pinned version's behaviour is
   * asserted here and by test/psp/mercadopago.test.ts.
   */
  #send<T>(call: () => Promise<T>): Promise<T> {
    // BASE_URL is declared readonly; it is a plain static property the SDK reads at each call.
    const config = AppConfig as { BASE_URL: string };
    return callWithGlobalFetch({
      psp: NAME,
      sdk: 'Mercado Pago SDK',
      fetch: this.#fetch,
      call,
      enter: () => {
        const saved = config.BASE_URL;
        config.BASE_URL = this.#baseUrl;
        return () => {
          config.BASE_URL = saved;
        };
      },
    });
  }

  #fault(e: unknown, missing: 'unknown_transaction' | 'unknown_payment_method' = 'unknown_transaction'): PspIntegrationError {
    if (e instanceof PspIntegrationError) return e;
    if (e instanceof MPConnectionError) {
      const cause = (e as unknown as { __cause__?: unknown }).__cause__;
      if (cause instanceof PspCallError) return pspCallFault(NAME, 'Mercado Pago', cause, this.#timeoutMs);
      return new PspIntegrationError(NAME, 'unreachable', `Mercado Pago did not answer within ${this.#timeoutMs} ms or the connection failed`);
    }
    if (e instanceof MPIdempotencyError) return new PspIntegrationError(NAME, 'idempotency_conflict', 'an idempotency key was reused with other parameters');
    if (!(e instanceof MercadoPagoError)) return new PspIntegrationError(NAME, 'bad_response', 'unexpected failure while talking to Mercado Pago');
    const byStatus = statusFault(NAME, 'Mercado Pago', e.status, e.status === 403 ? ', the access token lacks a permission this call needs' : '');
    if (byStatus) return byStatus;
    if (e.status === 404) return new PspIntegrationError(NAME, missing, `Mercado Pago does not know this ${missing === 'unknown_payment_method' ? 'card' : 'payment'}`);
    return new PspIntegrationError(NAME, 'bad_response', `Mercado Pago refused the request: ${e.status} ${/^[a-z_]{1,64}$/.test(e.error) ? e.error : ''}`.trim());
  }

  #payment(value: unknown): PaymentView {
    const p = readPayment(value);
    if (!p) throw new PspIntegrationError(NAME, 'bad_response', 'Mercado Pago sent a payment we cannot read');
    return p;
  }

  async #get(id: string): Promise<PaymentView> {
    if (!PAYMENT_ID.test(id)) throw new PspIntegrationError(NAME, 'unknown_transaction', 'not a Mercado Pago payment id');
    try {
      return this.#payment(await this.#send(() => new Payment(this.#config()).get({ id })));
    } catch (e) {
      throw this.#fault(e);
    }
  }

  #once(op: string, key: string, params: readonly unknown[], send: () => Promise<contract.TransactionResult>): Promise<contract.TransactionResult> {
    return this.#operations.once(op, key, params, send, send, reviveTransaction<contract.TransactionResult>);
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const { card } = input;
    const params = [card.number.replace(/ /g, ''), card.expMonth, card.expYear, card.cvc, card.holderName];
    const send = () => this.#attach(input);
    return this.#operations.once('attach', input.idempotencyKey, params, send, send);
  }

  async #attach(input: contract.AttachInput): Promise<contract.AttachResult> {
    const { card } = input;
    try {
      // Raw card numbers reach Mercado Pago only from a PCI-DSS SAQ D merchant (docs/psp/mercadopago.md).
      const body = {
        card_number: card.number.replace(/ /g, ''),
        expiration_month: String(card.expMonth),
        expiration_year: String(card.expYear),
        security_code: card.cvc,
        cardholder: { name: card.holderName },
      };
      const token = await this.#send(() => new CardToken(this.#config(stepKey(input.idempotencyKey, 'token'))).create({ body }));
      if (typeof token?.id !== 'string') throw new PspIntegrationError(NAME, 'bad_response', 'Mercado Pago sent a card token we cannot read');
      const customer = await this.#send(() =>
        new Customer(this.#config(stepKey(input.idempotencyKey, 'customer'))).create({
          body: { email: `${createHash('sha256').update(input.idempotencyKey).digest('hex').slice(0, 24)}@chipin.invalid` },
        }),
      );
      if (typeof customer?.id !== 'string') throw new PspIntegrationError(NAME, 'bad_response', 'Mercado Pago sent a customer we cannot read');
      const saved = await this.#send(() => new CustomerCard(this.#config(stepKey(input.idempotencyKey, 'card'))).create({ customerId: customer.id!, body: { token: token.id! } }));
      const cardId = typeof saved?.id === 'string' ? saved.id : undefined;
      const last4 = typeof saved?.last_four_digits === 'string' ? saved.last_four_digits : undefined;
      if (!cardId || !last4) throw new PspIntegrationError(NAME, 'bad_response', 'Mercado Pago sent a saved card we cannot read');
      return {
        ok: true,
        paymentMethodId: `${customer.id}:${cardId}`,
        brand: typeof saved.payment_method?.id === 'string' ? saved.payment_method.id : 'card',
        last4,
        expMonth: typeof saved.expiration_month === 'number' ? saved.expiration_month : card.expMonth,
        expYear: typeof saved.expiration_year === 'number' ? saved.expiration_year : card.expYear,
      };
    } catch (e) {
      // A card Mercado Pago refuses to tokenise or save is a 400 about the card's data.
      if (e instanceof MercadoPagoError && e.status === 400 && !(e instanceof MPIdempotencyError))
        return { ok: false, reason: 'invalid_card', message: 'Mercado Pago refused the card details' };
      throw this.#fault(e);
    }
  }

  /** A fresh single-use token of a saved card: how every payment on it is made. */
  async #tokenOf(paymentMethodId: string, key: string): Promise<{ token: string; customerId: string }> {
    const m = SAVED_CARD.exec(paymentMethodId);
    if (!m) throw new PspIntegrationError(NAME, 'unknown_payment_method', 'not a Mercado Pago saved card');
    const [, customerId, cardId] = m as unknown as [string, string, string];
    try {
      const t = await this.#send(() => new CardToken(this.#config(stepKey(key, 'token'))).create({ body: { customer_id: customerId, card_id: cardId } }));
      if (typeof t?.id !== 'string') throw new PspIntegrationError(NAME, 'bad_response', 'Mercado Pago sent a card token we cannot read');
      return { token: t.id, customerId };
    } catch (e) {
      if (e instanceof MercadoPagoError && (e.status === 400 || e.status === 404) && !(e instanceof MPIdempotencyError)) {
        throw new PspIntegrationError(NAME, 'unknown_payment_method', 'Mercado Pago does not know this saved card');
      }
      throw this.#fault(e, 'unknown_payment_method');
    }
  }

  async #create(key: string, body: Record<string, unknown>, amountCents: number): Promise<contract.TransactionResult> {
    try {
      const created = await this.#send(() => new Payment(this.#config(stepKey(key, 'payment'))).create({ body: body as never }));
      return toTransactionResult(this.#payment(created), amountCents);
    } catch (e) {
      throw this.#fault(e);
    }
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const params = authorizeParams(input);
    return this.#once('authorize', input.idempotencyKey, params, async () => {
      const { token, customerId } = await this.#tokenOf(input.paymentMethodId, input.idempotencyKey);
      return this.#create(
        input.idempotencyKey,
        {
          transaction_amount: toMpAmount(input.amountCents, input.currency),
          token,
          installments: 1,
          payer: { type: 'customer', id: customerId },
          capture: input.capture === 'automatic',
          // An approval or a rejection, never `in_process` (manual review): Chipin needs an answer.
          binary_mode: true,
          // The issuer decides; a challenge answers `pending_challenge` with three_ds_info. The
          // merchant's `never`: `not_supported`, no 3-D Secure (Mercado Pago rejects what the issuer
          // requires authenticated); its `always` has no value of its own and is `optional`
          // (docs/psp-connectors.md#the-merchants-3-d-secure-choice).
          three_d_secure_mode: askedThreeDSecure(input) === 'never' ? 'not_supported' : 'optional',
          callback_url: input.returnUrl,
          // The shopper consents to later charges: the first payment of Mercado Pago's "automatic payments messaging".
          ...(input.storeForLater === true ? { point_of_interaction: { type: 'SUBSCRIPTIONS', transaction_data: { first_time_use: true } } } : {}),
          external_reference: input.idempotencyKey.slice(0, 64),
        },
        input.amountCents,
      );
    });
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    const initial = input.storedCredential?.initialTransactionId;
    const manual = input.capture === 'manual';
    const params = [input.paymentMethodId, input.amountCents, input.currency, initial ?? null, ...(manual ? ['manual'] : [])];
    return this.#once('charge', input.idempotencyKey, params, async () => {
      const { token, customerId } = await this.#tokenOf(input.paymentMethodId, input.idempotencyKey);
      return this.#create(
        input.idempotencyKey,
        {
          transaction_amount: toMpAmount(input.amountCents, input.currency),
          token,
          installments: 1,
          payer: { type: 'customer', id: customerId },
          // `manual` (`capture: false`, a reserve of the amount): a merchant-initiated hold, captured
          // or cancelled later (a re-authorisation, docs/money-operations.md#re-authorisation).
          capture: !manual,
          binary_mode: true,
          // A merchant-initiated payment on the saved card: no shopper, no challenge possible.
          three_d_secure_mode: 'not_supported',
          // A subsequent payment of "automatic payments messaging": it names the payment that stored the card.
          point_of_interaction: { type: 'SUBSCRIPTIONS', transaction_data: { first_time_use: false, ...(initial ? { payment_reference: { id: initial } } : {}) } },
          external_reference: input.idempotencyKey.slice(0, 64),
        },
        input.amountCents,
      );
    });
  }

  #authorised(ref: contract.TransactionRef): number | undefined {
    const v = ref.pspState?.authorisedCents;
    return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
  }

  #currency(ref: contract.TransactionRef, p?: PaymentView): string {
    const c = ref.pspState?.currency;
    return typeof c === 'string' ? c : (p?.currency ?? 'EUR');
  }

  /** A refused modification (400 on a payment in the wrong state): the payment as it is, with why. */
  async #modify(ref: contract.TransactionRef, call: () => Promise<unknown>, readBack: boolean): Promise<contract.TransactionResult> {
    const id = ref.transactionId;
    if (!PAYMENT_ID.test(id)) throw new PspIntegrationError(NAME, 'unknown_transaction', 'not a Mercado Pago payment id');
    try {
      const answer = await this.#send(call);
      const p = readBack ? await this.#get(id) : this.#payment(answer);
      return toTransactionResult(p, this.#authorised(ref));
    } catch (e) {
      if (e instanceof MercadoPagoError && e.status === 400 && !(e instanceof MPIdempotencyError) && !(e instanceof MPConnectionError)) {
        const p = await this.#get(id);
        const r = toTransactionResult(p, this.#authorised(ref));
        // A hold Mercado Pago let lapse is the one refusal that is not about the amount left.
        if (r.status === 'expired') return { ...r, decline: declineFor('expired') };
        return { ...r, decline: { reason: 'amount_too_large', message: 'Mercado Pago refused the operation on this payment' } };
      }
      throw this.#fault(e);
    }
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const ref = input.transaction;
    return this.#once('capture', input.idempotencyKey, [ref.transactionId, input.amountCents], () =>
      this.#modify(
        ref,
        () =>
          new Payment(this.#config(stepKey(input.idempotencyKey, 'capture'))).capture({
            id: ref.transactionId,
            transaction_amount: toMpAmount(input.amountCents, this.#currency(ref)),
          }),
        false,
      ),
    );
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const ref = input.transaction;
    return this.#once('void', input.idempotencyKey, [ref.transactionId], async () => {
      const r = await this.#modify(ref, () => new Payment(this.#config(stepKey(input.idempotencyKey, 'cancel'))).cancel({ id: ref.transactionId }), false);
      if (r.status === 'voided' && r.decline) delete r.decline;
      return r;
    });
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const ref = input.transaction;
    return this.#once('refund', input.idempotencyKey, [ref.transactionId, input.amountCents], () =>
      this.#modify(
        ref,
        () =>
          new PaymentRefund(this.#config(stepKey(input.idempotencyKey, 'refund'))).create({
            payment_id: ref.transactionId,
            body: { amount: toMpAmount(input.amountCents, this.#currency(ref)) },
          }),
        true,
      ),
    );
  }

  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return toTransactionResult(await this.#get(transaction.transactionId), this.#authorised(transaction));
  }

  /**
   * The period's payments through the payment search (`GET /v1/payments/search`, SDK
   * `Payment.search`), in two passes whose pages share one cursor: the payments created in
   * `[from, to)` (`range=date_created`), then those last updated in it (`range=date_last_updated`),
   * each sorted by `date_created` ascending (a payment created meanwhile comes last and shifts no
   * page), `offset`/`limit`. A payment appears once per pass it matches, with its current totals.
   * Mercado Pago keeps only a payment's last update: one created before the period and changed
   * in it and again after is in neither pass, which reconciliation covers with `retrieve`.
   */
  async listTransactions(input: contract.ListTransactionsInput): Promise<contract.PspRecordPage> {
    if (!(input.from.getTime() < input.to.getTime())) throw new RangeError('mercadopago: the period must be from < to');
    const at = readCursor(input.cursor);
    if (!at) throw new RangeError('mercadopago: not a cursor of this connector');
    const limit = this.#listPageSize;
    let answer;
    try {
      answer = await this.#send(() =>
        new Payment(this.#config()).search({
          options: {
            range: at.phase === 'created' ? 'date_created' : 'date_last_updated',
            // Both ends included: the period's last millisecond ends it.
            begin_date: input.from.toISOString(),
            end_date: new Date(input.to.getTime() - 1).toISOString(),
            sort: 'date_created',
            criteria: 'asc',
            offset: at.offset,
            limit,
          },
        }),
      );
    } catch (e) {
      const f = this.#fault(e);
      throw f.code === 'unknown_transaction' ? new PspIntegrationError(NAME, 'bad_response', 'Mercado Pago refused the payment search') : f;
    }
    const results: unknown = answer?.results;
    const total: unknown = answer?.paging?.total;
    if (!Array.isArray(results) || typeof total !== 'number' || !Number.isSafeInteger(total))
      throw new PspIntegrationError(NAME, 'bad_response', 'Mercado Pago sent a search answer we cannot read');
    const records: contract.PspRecord[] = results.map((value) => toRecord(this.#payment(value)));
    const next = at.offset + limit;
    const nextCursor =
      results.length === limit && next < total ? writeCursor({ phase: at.phase, offset: next }) : at.phase === 'created' ? writeCursor({ phase: 'updated', offset: 0 }) : null;
    return { records, nextCursor };
  }

  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    if (!this.#webhookSecret.reveal()) return { ok: false, reason: 'bad_signature' };
    const signed = verifySignedNotification(input, this.#webhookSecret.reveal(), this.#clock.now());
    if (!signed.ok) return signed;
    if ('chargebackId' in signed) return this.#chargebackNotice(signed.chargebackId, signed.paymentId);
    // The notification names the payment only: its status is Mercado Pago's current one.
    const p = await this.#get(signed.paymentId);
    return { ok: true, transactionId: p.id, status: toTransactionResult(p).status };
  }

  /**
   * A *Chargebacks* webhook: the chargeback read with `GET /v1/chargebacks/{id}` (SDK
   * `Chargeback.get`), then its payment, whose `status_detail` tells the outcome (disputes.ts).
   */
  async #chargebackNotice(chargebackId: string, notifiedPaymentId: string | undefined): Promise<contract.NotificationResult> {
    let answer: unknown;
    try {
      answer = await this.#send(() => new Chargeback(this.#config()).get({ id: chargebackId }));
    } catch (e) {
      const f = this.#fault(e);
      throw f.code === 'unknown_transaction' ? new PspIntegrationError(NAME, 'unknown_transaction', 'Mercado Pago does not know this chargeback') : f;
    }
    const cb = readChargeback(answer);
    if (!cb || cb.id !== chargebackId) throw new PspIntegrationError(NAME, 'bad_response', 'Mercado Pago sent a chargeback we cannot read');
    const paymentId = disputedPaymentId(cb, notifiedPaymentId);
    if (!paymentId) return { ok: false, reason: 'malformed' };
    const p = await this.#get(paymentId);
    return { ok: true, transactionId: p.id, status: toTransactionResult(p).status, dispute: toNotifiedDispute(cb, p) };
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    try {
      // A search of one payment reads and changes nothing, with any access token.
      await this.#send(() => new Payment(this.#config()).search({ options: { limit: 1 } }));
      return { ok: true };
    } catch (e) {
      const f = this.#fault(e);
      if (f.code === 'bad_credentials') return { ok: false, message: f.message.replace(/^mercadopago: /, '') };
      throw f;
    }
  }
}
