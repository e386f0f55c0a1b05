import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type * as contract from '../connector.ts';
import { PspIntegrationError, askedThreeDSecure } from '../connector.ts';
import type { ConnectorContext, PspAccountConfig } from '../definition.ts';
import { HttpKitConnector, kitOptions } from '../kit/connector-setup.ts';
import { parseJson } from '../kit/json-call.ts';
import { reviveTransaction, authorizeParams, chargeParams } from '../kit/operations.ts';
import { statusFault } from '../kit/status-fault.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import { EVENT_STATUSES, PAYMENT_ID, readError, readPayment, readRefund, toDeclineReason, toTransactionResult, type PaymentView } from './mapping.ts';
import { readDisputeWebhook } from './disputes.ts';
import { disputedCents, hasLostDispute, LOST_DISPUTES, MONEY_MOVED, readCursor, refundListPayments, toRecord, writeCursor } from './records.ts';

/** The hosted Hyperswitch (the OpenAPI document's `servers`, and hyperswitch.io's production API). */
export const HYPERSWITCH_BASE_URLS = { test: 'https://sandbox.hyperswitch.io', live: 'https://api.hyperswitch.io' } as const;
export const HYPERSWITCH_HOSTS = { test: ['sandbox.hyperswitch.io'], live: ['api.hyperswitch.io'] } as const;

/** The currency of the zero-amount payment that verifies and stores a card (nothing is held). */
const SETUP_CURRENCY = 'EUR';

/** The signature header of Hyperswitch's outgoing webhooks (crates/router/src/lib.rs `X_WEBHOOK_SIGNATURE`). */
const SIGNATURE_HEADER = 'x-webhook-signature-512';

/**
 * An id of ours for a Hyperswitch object, derived from the operation and our idempotency key:
 * the same call always names the same object, which makes Hyperswitch refuse a second one
 * (`payment_id` and `refund_id` are "to ensure idempotency", 30 characters, in the document).
 */
function hyperswitchId(prefix: 'pay' | 'ref' | 'cus', operation: string, key: string): string {
  const digest = createHash('sha256').update(`${operation}\0${key}`).digest('hex');
  return `${prefix}_${digest.slice(0, 26)}`;
}

/** Our payment method id: Hyperswitch's `payment_method_id` and the customer it is saved for, which every payment on it names. */
const METHOD_ID = /^([A-Za-z0-9_-]{1,64}):([A-Za-z0-9_-]{1,64})$/;

/**
 * A merchant's Hyperswitch (hosted or their own), payments API v1, JSON, `api-key` header; the
 * processor behind it (Bluesnap, Cybersource, dLocal, Nuvei, PayU, Worldpay, ACI…) is the
 * merchant's choice in Hyperswitch's routing for the profile (docs/psp/hyperswitch.md).
 *
 * - A card is stored by a zero-amount payment (`payment_type: setup_mandate`, "zero auth flow"),
 *   confirmed at once with the card, `setup_future_usage: off_session`, the shopper's
 *   `customer_acceptance` and a `customer_id` of ours: the processor verifies the card and
 *   Hyperswitch saves it; its `payment_method_id` is our payment method.
 * - Every payment is created and confirmed in one call (`confirm: true`) with a `payment_id`
 *   derived from our idempotency key, on the saved card (`recurring_details`, type
 *   `payment_method_id`): on session (`off_session: false`, `authentication_type: three_ds`, a
 *   `requires_customer_action` answer naming the issuer's page in `next_action.redirect_to_url`),
 *   or merchant-initiated (`off_session: true`, `mit_category: unscheduled`).
 * - `POST /payments/{id}/capture|cancel`, `POST /refunds` (a `refund_id` derived from our key);
 *   the payment is read back with `GET /payments/{id}` (its `amount_received` and `refunds`).
 */
export class HyperswitchConnector extends HttpKitConnector<{ apiKey: string; hashKey: string }> implements contract.PspConnector {
  readonly #profile: string;
  readonly #listPageSize: number;

