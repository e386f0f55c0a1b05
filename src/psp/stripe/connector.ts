import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { Redacted } from '../../domain/redacted.ts';
import type { Clock } from '../../domain/clock.ts';
import type * as contract from '../connector.ts';
import { PspIntegrationError, askedThreeDSecure } from '../connector.ts';
import { checkBaseUrl, KitConnector, type KitConnectorOptions } from '../kit/connector-setup.ts';
import { statusFault } from '../kit/status-fault.ts';
import { reviveTransaction, authorizeParams, chargeParams, type PspOperations } from '../kit/operations.ts';
import { declineOf, readIntent, readPaymentMethod, refused, toTransactionResult, type IntentView, type StripeErrorView } from './mapping.ts';
import { verifyStripeNotification } from './notifications.ts';
import { lostDisputeCents, readBalanceTransaction, readChargeTotals, toRecord, type ChargeTotals } from './records.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import { PspCallError, pspCallFault } from '../psp-http.ts';

/** `baseUrl` is `https://api.stripe.com`, or a test double's URL: scheme, host and port only; the SDK sends every request through `http`. */
export interface StripeConnectorOptions extends KitConnectorOptions {
  /** `sk_test_…` / `sk_live_…`. */
  secretKey: string;
  /** The webhook endpoint's signing secret, `whsec_…`. */
  webhookSecret: string;
  /** Balance transactions per page of {@link StripeConnector.listTransactions}: 1 to 100 (Stripe's `limit`), 100 if absent. */
  listPageSize?: number;
}

const NAME = 'stripe';
const INTENT_ID = /^pi_[A-Za-z0-9]{1,255}$/;
const PM_ID = /^pm_[A-Za-z0-9]{1,255}$/;
/** Stripe idempotency keys are at most 255 characters. */
const MAX_KEY = 255;
/** What we read of an intent in every answer: the charge, for refunds and the hold's end. */
const EXPAND = ['latest_charge'];
/** A balance transaction id: the cursor of {@link StripeConnector.listTransactions}. */
const BALANCE_TX_ID = /^txn_[A-Za-z0-9]{1,255}$/;

/**
 * The Stripe key of one step of one of our calls. Our key names the call; a call made of several
 * Stripe requests (attach: payment method, customer, attachment) gives each its own key derived
 * from ours, so a retry replays every step it already made. Hashed when it would pass 255.
 */
function stepKey(key: string, step: string): string {
  const k = `${key}:${step}`;
  return k.length <= MAX_KEY ? k : `chipin-${createHash('sha256').update(k).digest('hex')}`;
}

function isStripeError(e: unknown): e is Stripe.errors.StripeError {
  return e instanceof Stripe.errors.StripeError;
}

function raw(e: Stripe.errors.StripeError): StripeErrorView & { payment_intent?: unknown } {
  const r = (e.raw ?? {}) as Record<string, unknown>;
  return {
    type: typeof r.type === 'string' ? r.type : undefined,
    code: typeof r.code === 'string' ? r.code : undefined,
    decline_code: typeof r.decline_code === 'string' ? r.decline_code : undefined,
    message: typeof r.message === 'string' ? r.message : undefined,
    payment_intent: r.payment_intent,
  };
}

/** Parses a base URL into what the SDK takes; anything but scheme, host and port is refused at boot. */
function endpoint(baseUrl: string): { protocol: 'http' | 'https'; host: string; port: number } {
  const url = checkBaseUrl(NAME, baseUrl);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    throw new TypeError('stripe: baseUrl must be scheme, host and port only (the SDK adds /v1/…)');
  }
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  const port = url.port ? Number(url.port) : protocol === 'https' ? 443 : 80;
  return { protocol, host: url.hostname.replace(/^\[|\]$/g, ''), port };
}

