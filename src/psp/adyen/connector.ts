import { createHash } from 'node:crypto';
import { AuthenticationData } from '@adyen/api-library/lib/src/typings/checkout/authenticationData.js';
import { CardDetails } from '@adyen/api-library/lib/src/typings/checkout/cardDetails.js';
import { PaymentRequest } from '@adyen/api-library/lib/src/typings/checkout/paymentRequest.js';
import { StoredPaymentMethodRequest } from '@adyen/api-library/lib/src/typings/checkout/storedPaymentMethodRequest.js';
import { ThreeDSRequestData } from '@adyen/api-library/lib/src/typings/checkout/threeDSRequestData.js';
import type { Redacted } from '../../domain/redacted.ts';
import type { Clock } from '../../domain/clock.ts';
import {
  PspIntegrationError,
  type AttachInput,
  type AttachResult,
  type AuthorizeInput,
  type DeclineReason,
  type AmountOperation,
  type NotificationEvent,
  type NotificationResult,
  type NotifiedTransaction,
  type ListTransactionsInput,
  type OffSessionInput,
  type Operation,
  type PspConnector,
  type PspRecordPage,
  type RetrieveOptions,
  type TransactionRef,
  type TransactionResult,
  type TransactionStatus,
  askedThreeDSecure,
} from '../connector.ts';
import type { ConnectorContext, PspAccountConfig } from '../definition.ts';
import {
  ADYEN_EVENTS_KEPT,
  CARD_VALIDATION_ERRORS,
  brandName,
  expiryFields,
  isResultCode,
  refusalDecline,
  resultMeaning,
  unreachable,
  type AdyenPaymentState,
  type AdyenServiceError,
} from './mapping.ts';
import { readDisputeItem } from './disputes.ts';
import { ADYEN_ACK, checkItemSignature, parseNotification, type NotificationItem } from './notifications.ts';
import { assertAmount, assertCurrency, assertKey, assertReturnUrl } from '../input-checks.ts';
import { connectorSetup, KitConnector, trimSlashes } from '../kit/connector-setup.ts';
import { parseJson, type PspClient } from '../kit/json-call.ts';
import { adyenCheckout, AdyenAnswer, type AdyenCheckout } from './sdk.ts';
import { statusFault } from '../kit/status-fault.ts';
import { reviveTransaction, type PspOperations } from '../kit/operations.ts';
import { paymentStateOf, resultOf } from './state.ts';
import { readReport, recordsOf, reportFileName, ReportFormatError, type ReportRow } from './report.ts';

/**
 * Adyen Checkout API v72 through Adyen's official SDK, `@adyen/api-library`, whose requests go
 * out through the service's outbound client (./sdk.ts, docs/psp/adyen.md#sdk); the payment
 * accounting report, which the SDK has no call for, is downloaded with that client directly.
 *
 * Adyen has no "get payment" call: a payment's state is what its answers and its webhooks said.
 * This connector keeps no memory of it: the state travels in each result's `pspState`, stored with
 * the payment and given back in every later call (./state.ts); a webhook's news is folded in by
 * `retrieve(ref, { notification })`.
 */

/**
 * How long we count a manual authorisation as held. Adyen does not report it: it depends on the
 * card scheme (docs.adyen.com/online-payments/capture#authorisation-validity); 7 days is the
 * shortest common online validity (Visa), so we never promise a hold that is gone.
 */
export const ADYEN_HOLD_DAYS = 7;
const DAY_MS = 86_400_000;

/**
 * How many days before a period {@link AdyenConnector.listTransactions} reads to total the
 * payments that moved in it: a day's report holds that day's records of a payment only, and Adyen
 * has no payment read to complete them. 35 days covers a hold's life (Adyen expires
 * authorisations after 28 days) and a month of refunds; a capture, refund or chargeback of a
 * payment booked earlier than that is not counted (docs/psp-connectors.md#reconciliation-list-or-retrieve).
 */
export const ADYEN_REPORT_LOOKBACK_DAYS = 35;
/** Payments per page of {@link AdyenConnector.listTransactions} unless the constructor is told otherwise. */
const REPORT_PAGE_SIZE = 200;
/** Report files downloaded at once while totalling a page. */
const REPORT_DOWNLOADS_AT_ONCE = 4;
/**
 * A day's report of a busy merchant account is far larger than an API answer (about 300 bytes a
 * record, several records a payment): read up to 64 MiB, within a minute.
 */