  /** `options.listPageSize`: objects per page of {@link listTransactions} (1 to 100, the list's `limit`), 20 if absent. */
  constructor(account: PspAccountConfig, context: ConnectorContext, options: { listPageSize?: number } = {}) {
    const { api_key: apiKey, profile_id: profile, payment_response_hash_key: hashKey } = account.credentials;
    if (!apiKey || !/^[A-Za-z0-9_]{16,128}$/.test(apiKey)) throw new TypeError('hyperswitch: the API key must be 16 to 128 letters, digits and underscores (snd_…, prd_…)');
    if (!profile || !/^pro_[A-Za-z0-9]{1,60}$/.test(profile)) throw new TypeError('hyperswitch: the profile id must look like pro_…');
    super('hyperswitch', { ...kitOptions(account, context), credentials: { apiKey, hashKey: hashKey ?? '' } }, 'baseUrl');
    this.#profile = profile;
    this.#listPageSize = options.listPageSize ?? 20;
    if (!Number.isSafeInteger(this.#listPageSize) || this.#listPageSize < 1 || this.#listPageSize > 100) throw new TypeError('hyperswitch: listPageSize must be 1 to 100');
  }

  protected override get shownFields(): Record<string, unknown> {
    return { ...super.shownFields, profileId: this.#profile };
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const c = input.card;
    const number = c.number.replace(/ /g, '');
    const paymentId = hyperswitchId('pay', 'attach', input.idempotencyKey);
    const customerId = hyperswitchId('cus', 'attach', input.idempotencyKey);
    const body = {
      amount: 0,
      currency: SETUP_CURRENCY,
      payment_id: paymentId,
      profile_id: this.#profile,
      confirm: true,
      customer_id: customerId,
      // "Use 'setup_mandate' in case of zero auth flow" (PaymentType): the card is checked, nothing held.
      payment_type: 'setup_mandate',
      setup_future_usage: 'off_session',
      // The shopper, present, enters the card and agrees to its being kept for later charges.
      customer_acceptance: { acceptance_type: 'online', accepted_at: this.clock.now().toISOString() },
      authentication_type: 'no_three_ds',
      payment_method: 'card',
      payment_method_type: 'credit',
      payment_method_data: {
        card: {
          card_number: number,
          card_exp_month: String(c.expMonth).padStart(2, '0'),
          card_exp_year: String(c.expYear),
          card_holder_name: c.holderName,
          card_cvc: c.cvc,
        },
      },
    };
    const read = (p: PaymentView): contract.AttachResult => {
      if (p.status === 'failed' || p.status === 'requires_payment_method') {
        return { ok: false, reason: toDeclineReason(p.errorCode, p.errorMessage, p.unifiedMessage), message: p.errorMessage ?? 'The card was refused.' };
      }
      if (p.status !== 'succeeded' || !p.paymentMethodId) throw this.fault('bad_response', `verify card: the card was not saved (${p.status})`);
      return {
        ok: true,
        paymentMethodId: `${p.paymentMethodId}:${customerId}`,
        brand: (p.card?.network ?? 'card').toLowerCase(),
        last4: p.card?.last4 ?? number.slice(-4),
        expMonth: p.card?.expMonth ?? c.expMonth,
        expYear: p.card?.expYear ?? c.expYear,
      };
    };
    const send = async (): Promise<contract.AttachResult> => {
      const answer = await this.#call('POST', '/payments', body);
      if (answer.status === 400 || answer.status === 422) {
        const e = readError(answer.body);
        // CE_05 "The card has expired", CE_04 "The card data is invalid"; a card number or CVC
        // that does not parse is refused as the request's JSON (IR_06, "Json deserialize error").
        const text = `${e.code ?? ''} ${e.message ?? ''}`.toLowerCase();
        if (e.code === 'CE_05' || text.includes('expired')) return { ok: false, reason: 'expired_card', message: 'The card has expired.' };
        if (text.includes('cvc') || text.includes('cvv')) return { ok: false, reason: 'incorrect_cvc', message: 'The security code is not valid.' };
        if (e.code === 'CE_04' || text.includes('card number')) return { ok: false, reason: 'invalid_card', message: 'The card number is not valid.' };
        throw this.fault('bad_response', `verify card: Hyperswitch refused the request: ${e.code ?? answer.status}`);
      }
      return read(this.#payment(answer, 'verify card'));
    };
    // Lost answer: the payment id is ours; read it (404: it was never made).
    const reconcile = async (): Promise<contract.AttachResult | undefined> => {
      const p = await this.#find(paymentId);
      return p ? read(p) : undefined;
    };
    return this.operations.once('attach', input.idempotencyKey, [number, c.expMonth, c.expYear, c.cvc, c.holderName], send, reconcile);
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const { method, customer } = this.#method(input.paymentMethodId);
    const body = {
      amount: input.amountCents,
      currency: input.currency,
      payment_id: hyperswitchId('pay', 'authorize', input.idempotencyKey),
      profile_id: this.#profile,
      confirm: true,
      capture_method: input.capture,
      customer_id: customer,
      // PSD2 CIT: the shopper is here and may be asked for 3-D Secure; not when the merchant wants
      // it never (docs/psp-connectors.md#the-merchants-3-d-secure-choice).
      off_session: false,
      authentication_type: askedThreeDSecure(input) === 'never' ? 'no_three_ds' : 'three_ds',
      return_url: input.returnUrl,
      payment_method: 'card',
      recurring_details: { type: 'payment_method_id', data: method },
      // The first of the later charges the shopper agreed to, when there will be some.
      setup_future_usage: input.storeForLater ? 'off_session' : 'on_session',
    };
    const params = authorizeParams(input);
    return this.#create('authorize', input.idempotencyKey, params, body);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    const { method, customer } = this.#method(input.paymentMethodId);
    const manual = input.capture === 'manual';
    const body = {
      amount: input.amountCents,
      currency: input.currency,
      payment_id: hyperswitchId('pay', 'charge_off_session', input.idempotencyKey),
      profile_id: this.#profile,
      confirm: true,
      // `manual`: a merchant-initiated hold (`requires_capture`), captured or cancelled later (a
      // re-authorisation, docs/money-operations.md#re-authorisation); otherwise captured at once.
      capture_method: manual ? 'manual' : 'automatic',
      customer_id: customer,
      // PSD2 MIT: the shopper is absent. Hyperswitch keeps the stored-credential reference (the
      // processor's mandate or the scheme's network transaction id) with the saved payment method.
      off_session: true,
      recurring_details: { type: 'payment_method_id', data: method },
      mit_category: 'unscheduled',
      is_stored_credential: true,
    };
    const params = chargeParams(input, manual);
    return this.#create('charge_off_session', input.idempotencyKey, params, body);
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const id = input.transaction.transactionId;
    return this.#action('capture', input, [input.amountCents], `/payments/${id}/capture`, { amount_to_capture: input.amountCents }, (now) =>
      now.status === 'captured' || now.status === 'refunded' ? now : undefined,
    );
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const id = input.transaction.transactionId;
    return this.#action('void', input, [], `/payments/${id}/cancel`, { cancellation_reason: 'requested_by_customer' }, (now) => (now.status === 'voided' ? now : undefined));
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const id = input.transaction.transactionId;
    const refundId = hyperswitchId('ref', 'refund', input.idempotencyKey);
    const send = async (): Promise<contract.TransactionResult> => {
      this.#checkId(id);
      const answer = await this.#call('POST', '/refunds', {
        payment_id: id,
        refund_id: refundId,
        amount: input.amountCents,
        reason: 'Refund requested by the merchant',
        refund_type: 'instant',
      });
      if (answer.status === 404) throw this.fault('unknown_transaction', `Hyperswitch does not know ${id}`);
      if (answer.status === 400 || answer.status === 422) {
        const e = readError(answer.body);
        if (e.code === 'HE_02') throw this.fault('unknown_transaction', `Hyperswitch does not know ${id}`);
        const now = toTransactionResult(await this.#details(id));
        return { ...now, decline: { reason: 'amount_too_large', message: `Hyperswitch refused the refund: ${e.message ?? e.code ?? 'not allowed'}.` } };
      }
      if (answer.status !== 200) throw this.fault('bad_response', `refund: unexpected answer ${answer.status}`);
      const r = readRefund(answer.body);
      if (!r) throw this.fault('bad_response', 'refund: a refund we cannot read');
      const now = toTransactionResult(await this.#details(id));
      if (r.status === 'failed')
        return { ...now, decline: { reason: 'processing_error', message: `The processor refused the refund${r.errorMessage ? `: ${r.errorMessage}` : ''}.` } };
      return now;
    };
    // Lost answer: the refund id is ours; if Hyperswitch has it, the refund was made.
    const reconcile = async (): Promise<contract.TransactionResult | undefined> => {
      const answer = await this.#call('GET', `/refunds/${refundId}`, undefined);
      if (answer.status === 404 || readError(answer.body).code === 'HE_02') return undefined;
      if (answer.status !== 200 || !readRefund(answer.body)) throw this.fault('bad_response', `GET /refunds/{id}: unexpected answer ${answer.status}`);
      return toTransactionResult(await this.#details(id));
    };
    return this.operations.once('refund', input.idempotencyKey, [id, input.amountCents], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  /** `force_sync=true`: Hyperswitch asks the processor first ("the connector call for retrieve request"), since this read settles a status. */
  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return toTransactionResult(await this.#details(transaction.transactionId, true));
  }

  /**
   * `X-Webhook-Signature-512`: the HMAC-SHA512 (hex) of the raw body, keyed with the business
   * profile's `payment_response_hash_key` (Hyperswitch, crates/router/src/core/webhooks/types.rs).
   * The event (`OutgoingWebhook`) carries the payment, the refund naming its payment, or the
   * dispute naming its payment (src/psp/hyperswitch/disputes.ts).
   *
   * No freshness is checked: Hyperswitch's retries send the first delivery's body again, its
   * `timestamp` with it. A webhook only names what to read: nothing of the state its body reports
   * is applied (docs/psp/hyperswitch.md#webhooks). A payment's is read with `retrieve`; a
   * dispute's here, from `GET /disputes/list` by its id, so that a webhook sent again after the
   * dispute moved on (won, then lost) tells where it stands now.
   */
  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    const secret = this.credentials.reveal().hashKey;
    if (!secret) return { ok: false, reason: 'bad_signature' };
    const header = Object.entries(input.headers).find(([k]) => k.toLowerCase() === SIGNATURE_HEADER)?.[1];
    if (!header || !/^[0-9a-f]{128}$/i.test(header)) return { ok: false, reason: 'bad_signature' };
    const expected = createHmac('sha512', secret).update(input.rawBody, 'utf8').digest();
    if (!timingSafeEqual(expected, Buffer.from(header, 'hex'))) return { ok: false, reason: 'bad_signature' };
    let event: unknown;
    try {
      event = JSON.parse(input.rawBody);
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    const e = event as { event_type?: unknown; content?: { type?: unknown; object?: { payment_id?: unknown } } } | null;
    // A dispute webhook (docs/money-operations.md#disputes) is about the dispute alone.
    const named = e ? readDisputeWebhook(e) : undefined;
    if (named === 'malformed') return { ok: false, reason: 'malformed' };
    if (named) {
      const dispute = await this.#currentDispute(named.pspDisputeId, named.transactionId);
      return { ok: true, transactionId: dispute.transactionId, status: 'captured', dispute };
    }
    const id = e?.content?.object?.payment_id;
    const kind = e?.content?.type;
    const status = typeof e?.event_type === 'string' ? EVENT_STATUSES[e.event_type] : undefined;
    if ((kind !== 'payment_details' && kind !== 'refund_details') || typeof id !== 'string' || !PAYMENT_ID.test(id) || !status) return { ok: false, reason: 'malformed' };
    return { ok: true, transactionId: id, status };
  }

  /**
   * The period's payments in two passes sharing one cursor: the payments created in `[from, to)`
   * (`GET /payments/list`, `created.gte` / `created.lt`, newest first, `starting_after` the last
   * id, a page shorter than `limit` is the last), then the refunds made in it (`POST
   * /refunds/list`, `start_time` / `end_time` both included, `offset`), whose payments may be
   * older. A listed payment carries no refunds: one whose money moved is read again
   * (`GET /payments/{id}`) for its current totals, as is each refunded one. Zero-amount card
   * setups move no money and are left out. A payment whose read lists a lost, accepted or expired
   * dispute has its disputes' amounts read (`GET /disputes/list`) as charged back; a dispute lost
   * in the period on a payment neither created nor refunded in it is not seen.
   */
  async listTransactions(input: contract.ListTransactionsInput): Promise<contract.PspRecordPage> {
    if (!(input.from.getTime() < input.to.getTime())) throw new RangeError('hyperswitch: the period must be from < to');
    const at = readCursor(input.cursor);
    if (!at) throw new RangeError('hyperswitch: not a cursor of this connector');
    const limit = this.#listPageSize;
    const records: contract.PspRecord[] = [];
    const record = async (p: PaymentView): Promise<void> => {
      const r = toRecord(p, hasLostDispute(p) ? await this.#lostDisputeCents(p.paymentId) : 0);
      if (!r) throw this.fault('bad_response', 'a payment without its currency');
      records.push(r);
    };
    if (at.phase === 'payments') {
      const q = new URLSearchParams({ 'created.gte': input.from.toISOString(), 'created.lt': input.to.toISOString(), limit: String(limit) });
      if (at.after) q.set('starting_after', at.after);
      const body = await this.#listCall('GET /payments/list', `/payments/list?${q.toString()}`, undefined);
      const data = (body as { data?: unknown } | null)?.data;
      if (!Array.isArray(data)) throw this.fault('bad_response', 'GET /payments/list: a list we cannot read');
      const listed = data.map((item) => readPayment(item) ?? this.#unreadable('GET /payments/list'));
      for (const p of listed) {
        if (p.amount === 0) continue;
        await record(MONEY_MOVED.includes(p.status) ? await this.#listed(p.paymentId) : p);
      }
      const last = listed.at(-1)?.paymentId;
      return { records, nextCursor: listed.length === limit && last ? writeCursor({ phase: 'payments', after: last }) : writeCursor({ phase: 'refunds', offset: 0 }) };
    }
    const body = await this.#listCall('POST /refunds/list', '/refunds/list', {
      start_time: input.from.toISOString(),
      end_time: new Date(input.to.getTime() - 1).toISOString(),
      offset: at.offset,
      limit,
    });
    const paymentIds = refundListPayments(body) ?? this.#unreadable('POST /refunds/list');
    const read = new Map<string, PaymentView>();
    for (const id of paymentIds) {
      if (!read.has(id)) read.set(id, await this.#listed(id));
      await record(read.get(id)!);
    }
    return { records, nextCursor: paymentIds.length === limit ? writeCursor({ phase: 'refunds', offset: at.offset + limit }) : null };
  }

  /** What a payment's lost (accepted, expired) disputes took back: `GET /disputes/list?payment_id=…&dispute_status=dispute_lost,dispute_accepted,dispute_expired`. */
  /** A dispute as Hyperswitch has it now (`GET /disputes/list` by its id and payment): what a dispute webhook reports. */
  async #currentDispute(disputeId: string, paymentId: string): Promise<contract.NotifiedDispute> {
    const q = new URLSearchParams({ dispute_id: disputeId, payment_id: paymentId });
    const rows = await this.#listCall('GET /disputes/list', `/disputes/list?${q.toString()}`, undefined);
    const row = Array.isArray(rows) ? rows.find((r) => (r as { dispute_id?: unknown } | null)?.dispute_id === disputeId) : undefined;
    // A dispute the webhook names and Hyperswitch does not list (yet): a fault, the webhook is retried.
    const dispute = row === undefined ? undefined : readDisputeWebhook({ content: { type: 'dispute_details', object: row } });
    if (!dispute || dispute === 'malformed' || dispute.transactionId !== paymentId) throw this.fault('bad_response', 'GET /disputes/list: not the dispute the webhook names');
    return dispute;
  }

  async #lostDisputeCents(paymentId: string): Promise<number> {
    const q = new URLSearchParams({ payment_id: paymentId, dispute_status: LOST_DISPUTES.join(',') });
    const cents = disputedCents(await this.#listCall('GET /disputes/list', `/disputes/list?${q.toString()}`, undefined));
    if (cents === undefined) throw this.fault('bad_response', 'GET /disputes/list: a list we cannot read');
    return cents;
  }

  /** A payment Hyperswitch has just listed: not finding it is a bad answer, not an unknown transaction of ours. */
  async #listed(id: string): Promise<PaymentView> {
    try {
      return await this.#details(id);
    } catch (e) {
      if (e instanceof PspIntegrationError && e.code === 'unknown_transaction') throw this.fault('bad_response', `Hyperswitch listed ${id}, then did not know it`);
      throw e;
    }
  }

  #unreadable(where: string): never {
    throw this.fault('bad_response', `${where}: an object we cannot read`);
  }

  /** A list call: any answer but 200 is a fault (a list of ours is never refused for what it asks). */
  async #listCall(where: string, path: string, body: unknown): Promise<unknown> {
    const answer = await this.client.json(where, `${this.baseUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: this.#headers(),
      ...(body !== undefined ? { body } : {}),
    });
    const fault = statusFault('hyperswitch', where, answer.status);
    if (fault) throw fault;
    const parsed = parseJson('hyperswitch', where, answer);
    if (answer.status !== 200) throw this.fault('bad_response', `${where}: unexpected answer ${answer.status} ${readError(parsed).code ?? ''}`.trim());
    return parsed;
  }

  /** `GET /payments/{id}` of a payment that does not exist: authenticated, changes nothing (404 means the key was taken). */
  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    const probe = hyperswitchId('pay', 'credentials', 'check');
    const answer = await this.client.request('GET /payments/{id}', `${this.baseUrl}/payments/${probe}`, { method: 'GET', headers: this.#headers() });
    if (answer.status === 401 || answer.status === 403)
      return { ok: false, message: 'Hyperswitch refused the API key (check it in the Hyperswitch control centre, Developers → API Keys).' };
    const fault = statusFault('hyperswitch', 'GET /payments/{id}', answer.status);
    if (fault) throw fault;
    if (answer.status !== 200 && answer.status !== 404) throw this.fault('bad_response', `GET /payments/{id}: unexpected answer ${answer.status}`);
    return { ok: true };
  }

  // ---------------------------------------------------------------------------------------------

  #headers(): Record<string, string> {
    return { Accept: 'application/json', 'api-key': this.credentials.reveal().apiKey };
  }

  async #call(method: 'GET' | 'POST', path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const where = `${method} ${path.replace(/\/(pay|ref)_[A-Za-z0-9_-]+/g, '/{id}')}`;
    const answer = await this.client.json(where, `${this.baseUrl}${path}`, { method, headers: this.#headers(), ...(body !== undefined ? { body } : {}) });
    const fault = statusFault('hyperswitch', where, answer.status);
    if (fault) throw fault;
    return { status: answer.status, body: parseJson('hyperswitch', where, answer) };
  }

  #payment(answer: { status: number; body: unknown }, what: string): PaymentView {
    if (answer.status !== 200) throw this.fault('bad_response', `${what}: unexpected answer ${answer.status}`);
    const p = readPayment(answer.body);
    if (!p) throw this.fault('bad_response', `${what}: a payment we cannot read`);
    return p;
  }

  #method(id: string): { method: string; customer: string } {
    const m = METHOD_ID.exec(id);
    if (!m) throw this.fault('unknown_payment_method', 'not a Hyperswitch payment method of ours (payment_method_id:customer_id)');
    return { method: m[1]!, customer: m[2]! };
  }

  #checkId(id: string): void {
    if (!PAYMENT_ID.test(id)) throw this.fault('unknown_transaction', 'not a Hyperswitch payment id (30 characters)');
  }

  /** The payment, or undefined when Hyperswitch has none by that id. */
  async #find(id: string, sync = false): Promise<PaymentView | undefined> {
    const answer = await this.#call('GET', `/payments/${id}${sync ? '?force_sync=true' : ''}`, undefined);
    if (answer.status === 404 || (answer.status === 400 && readError(answer.body).code === 'HE_02')) return undefined;
    return this.#payment(answer, 'GET /payments/{id}');
  }

  async #details(id: string, sync = false): Promise<PaymentView> {
    this.#checkId(id);
    const p = await this.#find(id, sync);
    if (!p) throw this.fault('unknown_transaction', `Hyperswitch does not know ${id}`);
    return p;
  }

  async #create(op: string, key: string, params: readonly unknown[], body: Record<string, unknown> & { payment_id: string }): Promise<contract.TransactionResult> {
    const send = async (): Promise<contract.TransactionResult> => {
      const answer = await this.#call('POST', '/payments', body);
      if (answer.status === 400 || answer.status === 404 || answer.status === 422) {
        const e = readError(answer.body);
        // HE_01: the payment id is taken, so this payment was made before; it is read back.
        if (e.code === 'HE_01') return toTransactionResult(await this.#details(body.payment_id));
        // HE_02 "Payment method does not exist in our records" (a card saved elsewhere, or for another customer).
        if (e.code === 'HE_02' && /payment method/i.test(e.message ?? ''))
          throw this.fault('unknown_payment_method', `Hyperswitch does not know this payment method: ${e.message ?? e.code ?? ''}`);
        throw this.fault('bad_response', `Hyperswitch refused the payment request: ${e.code ?? answer.status} ${e.message ?? ''}`.trim());
      }
      return toTransactionResult(this.#payment(answer, op));
    };
    // Lost answer: the payment id is ours; read it (none: it was never made, send it).
    const reconcile = async (): Promise<contract.TransactionResult | undefined> => {
      const p = await this.#find(body.payment_id);
      return p ? toTransactionResult(p) : undefined;
    };
    return this.operations.once(op, key, params, send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  /**
   * A capture or a cancel. Hyperswitch takes no idempotency key for them: a lost answer is
   * reconciled by reading the payment (`done` says whether the action shows there).
   */
  async #action(
    op: string,
    input: contract.Operation,
    extra: readonly unknown[],
    path: string,
    body: Record<string, unknown>,
    done: (now: contract.TransactionResult) => contract.TransactionResult | undefined,
  ): Promise<contract.TransactionResult> {
    const id = input.transaction.transactionId;
    const send = async (): Promise<contract.TransactionResult> => {
      this.#checkId(id);
      const answer = await this.#call('POST', path, body);
      if (answer.status === 404) throw this.fault('unknown_transaction', `Hyperswitch does not know ${id}`);
      if (answer.status === 200) return toTransactionResult(this.#payment(answer, op));
      if (answer.status === 400 || answer.status === 422) {
        const e = readError(answer.body);
        if (e.code === 'HE_02') throw this.fault('unknown_transaction', `Hyperswitch does not know ${id}`);
        // An action the payment's state does not allow (IR_14), or an amount beyond what is
        // capturable: the payment as it stands, with the refusal. A cancel of a cancelled payment is no refusal.
        const now = toTransactionResult(await this.#details(id));
        if (op === 'void' && now.status === 'voided') return now;
        const reason = now.status === 'expired' ? 'authorization_expired' : 'amount_too_large';
        return { ...now, decline: { reason, message: `Hyperswitch refused the ${op}: ${e.message ?? e.code ?? 'not allowed'}.` } };
      }
      throw this.fault('bad_response', `${op}: unexpected answer ${answer.status}`);
    };
    const reconcile = async (): Promise<contract.TransactionResult | undefined> => done(toTransactionResult(await this.#details(id)));
    return this.operations.once(op, input.idempotencyKey, [id, ...extra], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }
}
