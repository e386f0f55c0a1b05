import { createHash } from 'node:crypto';
import { AuthenticationData } from '@adyen/api-library/lib/src/typings/checkout/authenticationData.js';
import { CardDetails } from '@adyen/api-library/lib/src/typings/checkout/cardDetails.js';
import { PaymentRequest } from '@adyen/api-library/lib/src/typings/checkout/paymentRequest.js';
import { StoredPaymentMethodRequest } from '@adyen/api-library/lib/src/typings/checkout/storedPaymentMethodRequest.js';
import { ThreeDSRequestData } from '@adyen/api-library/lib/src/typings/checkout/threeDSRequestData.js';
import type { Redacted } from '../../domain/redacted.ts';
import type { Clock } from '../../domain/clock.ts';
import type * as contract from '../connector.ts';
import { askedThreeDSecure } from '../connector.ts';
import type { ConnectorContext, PspAccountConfig } from '../definition.ts';
import {
  CARD_VALIDATION_ERRORS,
  brandName,
  expiryFields,
  readModificationAnswer,
  readPaymentAnswer,
  unexpectedAnswer,
  unreachable,
  type AdyenPaymentState,
  type AdyenServiceError,
  type CheckoutAnswer,
} from './mapping.ts';
import { applyNotification, verifyNotificationBody } from './notifications.ts';
import { assertAmount, assertCurrency, assertKey, assertReturnUrl } from '../input-checks.ts';
import { connectorSetup, KitConnector, trimSlashes } from '../kit/connector-setup.ts';
import { parseJson, type PspClient } from '../kit/json-call.ts';
import { adyenCheckout, AdyenAnswer, type AdyenCheckout } from './sdk.ts';
import { statusFault } from '../kit/status-fault.ts';
import { reviveTransaction, authorizeParams, type PspOperations } from '../kit/operations.ts';
import { paymentStateOf, resultOf } from './state.ts';
import { listFromReports, REPORT_PAGE_SIZE, reportBaseUrl, type ReportReading } from './records.ts';

/**
 * Adyen Checkout API v72 through Adyen's official SDK, `@adyen/api-library`, whose requests go
 * out through the service's outbound client (./sdk.ts, docs/psp/adyen.md#sdk); the payment
 * accounting report, which the SDK has no call for, is downloaded with that client directly.
 *
 * Adyen has no "get payment" call: a payment's state is what its answers and its webhooks said.
 * This connector keeps no memory of it: the state travels in each result's `pspState`, stored with
 * the payment and given back in every later call (./state.ts); a webhook's news is folded in by
 * `retrieve(ref, { notification })` (./notifications.ts).
 */

type Call = 'attach' | 'authorize' | 'capture' | 'void' | 'refund' | 'charge_off_session' | 'details';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Our payment method id: Adyen's token is scoped to a shopper reference, so both are kept. */
function paymentMethodId(shopperReference: string, storedPaymentMethodId: string): string {
  return `${shopperReference}:${storedPaymentMethodId}`;
}
function parsePaymentMethodId(id: string): { shopperReference: string; storedPaymentMethodId: string } | undefined {
  const m = /^(chipin-[0-9a-f]{40}):([A-Za-z0-9]{1,64})$/.exec(id);
  return m ? { shopperReference: m[1]!, storedPaymentMethodId: m[2]! } : undefined;
}

export class AdyenConnector extends KitConnector implements contract.PspConnector {
  readonly name = 'adyen';
  readonly sandbox: boolean;
  readonly #accountId: string;
  readonly #merchantAccount: string;
  readonly #keys: Redacted<{ apiKey: string; hmacKey: string; reportApiKey: string }>;
  readonly #baseUrl: string;
  readonly #clock: Clock;
  readonly #client: PspClient;
  readonly #operations: PspOperations;
  readonly #publicUrl: string;
  /** Reading Adyen's reports for `listTransactions`, with the current run's cache (./records.ts). */
  readonly #reports: ReportReading;

