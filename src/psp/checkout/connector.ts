import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Checkout } from 'checkout-sdk-node';
// The SDK's own error for a request it refuses before sending it (an exact pin: see #call).
import { ValueError } from 'checkout-sdk-node/dist/services/errors.js';
import type * as contract from '../connector.ts';
import { PspIntegrationError, askedThreeDSecure } from '../connector.ts';
import type { ConnectorContext, PspAccountConfig } from '../definition.ts';
import { HttpKitConnector, kitOptions } from '../kit/connector-setup.ts';
import { callWithGlobalFetch } from '../kit/global-fetch.ts';
import { reviveTransaction, authorizeParams } from '../kit/operations.ts';
import { statusFault } from '../kit/status-fault.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import { pspCallFault } from '../psp-http.ts';
import { DISPUTE_ID, EVIDENCE_TEXT_MAX, readDisputeEvent } from './disputes.ts';
import { EVENT_STATUSES, PAYMENT_ID, SOURCE_ID, readErrorCodes, readPayment, toDeclineReason, toTransactionResult, type PaymentView } from './mapping.ts';

/** api-reference.checkout.com, "Base URLs": one host per environment. */
export const CHECKOUT_BASE_URLS = { test: 'https://api.sandbox.checkout.com', live: 'https://api.checkout.com' } as const;
export const CHECKOUT_HOSTS = { test: ['api.sandbox.checkout.com'], live: ['api.checkout.com'] } as const;

/** Checkout.com keeps idempotency keys; we send ours, hashed past this length (docs/psp/checkout.md). */
const MAX_KEY = 64;

/** The currency of the zero-amount card verification that stores a card (no amount is held). */
const VERIFICATION_CURRENCY = 'EUR';

function ckoKey(key: string, step = ''): string {
  const k = step ? `${key}:${step}` : key;
  return k.length <= MAX_KEY && /^[\x21-\x7e]+$/.test(k) ? k : `chipin-${createHash('sha256').update(k).digest('hex').slice(0, 56)}`;
}

/**
 * The `reference` of a capture, void or refund: at most 50 characters in Checkout.com's document
 * (`CaptureRequest`, `VoidRequest`, `RefundRequest`), and 30 for American Express; our keys run to
 * 64. Kept when it fits in 30, else `chipin-` and 23 hex digits of its SHA-256 (docs/psp/checkout.md).
 */
const MAX_REFERENCE = 30;
export function ckoReference(key: string): string {
  return key.length <= MAX_REFERENCE && /^[\x21-\x7e]+$/.test(key)
    ? key
    : `chipin-${createHash('sha256')
        .update(key)
        .digest('hex')
        .slice(0, MAX_REFERENCE - 'chipin-'.length)}`;
}

/**
 * Checkout.com's Payments API for one merchant's account, through its official Node SDK
 * (`checkout-sdk-node` 5.2.1, see #call): `Authorization: Bearer <secret key>`, JSON, a
 * `Cko-Idempotency-Key` on every payment request and action (docs/psp/checkout.md).
 *
 * - A card is stored by a zero-amount card verification (`POST /payments`, `amount: 0`,
 *   `store_for_future_use`): its `source.id` (`src_…`) is our payment method id.
 * - A payment is `POST /payments` on that source (`type: id`), 3-D Secure on; a 202 `Pending`
 *   answer names the issuer's page in `_links.redirect.href` (a GET).
 * - A merchant-initiated payment sends `merchant_initiated: true`, `payment_type: Unscheduled`
 *   and `previous_payment_id`, the customer-initiated payment that stored the card.
 * - Captures, voids and refunds are actions (`POST /payments/{id}/captures|voids|refunds`,
 *   answered 202); the payment is read back with `GET /payments/{id}` (its `balances`).
 */
export class CheckoutConnector extends HttpKitConnector<{ key: string; webhook: string }> implements contract.PspConnector {
  readonly #channel: string;
  readonly #timeoutMs: number;

