import { Redacted } from '../../domain/redacted.ts';
import type * as contract from '../connector.ts';
import { PspIntegrationError } from '../connector.ts';
import type { ConnectorContext, PspAccountConfig } from '../definition.ts';
import { readIfGrown } from '../kit/amounts-state.ts';
import { HttpKitConnector, kitOptions } from '../kit/connector-setup.ts';
import { reviveTransaction, authorizeParams, chargeParams } from '../kit/operations.ts';
import { statusFault } from '../kit/status-fault.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import {
  MERCHANT_TRANSACTION_ID,
  isCentralpayId,
  isLapsed,
  merchantTransactionIdFor,
  paymentMethodIdOf,
  readPaymentMethodId,
  readStoredCard,
  readTransaction,
  toCentralpayAmount,
  toTransactionResult,
  type CentralpayTransaction,
} from './mapping.ts';
import { checkCardLocally } from '../kit/card-checks.ts';

/**
 * CentralPay's REST API v2 base URLs: `https://test-api.centralpay.net/v2/rest` (test) and
 * `https://api.centralpay.net/v2/rest` (production), as CentralPay's getting-started pages
 * ("API ENDPOINT: https://test-api.centralpay.net/") and its published integrations use them.
 */
export const CENTRALPAY_BASE_URLS = { test: 'https://test-api.centralpay.net/v2/rest', live: 'https://api.centralpay.net/v2/rest' } as const;
/** The hosts the connector calls, per environment (the ACS pages are the shopper's browser's business, not ours). */
export const CENTRALPAY_HOSTS = { test: ['test-api.centralpay.net'], live: ['api.centralpay.net'] } as const;

/** 3-D Secure 2 `transStatus` values that authenticate the cardholder (Y: authenticated; A: attempted, liability with the issuer). */
const AUTHENTICATED = new Set(['Y', 'A']);

/** What the connector keeps of a transaction (see {@link PspState}). */
interface CentralpayState {
  status: contract.TransactionResult['status'];
  capturedCents: number;
  refundedCents: number;
  /** CentralPay's `transactionId`, once the transaction exists. */
  cp?: string;
  /** The 3-D Secure 2 authentication (`threeDSServerTransID`) of an on-session payment, and what to create once it passed. */
  threeDS?: string;
  pm?: string;
  amountCents?: number;
  currency?: string;
  capture?: boolean;
  /** A pending challenge Chipin voided: no transaction is created when it completes. */
  voided?: boolean;
}

/**
 * CentralPay (REST API v2) for one merchant's CentralPay account: HTTP Basic `<login>:<API key>`,
 * form-encoded requests, JSON answers (docs/psp/centralpay.md).
 *
 * - A card is tokenised (`POST /cardToken`, a token lives 5 minutes) and stored at once as a
 *   customer's card (`POST /customer` with the `cardTokenId`): our payment method id is
 *   `<customerId>:<cardId>`, which later merchant-initiated charges use.
 * - An on-session payment first authenticates the cardholder with 3-D Secure 2
 *   (`POST /3ds2/authentication`): frictionless (`Y`) goes straight to the transaction; a
 *   challenge (`C`) is a form POST of `creq` to the ACS (`challengeForm`); the transaction is
 *   created on `retrieve` once the authentication passed.
 * - Chipin names a transaction by our `merchantTransactionId` (derived from the idempotency key),
 *   which exists from the 3-D Secure step on; CentralPay's `transactionId` travels in `pspState`,
 *   and a transaction without it is found by `merchantTransactionId`.
 * - CentralPay takes no idempotency header: creations are reconciled by looking their
 *   `merchantTransactionId` up; captures and refunds by comparing the amounts with the state
 *   before the call (the operation log, src/psp/kit/operations.ts).
 */
export class CentralpayConnector extends HttpKitConnector<{ login: string; apiKey: string }> implements contract.PspConnector {
  readonly #authorization: Redacted;
  readonly #pointOfSaleId: string;

