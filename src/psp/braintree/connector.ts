import type * as contract from '../connector.ts';
import { PspIntegrationError } from '../connector.ts';
import { checkBaseUrl, KitConnector, type KitConnectorOptions } from '../kit/connector-setup.ts';
import { reviveTransaction, authorizeParams, chargeParams, type PspOperations } from '../kit/operations.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import { pspCallFault } from '../psp-http.ts';
import { declineOfProcessorCode, declineOfValidationCodes, readTransaction, toBraintreeAmount, toTransactionResult, type TransactionView } from './mapping.ts';
import { readDisputeNotification } from './disputes.ts';
import { braintree, routeThrough, SdkCallError, type SdkGateway, type SdkResult } from './sdk.ts';

interface BraintreeCredentials {
  merchantId: string;
  publicKey: string;
  privateKey: string;
}

/**
 * `baseUrl` is `https://api.sandbox.braintreegateway.com`, `https://api.braintreegateway.com`, or a test double's URL: scheme,
 * host and port only; the SDK sends every request through `http` (src/psp/braintree/sdk.ts).
 */
export interface BraintreeConnectorOptions extends KitConnectorOptions {
  credentials: BraintreeCredentials;
  /** Transactions per page of {@link BraintreeConnector.listTransactions}, 50 (Braintree's search page) if absent. */
  listPageSize?: number;
}

const NAME = 'braintree';
/** Braintree ids: transaction ids and vault tokens are short alphanumeric strings. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;
/** `orderId` is at most 255 characters: our idempotency key, for reconciliation in the Control Panel. */
const MAX_ORDER_ID = 255;
/** "Payment method token is invalid" / "Payment method token is required" (transaction validation errors). */
const UNKNOWN_TOKEN_CODES = ['91518', '91508'];

/** "Refund amount is too large", "Settlement amount is too large", "Settlement amount cannot be more than the authorized amount" (transaction validation errors). */
const AMOUNT_TOO_LARGE = ['91521', '91522', '91537'];

function errorType(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && typeof (e as { type?: unknown }).type === 'string' ? (e as { type: string }).type : undefined;
}

/** `result.errors.deepErrors()` codes, when the answer is a validation error. */
function errorCodes(r: SdkResult): string[] {
  try {
    return r.errors?.deepErrors().map((x) => String(x.code)) ?? [];
  } catch {
    return [];
  }
}

/**
 * Braintree through its official Node SDK (`braintree` 3.40.0): the card in the Vault (a customer
 * with one credit card, verified), then Transaction API sales on its token. Braintree has no
 * idempotency key on its API: the operation log (src/psp/kit/operations.ts) is what makes each
 * call happen once; our key goes as the sale's (and the refund's) `orderId`, so a call whose answer
 * was lost is found again by transaction search before anything is sent again.
 */
export class BraintreeConnector extends KitConnector implements contract.PspConnector {
  readonly name = NAME;
  readonly sandbox: boolean;
  readonly #gateway: SdkGateway;
  readonly #timeoutMs: number;
  readonly #operations: PspOperations;
  readonly #merchantId: string;
  readonly #listPageSize: number;