const REPORT_MAX_BYTES = 64 * 1_048_576;
const REPORT_TIMEOUT_MS = 60_000;
/**
 * Rows of the reports one run keeps read between its pages (each page totals its payments over
 * the same days): past this, a day's report is read again by each page that needs it, as before,
 * so a busy account's run holds about this many rows at most, not every day's.
 */
const REPORT_CACHE_MAX_ROWS = 200_000;

/** The reports a run has read, by day, for its next pages: one period's, up to {@link REPORT_CACHE_MAX_ROWS} rows. */
interface ReportCache {
  period: string;
  days: Map<string, ReportRow[]>;
  rows: number;
}

/**
 * Where the merchant account's reports are downloaded (docs.adyen.com/reporting/automatically-get-reports:
 * `https://ca-test.adyen.com/reports/download/MerchantAccount/…`; live, the Customer Area's live
 * host `ca-live.adyen.com`): Adyen's Customer Area host of the environment the Checkout API base
 * URL belongs to, or, for any other base URL (a local fake, an operator's own endpoint), that URL's
 * origin.
 */
export function reportBaseUrl(baseUrl: string): string {
  const u = new URL(baseUrl);
  if (u.hostname === 'checkout-test.adyen.com') return 'https://ca-test.adyen.com';
  if (u.hostname.endsWith('-checkout-live.adyenpayments.com')) return 'https://ca-live.adyen.com';
  return u.origin;
}

/** `YYYY-MM-DD` of a UTC instant. */
function utcDay(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}
/** The UTC calendar days that `[from, to)` touches, oldest first. */
function daysOf(from: Date, to: Date): string[] {
  const days: string[] = [];
  if (to.getTime() <= from.getTime()) return days;
  const last = Date.parse(`${utcDay(to.getTime() - 1)}T00:00:00Z`);
  for (let d = Date.parse(`${utcDay(from.getTime())}T00:00:00Z`); d <= last; d += DAY_MS) days.push(utcDay(d));
  return days;
}

type Call = 'attach' | 'authorize' | 'capture' | 'void' | 'refund' | 'charge_off_session' | 'details';

type Answer = { status: number; body: unknown };

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