  constructor(account: PspAccountConfig, context: ConnectorContext) {
    const { secret_key: key, processing_channel_id: channel, webhook_secret: webhook } = account.credentials;
    if (!key || !/^sk_(sbox_)?[a-z2-7]{26}[a-z2-7*#$=]$/.test(key)) throw new TypeError('checkout: the secret key must look like sk_sbox_… or sk_…');
    if (!channel || !/^pc_[a-z0-9]{26}$/.test(channel)) throw new TypeError('checkout: the processing channel id must look like pc_…');
    super('checkout', { ...kitOptions(account, context), credentials: { key, webhook: webhook ?? '' } }, 'baseUrl');
    this.#channel = channel;
    this.#timeoutMs = context.timeoutMs;
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const c = input.card;
    const number = c.number.replace(/ /g, '');
    const send = async (): Promise<contract.AttachResult> => {
      const body = {
        source: { type: 'card', number, expiry_month: c.expMonth, expiry_year: c.expYear, cvv: c.cvc, name: c.holderName, store_for_future_use: true },
        amount: 0,
        currency: VERIFICATION_CURRENCY,
        processing_channel_id: this.#channel,
      };
      const answer = await this.#call('POST /payments', (cko) => cko.payments.request(body, ckoKey(input.idempotencyKey, 'verify')));
      if (answer.status === 422) {
        // Checkout.com's validation error codes for card details (api-reference.checkout.com, error codes).
        const { codes } = readErrorCodes(answer.body);
        if (codes.includes('card_expired') || codes.some((c) => c.startsWith('card_expiry'))) return { ok: false, reason: 'expired_card', message: 'The card has expired.' };
        if (codes.includes('cvv_invalid')) return { ok: false, reason: 'incorrect_cvc', message: 'The security code is not valid.' };
        if (codes.includes('card_number_invalid')) return { ok: false, reason: 'invalid_card', message: 'The card number is not valid.' };
        throw this.fault('bad_response', `verify card: Checkout.com refused the request: ${codes.join(', ') || 'invalid'}`);
      }
      const p = this.#payment(answer, 'verify card');
      if (p.status === 'Declined' || !p.approved) return { ok: false, reason: toDeclineReason(p.responseCode), message: p.responseSummary ?? 'The card was refused.' };
      if (!p.source) throw this.fault('bad_response', 'verify card: the answer has no stored source');
      return {
        ok: true,
        paymentMethodId: p.source.id,
        brand: (p.source.scheme ?? 'card').toLowerCase(),
        last4: p.source.last4 ?? number.slice(-4),
        expMonth: p.source.expiryMonth ?? c.expMonth,
        expYear: p.source.expiryYear ?? c.expYear,
      };
    };
    const params = [number, c.expMonth, c.expYear, c.cvc, c.holderName];
    // Checkout.com answers the same key with the first answer: a replay is a resend.
    return this.operations.once('attach', input.idempotencyKey, params, send, send);
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    this.#source(input.paymentMethodId);
    const body = {
      source: { type: 'id', id: input.paymentMethodId },
      amount: input.amountCents,
      currency: input.currency,
      capture: input.capture === 'automatic',
      processing_channel_id: this.#channel,
      // The merchant's 3-D Secure choice as the issuer is told it (`challenge_indicator`); `auto`:
      // Checkout.com's default, no preference (docs/psp-connectors.md#the-merchants-3-d-secure-choice).
      '3ds': { enabled: true, ...challengeIndicator(askedThreeDSecure(input)) },
      success_url: input.returnUrl,
      failure_url: input.returnUrl,
      // PSD2: a customer-initiated payment; when the shopper agrees to later charges, it is the
      // first of an unscheduled series, which later merchant-initiated payments reference.
      payment_type: input.storeForLater ? 'Unscheduled' : 'Regular',
      merchant_initiated: false,
    };
    const params = authorizeParams(input);
    return this.#create('authorize', input.idempotencyKey, params, body);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    this.#source(input.paymentMethodId);
    const previous = input.storedCredential?.initialTransactionId;
    const manual = input.capture === 'manual';
    const body = {
      source: { type: 'id', id: input.paymentMethodId },
      amount: input.amountCents,
      currency: input.currency,
      // `manual` (`capture: false`): a merchant-initiated hold, captured or voided later (a
      // re-authorisation, docs/money-operations.md#re-authorisation); otherwise captured at once.
      capture: !manual,
      processing_channel_id: this.#channel,
      // PSD2 MIT: the shopper is absent; the stored-credential reference is the payment that stored the card.
      merchant_initiated: true,
      payment_type: 'Unscheduled',
      ...(previous ? { previous_payment_id: previous } : {}),
    };
    const params = [input.paymentMethodId, input.amountCents, input.currency, previous ?? null, ...(manual ? ['manual'] : [])];
    return this.#create('charge_off_session', input.idempotencyKey, params, body);
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    return this.#action('capture', 'captures', input, { amount: input.amountCents }, [input.amountCents]);
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    return this.#action('void', 'voids', input, {}, []);
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    return this.#action('refund', 'refunds', input, { amount: input.amountCents }, [input.amountCents]);
  }

  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return toTransactionResult(await this.#details(transaction.transactionId));
  }

  /**
   * `Cko-Signature`: the HMAC-SHA256 (hex) of the raw body, keyed with the webhook's secret key
   * (checkout.com/docs/developer-resources/webhooks). The event names the payment (`data.id`);
   * a dispute event names the dispute and its payment (`data.payment_id`; src/psp/checkout/disputes.ts).
   */
  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    const secret = this.credentials.reveal().webhook;
    if (!secret) return { ok: false, reason: 'bad_signature' };
    const header = Object.entries(input.headers).find(([k]) => k.toLowerCase() === 'cko-signature')?.[1];
    if (!header || !/^[0-9a-f]{64}$/i.test(header)) return { ok: false, reason: 'bad_signature' };
    const expected = createHmac('sha256', secret).update(input.rawBody, 'utf8').digest();
    if (!timingSafeEqual(expected, Buffer.from(header, 'hex'))) return { ok: false, reason: 'bad_signature' };
    let event: unknown;
    try {
      event = JSON.parse(input.rawBody);
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    const e = event as { type?: unknown; data?: { id?: unknown } } | null;
    // A dispute event (docs/money-operations.md#disputes) is about the dispute alone.
    const dispute = e ? readDisputeEvent(e) : undefined;
    if (dispute === 'malformed') return { ok: false, reason: 'malformed' };
    if (dispute) return { ok: true, transactionId: dispute.transactionId, status: 'captured', dispute };
    const id = e?.data?.id;
    const status = typeof e?.type === 'string' ? EVENT_STATUSES[e.type] : undefined;
    if (typeof id !== 'string' || !PAYMENT_ID.test(id) || !status) return { ok: false, reason: 'malformed' };
    return { ok: true, transactionId: id, status };
  }

  /**
   * Sends the merchant's evidence on a dispute (docs/money-operations.md#disputes), in the two
   * steps of the Disputes API: `PUT /disputes/{id}/evidence` attaches it (the text in
   * `additional_evidence_text`, the documented free-text field, 500 characters at most), then
   * `POST /disputes/{id}/evidence` submits it (both 204). Checkout.com refusing either (the
   * dispute no longer takes evidence: 400/422; unknown: 404) is a result, unless the dispute reads
   * `evidence_under_review` (`GET /disputes/{id}`): an earlier call went through, which is a success.
   */
  async submitDisputeEvidence(input: { idempotencyKey: string; pspDisputeId: string; text: string }): Promise<{ ok: true } | { ok: false; message: string }> {
    const id = input.pspDisputeId;
    if (!DISPUTE_ID.test(id)) return { ok: false, message: 'not a Checkout.com dispute id (dsp_…)' };
    const text = input.text.trim();
    if (text.length === 0) return { ok: false, message: 'the evidence text is empty' };
    if (text.length > EVIDENCE_TEXT_MAX)
      return { ok: false, message: `Checkout.com takes at most ${EVIDENCE_TEXT_MAX} characters of text evidence; this text has ${text.length}.` };
    for (const [method, send] of [
      ['PUT', (cko: Checkout) => cko.disputes.provideEvidence(id, { additional_evidence_text: text })],
      ['POST', (cko: Checkout) => cko.disputes.submit(id)],
    ] as const) {
      const answer = await this.#call(`${method} /disputes/{id}/evidence`, send);
      if (answer.status === 204 || answer.status === 200) continue;
      if (answer.status !== 400 && answer.status !== 404 && answer.status !== 422)
        throw this.fault('bad_response', `${method} /disputes/{id}/evidence: unexpected answer ${answer.status}`);
      if (answer.status !== 404 && (await this.#disputeStatus(id)) === 'evidence_under_review') return { ok: true };
      const codes = readErrorCodes(answer.body).codes.join(', ');
      return {
        ok: false,
        message: answer.status === 404 ? `Checkout.com does not know the dispute ${id}` : `Checkout.com refused the evidence: ${codes || `HTTP ${answer.status}`}`,
      };
    }
    return { ok: true };
  }

  /** `GET /payments?reference=…` (the payment list by reference): authenticated, changes nothing. */
  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    return this.probeCredentials(async () => {
      const answer = await this.#call('GET /payments', (cko) => cko.payments.getPaymentList({ reference: 'chipin-credentials-check' }));
      if (answer.status !== 200 && answer.status !== 404) throw this.fault('bad_response', `GET /payments: unexpected answer ${answer.status}`);
    }, 'Checkout.com refused the secret key (check it in the Dashboard, Developers → Keys).');
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * One request through Checkout.com's SDK, as the status and JSON body of its answer. The SDK has
   * no transport option our outbound client fits (its `agent` goes to axios for https only and is
   * not a `fetch` option, both of its transports follow redirects), but with a static secret key
   * each method calls the global `fetch` before its first `await`
   * (`dist/services/http.js:215-285`), at the `host` it is given (`dist/auth-builder.js:108-110`):
   * so `callWithGlobalFetch` gives it the kit's client for that span (logged, a GET retried, the
   * time limit, no redirect followed) and fails the call if it did not send (docs/psp/checkout.md).
   * The SDK throws a non-2xx answer as an error with `http_code` and `body`
   * (`dist/services/errors.js:176-223`), read here as the answer it is; a call that brought no
   * answer, as what our `fetch` threw (the SDK keeps only its message).
   */
  async #call(where: string, call: (cko: Checkout) => Promise<unknown>, actionRefusal = false): Promise<{ status: number; body: unknown }> {
    const seen: { status?: number; failure?: unknown } = {};
    const send = this.client.fetchAs(where);
    const fetch: typeof globalThis.fetch = async (input, init) => {
      try {
        const r = await send(input, init);
        seen.status = r.status;
        return r;
      } catch (e) {
        seen.failure = e;
        throw e;
      }
    };
    let body: unknown;
    try {
      body = await callWithGlobalFetch({ psp: 'checkout', sdk: 'Checkout.com SDK', fetch, call: () => call(this.#sdk()) });
    } catch (e) {
      if (seen.failure !== undefined) throw pspCallFault('checkout', where, seen.failure, this.#timeoutMs);
      if (e instanceof PspIntegrationError) throw e;
      if (e instanceof ValueError) throw this.fault('bad_response', `${where}: the Checkout.com SDK refused the request before sending it (${e.message})`);
      const status = seen.status;
      if (status === undefined || status < 300 || typeof (e as { http_code?: unknown }).http_code !== 'number')
        throw this.fault('bad_response', `${where}: the Checkout.com SDK failed on the answer${status === undefined ? '' : ` (HTTP ${status})`}`);
      body = (e as { body?: unknown }).body;
    }
    const status = seen.status;
    if (status === undefined) throw this.fault('bad_response', `${where}: the Checkout.com SDK answered without a request`);
    // On a payment action, 403 is "action not allowed" (the SDK's ActionNotAllowed, services/errors.js), not the key refused.
    const fault = actionRefusal && status === 403 ? undefined : statusFault('checkout', where, status);
    if (fault) throw fault;
    // 409: the idempotency key was already used with another request (api-reference.checkout.com, Cko-Idempotency-Key).
    if (status === 409) throw this.fault('idempotency_conflict', `${where}: an idempotency key was reused with another request`);
    // An answer that is not JSON: the SDK keeps its text beside the parse error.
    if (typeof body === 'object' && body !== null && '_parseError' in body) throw this.fault('bad_response', `${where}: the answer (HTTP ${status}) is not JSON`);
    return { status, body };
  }

  /**
   * The SDK for one call, on the account's base URL and key. It reads `CKO_SECRET` and
   * `CKO_SECRET_KEY` from the environment before its arguments (`dist/auth-builder.js:14-24`):
   * one set in the process would replace every account's key, so the call is refused.
   */
  #sdk(): Checkout {
    const key = this.credentials.reveal().key;
    const cko = new Checkout(key, { host: this.baseUrl });
    if (cko.config.sk !== `Bearer ${key}` || cko.config.client !== undefined)
      throw this.fault('bad_credentials', "CKO_SECRET or CKO_SECRET_KEY is set in the environment: the Checkout.com SDK would use it in place of the account's key");
    return cko;
  }

  #payment(answer: { status: number; body: unknown }, what: string): PaymentView {
    if (answer.status !== 200 && answer.status !== 201 && answer.status !== 202) throw this.fault('bad_response', `${what}: unexpected answer ${answer.status}`);
    const p = readPayment(answer.body);
    if (!p) throw this.fault('bad_response', `${what}: a payment we cannot read`);
    return p;
  }

  #source(id: string): void {
    if (!SOURCE_ID.test(id)) throw this.fault('unknown_payment_method', 'not a Checkout.com source id (src_…)');
  }

  async #create(op: string, key: string, params: readonly unknown[], body: Record<string, unknown>): Promise<contract.TransactionResult> {
    const send = async (): Promise<contract.TransactionResult> => {
      const answer = await this.#call('POST /payments', (cko) => cko.payments.request(body, ckoKey(key)));
      if (answer.status === 404) throw this.fault('unknown_payment_method', 'Checkout.com does not know this source');
      if (answer.status === 422) {
        const e = readErrorCodes(answer.body);
        if (e.codes.some((c) => c.startsWith('source_id') || c === 'source_invalid'))
          throw this.fault('unknown_payment_method', `Checkout.com refused the source: ${e.codes.join(', ')}`);
        throw this.fault('bad_response', `Checkout.com refused the payment request: ${e.codes.join(', ') || e.type || 'invalid'}`);
      }
      return toTransactionResult(this.#payment(answer, op));
    };
    // Checkout.com answers a repeated Cko-Idempotency-Key with the first payment: a replay is a resend.
    return this.operations.once(op, key, params, send, send, reviveTransaction<contract.TransactionResult>);
  }

  /** A dispute's `status` (`GET /disputes/{id}`, the `Dispute` schema); undefined when Checkout.com does not know it. */
  async #disputeStatus(id: string): Promise<string | undefined> {
    const answer = await this.#call('GET /disputes/{id}', (cko) => cko.disputes.getDetails(id));
    if (answer.status === 404) return undefined;
    const status = (answer.body as { status?: unknown } | null | undefined)?.status;
    if (answer.status !== 200 || typeof status !== 'string') throw this.fault('bad_response', `GET /disputes/{id}: unexpected answer ${answer.status}`);
    return status;
  }

  async #details(id: string): Promise<PaymentView> {
    if (!PAYMENT_ID.test(id)) throw this.fault('unknown_transaction', 'not a Checkout.com payment id (pay_…)');
    const answer = await this.#call('GET /payments/{id}', (cko) => cko.payments.get(id));
    if (answer.status === 404) throw this.fault('unknown_transaction', `Checkout.com does not know ${id}`);
    return this.#payment(answer, 'GET /payments/{id}');
  }

  async #action(
    op: 'capture' | 'void' | 'refund',
    path: string,
    input: contract.Operation,
    body: Record<string, unknown>,
    extra: readonly unknown[],
  ): Promise<contract.TransactionResult> {
    const id = input.transaction.transactionId;
    const send = async (): Promise<contract.TransactionResult> => {
      if (!PAYMENT_ID.test(id)) throw this.fault('unknown_transaction', 'not a Checkout.com payment id (pay_…)');
      const request = { ...body, reference: ckoReference(input.idempotencyKey) };
      const answer = await this.#call(`POST /payments/{id}/${path}`, (cko) => cko.payments[op](id, request, ckoKey(input.idempotencyKey)), true);
      if (answer.status === 404) throw this.fault('unknown_transaction', `Checkout.com does not know ${id}`);
      const now = toTransactionResult(await this.#details(id));
      if (answer.status === 202 || answer.status === 201 || answer.status === 200) return now;
      if (answer.status === 403 || answer.status === 422) {
        // An action the payment does not allow (nothing left to capture or refund, already voided):
        // the payment as it stands, with the refusal. A void of a voided payment is no refusal.
        if (op === 'void' && now.status === 'voided') return now;
        const reason = now.status === 'expired' ? 'authorization_expired' : 'amount_too_large';
        return { ...now, decline: { reason, message: `Checkout.com refused the ${op}: ${readErrorCodes(answer.body).codes.join(', ') || 'not allowed'}.` } };
      }
      throw this.fault('bad_response', `${op}: unexpected answer ${answer.status}`);
    };
    return this.operations.once(op, input.idempotencyKey, [id, ...extra], send, send, reviveTransaction<contract.TransactionResult>);
  }
}

/** Checkout.com's `3ds.challenge_indicator` for a merchant's 3-D Secure choice: a challenge asked for, or none; nothing for `auto`. */
function challengeIndicator(choice: 'always' | 'never' | 'auto'): { challenge_indicator?: 'challenge_requested' | 'no_challenge_requested' } {
  if (choice === 'always') return { challenge_indicator: 'challenge_requested' };
  return choice === 'never' ? { challenge_indicator: 'no_challenge_requested' } : {};
}