  constructor(opts: BraintreeConnectorOptions) {
    super();
    const c = opts.credentials;
    for (const [k, v] of Object.entries(c)) if (!/^[A-Za-z0-9]{1,64}$/.test(v ?? '')) throw new TypeError(`braintree: credential ${k} must be letters and digits`);
    if (!Number.isSafeInteger(opts.timeoutMs) || opts.timeoutMs <= 0) throw new TypeError('braintree: timeoutMs must be a positive integer');
    const url = checkBaseUrl(NAME, opts.baseUrl);
    if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
      throw new TypeError('braintree: baseUrl must be scheme, host and port only (the SDK adds /merchants/…)');
    }
    const ssl = url.protocol === 'https:';
    const port = url.port || (ssl ? '443' : '80');
    this.sandbox = opts.sandbox;
    this.#timeoutMs = opts.timeoutMs;
    this.#operations = opts.operations;
    this.#merchantId = c.merchantId;
    this.#listPageSize = opts.listPageSize ?? 50;
    if (!Number.isSafeInteger(this.#listPageSize) || this.#listPageSize < 1 || this.#listPageSize > 1000) throw new TypeError('braintree: listPageSize must be 1 to 1000');
    // An Environment of our base URL (the SDK's Sandbox and Production are these hosts on 443):
    // the host is what the outbound client checks; the GraphQL and auth hosts are never called.
    const environment = new braintree.Environment(url.hostname.replace(/^\[|\]$/g, ''), port, 'https://auth.invalid', ssl, 'graphql.invalid', '443');
    this.#gateway = new braintree.BraintreeGateway({ environment, merchantId: c.merchantId, publicKey: c.publicKey, privateKey: c.privateKey, timeout: opts.timeoutMs });
    routeThrough(this.#gateway, opts.http, opts.timeoutMs);
  }

  protected get shownAs(): string {
    return `BraintreeConnector(${this.sandbox ? 'sandbox' : 'production'})`;
  }

  protected override get shownFields(): Record<string, unknown> {
    return { merchantId: this.#merchantId };
  }

  /** What is not a refusal, as the contract's closed set; never a credential in it. */
  #fault(e: unknown, missing: 'unknown_transaction' | 'unknown_payment_method' = 'unknown_transaction'): PspIntegrationError {
    if (e instanceof PspIntegrationError) return e;
    if (e instanceof SdkCallError) return pspCallFault(NAME, 'Braintree', e.call, this.#timeoutMs);
    switch (errorType(e)) {
      case braintree.errorTypes.authenticationError:
      case braintree.errorTypes.authorizationError:
        return new PspIntegrationError(NAME, 'bad_credentials', 'Braintree: the credentials were refused');
      case braintree.errorTypes.notFoundError:
        return new PspIntegrationError(NAME, missing, `Braintree does not know this ${missing === 'unknown_payment_method' ? 'payment method' : 'transaction'}`);
      case braintree.errorTypes.tooManyRequestsError:
      case braintree.errorTypes.serverError:
      case braintree.errorTypes.serviceUnavailableError:
      case braintree.errorTypes.gatewayTimeoutError:
      case braintree.errorTypes.requestTimeoutError:
        return new PspIntegrationError(NAME, 'unreachable', 'Braintree: the gateway failed or timed out, outcome unknown');
      default:
        return new PspIntegrationError(NAME, 'bad_response', 'Braintree sent an answer we cannot read');
    }
  }

  async #call<T>(call: () => Promise<T>, missing?: 'unknown_transaction' | 'unknown_payment_method'): Promise<T> {
    try {
      return await call();
    } catch (e) {
      throw this.#fault(e, missing);
    }
  }

  #view(value: unknown): TransactionView {
    const t = readTransaction(value);
    if (!t) throw new PspIntegrationError(NAME, 'bad_response', 'Braintree sent a transaction we cannot read');
    return t;
  }

  async #find(id: string): Promise<TransactionView> {
    if (!ID.test(id)) throw new PspIntegrationError(NAME, 'unknown_transaction', 'not a Braintree transaction id');
    return this.#view(await this.#call(() => this.#gateway.transaction.find(id)));
  }

  /** The sale and its refund credits, read back: Braintree keeps the credits apart from the sale. */
  async #result(sale: TransactionView): Promise<contract.TransactionResult> {
    if (sale.type !== 'sale') throw new PspIntegrationError(NAME, 'unknown_transaction', 'not a Braintree sale');
    const refunds = [];
    for (const id of sale.refundIds) refunds.push(await this.#find(id));
    return toTransactionResult(sale, refunds);
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const { card } = input;
    const params = [card.number.replace(/ /g, ''), card.expMonth, card.expYear, card.cvc, card.holderName];
    const send = () => this.#attach(input);
    return this.#operations.once('attach', input.idempotencyKey, params, send, async () => undefined);
  }