export class AdyenConnector extends KitConnector implements PspConnector {
  readonly name = 'adyen';
  readonly sandbox: boolean;
  readonly #accountId: string;
  readonly #merchantAccount: string;
  readonly #keys: Redacted<{ apiKey: string; hmacKey: string; reportApiKey: string }>;
  readonly #reportBaseUrl: string;
  readonly #reportPageSize: number;
  readonly #baseUrl: string;
  readonly #clock: Clock;
  readonly #client: PspClient;
  readonly #operations: PspOperations;
  readonly #publicUrl: string;
  #reportCache: ReportCache | undefined;

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
    this.#reportBaseUrl = reportBaseUrl(setup.baseUrl);
    this.#reportPageSize = options.reportPageSize ?? REPORT_PAGE_SIZE;
    if (!Number.isSafeInteger(this.#reportPageSize) || this.#reportPageSize < 1 || this.#reportPageSize > 1_000) throw new TypeError('adyen: reportPageSize must be 1 to 1000');
    this.#clock = context.clock;
    this.#client = setup.client;
    this.#operations = context.operations;
    this.#publicUrl = trimSlashes(context.publicUrl);
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
  ): Promise<Answer> {
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

  /** A 4xx answer we did not expect: our request was wrong, or Adyen refused it for a reason we cannot map. */
  #unexpected(op: string, a: Answer): PspIntegrationError {
    const e = isObject(a.body) ? (a.body as AdyenServiceError) : {};
    return this.fault('bad_response', `${op}: Adyen answered HTTP ${a.status}${e.errorCode ? ` errorCode ${e.errorCode}` : ''}${e.message ? `: ${e.message}` : ''}`);
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
  #payment(ref: TransactionRef): AdyenPaymentState {
    const p = paymentStateOf(ref);
    if (p.status === 'authorised' && p.expiresAt && this.#clock.now().getTime() >= p.expiresAt.getTime()) p.status = 'lapsed';
    return p;
  }

  #refused(p: AdyenPaymentState, reason: DeclineReason, message: string): TransactionResult {
    return { ...resultOf(p), decline: { reason, message } };
  }

  async attachPaymentMethod(input: AttachInput): Promise<AttachResult> {
    const card = input.card;
    const digits = String(card.number).replace(/ /g, '');
    const { expiryMonth, expiryYear } = expiryFields(card.expMonth, card.expYear);
    // The operation log keys its fingerprints (HMAC): the card number is never stored in any form a guess could match.
    const params = [digits, expiryMonth, expiryYear, card.cvc, card.holderName];
    return this.#idempotent('attach', input.idempotencyKey, params, async (adyenKey): Promise<AttachResult> => {
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
      if (a.status !== 200 && a.status !== 201) throw this.#unexpected('attach', a);
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

  /** Reads a `/payments` or `/payments/details` answer into a payment state. */
  #readPayment(op: string, a: Answer, input: { amountCents: number; currency: string; capture: 'automatic' | 'manual'; offSession: boolean }, adyenKey: string): AdyenPaymentState {
    const { offSession, ...base } = input;
    const now = this.#clock.now();
    if (a.status === 422) {
      const e = (isObject(a.body) ? a.body : {}) as AdyenServiceError;
      if (e.errorCode === '800') throw this.fault('unknown_payment_method', `${op}: Adyen does not know the stored payment method`);
      const reason = e.errorCode ? CARD_VALIDATION_ERRORS[e.errorCode] : undefined;
      if (!reason) throw this.#unexpected(op, a);
      return {
        ...base,
        pspReference: e.pspReference ?? `refused-${adyenKey.slice(0, 16)}`,
        status: 'refused',
        capturedCents: 0,
        refundedCents: 0,
        modifications: {},
        decline: { reason, message: e.message || 'The card details were refused.' },
      };
    }
    if (a.status !== 200) throw this.#unexpected(op, a);
    const b = a.body as Record<string, unknown>;
    const pspReference = str(b.pspReference);
    if (!pspReference || !isResultCode(b.resultCode)) throw this.fault('bad_response', `${op}: Adyen's answer lacks a pspReference or a known resultCode`);
    const amount = isObject(b.amount) ? b.amount : undefined;
    if (amount && typeof amount.value === 'number' && amount.value !== base.amountCents) {
      throw this.fault('idempotency_conflict', `${op}: Adyen replayed a payment of another amount for this idempotency key`);
    }
    const additional = isObject(b.additionalData) ? (b.additionalData as Record<string, unknown>) : {};
    const state: AdyenPaymentState = { ...base, pspReference, status: 'refused', capturedCents: 0, refundedCents: 0, modifications: {} };
    const nt = str(additional.networkTxReference);
    if (nt) state.networkTxReference = nt;
    const meaning = resultMeaning(b.resultCode);
    switch (meaning) {
      case 'authorised':
        if (base.capture === 'automatic') {
          state.status = 'captured';
          state.capturedCents = base.amountCents;
        } else {
          state.status = 'authorised';
          state.expiresAt = new Date(now.getTime() + ADYEN_HOLD_DAYS * DAY_MS);
        }
        return state;
      case 'action': {
        const action = isObject(b.action) ? b.action : {};
        if (offSession) {
          state.decline = { reason: 'authentication_failed', message: 'Adyen asked for the shopper to authenticate a merchant-initiated charge.' };
          return state;
        }
        const url = str(action.url);
        const post = action.method === 'POST' && isObject(action.data) && Object.values(action.data).every((v) => typeof v === 'string');
        if (action.type !== 'redirect' || (action.method !== 'GET' && !post) || !url || !/^https?:\/\//.test(url)) {
          throw this.fault('not_supported', `${op}: Adyen asked for a ${String(action.type)} action; only redirects (GET, or POST with data) are supported`);
        }
        state.status = 'pending_action';
        // A POST redirect carries `data` to post to `url` (CheckoutRedirectAction): our relay page posts it.
        if (post) state.challengeForm = { action: url, fields: action.data as Record<string, string> };
        else state.challengeUrl = url;
        return state;
      }
      case 'refused':
        state.decline = refusalDecline(str(b.refusalReasonCode), str(b.refusalReason));
        return state;
      case 'cancelled':
        state.decline = { reason: 'card_declined', message: 'Adyen cancelled the payment.' };
        return state;
      case 'pending':
      case 'unexpected':
        throw this.fault('bad_response', `${op}: Adyen answered resultCode ${b.resultCode}, which a card payment should not`);
      default:
        return unreachable(meaning);
    }
  }

  async authorize(input: AuthorizeInput): Promise<TransactionResult> {
    assertAmount(input.amountCents);
    assertCurrency(input.currency);
    assertReturnUrl(input.returnUrl);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const params = [input.paymentMethodId, input.amountCents, input.currency, input.capture, input.returnUrl, input.storeForLater === true];
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
        return resultOf(this.#readPayment('authorize', a, { amountCents: input.amountCents, currency: input.currency, capture: input.capture, offSession: false }, adyenKey));
      },
      reviveTransaction<TransactionResult>,
    );
  }