/**
 * Stripe through its official Node SDK (stripe-node), PaymentIntents API: one intent per
 * authorisation or off-session charge, confirmed on creation. Every mutating request carries an
 * `Idempotency-Key` (Stripe keeps keys 24 hours and replays the first answer, errors included;
 * the same key with other parameters is an `idempotency_error`). The SDK's own retries are off
 * (`maxNetworkRetries: 0`): a timed-out call is retried by our caller with the same key.
 * The SDK still retries once a connection that was closed before any answer (stripe-node#1040);
 * that is safe for the same reason.
 */
export class StripeConnector extends KitConnector implements contract.PspConnector {
  readonly name = NAME;
  readonly sandbox: boolean;
  readonly #client: Stripe;
  readonly #webhookSecret: Redacted<string>;
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #operations: PspOperations;
  readonly #listPageSize: number;

  constructor(opts: StripeConnectorOptions) {
    super();
    if (!/^sk_(test|live)_[0-9A-Za-z]+$/.test(opts.secretKey ?? '')) throw new TypeError('stripe: the secret key must look like sk_test_… or sk_live_…');
    // The signing secret comes from the webhook, made once the account is saved: until then, no notification is accepted.
    if (opts.webhookSecret && !/^whsec_\S+$/.test(opts.webhookSecret)) throw new TypeError('stripe: the webhook signing secret must look like whsec_…');
    if (!Number.isSafeInteger(opts.timeoutMs) || opts.timeoutMs <= 0) throw new TypeError('stripe: timeoutMs must be a positive integer');
    const { protocol, host, port } = endpoint(opts.baseUrl);
    this.sandbox = opts.sandbox;
    this.#clock = opts.clock;
    this.#timeoutMs = opts.timeoutMs;
    this.#operations = opts.operations;
    this.#listPageSize = opts.listPageSize ?? 100;
    if (!Number.isSafeInteger(this.#listPageSize) || this.#listPageSize < 1 || this.#listPageSize > 100) throw new TypeError('stripe: listPageSize must be 1 to 100');
    this.#webhookSecret = new Redacted(opts.webhookSecret);
    // The SDK keeps the key in its own (non-enumerable) state; the client sits in a #private
    // field, so neither JSON.stringify nor util.inspect of the connector reaches it.
    this.#client = new Stripe(opts.secretKey, {
      host,
      port,
      protocol,
      maxNetworkRetries: 0,
      timeout: opts.timeoutMs,
      // Every request through the service's one outbound client (address checked, no redirect
      // followed), not the SDK's own: the SDK accepts any fetch.
      httpClient: Stripe.createFetchHttpClient(opts.http.fetchWith(opts.timeoutMs)),
      telemetry: false,
      appInfo: { name: 'Chipin' },
    });
  }

  protected get shownAs(): string {
    return `StripeConnector(${this.sandbox ? 'test' : 'live'})`;
  }

  /** An error that is not a refusal, as the contract's closed set; never Stripe's message for auth errors (it echoes part of the key). */
  #fault(e: unknown, missing: 'unknown_transaction' | 'unknown_payment_method' = 'unknown_transaction'): PspIntegrationError {
    if (e instanceof PspIntegrationError) return e;
    if (!isStripeError(e)) return new PspIntegrationError(NAME, 'bad_response', 'unexpected failure while talking to Stripe');
    const status = e.statusCode;
    if (e instanceof Stripe.errors.StripeConnectionError) {
      // The SDK keeps what our fetch threw as `detail`: a refusal or a redirect says so.
      if (e.detail instanceof PspCallError) return pspCallFault(NAME, 'Stripe', e.detail, this.#timeoutMs);
      return new PspIntegrationError(NAME, 'unreachable', `Stripe did not answer within ${this.#timeoutMs} ms or the connection failed`);
    }
    if (e instanceof Stripe.errors.StripeIdempotencyError) return new PspIntegrationError(NAME, 'idempotency_conflict', 'an idempotency key was reused with other parameters');
    if (status === undefined) return new PspIntegrationError(NAME, 'bad_response', 'Stripe sent an answer that is not JSON');
    // The SDK's authentication, permission and rate-limit errors are its 401, 403 and 429: the kit's
    // mapping. Stripe's message is not copied (for a 401 it echoes part of the key).
    const byStatus = statusFault(NAME, 'Stripe', status, status === 403 ? ', the secret key lacks a permission this call needs' : '');
    if (byStatus) return byStatus;
    const r = raw(e);
    if (status === 404 || r.code === 'resource_missing')
      return new PspIntegrationError(NAME, missing, `Stripe does not know this ${missing === 'unknown_payment_method' ? 'payment method' : 'transaction'}`);
    return new PspIntegrationError(NAME, 'bad_response', `Stripe refused the request: ${r.type ?? 'error'} ${r.code ?? ''}`.trim());
  }