  async #attach(input: contract.AttachInput): Promise<contract.AttachResult> {
    const { card } = input;
    // One Vault customer per card; `verifyCard` runs a verification (a zero or small
    // authorisation, voided) so a refused card is refused here, not at the first charge.
    const r = await this.#call(() =>
      this.#gateway.customer.create({
        creditCard: {
          number: card.number.replace(/ /g, ''),
          expirationMonth: String(card.expMonth).padStart(2, '0'),
          expirationYear: String(card.expYear),
          cvv: card.cvc,
          cardholderName: card.holderName,
          options: { verifyCard: true },
        },
      }),
    );
    if (!r.success) {
      const v = (r.creditCardVerification ?? r.verification) as Record<string, unknown> | undefined;
      if (v && v.status === 'processor_declined') {
        const code = typeof v.processorResponseCode === 'string' ? v.processorResponseCode : undefined;
        return { ok: false, reason: declineOfProcessorCode(code), message: `Braintree: verification declined (${code ?? '?'})` };
      }
      if (v && v.status === 'gateway_rejected') return { ok: false, reason: 'card_declined', message: 'Braintree: verification rejected by the gateway' };
      const reason = declineOfValidationCodes(errorCodes(r));
      if (reason) return { ok: false, reason, message: 'Braintree: the card details are invalid' };
      throw new PspIntegrationError(NAME, 'bad_response', `Braintree refused the customer: ${errorCodes(r).join(', ') || 'no error code'}`);
    }
    const customer = r.customer as { creditCards?: Record<string, unknown>[] } | undefined;
    const cc = customer?.creditCards?.[0];
    const token = typeof cc?.token === 'string' ? cc.token : undefined;
    if (!cc || !token) throw new PspIntegrationError(NAME, 'bad_response', 'Braintree sent a customer without its card');
    return {
      ok: true,
      paymentMethodId: token,
      brand: typeof cc.cardType === 'string' ? cc.cardType.toLowerCase() : 'unknown',
      last4: typeof cc.last4 === 'string' ? cc.last4 : card.number.replace(/ /g, '').slice(-4),
      expMonth: Number(cc.expirationMonth) || card.expMonth,
      expYear: Number(cc.expirationYear) || card.expYear,
    };
  }

  /** A sale's answer: the transaction (approved or declined) or, without one, a fault. */
  #saleResult(r: SdkResult): TransactionView {
    if (r.transaction) return this.#view(r.transaction);
    const codes = errorCodes(r);
    if (codes.some((c) => UNKNOWN_TOKEN_CODES.includes(c))) throw new PspIntegrationError(NAME, 'unknown_payment_method', 'Braintree does not know this payment method token');
    throw new PspIntegrationError(NAME, 'bad_response', `Braintree refused the sale: ${codes.join(', ') || 'no error code'}`);
  }

  async #sale(attributes: Record<string, unknown>, currency: string): Promise<contract.TransactionResult> {
    return this.#saleOutcome(this.#saleResult(await this.#call(() => this.#gateway.transaction.sale(attributes), 'unknown_payment_method')), currency);
  }

  /** What a sale answers, whether it came back from `sale` or was found again by {@link #byOrderId}. */
  async #saleOutcome(sale: TransactionView, currency: string): Promise<contract.TransactionResult> {
    // Braintree has no currency field: the merchant account decides it. A sale in another currency
    // than asked is a configuration fault, not an amount to record.
    if (sale.currency !== currency)
      throw new PspIntegrationError(NAME, 'not_supported', `Braintree charged in ${sale.currency}: the merchant account's currency is not ${currency}`);
    return this.#result(sale);
  }

  /**
   * The transaction of this type Braintree holds under this `orderId` (our idempotency key), or
   * undefined when there is none: how a call whose answer was lost is found again, since Braintree
   * keeps no idempotency key. Transaction search (`advanced_search_ids`, then `advanced_search` on
   * the ids) covers this merchant's transactions only. Two under one key is not something we
   * send: a fault, and the call stays unresolved rather than be guessed.
   */
  async #byOrderId(orderId: string, type: 'sale' | 'credit'): Promise<TransactionView | undefined> {
    const found: TransactionView[] = [];
    await this.#call(async () => {
      const stream = this.#gateway.transaction.search((s) => {
        s.orderId().is(orderId);
        s.type().is(type);
      });
      for await (const t of stream) found.push(this.#view(t));
    });
    const mine = found.filter((t) => t.type === type && t.orderId === orderId);
    if (mine.length > 1) throw new PspIntegrationError(NAME, 'bad_response', `Braintree holds ${mine.length} ${type} transactions under one idempotency key`);
    return mine[0];
  }

  /** A lost sale answer: the sale Braintree made under this key, or undefined (then it is sent). */
  async #reconcileSale(key: string, currency: string): Promise<contract.TransactionResult | undefined> {
    const sale = await this.#byOrderId(key.slice(0, MAX_ORDER_ID), 'sale');
    return sale && this.#saleOutcome(sale, currency);
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    if (!ID.test(input.paymentMethodId)) throw new PspIntegrationError(NAME, 'unknown_payment_method', 'not a Braintree payment method token');
    const params = authorizeParams(input);
    return this.#once(
      'authorize',
      input.idempotencyKey,
      params,
      () =>
        this.#sale(
          {
            amount: toBraintreeAmount(input.amountCents, input.currency),
            paymentMethodToken: input.paymentMethodId,
            orderId: input.idempotencyKey.slice(0, MAX_ORDER_ID),
            // PSD2: the customer-initiated first payment of a stored-credential agreement; later
            // merchant-initiated sales on the same token reference it (Braintree keeps the scheme's
            // network transaction id with the vaulted card).
            ...(input.storeForLater ? { transactionSource: 'recurring_first' } : {}),
            options: { submitForSettlement: input.capture === 'automatic' },
          },
          input.currency,
        ),
      () => this.#reconcileSale(input.idempotencyKey, input.currency),
    );
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    if (!ID.test(input.paymentMethodId)) throw new PspIntegrationError(NAME, 'unknown_payment_method', 'not a Braintree payment method token');
    const manual = input.capture === 'manual';
    const params = chargeParams(input, manual);
    return this.#once(
      'charge_off_session',
      input.idempotencyKey,
      params,
      () =>
        this.#sale(
          {
            amount: toBraintreeAmount(input.amountCents, input.currency),
            paymentMethodToken: input.paymentMethodId,
            orderId: input.idempotencyKey.slice(0, MAX_ORDER_ID),
            // A merchant-initiated transaction outside a fixed schedule (Chipin's installments and
            // the pot's rest are triggered by the pot, not a calendar).
            transactionSource: 'unscheduled',
            // The card is in Braintree's Vault: Braintree links the MIT to the stored credential
            // itself. `externalVault.previousNetworkTransactionId` is documented for cards vaulted
            // outside Braintree; we send it when the CIT gave one, so the scheme reference is explicit.
            ...(input.storedCredential?.networkTransactionId
              ? { externalVault: { status: 'vaulted', previousNetworkTransactionId: input.storedCredential.networkTransactionId } }
              : {}),
            // `manual`: a merchant-initiated hold left `authorized` (a re-authorisation,
            // docs/money-operations.md#re-authorisation), submitted for settlement or voided later.
            options: { submitForSettlement: !manual },
          },
          input.currency,
        ),
      () => this.#reconcileSale(input.idempotencyKey, input.currency),
    );
  }

  #once(
    op: string,
    key: string,
    params: readonly unknown[],
    send: () => Promise<contract.TransactionResult>,
    reconcile: () => Promise<contract.TransactionResult | undefined> = async () => undefined,
  ): Promise<contract.TransactionResult> {
    assertKey(key);
    return this.#operations.once(op, key, params, send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  /** A capture, void or refund: an answer without success leaves the sale as it was and says why. */
  async #operate(id: string, call: () => Promise<SdkResult>, nothingLeft: (before: contract.TransactionResult) => boolean = () => false): Promise<contract.TransactionResult> {
    const before = await this.#find(id);
    const r = await this.#call(call);
    if (r.success) return this.#result(await this.#find(id));
    const codes = errorCodes(r);
    const result = await this.#result(before);
    const reason =
      before.status === 'authorization_expired'
        ? 'authorization_expired'
        : codes.some((c) => AMOUNT_TOO_LARGE.includes(c)) || nothingLeft(result)
          ? 'amount_too_large'
          : 'processing_error';
    return { ...result, decline: { reason, message: `Braintree refused: ${codes.join(', ') || 'no error code'}` } };
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const id = input.transaction.transactionId;
    const currency = typeof input.transaction.pspState?.currency === 'string' ? input.transaction.pspState.currency : undefined;
    return this.#once(
      'capture',
      input.idempotencyKey,
      [id, input.amountCents],
      async () => {
        const cur = currency ?? (await this.#find(id)).currency;
        // Braintree settles a sale once ("Cannot submit for settlement unless status is
        // authorized"): what a partial submit left is released, so a second capture asks for more
        // than is left.
        return this.#operate(
          id,
          () => this.#gateway.transaction.submitForSettlement(id, toBraintreeAmount(input.amountCents, cur)),
          (b) => b.status === 'captured' || b.status === 'refunded',
        );
      },
      // Whether it took effect shows on the sale: submitted for settlement, or not.
      async () => {
        const r = await this.#result(await this.#find(id));
        return r.status === 'authorized' ? undefined : r;
      },
    );
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const id = input.transaction.transactionId;
    return this.#once(
      'void',
      input.idempotencyKey,
      [id],
      async () => {
        const r = await this.#operate(id, () => this.#gateway.transaction.void(id));
        // Voiding what is already voided holds nothing: no refusal.
        if (r.status === 'voided') delete r.decline;
        return r;
      },
      async () => {
        const r = await this.#result(await this.#find(id));
        return r.status === 'voided' ? r : undefined;
      },
    );
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const id = input.transaction.transactionId;
    const currency = typeof input.transaction.pspState?.currency === 'string' ? input.transaction.pspState.currency : undefined;
    // A refund is a credit transaction of its own: our key goes as its `orderId`, so a refund whose
    // answer was lost is found again by search, as a sale is (docs/psp/braintree.md#idempotency).
    const orderId = input.idempotencyKey.slice(0, MAX_ORDER_ID);
    return this.#once(
      'refund',
      input.idempotencyKey,
      [id, input.amountCents],
      async () => {
        const cur = currency ?? (await this.#find(id)).currency;
        return this.#operate(id, () => this.#gateway.transaction.refund(id, { amount: toBraintreeAmount(input.amountCents, cur), orderId }));
      },
      async () => {
        const credit = await this.#byOrderId(orderId, 'credit');
        if (!credit) return undefined;
        if (credit.refundedTransactionId !== id) throw new PspIntegrationError(NAME, 'bad_response', 'Braintree holds a refund under this key for another sale');
        return this.#result(await this.#find(id));
      },
    );
  }

  /** Every Braintree transaction is read by its id: the id is all the state needed (the currency saves a read). */
  /**
   * The period's sales, through transaction search (`gateway.transaction.search`,
   * developer.paypal.com/braintree/docs/reference/request/transaction/search), in three passes
   * sharing one cursor (`<pass>:<offset>` into the pass's ids): sales created in `[from, to)`
   * (`createdAt`), sales submitted for settlement in it (`submittedForSettlementAt`: the captures
   * of older authorisations), and refund credits created in it (`type: credit`), each read as the
   * sale it refunds. Range ends are both included: the period's last millisecond ends it. A page
   * asks for the pass's ids (`advanced_search_ids`), then for the page's transactions by id; each
   * sale's refunds are read as `retrieve` reads them, its lost chargebacks from its `disputes`. A
   * dispute lost in the period on a sale neither created, captured nor refunded in it is not seen.
   */
  async listTransactions(input: contract.ListTransactionsInput): Promise<contract.PspRecordPage> {
    if (!(input.from.getTime() < input.to.getTime())) throw new RangeError('braintree: the period must be from < to');
    const m = /^(created|submitted|credits):(\d{1,9})$/.exec(input.cursor ?? 'created:0');
    if (!m) throw new RangeError('braintree: not a cursor of this connector');
    const pass = m[1] as 'created' | 'submitted' | 'credits';
    const offset = Number(m[2]);
    const min = input.from;
    const max = new Date(input.to.getTime() - 1);
    const ids = await this.#call(
      () =>
        new Promise<string[]>((resolve, reject) => {
          this.#gateway.transaction.search(
            (s) => {
              if (pass === 'submitted') s.submittedForSettlementAt().between(min, max);
              else s.createdAt().between(min, max);
              s.type().is(pass === 'credits' ? 'credit' : 'sale');
            },
            (err, response) => {
              const found = (response as { ids?: unknown } | null)?.ids;
              if (err) reject(err);
              else if (Array.isArray(found) && found.every((id) => typeof id === 'string')) resolve(found as string[]);
              else reject(new PspIntegrationError(NAME, 'bad_response', 'Braintree refused the transaction search'));
            },
          );
        }),
    );
    const page = ids.slice(offset, offset + this.#listPageSize);
    const found = new Map<string, TransactionView>();
    if (page.length > 0) {
      await this.#call(async () => {
        for await (const t of this.#gateway.transaction.search((s) => s.ids().in(page))) {
          const view = this.#view(t);
          found.set(view.id, view);
        }
      });
    }
    const records: contract.PspRecord[] = [];
    const sales = new Map<string, TransactionView>();
    for (const id of page) {
      const t = found.get(id);
      if (!t) throw new PspIntegrationError(NAME, 'bad_response', 'Braintree found a transaction, then did not send it');
      let sale = t;
      if (t.type === 'credit') {
        if (!t.refundedTransactionId) continue; // a credit of no sale (Braintree's standalone credits): no payment of Chipin's
        sale = sales.get(t.refundedTransactionId) ?? (await this.#listed(t.refundedTransactionId));
      }
      sales.set(sale.id, sale);
      const r = await this.#result(sale);
      records.push({
        transactionId: sale.id,
        status: r.status,
        currency: sale.currency,
        amountCents: r.amountCents,
        capturedCents: r.capturedCents,
        refundedCents: r.refundedCents,
        chargedBackCents: sale.lostDisputeCents,
      });
    }
    const next = offset + this.#listPageSize;
    const nextPass = pass === 'created' ? 'submitted' : pass === 'submitted' ? 'credits' : null;
    return { records, nextCursor: next < ids.length ? `${pass}:${next}` : nextPass ? `${nextPass}:0` : null };
  }

  /** A sale Braintree's own credit names: not finding it is a bad answer, not an unknown transaction of ours. */
  async #listed(id: string): Promise<TransactionView> {
    try {
      return await this.#find(id);
    } catch (e) {
      if (e instanceof PspIntegrationError && e.code === 'unknown_transaction')
        throw new PspIntegrationError(NAME, 'bad_response', 'Braintree listed a refund of a sale it does not know');
      throw e;
    }
  }

  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return this.#result(await this.#find(transaction.transactionId));
  }

  /**
   * A webhook: form fields `bt_signature` and `bt_payload`, checked by the SDK
   * (`webhookNotification.parse`: HMAC-SHA1 keyed with the SHA-1 of the private key, under the
   * public key). Only transaction kinds are about a payment; the status is read back from Braintree.
   */
  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    const form = new URLSearchParams(input.rawBody);
    const signature = form.get('bt_signature');
    const payload = form.get('bt_payload');
    if (!signature || !payload) return { ok: false, reason: 'malformed' };
    let n;
    try {
      n = await this.#gateway.webhookNotification.parse(signature, payload);
    } catch (e) {
      return { ok: false, reason: errorType(e) === braintree.errorTypes.invalidSignatureError ? 'bad_signature' : 'malformed' };
    }
    // A dispute notification (docs/money-operations.md#disputes) is about the dispute alone.
    const dispute = readDisputeNotification(n as { kind?: unknown; dispute?: unknown });
    if (dispute === 'malformed') return { ok: false, reason: 'malformed' };
    if (dispute) return { ok: true, transactionId: dispute.transactionId, status: 'captured', dispute };
    // The notification says which transaction; its state is read from Braintree (a refund's
    // credit names the sale it refunds), so an old notification never rolls a payment back.
    const subject = (n.transaction ?? n.subject?.transaction) as { id?: unknown } | undefined;
    const id = typeof subject?.id === 'string' ? subject.id : undefined;
    if (!id || !ID.test(id)) return { ok: false, reason: 'malformed' };
    const t = await this.#find(id);
    const r = await this.#result(t.type === 'credit' && t.refundedTransactionId ? await this.#find(t.refundedTransactionId) : t);
    return { ok: true, transactionId: r.transactionId, status: r.status };
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    try {
      // Reading the plans changes nothing and needs only valid API keys for this merchant.
      await this.#gateway.plan.all();
      return { ok: true };
    } catch (e) {
      const f = this.#fault(e);
      if (f.code === 'bad_credentials') return { ok: false, message: 'Braintree refused the merchant id, public key or private key' };
      throw f;
    }
  }
}