  /** `options.reportPageSize`: payments per page of {@link listTransactions} (1 to 1,000), 200 if absent. */
  constructor(account: PspAccountConfig, context: ConnectorContext, options: { reportPageSize?: number } = {}) {
    super();
    const c = account.credentials;
    const merchantAccount = c.merchant_account;
    const apiKey = c.api_key;
    const hmacKey = c.hmac_key;
    if (!merchantAccount || !apiKey) throw new TypeError('adyen: merchant_account and api_key are required');
    // The HMAC key comes from the webhook, made once the account is saved: until then, no notification is accepted.
    if (hmacKey !== undefined && hmacKey !== '' && !/^(?:[0-9A-Fa-f]{2})+$/.test(hmacKey)) throw new TypeError('adyen: hmac_key must be hexadecimal');
    const setup = connectorSetup({
      psp: 'adyen',
      baseUrl: account.baseUrl,
      timeoutMs: context.timeoutMs,
      http: context.http,
      logger: context.logger,
      credentials: { apiKey, hmacKey: hmacKey ?? '', reportApiKey: c.report_api_key ?? '' },
    });
    this.sandbox = account.environment === 'test';
    this.#accountId = account.id;
    this.#merchantAccount = merchantAccount;
    this.#keys = setup.credentials;
    this.#baseUrl = setup.baseUrl;
    const reportsBaseUrl = reportBaseUrl(setup.baseUrl);
    const pageSize = options.reportPageSize ?? REPORT_PAGE_SIZE;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > 1_000) throw new TypeError('adyen: reportPageSize must be 1 to 1000');
    this.#clock = context.clock;
    this.#client = setup.client;
    this.#operations = context.operations;
    this.#publicUrl = trimSlashes(context.publicUrl);
    this.#reports = { client: setup.client, clock: context.clock, baseUrl: reportsBaseUrl, merchantAccount, keys: setup.credentials, pageSize, cache: undefined };
  }

  protected get shownAs(): string {
    return `AdyenConnector(${this.#accountId})`;
  }
  protected override get shownFields(): Record<string, unknown> {
    return { account: this.#accountId };
  }

  /**
   * One call to Adyen, made by the SDK's Checkout services (`call`, given the request options to
   * pass on) and sent by our client: `X-API-Key`, and Adyen's own `Idempotency-Key` on every POST
   * that changes something (Adyen replays the first answer for a key it has seen, for at least 31
   * days, docs.adyen.com/development-resources/api-idempotency). Faults are thrown (401/403, 429
   * and 5xx by the kit's statusFault; a 429 is replayed with the same key); other 4xx answers are
   * handed back for the caller to read. A 2xx answer is the SDK's model of it.
   */
  async #call(
    op: string,
    call: (checkout: AdyenCheckout, options: { idempotencyKey?: string }) => Promise<unknown>,
    idempotencyKey?: string,
    authAsAnswer = false,
  ): Promise<CheckoutAnswer> {
    let status = 0;
    const checkout = adyenCheckout(this.#baseUrl, async (method, url, body, key) => {
      const headers: Record<string, string> = { Accept: 'application/json', 'X-API-Key': this.#keys.reveal().apiKey };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      if (key) headers['Idempotency-Key'] = key;
      const res = await this.#client.request(op, url, { method, headers, ...(body === undefined ? {} : { body }) });
      status = res.status;
      // Checked before the SDK reads it: its parser would log the error and model the text anyway.
      if (res.status >= 200 && res.status < 300 && !isObject(parseJson(this.name, op, res))) throw this.fault('bad_response', `${op}: Adyen's answer is not a JSON object`);
      return res;
    });
    try {
      const body = await call(checkout, idempotencyKey ? { idempotencyKey } : {});
      return { status, body };
    } catch (err) {
      if (!(err instanceof AdyenAnswer)) throw err;
      const credentialsAnswer = authAsAnswer && (err.status === 401 || err.status === 403);
      const fault = credentialsAnswer ? undefined : statusFault(this.name, op, err.status, errorCodeOf(err.text));
      if (fault) throw fault;
      return { status: err.status, body: parseJson(this.name, op, err) };
    }
  }

  /**
   * Runs `fn` once per (operation, key) through the operation log (src/psp/kit/operations.ts):
   * replayed from the log, whichever process asks. An outcome left unknown is reconciled by
   * sending again with the same Adyen `Idempotency-Key` (derived from (operation, key) only),
   * which Adyen answers as the first time; a modification is counted by its own pspReference, once.
   */
  #idempotent<T>(op: Call, key: string, params: readonly unknown[], fn: (adyenKey: string) => Promise<T>, revive?: (stored: unknown) => T): Promise<T> {
    assertKey(key);
    const send = () => fn(adyenIdempotencyKey(op, key));
    return this.#operations.once(op, key, params, send, send, revive);
  }

  /** The payment's state as the caller stored it, a lapsed hold seen as such. */
  #payment(ref: contract.TransactionRef): AdyenPaymentState {
    const p = paymentStateOf(ref);
    if (p.status === 'authorised' && p.expiresAt && this.#clock.now().getTime() >= p.expiresAt.getTime()) p.status = 'lapsed';
    return p;
  }

  #refused(p: AdyenPaymentState, reason: contract.DeclineReason, message: string): contract.TransactionResult {
    return { ...resultOf(p), decline: { reason, message } };
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    const card = input.card;
    const digits = String(card.number).replace(/ /g, '');
    const { expiryMonth, expiryYear } = expiryFields(card.expMonth, card.expYear);
    // The operation log keys its fingerprints (HMAC): the card number is never stored in any form a guess could match.
    const params = [digits, expiryMonth, expiryYear, card.cvc, card.holderName];
    return this.#idempotent('attach', input.idempotencyKey, params, async (adyenKey): Promise<contract.AttachResult> => {
      const shopperReference = `chipin-${adyenKey.slice(0, 40)}`;
      const request: StoredPaymentMethodRequest = {
        merchantAccount: this.#merchantAccount,
        shopperReference,
        recurringProcessingModel: StoredPaymentMethodRequest.RecurringProcessingModelEnum.CardOnFile,
        paymentMethod: { type: 'scheme', number: digits, expiryMonth, expiryYear, cvc: card.cvc, holderName: card.holderName },
      };
      const a = await this.#call('attach', (c, o) => c.recurring.storedPaymentMethods(request, o), adyenKey);
      if (a.status === 422) {
        const e = (isObject(a.body) ? a.body : {}) as AdyenServiceError;
        const reason = e.errorCode ? CARD_VALIDATION_ERRORS[e.errorCode] : undefined;
        if (reason) return { ok: false, reason, message: e.message || 'The card details were refused.' };
      }
      if (a.status !== 200 && a.status !== 201) throw unexpectedAnswer('attach', a);
      const b = a.body as Record<string, unknown>;
      const id = str(b.id);
      const lastFour = str(b.lastFour);
      if (!id || !/^[A-Za-z0-9]{1,64}$/.test(id) || !lastFour) throw this.fault('bad_response', 'attach: Adyen did not return the token id and last four digits');
      return {
        ok: true,
        paymentMethodId: paymentMethodId(shopperReference, id),
        brand: brandName(str(b.brand)),
        last4: lastFour,
        expMonth: Number(str(b.expiryMonth) ?? card.expMonth),
        expYear: Number(str(b.expiryYear) ?? card.expYear),
      };
    });
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    assertCurrency(input.currency);
    assertReturnUrl(input.returnUrl);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const params = authorizeParams(input);
    return this.#idempotent(
      'authorize',
      input.idempotencyKey,
      params,
      async (adyenKey) => {
        const pm = parsePaymentMethodId(input.paymentMethodId);
        if (!pm) throw this.fault('unknown_payment_method', `no payment method ${input.paymentMethodId}`);
        const body: PaymentRequest = {
          merchantAccount: this.#merchantAccount,
          amount: { value: input.amountCents, currency: input.currency },
          reference: `chipin-${adyenKey}`,
          paymentMethod: { type: CardDetails.TypeEnum.Scheme, storedPaymentMethodId: pm.storedPaymentMethodId },
          shopperReference: pm.shopperReference,
          // PSD2: a customer-initiated transaction on a card on file; with the shopper's consent to
          // later merchant-initiated charges, stored again for the unscheduled card-on-file model.
          shopperInteraction: PaymentRequest.ShopperInteractionEnum.Ecommerce,
          recurringProcessingModel: input.storeForLater
            ? PaymentRequest.RecurringProcessingModelEnum.UnscheduledCardOnFile
            : PaymentRequest.RecurringProcessingModelEnum.CardOnFile,
          returnUrl: input.returnUrl,
          channel: PaymentRequest.ChannelEnum.Web,
          authenticationData: { threeDSRequestData: { nativeThreeDS: ThreeDSRequestData.NativeThreeDSEnum.Disabled }, ...attemptAuthentication(askedThreeDSecure(input)) },
        };
        if (input.storeForLater) body.storePaymentMethod = true;
        if (input.capture === 'manual') body.additionalData = { manualCapture: 'true' };
        else body.captureDelayHours = 0;
        const a = await this.#call('authorize', (c, o) => c.payments.payments(body, o), adyenKey);
        return resultOf(
          readPaymentAnswer('authorize', a, { amountCents: input.amountCents, currency: input.currency, capture: input.capture, offSession: false }, adyenKey, this.#clock.now()),
        );
      },
      reviveTransaction<contract.TransactionResult>,
    );
  }

  /**
   * Finishes a 3-D Secure redirect: the shopper came back to `returnUrl` with `redirectResult`,
   * which Adyen wants on `POST /payments/details` (given by the return page through
   * {@link retrieve}); the AUTHORISATION webhook reports the same outcome through
   * {@link verifyNotification}.
   */
  async submitDetails(transaction: contract.TransactionRef, redirectResult: string): Promise<contract.TransactionResult> {
    if (typeof redirectResult !== 'string' || redirectResult.length === 0) throw new RangeError('redirectResult is required');
    const transactionId = transaction.transactionId;
    // Adyen's redirectResult runs to hundreds of characters: the operation's key holds its digest.
    const result = createHash('sha256').update(redirectResult).digest('hex');
    return this.#idempotent(
      'details',
      `${transactionId}:${result}`,
      [transactionId, result],
      async (adyenKey) => {
        const p = this.#payment(transaction);
        const a = await this.#call('details', (c, o) => c.payments.paymentsDetails({ details: { redirectResult } }, o), adyenKey);
        if (p.status !== 'pending_action') return resultOf(p);
        const next = readPaymentAnswer('details', a, { amountCents: p.amountCents, currency: p.currency, capture: p.capture, offSession: false }, adyenKey, this.#clock.now());
        if (next.pspReference !== p.pspReference) throw this.fault('bad_response', 'details: Adyen answered for another payment');
        if (next.status === 'pending_action') throw this.fault('bad_response', 'details: Adyen asked for a second action');
        Object.assign(p, next, { modifications: p.modifications });
        delete p.challengeUrl;
        delete p.challengeForm;
        if ((p.status as AdyenPaymentState['status']) === 'refused' && p.decline?.reason === 'card_declined' && a.status === 200) {
          // A refusal right after the challenge without a more precise code is the authentication's.
          const code = str((a.body as Record<string, unknown>).refusalReasonCode);
          if (!code || code === '2') p.decline = { reason: 'authentication_failed', message: p.decline.message };
        }
        return resultOf(p);
      },
      reviveTransaction<contract.TransactionResult>,
    );
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    return this.#idempotent(
      'capture',
      input.idempotencyKey,
      [input.transaction.transactionId, input.amountCents],
      async (adyenKey) => {
        const p = this.#payment(input.transaction);
        if (p.status === 'lapsed') return this.#refused(p, 'authorization_expired', 'The authorisation hold has expired.');
        // Adyen answers a modification with "received" and its outcome comes later, in a webhook: we
        // refuse here what Adyen's accounting rules would refuse then (one capture, ≤ the authorisation).
        if (p.status !== 'authorised' || input.amountCents > p.amountCents) return this.#refused(p, 'amount_too_large', 'Nothing (or less) is left to capture.');
        const mod = await this.#modify('capture', p, adyenKey, input.amountCents);
        if (!p.modifications[mod]) {
          p.modifications[mod] = { kind: 'capture', amount: input.amountCents };
          p.status = 'captured';
          p.capturedCents = input.amountCents;
          delete p.expiresAt;
        }
        return resultOf(p);
      },
      reviveTransaction<contract.TransactionResult>,
    );
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    return this.#idempotent(
      'void',
      input.idempotencyKey,
      [input.transaction.transactionId],
      async (adyenKey) => {
        const p = this.#payment(input.transaction);
        switch (p.status) {
          case 'lapsed':
            return this.#refused(p, 'authorization_expired', 'The authorisation hold has expired.');
          case 'captured':
            return this.#refused(p, 'amount_too_large', 'The payment is captured: refund it instead.');
          case 'cancelled':
          case 'refused':
            return resultOf(p);
          case 'authorised':
          case 'pending_action': {
            const mod = await this.#modify('void', p, adyenKey);
            if (!p.modifications[mod]) {
              p.modifications[mod] = { kind: 'cancel', amount: 0 };
              p.status = 'cancelled';
              delete p.challengeUrl;
              delete p.challengeForm;
              delete p.expiresAt;
            }
            return resultOf(p);
          }
          default:
            return unreachable(p.status);
        }
      },
      reviveTransaction<contract.TransactionResult>,
    );
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    return this.#idempotent(
      'refund',
      input.idempotencyKey,
      [input.transaction.transactionId, input.amountCents],
      async (adyenKey) => {
        const p = this.#payment(input.transaction);
        const left = p.status === 'captured' ? p.capturedCents - p.refundedCents : 0;
        if (input.amountCents > left) return this.#refused(p, 'amount_too_large', 'The refund is larger than what is left to refund.');
        const mod = await this.#modify('refund', p, adyenKey, input.amountCents);
        if (!p.modifications[mod]) {
          p.modifications[mod] = { kind: 'refund', amount: input.amountCents };
          p.refundedCents += input.amountCents;
        }
        return resultOf(p);
      },
      reviveTransaction<contract.TransactionResult>,
    );
  }

  /**
   * One modification of the payment (`/captures`, `/cancels`, `/refunds`; a cancel carries no
   * amount), referenced by our key: Adyen answers "received" with the modification's own
   * pspReference, which this answers; the outcome comes later, in a webhook.
   */
  async #modify(op: 'capture' | 'void' | 'refund', p: AdyenPaymentState, adyenKey: string, amountCents?: number): Promise<string> {
    const merchantAccount = this.#merchantAccount;
    const reference = `chipin-${adyenKey}`;
    const amount = { value: amountCents ?? 0, currency: p.currency };
    const a = await this.#call(
      op,
      (c, o) =>
        op === 'capture'
          ? c.modifications.captureAuthorisedPayment(p.pspReference, { merchantAccount, amount, reference }, o)
          : op === 'refund'
            ? c.modifications.refundCapturedPayment(p.pspReference, { merchantAccount, amount, reference }, o)
            : c.modifications.cancelAuthorisedPaymentByPspReference(p.pspReference, { merchantAccount, reference }, o),
      adyenKey,
    );
    return readModificationAnswer(op, a, p.pspReference, amountCents);
  }

  /** The scheme's transaction id the stored card's mandate started with, from Adyen's token list. */
  async #networkTxReference(shopperReference: string, storedPaymentMethodId: string): Promise<string | undefined> {
    const a = await this.#call('charge_off_session', (c, o) => c.recurring.getTokensForStoredPaymentDetails(shopperReference, this.#merchantAccount, o));
    if (a.status !== 200) throw unexpectedAnswer('charge_off_session', a);
    const list = (a.body as Record<string, unknown>).storedPaymentMethods;
    if (list !== undefined && !Array.isArray(list)) throw this.fault('bad_response', 'charge_off_session: storedPaymentMethods is not a list');
    const token = (list ?? []).find((t: unknown) => isObject(t) && t.id === storedPaymentMethodId) as Record<string, unknown> | undefined;
    if (!token) throw this.fault('unknown_payment_method', `no payment method ${paymentMethodId(shopperReference, storedPaymentMethodId)}`);
    return str(token.networkTxReference);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    assertCurrency(input.currency);
    const sc = input.storedCredential;
    const manual = input.capture === 'manual';
    const params = [input.paymentMethodId, input.amountCents, input.currency, sc?.initialTransactionId ?? null, sc?.networkTransactionId ?? null, ...(manual ? ['manual'] : [])];
    return this.#idempotent(
      'charge_off_session',
      input.idempotencyKey,
      params,
      async (adyenKey) => {
        const pm = parsePaymentMethodId(input.paymentMethodId);
        if (!pm) throw this.fault('unknown_payment_method', `no payment method ${input.paymentMethodId}`);
        // PSD2 MIT: reference the customer-initiated transaction that stored the card. Given by the
        // caller (stored from that transaction's answer), else from the token Adyen keeps.
        const networkTxReference = sc?.networkTransactionId ?? (await this.#networkTxReference(pm.shopperReference, pm.storedPaymentMethodId));
        const body: PaymentRequest = {
          merchantAccount: this.#merchantAccount,
          amount: { value: input.amountCents, currency: input.currency },
          reference: `chipin-${adyenKey}`,
          paymentMethod: { type: CardDetails.TypeEnum.Scheme, storedPaymentMethodId: pm.storedPaymentMethodId },
          shopperReference: pm.shopperReference,
          shopperInteraction: PaymentRequest.ShopperInteractionEnum.ContAuth,
          recurringProcessingModel: PaymentRequest.RecurringProcessingModelEnum.UnscheduledCardOnFile,
          returnUrl: `${this.#publicUrl}/`,
          // `manual`: a merchant-initiated hold (a re-authorisation, docs/money-operations.md#re-authorisation),
          // made manual for this payment alone by `additionalData.manualCapture` as the customer-initiated
          // `authorize` does; otherwise captured at once.
          ...(manual ? {} : { captureDelayHours: 0 }),
        };
        const additionalData: Record<string, string> = {};
        if (networkTxReference) additionalData.networkTxReference = networkTxReference;
        if (manual) additionalData.manualCapture = 'true';
        if (Object.keys(additionalData).length > 0) body.additionalData = additionalData;
        const a = await this.#call('charge_off_session', (c, o) => c.payments.payments(body, o), adyenKey);
        return resultOf(
          readPaymentAnswer(
            'charge_off_session',
            a,
            { amountCents: input.amountCents, currency: input.currency, capture: manual ? 'manual' : 'automatic', offSession: true },
            adyenKey,
            this.#clock.now(),
          ),
        );
      },
      reviveTransaction<contract.TransactionResult>,
    );
  }

  /**
   * What Adyen said of a payment: its Checkout API has no call that reads a payment, so this is
   * the state the caller stored from Adyen's answers (`pspState`), with what a verified webhook
   * about it adds (`notification`: the `event` of {@link verifyNotification}). No call to Adyen.
   */
  /**
   * With `returned` holding the `redirectResult` Adyen sent the shopper back with, while the
   * payment awaits its 3-D Secure redirect, Adyen is given it first ({@link submitDetails}): it
   * authorises only then (docs/psp-connectors.md#the-return-from-3-d-secure).
   */
  async retrieve(transaction: contract.TransactionRef, options: contract.RetrieveOptions = {}): Promise<contract.TransactionResult> {
    const redirectResult = options.returned?.redirectResult;
    if (redirectResult && this.#payment(transaction).status === 'pending_action') return this.submitDetails(transaction, redirectResult);
    const p = this.#payment(transaction);
    applyNotification(p, options.notification, this.#clock);
    return resultOf(p);
  }

  /**
   * Checks every item's signature and merchant account, and answers the payments the items are
   * about with their items, for `retrieve` to fold in (`verifyNotificationBody` in ./notifications.ts).
   */
  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    return verifyNotificationBody(input.rawBody, this.#keys.reveal().hmacKey, this.#merchantAccount);
  }

  /**
   * The payments that moved in `[from, to)` with their totals, from Adyen's daily Payment
   * accounting reports, a page of up to `reportPageSize` payments (`listFromReports` in ./records.ts).
   */
  async listTransactions(input: contract.ListTransactionsInput): Promise<contract.PspRecordPage> {
    return listFromReports(this.#reports, input);
  }

  /** `POST /paymentMethods` for the merchant account: harmless, and refused without working credentials. */
  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    const a = await this.#call('verify_credentials', (c, o) => c.payments.paymentMethods({ merchantAccount: this.#merchantAccount }, o), undefined, true);
    if (a.status === 401) return { ok: false, message: 'Adyen refused the API key (HTTP 401).' };
    if (a.status === 403)
      return { ok: false, message: 'Adyen refused this API key for this merchant account (HTTP 403): check the merchant account and the API credential’s roles.' };
    if (a.status !== 200) throw unexpectedAnswer('verify_credentials', a);
    return { ok: true };
  }
}

/** Adyen's key (at most 64 characters): a digest of (operation, our key), so keys never collide across operations. */
function adyenIdempotencyKey(op: string, key: string): string {
  return createHash('sha256').update(`chipin:${op}:${key}`).digest('hex');
}

function errorCodeOf(text: string): string {
  try {
    const e = JSON.parse(text) as AdyenServiceError;
    return e && typeof e.errorCode === 'string' && /^[0-9A-Za-z_]{1,16}$/.test(e.errorCode) ? `, errorCode ${e.errorCode}` : '';
  } catch {
    return '';
  }
}

/**
 * The merchant's 3-D Secure choice as Adyen's `authenticationData.attemptAuthentication`, which
 * overrides its Dynamic 3D Secure rules. Adyen's `never` declines a payment that PSD2 or the
 * issuer requires authenticated instead of authenticating it
 * (docs/psp-connectors.md#the-merchants-3-d-secure-choice). `auto`: not sent, Adyen's rules decide.
 */
function attemptAuthentication(choice: 'always' | 'never' | 'auto'): { attemptAuthentication?: AuthenticationData.AttemptAuthenticationEnum } {
  if (choice === 'auto') return {};
  return { attemptAuthentication: choice === 'always' ? AuthenticationData.AttemptAuthenticationEnum.Always : AuthenticationData.AttemptAuthenticationEnum.Never };
}