  constructor(account: PspAccountConfig, context: ConnectorContext) {
    const { login, api_key: apiKey, point_of_sale_id: pointOfSaleId } = account.credentials;
    if (!login || !apiKey || !pointOfSaleId) throw new TypeError('centralpay: login, api_key and point_of_sale_id are required');
    super('centralpay', { ...kitOptions(account, context), credentials: { login, apiKey } }, 'baseUrl');
    const { login: user, apiKey: key } = this.credentials.reveal();
    this.#authorization = new Redacted(`Basic ${Buffer.from(`${user}:${key}`, 'utf8').toString('base64')}`);
    this.#pointOfSaleId = pointOfSaleId;
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const check = checkCardLocally(input.card, this.clock.now());
    if (!check.ok) return check;
    const c = input.card;
    // A second customer for a retried attach would charge nothing, but Chipin's contract wants the first answer.
    const send = () => this.#attach(check.digits, c.expMonth, check.year, c.cvc, c.holderName);
    return this.operations.once('attach', input.idempotencyKey, [check.digits, c.expMonth, check.year, c.cvc, c.holderName], send, send);
  }

  async #attach(number: string, month: number, year: number, cvc: string, holder: string): Promise<contract.AttachResult> {
    const token = await this.#call('POST', '/cardToken', {
      'card[number]': number,
      'card[expirationMonth]': String(month),
      'card[expirationYear]': String(year),
      'card[cvc]': cvc,
      'card[cardholderName]': holder,
    });
    if (token.status === 400) return { ok: false, reason: 'invalid_card', message: 'CentralPay refused the card details.' };
    const cardTokenId = (token.body as { cardTokenId?: unknown } | null)?.cardTokenId;
    if (token.status !== 200 && token.status !== 201) throw this.#unexpected('cardToken', token.status);
    if (!isCentralpayId(cardTokenId)) throw this.fault('bad_response', 'cardToken: the answer has no cardTokenId');
    const customer = await this.#call('POST', '/customer', { cardTokenId, lastName: holder });
    if (customer.status === 400) return { ok: false, reason: 'invalid_card', message: 'CentralPay refused to store the card.' };
    if (customer.status !== 200 && customer.status !== 201) throw this.#unexpected('customer', customer.status);
    const card = readStoredCard(customer.body);
    if (!card) throw this.fault('bad_response', 'customer: the answer lacks customerId or its card');
    return {
      ok: true,
      paymentMethodId: paymentMethodIdOf(card.customerId, card.cardId),
      brand: card.brand,
      last4: card.last4,
      expMonth: card.expMonth ?? month,
      expYear: card.expYear ?? year,
    };
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const pm = this.#paymentMethod(input.paymentMethodId);
    const id = merchantTransactionIdFor('cit', input.idempotencyKey);
    const capture = input.capture === 'automatic';
    const params = authorizeParams(input);
    const send = async (): Promise<contract.TransactionResult> => {
      // 3-D Secure 2 for every on-session payment (PSD2 strong authentication; the one that stores
      // the card for later merchant-initiated charges needs it in any case).
      const auth = await this.#call('POST', '/3ds2/authentication', {
        customerId: pm.customerId,
        cardId: pm.cardId,
        amount: toCentralpayAmount(input.amountCents),
        currency: input.currency,
        merchantTransactionId: id,
        notificationURL: input.returnUrl,
      });
      if (auth.status !== 200 && auth.status !== 201) throw this.#unexpected('3ds2/authentication', auth.status);
      const a = readAuthentication(auth.body);
      if (!a) throw this.fault('bad_response', '3ds2/authentication: unreadable answer');
      const pending: CentralpayState = {
        status: 'requires_action',
        capturedCents: 0,
        refundedCents: 0,
        threeDS: a.id,
        pm: input.paymentMethodId,
        amountCents: input.amountCents,
        currency: input.currency,
        capture,
      };
      if (AUTHENTICATED.has(a.transStatus)) return this.#create(id, { ...pm, amountCents: input.amountCents, currency: input.currency, capture, source: 'EC', threeDS: a.id });
      if (a.transStatus === 'C' && a.acsURL && a.creq) {
        return { ...this.#bare(id, 'requires_action', input.amountCents), challengeForm: { action: a.acsURL, fields: { creq: a.creq } }, pspState: state(pending) };
      }
      return this.#authenticationFailed(id, input.amountCents, { ...pending, status: 'declined' });
    };
    const reconcile = async () => this.#found(id);
    return this.operations.once('authorize', input.idempotencyKey, params, send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    const pm = this.#paymentMethod(input.paymentMethodId);
    const id = merchantTransactionIdFor('mit', input.idempotencyKey);
    // CentralPay's stored credential is the customer's card itself (created from the first,
    // customer-initiated payment's token); `source=RECURRING` marks the charge merchant-initiated,
    // without 3-D Secure. CentralPay refuses it for a card no authenticated payment stored.
    // `manual` (`capture=false`, as on session): a merchant-initiated hold (SUCCESS), captured or
    // cancelled later (a re-authorisation, docs/money-operations.md#re-authorisation).
    const manual = input.capture === 'manual';
    const send = () => this.#create(id, { ...pm, amountCents: input.amountCents, currency: input.currency, capture: !manual, source: 'RECURRING' });
    const params = chargeParams(input, manual);
    return this.operations.once('charge_off_session', input.idempotencyKey, params, send, () => this.#found(id), reviveTransaction<contract.TransactionResult>);
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const ref = input.transaction;
    const send = async (): Promise<contract.TransactionResult> => {
      const t = await this.#existing(ref);
      const now = this.#result(ref.transactionId, t);
      if (isLapsed(t, this.clock.now())) return refused(now, 'authorization_expired', 'The authorisation lapsed: CentralPay allows 7 days to capture it.');
      if (t.status !== 'SUCCESS') return refused(now, 'amount_too_large', 'Nothing left to capture.');
      if (input.amountCents > t.amountCents) return refused(now, 'amount_too_large', 'The capture exceeds the authorised amount.');
      const answer = await this.#call('POST', `/transaction/${t.transactionId}/capture`, { amount: toCentralpayAmount(input.amountCents) });
      return this.#afterOperation('capture', ref.transactionId, t, answer);
    };
    const reconcile = () => readIfGrown(ref, 'capturedCents', () => this.retrieve(ref));
    return this.operations.once('capture', input.idempotencyKey, [ref.transactionId, input.amountCents], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const ref = input.transaction;
    const send = async (): Promise<contract.TransactionResult> => {
      const s = stateOf(ref);
      const t = await this.#lookup(ref);
      if (!t) {
        // A challenge still pending: no transaction exists; none will be created.
        if (!s?.threeDS) throw this.fault('unknown_transaction', `no transaction ${JSON.stringify(ref.transactionId.slice(0, 80))}`);
        const voided: CentralpayState = { ...s, status: 'voided', voided: true };
        return { ...this.#bare(ref.transactionId, 'voided', s.amountCents ?? 0), pspState: state(voided) };
      }
      const now = this.#result(ref.transactionId, t);
      if (isLapsed(t, this.clock.now())) return refused(now, 'authorization_expired', 'The authorisation already lapsed.');
      if (t.status === 'CANCELED') return now;
      if (t.status !== 'SUCCESS') return refused(now, 'amount_too_large', 'Only an authorisation not yet captured can be cancelled.');
      const answer = await this.#call('POST', `/transaction/${t.transactionId}/cancel`, {});
      return this.#afterOperation('cancel', ref.transactionId, t, answer);
    };
    const reconcile = async () => {
      const after = await this.retrieve(ref);
      return after.status === 'voided' ? after : undefined;
    };
    return this.operations.once('void', input.idempotencyKey, [ref.transactionId], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const ref = input.transaction;
    const send = async (): Promise<contract.TransactionResult> => {
      const t = await this.#existing(ref);
      const now = this.#result(ref.transactionId, t);
      if (now.status !== 'captured' && now.status !== 'refunded') return refused(now, 'amount_too_large', 'Nothing captured to refund.');
      if (input.amountCents > now.capturedCents - now.refundedCents) return refused(now, 'amount_too_large', 'The refund exceeds what is left to refund.');
      const answer = await this.#call('POST', '/refund', { transactionId: t.transactionId, amount: toCentralpayAmount(input.amountCents) });
      if (answer.status === 200 || answer.status === 201) return this.#result(ref.transactionId, await this.#read(t.transactionId));
      if (answer.status === 404) throw this.fault('unknown_transaction', `no transaction ${t.transactionId}`);
      if (answer.status === 400) return refused(this.#result(ref.transactionId, await this.#read(t.transactionId)), 'amount_too_large', 'CentralPay refused the refund.');
      throw this.#unexpected('refund', answer.status);
    };
    const reconcile = () => readIfGrown(ref, 'refundedCents', () => this.retrieve(ref));
    return this.operations.once('refund', input.idempotencyKey, [ref.transactionId, input.amountCents], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  /**
   * CentralPay's view of the transaction. One still at its 3-D Secure step is read from its
   * authentication: once it passed, the transaction is created (once, through the operation log,
   * whichever process reads first); a failed one is a decline.
   */
  async retrieve(ref: contract.TransactionRef): Promise<contract.TransactionResult> {
    const t = await this.#lookup(ref);
    if (t) return this.#result(ref.transactionId, t);
    const s = stateOf(ref);
    if (!s?.threeDS || !s.pm || !s.amountCents || !s.currency || s.capture === undefined) {
      throw this.fault('unknown_transaction', `no transaction ${JSON.stringify(ref.transactionId.slice(0, 80))}`);
    }
    if (s.voided) return { ...this.#bare(ref.transactionId, 'voided', s.amountCents), pspState: state(s) };
    const answer = await this.#call('GET', `/3ds2/authentication/${encodeURIComponent(s.threeDS)}`);
    if (answer.status === 404) throw this.fault('unknown_transaction', `no authentication for ${ref.transactionId}`);
    if (answer.status !== 200) throw this.#unexpected('3ds2/authentication', answer.status);
    const a = readAuthentication(answer.body);
    if (!a) throw this.fault('bad_response', '3ds2/authentication: unreadable answer');
    if (a.transStatus === 'C') return { ...this.#bare(ref.transactionId, 'requires_action', s.amountCents), pspState: state({ ...s, status: 'requires_action' }) };
    if (!AUTHENTICATED.has(a.transStatus)) return this.#authenticationFailed(ref.transactionId, s.amountCents, { ...s, status: 'declined' });
    const pm = this.#paymentMethod(s.pm);
    const create = () => this.#create(ref.transactionId, { ...pm, amountCents: s.amountCents!, currency: s.currency!, capture: s.capture!, source: 'EC', threeDS: a.id });
    return this.operations.once('authenticated', ref.transactionId, [s.threeDS], create, () => this.#found(ref.transactionId), reviveTransaction<contract.TransactionResult>);
  }

  /**
   * CentralPay signs its webhooks with the merchant's secret key, but publishes neither the
   * algorithm nor the header (docs/psp/centralpay.md): no notification can be checked, so every
   * one is refused and the service's reconciliation reads outcomes with {@link retrieve}.
   */
  async verifyNotification(): Promise<contract.NotificationResult> {
    return { ok: false, reason: 'bad_signature' };
  }

  /** `GET /pointOfSale/{pointOfSaleId}`: authenticated, changes nothing, and proves the point of sale is this account's. */
  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    return this.probeCredentials(async () => {
      const answer = await this.#call('GET', `/pointOfSale/${encodeURIComponent(this.#pointOfSaleId)}`);
      if (answer.status === 200) return { ok: true };
      if (answer.status === 404 || answer.status === 400)
        return { ok: false, message: 'CentralPay does not know this point of sale id for this account (check point_of_sale_id).' };
      throw this.#unexpected('pointOfSale', answer.status);
    }, 'CentralPay refused the login and API key (check them in the back office, API access).');
  }

  // ---------------------------------------------------------------------------------------------

  async #call(method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: this.#authorization.reveal() };
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const where = `${method} ${path.replace(/[0-9a-f-]{36}/gi, '{id}').replace(/\?.*$/, '')}`;
    const { status, text } = await this.client.request(where, `${this.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const fault = statusFault('centralpay', where, status);
    if (fault) throw fault;
    if (text.length === 0) return { status, body: undefined };
    try {
      return { status, body: JSON.parse(text) as unknown };
    } catch {
      throw new PspIntegrationError('centralpay', 'bad_response', `${where}: CentralPay answered ${status} with a body that is not JSON`);
    }
  }

  #unexpected(where: string, status: number): PspIntegrationError {
    return this.fault('bad_response', `${where}: unexpected answer ${status}`);
  }

  #paymentMethod(id: string): { customerId: string; cardId: string } {
    const pm = readPaymentMethodId(id);
    if (!pm) throw this.fault('unknown_payment_method', `no payment method ${JSON.stringify(id.slice(0, 80))}`);
    return pm;
  }

  #bare(id: string, status: contract.TransactionResult['status'], amountCents: number): contract.TransactionResult {
    return { transactionId: id, status, amountCents, capturedCents: 0, refundedCents: 0 };
  }

  #authenticationFailed(id: string, amountCents: number, s: CentralpayState): contract.TransactionResult {
    return { ...this.#bare(id, 'declined', amountCents), decline: { reason: 'authentication_failed', message: 'The 3-D Secure authentication failed.' }, pspState: state(s) };
  }

  #result(chipinId: string, t: CentralpayTransaction): contract.TransactionResult {
    const r = toTransactionResult(chipinId, t, this.clock.now());
    return { ...r, pspState: state({ status: r.status, capturedCents: r.capturedCents, refundedCents: r.refundedCents, cp: t.transactionId }) };
  }

  async #create(
    id: string,
    p: { customerId: string; cardId: string; amountCents: number; currency: string; capture: boolean; source: 'EC' | 'RECURRING'; threeDS?: string },
  ): Promise<contract.TransactionResult> {
    const form: Record<string, string> = {
      pointOfSaleId: this.#pointOfSaleId,
      merchantTransactionId: id,
      amount: toCentralpayAmount(p.amountCents),
      currency: p.currency,
      customerId: p.customerId,
      cardId: p.cardId,
      capture: String(p.capture),
      source: p.source,
    };
    if (p.threeDS) form.threeDSServerTransID = p.threeDS;
    const answer = await this.#call('POST', '/transaction', form);
    // 402 PAYMENT_REQUIRED: "authorization denied", only for the creation of a transaction; its body is the refused transaction.
    if (answer.status === 200 || answer.status === 201 || answer.status === 402) {
      const t = readTransaction(answer.body);
      if (!t) throw this.fault('bad_response', 'transaction: unreadable answer');
      return this.#result(id, t);
    }
    if (answer.status === 404) throw this.fault('unknown_payment_method', 'CentralPay does not know the customer or its card');
    throw this.#unexpected('transaction', answer.status);
  }

  async #afterOperation(what: string, chipinId: string, before: CentralpayTransaction, answer: { status: number; body: unknown }): Promise<contract.TransactionResult> {
    if (answer.status === 200 || answer.status === 201) {
      const t = readTransaction(answer.body) ?? (await this.#read(before.transactionId));
      return this.#result(chipinId, t);
    }
    if (answer.status === 404) throw this.fault('unknown_transaction', `no transaction ${before.transactionId}`);
    if (answer.status === 400) {
      const now = this.#result(chipinId, await this.#read(before.transactionId));
      return refused(now, now.status === 'expired' ? 'authorization_expired' : 'amount_too_large', `CentralPay refused the ${what}.`);
    }
    throw this.#unexpected(what, answer.status);
  }

  async #read(transactionId: string): Promise<CentralpayTransaction> {
    const answer = await this.#call('GET', `/transaction/${transactionId}`);
    if (answer.status === 404) throw this.fault('unknown_transaction', `no transaction ${transactionId}`);
    if (answer.status !== 200) throw this.#unexpected('transaction', answer.status);
    const t = readTransaction(answer.body);
    if (!t) throw this.fault('bad_response', `transaction ${transactionId}: unreadable answer`);
    return t;
  }

  /** The transaction of a merchantTransactionId, if CentralPay has one. */
  async #byMerchantId(id: string): Promise<CentralpayTransaction | undefined> {
    if (!MERCHANT_TRANSACTION_ID.test(id)) return undefined;
    const answer = await this.#call('GET', `/transaction?merchantTransactionId=${encodeURIComponent(id)}`);
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw this.#unexpected('transaction?merchantTransactionId', answer.status);
    const data = (answer.body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw this.fault('bad_response', 'transaction search: no data list');
    if (data.length === 0) return undefined;
    const t = readTransaction(data[0]);
    if (!t) throw this.fault('bad_response', 'transaction search: unreadable answer');
    return t;
  }

  async #found(id: string): Promise<contract.TransactionResult | undefined> {
    const t = await this.#byMerchantId(id);
    return t && this.#result(id, t);
  }

  /** CentralPay's transaction behind a ref: by its id in the state, else by our merchantTransactionId. */
  async #lookup(ref: contract.TransactionRef): Promise<CentralpayTransaction | undefined> {
    const cp = stateOf(ref)?.cp;
    if (cp && isCentralpayId(cp)) return this.#read(cp);
    return this.#byMerchantId(ref.transactionId);
  }

  async #existing(ref: contract.TransactionRef): Promise<CentralpayTransaction> {
    const t = await this.#lookup(ref);
    if (!t) throw this.fault('unknown_transaction', `no transaction ${JSON.stringify(ref.transactionId.slice(0, 80))}`);
    return t;
  }
}

/** The refusal of an operation: the transaction as it stands, with the reason. */
function refused(now: contract.TransactionResult, reason: 'amount_too_large' | 'authorization_expired', message: string): contract.TransactionResult {
  return { ...now, decline: { reason, message } };
}

function state(s: CentralpayState): contract.PspState {
  return JSON.parse(JSON.stringify(s)) as contract.PspState;
}

function stateOf(ref: contract.TransactionRef): CentralpayState | undefined {
  const s = ref.pspState;
  if (!s || typeof s !== 'object') return undefined;
  return s as unknown as CentralpayState;
}

/** The part of a 3-D Secure 2 authentication answer we read. */
function readAuthentication(raw: unknown): { id: string; transStatus: string; acsURL?: string; creq?: string } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const a = raw as Record<string, unknown>;
  if (typeof a.threeDSServerTransID !== 'string' || a.threeDSServerTransID === '' || typeof a.transStatus !== 'string') return undefined;
  const out: { id: string; transStatus: string; acsURL?: string; creq?: string } = { id: a.threeDSServerTransID, transStatus: a.transStatus };
  if (typeof a.acsURL === 'string' && /^https?:\/\//.test(a.acsURL)) out.acsURL = a.acsURL;
  if (typeof a.base64EncodedChallengeRequest === 'string') out.creq = a.base64EncodedChallengeRequest;
  return out;
}