  #intent(value: unknown): IntentView {
    const pi = readIntent(value);
    if (!pi) throw new PspIntegrationError(NAME, 'bad_response', 'Stripe sent a PaymentIntent we cannot read');
    return pi;
  }

  async #retrieveIntent(id: string): Promise<IntentView> {
    if (!INTENT_ID.test(id)) throw new PspIntegrationError(NAME, 'unknown_transaction', 'not a Stripe PaymentIntent id');
    try {
      return this.#intent(await this.#client.paymentIntents.retrieve(id, { expand: EXPAND }));
    } catch (e) {
      throw this.#fault(e);
    }
  }

  async #customerOf(paymentMethodId: string): Promise<string> {
    if (!PM_ID.test(paymentMethodId)) throw new PspIntegrationError(NAME, 'unknown_payment_method', 'not a Stripe PaymentMethod id');
    let pm;
    try {
      pm = readPaymentMethod(await this.#client.paymentMethods.retrieve(paymentMethodId));
    } catch (e) {
      throw this.#fault(e, 'unknown_payment_method');
    }
    if (!pm) throw new PspIntegrationError(NAME, 'bad_response', 'Stripe sent a PaymentMethod we cannot read');
    if (!pm.customer) throw new PspIntegrationError(NAME, 'unknown_payment_method', 'the payment method is not attached to a Stripe customer');
    return pm.customer;
  }

  /** A card error from confirming an intent: the intent Stripe created, declined, is the result. */
  #declinedIntent(e: unknown): contract.TransactionResult {
    if (e instanceof Stripe.errors.StripeCardError) {
      const r = raw(e);
      const pi = readIntent(r.payment_intent);
      if (pi) {
        const result = toTransactionResult(pi);
        return { ...result, status: 'declined', capturedCents: 0, refundedCents: 0, decline: declineOf(r) };
      }
      throw new PspIntegrationError(NAME, 'bad_response', 'Stripe refused the card without the PaymentIntent');
    }
    throw this.#fault(e);
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
      // Raw card numbers reach Stripe only from PCI-DSS SAQ D merchants that enabled it
      // ("raw card data APIs"); see docs/psp/stripe.md.
      const created = await this.#client.paymentMethods.create(
        {
          type: 'card',
          card: { number: card.number.replace(/ /g, ''), exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
          billing_details: { name: card.holderName },
        },
        { idempotencyKey: stepKey(input.idempotencyKey, 'payment_method') },
      );
      const pm = readPaymentMethod(created);
      if (!pm) throw new PspIntegrationError(NAME, 'bad_response', 'Stripe sent a PaymentMethod we cannot read');
      // A PaymentMethod is reusable only attached to a Customer: one customer per saved card.
      const customer = await this.#client.customers.create({ name: card.holderName }, { idempotencyKey: stepKey(input.idempotencyKey, 'customer') });
      if (typeof customer?.id !== 'string') throw new PspIntegrationError(NAME, 'bad_response', 'Stripe sent a Customer we cannot read');
      const attached = readPaymentMethod(await this.#client.paymentMethods.attach(pm.id, { customer: customer.id }, { idempotencyKey: stepKey(input.idempotencyKey, 'attach') }));
      if (!attached) throw new PspIntegrationError(NAME, 'bad_response', 'Stripe sent a PaymentMethod we cannot read');
      const { id: paymentMethodId, brand, last4, expMonth, expYear, funding, country } = attached;
      return { ok: true, paymentMethodId, brand, last4, expMonth, expYear, ...(funding ? { funding } : {}), ...(country ? { country } : {}) };
    } catch (e) {
      if (e instanceof Stripe.errors.StripeCardError) return { ok: false, ...declineOf(raw(e)) };
      throw this.#fault(e);
    }
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const params = authorizeParams(input);
    return this.#once('authorize', input.idempotencyKey, params, () => this.#authorize(input));
  }

  async #authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    const customer = await this.#customerOf(input.paymentMethodId);
    try {
      const pi = await this.#client.paymentIntents.create(
        {
          amount: input.amountCents,
          currency: input.currency.toLowerCase(),
          customer,
          payment_method: input.paymentMethodId,
          capture_method: input.capture,
          confirm: true,
          return_url: input.returnUrl,
          // PSD2 CIT that stores the card: later off-session intents on this customer and
          // payment method are merchant-initiated, and Stripe links them to this one itself.
          ...(input.storeForLater ? { setup_future_usage: 'off_session' as const } : {}),
          // The merchant's `always`: 3-D Secure asked of the issuer whatever Radar would decide.
          // Stripe has no value that forgoes it (`automatic`, its default, is `auto` and `never`:
          // docs/psp-connectors.md#the-merchants-3-d-secure-choice).
          ...(askedThreeDSecure(input) === 'always' ? { payment_method_options: { card: { request_three_d_secure: 'any' as const } } } : {}),
          expand: EXPAND,
        },
        { idempotencyKey: input.idempotencyKey },
      );
      return toTransactionResult(this.#intent(pi));
    } catch (e) {
      return this.#declinedIntent(e);
    }
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    const manual = input.capture === 'manual';
    const params = chargeParams(input, manual);
    return this.#once('charge_off_session', input.idempotencyKey, params, () => this.#chargeOffSession(input));
  }

  async #chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    const customer = await this.#customerOf(input.paymentMethodId);
    try {
      const pi = await this.#client.paymentIntents.create(
        {
          amount: input.amountCents,
          currency: input.currency.toLowerCase(),
          customer,
          payment_method: input.paymentMethodId,
          // `manual`: a merchant-initiated hold (a re-authorisation), captured later
          // (docs.stripe.com/payments/place-a-hold-on-a-payment-method; off_session=true, confirm=true).
          capture_method: input.capture === 'manual' ? 'manual' : 'automatic',
          confirm: true,
          // A merchant-initiated transaction: Stripe finds the stored-credential agreement (the
          // CIT with setup_future_usage) from the customer and payment method and sends the
          // scheme's reference itself; there is no request field for it on a card stored at
          // Stripe. We keep the initial transaction in the metadata for reconciliation.
          off_session: true,
          ...(input.storedCredential ? { metadata: { chipin_initial_transaction: input.storedCredential.initialTransactionId } } : {}),
          expand: EXPAND,
        },
        { idempotencyKey: input.idempotencyKey },
      );
      return toTransactionResult(this.#intent(pi));
    } catch (e) {
      return this.#declinedIntent(e);
    }
  }

  /**
   * A mutating call through the operation log (src/psp/kit/operations.ts): replayed from the log
   * for as long as it keeps it, where Stripe keeps keys 24 hours. An outcome left unknown is
   * reconciled by sending again with the same Stripe key, which Stripe answers as the first time.
   */
  #once(op: string, key: string, params: readonly unknown[], send: () => Promise<contract.TransactionResult>): Promise<contract.TransactionResult> {
    return this.#operations.once(op, key, params, send, send, reviveTransaction<contract.TransactionResult>);
  }

  /** Runs a state-changing call on an intent; a 400/402 refusal leaves it unchanged and says why. */
  async #operate(transactionId: string, call: () => Promise<unknown>, readBack: boolean): Promise<contract.TransactionResult> {
    if (!INTENT_ID.test(transactionId)) throw new PspIntegrationError(NAME, 'unknown_transaction', 'not a Stripe PaymentIntent id');
    try {
      const answer = await call();
      return toTransactionResult(readBack ? await this.#retrieveIntent(transactionId) : this.#intent(answer));
    } catch (e) {
      if (isStripeError(e) && (e.statusCode === 400 || e.statusCode === 402) && !(e instanceof Stripe.errors.StripeIdempotencyError)) {
        const r = raw(e);
        if (r.code !== 'resource_missing' && r.code !== 'parameter_missing' && r.code !== 'parameter_unknown' && r.code !== 'parameter_invalid_integer') {
          const pi = await this.#retrieveIntent(transactionId);
          return refused(pi, declineOf(r));
        }
      }
      throw this.#fault(e);
    }
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const id = input.transaction.transactionId;
    return this.#once('capture', input.idempotencyKey, [id, input.amountCents], () =>
      this.#operate(id, () => this.#client.paymentIntents.capture(id, { amount_to_capture: input.amountCents, expand: EXPAND }, { idempotencyKey: input.idempotencyKey }), false),
    );
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const id = input.transaction.transactionId;
    return this.#once('void', input.idempotencyKey, [id], async () => {
      const r = await this.#operate(id, () => this.#client.paymentIntents.cancel(id, { expand: EXPAND }, { idempotencyKey: input.idempotencyKey }), false);
      // Stripe refuses to cancel what is already canceled; nothing is held, so that is no refusal.
      if (r.status === 'voided' && r.decline) delete r.decline;
      return r;
    });
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const id = input.transaction.transactionId;
    return this.#once('refund', input.idempotencyKey, [id, input.amountCents], () =>
      this.#operate(id, () => this.#client.refunds.create({ payment_intent: id, amount: input.amountCents }, { idempotencyKey: input.idempotencyKey }), true),
    );
  }

  /** Stripe reads every intent by its id: the intent id is all the state this connector needs. */
  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return toTransactionResult(await this.#retrieveIntent(transaction.transactionId));
  }

  /**
   * The period's balance transactions (`GET /v1/balance_transactions`, `created[gte]`/`created[lt]`
   * in seconds, `expand[]=data.source`, newest first, cursor `starting_after` = the page's last
   * id; docs.stripe.com/api/balance_transactions/list), one record per movement of a payment: a
   * capture, a refund, a dispute's withdrawal or reinstatement, each with its PaymentIntent's
   * current totals read from its charge (listed as the source, else `GET /v1/charges/:id`) and,
   * for a disputed charge, the amount of its lost disputes (`GET /v1/disputes?charge=`).
   * Authorisations move no funds and are not listed. The SDK's auto-pagination is not used: one
   * call reads one page, so a run that fails resumes from its last cursor.
   */
  async listTransactions(input: contract.ListTransactionsInput): Promise<contract.PspRecordPage> {
    const from = Math.ceil(input.from.getTime() / 1000);
    const to = Math.ceil(input.to.getTime() / 1000);
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || input.from.getTime() >= input.to.getTime()) throw new RangeError('stripe: the period must be from < to');
    if (input.cursor !== null && !BALANCE_TX_ID.test(input.cursor)) throw new RangeError('stripe: not a cursor of this connector (a balance transaction id)');
    let page;
    try {
      page = await this.#client.balanceTransactions.list({
        created: { gte: from, lt: to },
        limit: this.#listPageSize,
        expand: ['data.source'],
        ...(input.cursor ? { starting_after: input.cursor } : {}),
      });
    } catch (e) {
      throw this.#listFault(e);
    }
    if (!Array.isArray(page?.data) || typeof page.has_more !== 'boolean')
      throw new PspIntegrationError(NAME, 'bad_response', 'Stripe sent a list of balance transactions we cannot read');
    const charges = new Map<string, ChargeTotals>();
    const wanted: string[] = [];
    const views = page.data.map((value) => {
      const view = readBalanceTransaction(value);
      if (!view) throw new PspIntegrationError(NAME, 'bad_response', 'Stripe sent a balance transaction we cannot read');
      if (view.movement.kind === 'charge') charges.set(view.movement.charge.id, view.movement.charge);
      else if (view.movement.kind !== 'other') wanted.push(view.movement.chargeId);
      return view;
    });
    for (const id of wanted) if (!charges.has(id)) charges.set(id, await this.#chargeTotals(id));
    const chargedBack = new Map<string, number>();
    for (const c of charges.values()) chargedBack.set(c.id, c.disputed ? await this.#lostDisputes(c.id) : 0);
    const records: contract.PspRecord[] = [];
    for (const { movement } of views) {
      if (movement.kind === 'other') continue;
      const charge = charges.get(movement.kind === 'charge' ? movement.charge.id : movement.chargeId)!;
      records.push(toRecord(charge, chargedBack.get(charge.id)!));
    }
    const last = views.at(-1)?.id;
    return { records, nextCursor: page.has_more && last ? last : null };
  }

  async #chargeTotals(id: string): Promise<ChargeTotals> {
    let charge;
    try {
      charge = readChargeTotals(await this.#client.charges.retrieve(id));
    } catch (e) {
      throw this.#listFault(e);
    }
    if (!charge) throw new PspIntegrationError(NAME, 'bad_response', 'Stripe sent a Charge we cannot read');
    return charge;
  }

  /** The lost disputes of a charge (a charge has a handful at most: one page of 100). */
  async #lostDisputes(chargeId: string): Promise<number> {
    let list;
    try {
      list = await this.#client.disputes.list({ charge: chargeId, limit: 100 });
    } catch (e) {
      throw this.#listFault(e);
    }
    const cents = Array.isArray(list?.data) ? lostDisputeCents(list.data) : undefined;
    if (cents === undefined) throw new PspIntegrationError(NAME, 'bad_response', 'Stripe sent a list of disputes we cannot read');
    return cents;
  }

  /** While listing, what Stripe does not know (a cursor, a charge it listed) is a bad answer, not an unknown transaction of ours. */
  #listFault(e: unknown): PspIntegrationError {
    const f = this.#fault(e);
    return f.code === 'unknown_transaction' ? new PspIntegrationError(NAME, 'bad_response', 'Stripe no longer knows an object of its own list') : f;
  }

  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    if (!this.#webhookSecret.reveal()) return { ok: false, reason: 'bad_signature' };
    return verifyStripeNotification(this.#client.webhooks, this.#webhookSecret.reveal(), input, this.#clock.now());
  }

  /**
   * Submits the merchant's evidence on a dispute (docs.stripe.com/api/disputes/update):
   * `evidence[uncategorized_text]` with `submit=true`, so Stripe sends it to the bank at once.
   * Stripe refusing it (the dispute closed, a text too long) is a result; a fault throws.
   */
  async submitDisputeEvidence(input: { idempotencyKey: string; pspDisputeId: string; text: string }): Promise<{ ok: true } | { ok: false; message: string }> {
    if (!/^(dp|du)_[0-9A-Za-z]+$/.test(input.pspDisputeId)) return { ok: false, message: 'not a Stripe dispute id' };
    try {
      await this.#client.disputes.update(input.pspDisputeId, { evidence: { uncategorized_text: input.text }, submit: true }, { idempotencyKey: input.idempotencyKey });
      return { ok: true };
    } catch (e) {
      if (isStripeError(e) && e.statusCode === 400) return { ok: false, message: `Stripe refused the evidence: ${raw(e).code ?? raw(e).type ?? 'invalid request'}` };
      throw this.#fault(e);
    }
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    try {
      // The balance is readable by every secret key and changes nothing.
      await this.#client.balance.retrieve();
      return { ok: true };
    } catch (e) {
      const f = this.#fault(e);
      if (f.code === 'bad_credentials') return { ok: false, message: f.message.replace(/^stripe: /, '') };
      throw f;
    }
  }
}