  /**
   * Finishes a 3-D Secure redirect: the shopper came back to `returnUrl` with `redirectResult`,
   * which Adyen wants on `POST /payments/details` (given by the return page through
   * {@link retrieve}); the AUTHORISATION webhook reports the same outcome through
   * {@link verifyNotification}.
   */
  async submitDetails(transaction: TransactionRef, redirectResult: string): Promise<TransactionResult> {
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
        const next = this.#readPayment('details', a, { amountCents: p.amountCents, currency: p.currency, capture: p.capture, offSession: false }, adyenKey);
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
      reviveTransaction<TransactionResult>,
    );
  }

  async capture(input: AmountOperation): Promise<TransactionResult> {
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
      reviveTransaction<TransactionResult>,
    );
  }

  async void(input: Operation): Promise<TransactionResult> {
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
      reviveTransaction<TransactionResult>,
    );
  }

  async refund(input: AmountOperation): Promise<TransactionResult> {
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
      reviveTransaction<TransactionResult>,
    );
  }

  /** Reads a modification answer (201, `status: received`) and gives its own pspReference. */
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
    return this.#readModification(op, a, p.pspReference, amountCents);
  }

  #readModification(op: string, a: Answer, payment: string, amount: number | undefined): string {
    if (a.status === 422) {
      const e = (isObject(a.body) ? a.body : {}) as AdyenServiceError;
      if (e.errorCode === '167') throw this.fault('unknown_transaction', `${op}: Adyen does not know payment ${payment}`);
      throw this.#unexpected(op, a);
    }
    if (a.status !== 201 && a.status !== 200) throw this.#unexpected(op, a);
    const b = a.body as Record<string, unknown>;
    const mod = str(b.pspReference);
    if (b.status !== 'received' || !mod || b.paymentPspReference !== payment)
      throw this.fault('bad_response', `${op}: Adyen's answer is not a received modification of ${payment}`);
    const amt = isObject(b.amount) ? b.amount.value : undefined;
    if (amount !== undefined && amt !== undefined && amt !== amount) {
      throw this.fault('idempotency_conflict', `${op}: Adyen replayed a modification of another amount for this idempotency key`);
    }
    return mod;
  }

  /** The scheme's transaction id the stored card's mandate started with, from Adyen's token list. */
  async #networkTxReference(shopperReference: string, storedPaymentMethodId: string): Promise<string | undefined> {
    const a = await this.#call('charge_off_session', (c, o) => c.recurring.getTokensForStoredPaymentDetails(shopperReference, this.#merchantAccount, o));
    if (a.status !== 200) throw this.#unexpected('charge_off_session', a);
    const list = (a.body as Record<string, unknown>).storedPaymentMethods;
    if (list !== undefined && !Array.isArray(list)) throw this.fault('bad_response', 'charge_off_session: storedPaymentMethods is not a list');
    const token = (list ?? []).find((t: unknown) => isObject(t) && t.id === storedPaymentMethodId) as Record<string, unknown> | undefined;
    if (!token) throw this.fault('unknown_payment_method', `no payment method ${paymentMethodId(shopperReference, storedPaymentMethodId)}`);
    return str(token.networkTxReference);
  }

  async chargeOffSession(input: OffSessionInput): Promise<TransactionResult> {
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
          this.#readPayment(
            'charge_off_session',
            a,
            { amountCents: input.amountCents, currency: input.currency, capture: manual ? 'manual' : 'automatic', offSession: true },
            adyenKey,
          ),
        );
      },
      reviveTransaction<TransactionResult>,
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
  async retrieve(transaction: TransactionRef, options: RetrieveOptions = {}): Promise<TransactionResult> {
    const redirectResult = options.returned?.redirectResult;
    if (redirectResult && this.#payment(transaction).status === 'pending_action') return this.submitDetails(transaction, redirectResult);
    const p = this.#payment(transaction);
    const items = readEventItems(options.notification);
    for (const item of items) if (paymentOf(item) === p.pspReference) this.#apply(p, item);
    return resultOf(p);
  }

  /**
   * Checks every item's signature and merchant account (one bad item refuses the whole batch);
   * answers each payment the items are about, the status reported, and (`event`) that payment's
   * items, for `retrieve` to fold into the payment's stored state: the first payment, then the
   * others of a batch in `also` (Adyen sends one item per webhook unless batching is enabled on
   * the endpoint).
   */
  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<NotificationResult> {
    const parsed = parseNotification(input.rawBody);
    if (!parsed) return { ok: false, reason: 'malformed' };
    const hmacKey = this.#keys.reveal().hmacKey;
    if (!hmacKey) return { ok: false, reason: 'bad_signature' };
    for (const item of parsed.items) {
      if (!checkItemSignature(hmacKey, item) || item.merchantAccountCode !== this.#merchantAccount) return { ok: false, reason: 'bad_signature' };
    }
    // One transaction per payment the batch reports on, in the batch's order; each carries all of
    // that payment's items (a capture and its refund may come together).
    const notified: NotifiedTransaction[] = [];
    for (const item of parsed.items) {
      // A dispute item (docs/money-operations.md#disputes) is about the dispute alone: one entry each.
      const dispute = readDisputeItem(item);
      if (dispute) {
        notified.push({ transactionId: dispute.transactionId, status: 'captured', dispute });
        continue;
      }
      const status = reportedStatus(item);
      const transactionId = paymentOf(item);
      if (status === undefined || notified.some((n) => !n.dispute && n.transactionId === transactionId)) continue;
      const items: EventItem[] = parsed.items
        .filter((i) => paymentOf(i) === transactionId)
        .map((i) => ({
          eventCode: i.eventCode,
          pspReference: i.pspReference,
          ...(i.originalReference ? { originalReference: i.originalReference } : {}),
          success: i.success,
          value: i.amount.value,
          ...(i.reason ? { reason: i.reason } : {}),
          ...(typeof i.eventDate === 'string' && !Number.isNaN(Date.parse(i.eventDate)) ? { eventDate: i.eventDate } : {}),
        }));
      notified.push({ transactionId, status, event: { items } });
    }
    const [first, ...also] = notified;
    if (!first) return { ok: false, reason: 'malformed' };
    return { ok: true, ...first, ack: { ...ADYEN_ACK }, ...(also.length > 0 ? { also } : {}) };
  }

  /**
   * Applies one verified webhook item to the payment it concerns, unless it would move the payment
   * backwards (docs/psp/adyen.md#notifications). Adyen signs no freshness and may deliver
   * an item again, or late, after a newer one; the payment's state is rebuilt from items, so:
   * - an item already folded in (the same eventCode, pspReference and success: what Adyen signs, and
   *   the duplicate key of Adyen's own plugins) changes nothing again, whatever its eventDate, which
   *   the HMAC does not cover: a replay of an old signed item is one;
   * - an item older (eventDate) than one already folded in for the same pspReference changes
   *   nothing: a REFUND delivered after the REFUND_FAILED that followed it.
   */
  #apply(p: AdyenPaymentState, item: EventItem): void {
    const seen = p.events ?? [];
    if (seen.some((e) => e.eventCode === item.eventCode && e.pspReference === item.pspReference && e.success === item.success)) return;
    const at = item.eventDate === undefined ? NaN : Date.parse(item.eventDate);
    if (!Number.isNaN(at) && seen.some((e) => e.pspReference === item.pspReference && e.eventDate !== undefined && Date.parse(e.eventDate) > at)) return;
    p.events = [
      ...seen,
      { eventCode: item.eventCode, pspReference: item.pspReference, success: item.success, ...(item.eventDate === undefined ? {} : { eventDate: item.eventDate }) },
    ].slice(-ADYEN_EVENTS_KEPT);
    this.#fold(p, item);
  }

  /** What one item, in order, does to the payment. */
  #fold(p: AdyenPaymentState, item: EventItem): void {
    const ok = item.success === 'true';
    const value = item.value;
    switch (item.eventCode) {
      case 'AUTHORISATION':
        if (p.status === 'pending_action') {
          delete p.challengeUrl;
          delete p.challengeForm;
          if (ok) {
            if (p.capture === 'automatic') {
              p.status = 'captured';
              p.capturedCents = p.amountCents;
            } else {
              p.status = 'authorised';
              p.expiresAt = new Date(this.#clock.now().getTime() + ADYEN_HOLD_DAYS * DAY_MS);
            }
          } else {
            p.status = 'refused';
            const d = refusalDecline(undefined, item.reason);
            p.decline = { reason: /3D|authenticat/i.test(item.reason ?? '') ? 'authentication_failed' : d.reason, message: d.message };
          }
        }
        return;
      case 'CAPTURE':
      case 'CAPTURE_FAILED': {
        const failed = item.eventCode === 'CAPTURE_FAILED' || !ok;
        if (!failed && p.status === 'authorised' && !p.modifications[item.pspReference]) {
          p.modifications[item.pspReference] = { kind: 'capture', amount: value };
          p.status = 'captured';
          p.capturedCents = value;
          delete p.expiresAt;
        }
        if (failed && p.modifications[item.pspReference]?.kind === 'capture' && p.status === 'captured' && p.refundedCents === 0) {
          p.status = 'authorised';
          p.capturedCents = 0;
        }
        return;
      }
      case 'CANCELLATION':
      case 'TECHNICAL_CANCEL':
        if (ok && (p.status === 'authorised' || p.status === 'pending_action')) p.status = 'cancelled';
        return;
      case 'REFUND':
      case 'REFUND_FAILED': {
        const failed = item.eventCode === 'REFUND_FAILED' || !ok;
        const known = p.modifications[item.pspReference];
        if (!failed && !known && p.status === 'captured' && p.refundedCents + value <= p.capturedCents) {
          p.modifications[item.pspReference] = { kind: 'refund', amount: value };
          p.refundedCents += value;
        }
        if (failed && known?.kind === 'refund') {
          delete p.modifications[item.pspReference];
          p.refundedCents = Math.max(0, p.refundedCents - known.amount);
        }
        return;
      }
      case 'CANCEL_OR_REFUND':
        if (ok && (p.status === 'authorised' || p.status === 'pending_action')) p.status = 'cancelled';
        else if (ok && p.status === 'captured') p.refundedCents = p.capturedCents;
        return;
      case 'EXPIRE':
        if (ok && p.status === 'authorised') p.status = 'lapsed';
        return;
      default:
        // Chargebacks, reports, …: nothing this connector tracks.
        return;
    }
  }

  /**
   * The payments that moved in `[from, to)` with their totals, from Adyen's daily Payment
   * accounting reports (./report.ts; docs/psp-connectors.md#reconciliation-list-or-retrieve). The
   * cursor walks the period's days (`YYYY-MM-DD:<offset>`): a page is up to `reportPageSize` of the
   * payments a day's report shows, by Psp Reference; each is totalled over the reports of
   * {@link ADYEN_REPORT_LOOKBACK_DAYS} days before the period and of every day of the period.
   * A period day whose report Adyen does not have yet (404: generated the next morning) and a
   * 5xx are `unreachable`, so the run resumes at this page later; a lookback day without a report
   * counts as a day without records (the report did not exist then). An answer that is not the
   * report is `bad_response`; refused report credentials, or none saved, `bad_credentials`.
   */
  async listTransactions(input: ListTransactionsInput): Promise<PspRecordPage> {
    const days = daysOf(input.from, input.to);
    if (days.length === 0) return { records: [], nextCursor: null };
    const [day, offset] = parseReportCursor(input.cursor, days);
    // One run reads the same days for each of its pages: kept from its first page (a new first
    // page, or another period, starts afresh).
    const period = `${input.from.toISOString()}/${input.to.toISOString()}`;
    if (input.cursor === null || this.#reportCache?.period !== period) this.#reportCache = { period, days: new Map(), rows: 0 };
    const cache = this.#reportCache;
    const dayRows = await this.#report(day, true, cache);
    const moved = [...new Set(dayRows.map((r) => r.pspReference))].sort();
    const ids = moved.slice(offset, offset + this.#reportPageSize);
    const following = days[days.indexOf(day) + 1];
    const nextCursor = offset + this.#reportPageSize < moved.length ? `${day}:${offset + this.#reportPageSize}` : following ? `${following}:0` : null;
    if (ids.length === 0) return { records: [], nextCursor };
    const first = Date.parse(`${days[0]}T00:00:00Z`);
    const window: string[] = [];
    for (let n = ADYEN_REPORT_LOOKBACK_DAYS; n >= 1; n--) window.push(utcDay(first - n * DAY_MS));
    window.push(...days);
    // The reports after the period too, up to today's (not there yet: a day without records), so
    // that totals are as current as Chipin's, which the run compares them with: a refund made
    // the morning after the period is then not a mismatch.
    const today = utcDay(this.#clock.now().getTime());
    for (let d = Date.parse(`${days[days.length - 1]}T00:00:00Z`) + DAY_MS, n = 0; utcDay(d) <= today && n < ADYEN_REPORT_LOOKBACK_DAYS; d += DAY_MS, n++) window.push(utcDay(d));
    // Each day's rows of this page's payments only, as soon as it is read.
    const only = new Set(ids);
    const rows: ReportRow[] = [];
    for (let i = 0; i < window.length; i += REPORT_DOWNLOADS_AT_ONCE) {
      const chunk = window.slice(i, i + REPORT_DOWNLOADS_AT_ONCE);
      for (const read of await Promise.all(chunk.map((d) => (d === day ? dayRows : this.#report(d, days.includes(d), cache))))) {
        for (const r of read) if (only.has(r.pspReference)) rows.push(r);
      }
    }
    const records = recordsOf(rows, only);
    return { records: ids.map((id) => records.get(id)!), nextCursor };
  }

  /**
   * One day's Payment accounting report of the merchant account, downloaded as Adyen documents
   * (`GET {Customer Area}/reports/download/MerchantAccount/{account}/{file}` with the report
   * credential's `X-API-Key`). `required`: a day of the period, whose missing report (404) is
   * `unreachable`; otherwise a missing report is a day without records. Kept in the run's `cache`
   * while it has room: a report read, and a report missing for a day two days past (Adyen makes a
   * day's the next morning: it will not come).
   */
  async #report(day: string, required: boolean, cache: ReportCache): Promise<ReportRow[]> {
    const kept = cache.days.get(day);
    if (kept) return kept;
    const rows = await this.#downloadReport(day, required);
    const settled = rows !== undefined || day <= utcDay(this.#clock.now().getTime() - 2 * DAY_MS);
    if (settled && cache.rows + (rows?.length ?? 0) <= REPORT_CACHE_MAX_ROWS) {
      cache.days.set(day, rows ?? []);
      cache.rows += rows?.length ?? 0;
    }
    return rows ?? [];
  }

  /** One day's report as read; undefined: Adyen has none (404) for a day not `required`. */
  async #downloadReport(day: string, required: boolean): Promise<ReportRow[] | undefined> {
    const op = 'list_transactions';
    const key = this.#keys.reveal().reportApiKey;
    if (!key) throw this.fault('bad_credentials', `${op}: no report_api_key is saved for this account: Adyen's reports cannot be downloaded`);
    const url = `${this.#reportBaseUrl}/reports/download/MerchantAccount/${encodeURIComponent(this.#merchantAccount)}/${reportFileName(day)}`;
    const res = await this.#client.request(op, url, { method: 'GET', headers: { 'X-API-Key': key, Accept: 'text/csv' }, timeoutMs: REPORT_TIMEOUT_MS, maxBytes: REPORT_MAX_BYTES });
    if (res.status === 404) {
      if (required) throw this.fault('unreachable', `${op}: Adyen has no payment accounting report for ${day} yet`);
      return undefined;
    }
    const fault = statusFault(this.name, op, res.status);
    if (fault) throw fault;
    if (res.status !== 200) throw this.fault('bad_response', `${op}: the report of ${day} answered HTTP ${res.status}`);
    try {
      return readReport(res.text, this.#merchantAccount);
    } catch (err) {
      if (err instanceof ReportFormatError) throw this.fault('bad_response', `${op}: the report of ${day} cannot be read: ${err.message}`);
      throw err;
    }
  }

  /** `POST /paymentMethods` for the merchant account: harmless, and refused without working credentials. */
  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    const a = await this.#call('verify_credentials', (c, o) => c.payments.paymentMethods({ merchantAccount: this.#merchantAccount }, o), undefined, true);
    if (a.status === 401) return { ok: false, message: 'Adyen refused the API key (HTTP 401).' };
    if (a.status === 403)
      return { ok: false, message: 'Adyen refused this API key for this merchant account (HTTP 403): check the merchant account and the API credential’s roles.' };
    if (a.status !== 200) throw this.#unexpected('verify_credentials', a);
    return { ok: true };
  }
}

/** A cursor of {@link AdyenConnector.listTransactions}: a day of the period and an offset into its payments. */
function parseReportCursor(cursor: string | null, days: readonly string[]): [string, number] {
  if (cursor === null) return [days[0]!, 0];
  const m = /^(\d{4}-\d{2}-\d{2}):(\d{1,9})$/.exec(cursor);
  if (!m || !days.includes(m[1]!)) throw new RangeError(`adyen: ${JSON.stringify(cursor)} is not a cursor of this period`);
  return [m[1]!, Number(m[2])];
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

/** A verified webhook item as it travels in a notification's `event` (JSON). */
type EventItem = {
  eventCode: string;
  pspReference: string;
  originalReference?: string;
  success: 'true' | 'false';
  value: number;
  reason?: string;
  /** Adyen's `eventDate` (ISO 8601), unsigned: it orders items, it never makes one count twice. */
  eventDate?: string;
};

/** The payment an item is about: its own reference for an authorisation, the original one for a modification. */
function paymentOf(item: { eventCode: string; pspReference: string; originalReference?: string }): string {
  return item.eventCode === 'AUTHORISATION' ? item.pspReference : (item.originalReference ?? item.pspReference);
}

/** What an item reports on its own (the payment's stored state may say more); undefined: nothing we track. */
function reportedStatus(item: NotificationItem): TransactionStatus | undefined {
  const ok = item.success === 'true';
  switch (item.eventCode) {
    case 'AUTHORISATION':
      return ok ? 'authorized' : 'declined';
    case 'CAPTURE':
    case 'CAPTURE_FAILED':
      return item.eventCode === 'CAPTURE_FAILED' || !ok ? 'authorized' : 'captured';
    case 'CANCELLATION':
    case 'TECHNICAL_CANCEL':
    case 'CANCEL_OR_REFUND':
      return 'voided';
    case 'REFUND':
    case 'REFUND_FAILED':
      return 'refunded';
    case 'EXPIRE':
      return 'expired';
    default:
      return undefined;
  }
}

/** The items of a notification's `event`, as {@link AdyenConnector.verifyNotification} wrote them. */
function readEventItems(event: NotificationEvent | undefined): EventItem[] {
  const items = event?.items;
  if (!Array.isArray(items)) return [];
  return items.filter(
    (i): i is EventItem =>
      isObject(i) &&
      typeof i.eventCode === 'string' &&
      typeof i.pspReference === 'string' &&
      (i.success === 'true' || i.success === 'false') &&
      Number.isSafeInteger(i.value) &&
      (i.eventDate === undefined || typeof i.eventDate === 'string'),
  ) as EventItem[];
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
