import { createHash } from 'node:crypto';
import type * as contract from '../connector.ts';
import { HttpKitConnector, type HttpKitConnectorOptions } from '../kit/connector-setup.ts';
import { statusFault } from '../kit/status-fault.ts';
import { REFUSAL_MESSAGES, maintainOnce, maintenanceRefusal, refundHappened, refusedAsItStands, type MaintenanceInput, type MaintenanceRefusal } from '../kit/maintenance.ts';
import { reviveTransaction, authorizeParams, chargeParams } from '../kit/operations.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import {
  ACTION,
  CODE,
  MODE_FULL,
  brandOf,
  cardType,
  currencyNumeric,
  declineReason,
  fromPaylineAmount,
  holdExpiry,
  isRefusal,
  parsePaylineDate,
  paylineDate,
  paylineHistory,
  toPaylineAmount,
  type PaylineHistory,
} from './mapping.ts';
import { requestEnvelope, type PaylineOperation, type RequestFields } from './requests.ts';
import { child, soapBody, textAt, type XmlMessage, type XmlNode } from './soap.ts';

export interface PaylineCredentials {
  merchantId: string;
  accessKey: string;
  contractNumber: string;
}

export interface PaylineConnectorOptions extends HttpKitConnectorOptions<PaylineCredentials> {
  /** `…/V4/services` (or a PSP account's endpoint_url): the DirectPaymentAPI and ExtendedAPI endpoints are under it. */
  baseUrl: string;
}

/** The web services version sent in every request (Payline "API version history"; 29 has every element used here). */
const API_VERSION = '29';
/** A maintenance call: Payline's operation, its message, and the state once Payline accepted it. */
type PaylineRequest = { operation: 'doCapture' | 'doReset' | 'doRefund'; message: XmlMessage; after: PaylineState };
/** Payline's reasons for the refusals decided before any call. */
const REFUSAL_REASONS: Record<MaintenanceRefusal, contract.DeclineReason> = {
  expired: 'authorization_expired',
  nothing_held: 'processing_error',
  captured: 'processing_error',
  more_than_held: 'amount_too_large',
  more_than_left: 'amount_too_large',
};

type Service = 'DirectPaymentAPI' | 'ExtendedAPI' | 'WebPaymentAPI';

/**
 * What the connector keeps about a transaction (`pspState`): the payment's own read does not carry
 * later captures, refunds and a reset; they are recorded here from Payline's answers and read back
 * from its associated transactions ({@link PaylineHistory}).
 */
interface PaylineState {
  status: contract.TransactionStatus;
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
  currency: string;
  /** Payline's `transaction.id` of the authorisation, once known. */
  paylineId: string | null;
  /** ISO date of the authorisation, for the hold's lapse. */
  authorisedAt: string | null;
  declineCode: string | null;
  /** The token of Payline's 3-D Secure page (doAuthorizationRedirect), read with getWebPaymentDetails until it ends. */
  webToken?: string | null;
}

/** A saved card: the wallet and what Payline's redirect flow needs of it (never the card number). */
interface StoredCard {
  walletId: string;
  type: string;
  expiry: string;
  token: string;
}

function encodeCard(c: StoredCard): string {
  return [c.walletId, c.type, c.expiry, c.token].join('.');
}

function decodeCard(pm: string): StoredCard | undefined {
  const [walletId, type, expiry, ...rest] = pm.split('.');
  if (!walletId || !/^[A-Za-z0-9]{1,50}$/.test(walletId) || !type || !/^[A-Z]{2,20}$/.test(type) || !expiry || !/^\d{4}$/.test(expiry)) return undefined;
  return { walletId, type, expiry, token: rest.join('.') };
}

/**
 * The state with what Payline's associated transactions show beyond it: amounts only grow, so the
 * larger of the two views is the current one; a reset of a hold not captured voids it.
 */
function withHistory(s: PaylineState, h: PaylineHistory | undefined): PaylineState {
  if (!h || (s.status !== 'authorized' && s.status !== 'captured' && s.status !== 'refunded')) return s;
  const capturedCents = Math.max(s.capturedCents, Math.min(h.capturedCents, s.amountCents));
  const refundedCents = Math.max(s.refundedCents, Math.min(h.refundedCents, capturedCents));
  if (s.status === 'authorized' && capturedCents === 0) return h.reset ? { ...s, status: 'voided' } : s;
  return { ...s, status: refundedCents > 0 ? 'refunded' : 'captured', capturedCents, refundedCents };
}

function readState(s: contract.PspState | null): PaylineState | undefined {
  if (!s || typeof s.status !== 'string' || !Number.isSafeInteger(s.amountCents) || typeof s.currency !== 'string') return undefined;
  return s as unknown as PaylineState;
}

/**
 * Payline (Monext) DirectPayment web services, SOAP 1.1 with HTTP Basic (merchant id : access
 * key): the card is stored in a wallet (`createWallet`), paid on session after `verifyEnrollment`
 * with `doImmediateWalletPayment` (frictionless) or through Payline's own 3-D Secure pages
 * (`doAuthorizationRedirect`), paid off session with `doImmediateWalletPayment` and the
 * customer-initiated transaction as `linkedTransactionId`, captured, refunded and reset with
 * `doCapture`, `doRefund`, `doReset`, read with `getTransactionDetails` (ExtendedAPI).
 *
 * Ids. Chipin's transaction id is the order reference (`order.ref`) the connector derives from
 * the idempotency key: a payment that waits on Payline's 3-D Secure page has no Payline
 * transaction id yet, and `getTransactionDetails` finds a transaction by either. Payline's own
 * `transaction.id` is kept in `pspState`.
 *
 * Idempotency. Payline takes no idempotency key: every mutating call goes through the operation
 * log; a payment whose answer was lost is found again by its order reference; a capture, reset or
 * refund whose answer was lost is found in the payment's associated transactions, which every
 * read asks for (`transactionHistory=Y`), and is not sent again.
 */
export class PaylineConnector extends HttpKitConnector<PaylineCredentials> implements contract.PspConnector {
  constructor(opts: PaylineConnectorOptions) {
    super('payline', opts);
  }

  /**
   * One web service call: the envelope posted with Basic auth and its SOAPAction; the answer's
   * message and result code. The request carries every element of the operation's sequence, nil
   * where the connector has no value (requests.ts, docs/psp/payline.md "Request envelopes").
   */
  async #call<Op extends PaylineOperation>(service: Service, operation: Op, fields: Omit<RequestFields<Op>, 'version'>): Promise<{ body: XmlNode; code: string; text: string }> {
    const c = this.credentials.reveal();
    const res = await this.client.request(operation, `${this.baseUrl}/${service}`, {
      method: 'POST',
      headers: {
        'content-type': 'text/xml; charset=utf-8',
        accept: 'text/xml',
        soapaction: `"${operation}"`,
        authorization: `Basic ${Buffer.from(`${c.merchantId}:${c.accessKey}`).toString('base64')}`,
      },
      body: requestEnvelope(operation, { version: API_VERSION, ...fields } as RequestFields<Op>),
    });
    const fault = statusFault(this.name, operation, res.status);
    if (fault) throw fault;
    if (res.status !== 200) throw this.fault('bad_response', `${operation}: HTTP ${res.status}`);
    const parsed = soapBody(res.text);
    if (!parsed) throw this.fault('bad_response', `${operation}: the answer is not a SOAP message`);
    if ('fault' in parsed) throw this.fault('bad_response', `${operation}: SOAP fault`);
    if (parsed.message.name !== `${operation}Response`) throw this.fault('bad_response', `${operation}: answered ${parsed.message.name}`);
    const code = textAt(parsed.message, 'result', 'code');
    if (!code || !/^\d{5}$/.test(code)) throw this.fault('bad_response', `${operation}: no result code`);
    if (code === CODE.invalidContract) throw this.fault('bad_credentials', `${operation}: Payline refused the contract number (02303)`);
    return { body: parsed.message, code, text: textAt(parsed.message, 'result', 'longMessage') ?? textAt(parsed.message, 'result', 'shortMessage') ?? code };
  }

  /** A 32-character reference (order.ref, walletId: AN50) derived from the operation and our key. */
  #ref(op: string, key: string): string {
    return `CHP${createHash('sha256').update(`${op}\u0000${key}`).digest('hex').slice(0, 29)}`;
  }

  #payment(amountCents: number, currency: string, action: string): XmlMessage {
    return {
      amount: toPaylineAmount(amountCents, currency),
      currency: currencyNumeric(currency)!,
      action,
      mode: MODE_FULL,
      contractNumber: this.credentials.reveal().contractNumber,
    };
  }

  #order(ref: string, amountCents: number, currency: string): XmlMessage {
    return { ref, amount: toPaylineAmount(amountCents, currency), currency: currencyNumeric(currency)!, date: paylineDate(this.clock.now()) };
  }

  #result(transactionId: string, s: PaylineState, extra: Partial<contract.TransactionResult> = {}): contract.TransactionResult {
    let status = s.status;
    const expiresAt = status === 'authorized' && s.authorisedAt ? holdExpiry(new Date(s.authorisedAt)) : undefined;
    if (expiresAt && this.clock.now().getTime() >= expiresAt.getTime()) status = 'expired';
    const r: contract.TransactionResult = {
      transactionId,
      status,
      amountCents: s.amountCents,
      capturedCents: s.capturedCents,
      refundedCents: s.refundedCents,
      pspState: { ...s, status: s.status } as unknown as contract.PspState,
      ...extra,
    };
    if (status === 'authorized' && expiresAt) r.expiresAt = expiresAt;
    if (status === 'declined' && !r.decline && s.declineCode) r.decline = { reason: declineReason(s.declineCode), message: `Payline refused the payment (${s.declineCode}).` };
    return r;
  }

  /** A payment answer (`doImmediateWalletPayment`, `getTransactionDetails`) as a state. */
  #paid(body: XmlNode, code: string, amountCents: number, currency: string, action: string): PaylineState {
    const accepted = code === CODE.accepted;
    const authorisedAt = parsePaylineDate(textAt(body, 'authorization', 'date') ?? textAt(body, 'transaction', 'date')) ?? this.clock.now();
    return {
      status: accepted ? (action === ACTION.sale ? 'captured' : 'authorized') : 'declined',
      amountCents,
      capturedCents: accepted && action === ACTION.sale ? amountCents : 0,
      refundedCents: 0,
      currency,
      paylineId: textAt(body, 'transaction', 'id') ?? null,
      authorisedAt: accepted ? authorisedAt.toISOString() : null,
      declineCode: accepted ? null : code,
    };
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const digits = input.card.number.replace(/ /g, '');
    const expYear = input.card.expYear >= 0 && input.card.expYear < 100 ? 2000 + input.card.expYear : input.card.expYear;
    const expiry = `${String(input.card.expMonth).padStart(2, '0')}${String(expYear % 100).padStart(2, '0')}`;
    const walletId = this.#ref('attach', input.idempotencyKey);
    const type = cardType(digits);
    const send = async (): Promise<contract.AttachResult> => {
      // The wallet is Payline's stored credential: the shopper consents on Chipin's card form to
      // later merchant-initiated charges; no amount is taken.
      const r = await this.#call('DirectPaymentAPI', 'createWallet', {
        contractNumber: this.credentials.reveal().contractNumber,
        wallet: {
          walletId,
          lastName: input.card.holderName.slice(0, 100),
          card: { number: digits, type, expirationDate: expiry, cvx: input.card.cvc, cardholder: input.card.holderName.slice(0, 100) },
        },
      });
      if (r.code === CODE.walletExists) {
        // Made by this key before its answer was lost (the wallet id is derived from the key):
        // read it back with getWallet rather than create a second one.
        const w = await this.#call('DirectPaymentAPI', 'getWallet', { contractNumber: this.credentials.reveal().contractNumber, walletId });
        const shown = textAt(w.body, 'wallet', 'card', 'number') ?? '';
        if (w.code !== CODE.walletDone || textAt(w.body, 'wallet', 'card', 'expirationDate') !== expiry || !shown.endsWith(digits.slice(-4))) {
          throw this.fault('idempotency_conflict', `wallet ${walletId} exists with another card`);
        }
        const token = textAt(w.body, 'wallet', 'card', 'token') ?? '';
        return {
          ok: true,
          paymentMethodId: encodeCard({ walletId, type, expiry, token }),
          brand: brandOf(digits),
          last4: digits.slice(-4),
          expMonth: input.card.expMonth,
          expYear,
        };
      }
      if (r.code !== CODE.walletDone && r.code !== CODE.walletDoneWarning) {
        if (isRefusal(r.code) || r.code === '02305')
          return { ok: false, reason: r.code === '02305' ? 'invalid_card' : declineReason(r.code), message: `Payline refused the card (${r.code}).` };
        throw this.fault('bad_response', `createWallet answered ${r.code}`);
      }
      const token = textAt(r.body, 'card', 'token') ?? '';
      return { ok: true, paymentMethodId: encodeCard({ walletId, type, expiry, token }), brand: brandOf(digits), last4: digits.slice(-4), expMonth: input.card.expMonth, expYear };
    };
    // A wallet created before a lost answer is not created twice: createWallet answers 02502 then, and the wallet is read back.
    return this.operations.once('attach', input.idempotencyKey, [digits.slice(-4), expiry], send, async () => undefined);
  }

  #card(pm: string): StoredCard {
    const c = decodeCard(pm);
    if (!c) throw this.fault('unknown_payment_method', 'not a Payline wallet reference');
    return c;
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    toPaylineAmount(input.amountCents, input.currency);
    const card = this.#card(input.paymentMethodId);
    const orderRef = this.#ref('authorize', input.idempotencyKey);
    const action = input.capture === 'automatic' ? ACTION.sale : ACTION.authorize;
    const send = async (): Promise<contract.TransactionResult> => {
      // 3-D Secure: Payline's MPI says whether the issuer wants the shopper (verifyEnrollment).
      const e = await this.#call('DirectPaymentAPI', 'verifyEnrollment', {
        card: { type: card.type, expirationDate: card.expiry },
        payment: this.#payment(input.amountCents, input.currency, action),
        orderRef,
        walletId: card.walletId,
        walletCardInd: '1',
        returnURL: input.returnUrl,
        order: this.#order(orderRef, input.amountCents, input.currency),
      });
      if (e.code === CODE.enrollmentAnswered && textAt(e.body, 'actionUrl')) {
        // A challenge: Chipin's return only reads the outcome (it forwards no CRes), so the
        // shopper goes through Payline's own 3-D Secure page, which authorises and comes back.
        const r = await this.#call('DirectPaymentAPI', 'doAuthorizationRedirect', {
          payment: this.#payment(input.amountCents, input.currency, action),
          card: { type: card.type, expirationDate: card.expiry, token: card.token },
          returnURL: input.returnUrl,
          cancelURL: input.returnUrl,
          order: this.#order(orderRef, input.amountCents, input.currency),
          securityMode: 'SSL',
        });
        const redirectURL = textAt(r.body, 'redirectURL');
        if (r.code !== CODE.accepted || !redirectURL || !/^https?:\/\//.test(redirectURL)) throw this.fault('bad_response', `doAuthorizationRedirect answered ${r.code}`);
        // Payline's pages carry their session token in the URL (`?token=`); getWebPaymentDetails reads the outcome with it.
        const webToken = new URL(redirectURL).searchParams.get('token');
        const pending: PaylineState = {
          status: 'requires_action',
          amountCents: input.amountCents,
          capturedCents: 0,
          refundedCents: 0,
          currency: input.currency,
          paylineId: null,
          authorisedAt: null,
          declineCode: null,
          webToken,
        };
        return this.#result(orderRef, pending, { challengeUrl: redirectURL });
      }
      if (e.code !== CODE.enrollmentAnswered && !e.code.startsWith('03')) throw this.fault('bad_response', `verifyEnrollment answered ${e.code}`);
      if (e.code !== CODE.enrollmentAnswered) {
        const refused: PaylineState = {
          status: 'declined',
          amountCents: input.amountCents,
          capturedCents: 0,
          refundedCents: 0,
          currency: input.currency,
          paylineId: null,
          authorisedAt: null,
          declineCode: e.code,
        };
        return this.#result(orderRef, refused);
      }
      const auth = child(e.body, 'authentication3DSecure');
      const container = textAt(auth, 'resultContainer');
      const p = await this.#call('DirectPaymentAPI', 'doImmediateWalletPayment', {
        payment: this.#payment(input.amountCents, input.currency, action),
        order: this.#order(orderRef, input.amountCents, input.currency),
        walletId: card.walletId,
        cardInd: '1',
        ...(container ? { authentication3DSecure: { resultContainer: container } } : {}),
      });
      if (p.code !== CODE.accepted && !isRefusal(p.code)) throw this.fault('bad_response', `doImmediateWalletPayment answered ${p.code}`);
      return this.#result(orderRef, this.#paid(p.body, p.code, input.amountCents, input.currency, action));
    };
    // The payment, if Payline took it before the answer was lost, is found by its order reference.
    const reconcile = async () => this.#lookup(orderRef, null).catch(() => undefined);
    return this.operations.once('authorize', input.idempotencyKey, authorizeParams(input), send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    toPaylineAmount(input.amountCents, input.currency);
    const card = this.#card(input.paymentMethodId);
    const orderRef = this.#ref('charge', input.idempotencyKey);
    // `manual`: action 100, a merchant-initiated authorisation held for doCapture or doReset as the
    // checkout's (a re-authorisation, docs/money-operations.md#re-authorisation); else 101, captured.
    const manual = input.capture === 'manual';
    const action = manual ? ACTION.authorize : ACTION.sale;
    const send = async (): Promise<contract.TransactionResult> => {
      // PSD2: a merchant-initiated payment names the customer-initiated one (linkedTransactionId,
      // Payline's transaction id of the CIT, read back by its order reference).
      let linked: string | undefined;
      if (input.storedCredential) {
        const cit = await this.#details(input.storedCredential.initialTransactionId, null);
        linked = cit ? textAt(cit.body, 'transaction', 'id') : undefined;
      }
      const p = await this.#call('DirectPaymentAPI', 'doImmediateWalletPayment', {
        payment: this.#payment(input.amountCents, input.currency, action),
        order: this.#order(orderRef, input.amountCents, input.currency),
        walletId: card.walletId,
        cardInd: '1',
        ...(linked ? { linkedTransactionId: linked } : {}),
      });
      if (p.code !== CODE.accepted && !isRefusal(p.code)) throw this.fault('bad_response', `doImmediateWalletPayment answered ${p.code}`);
      return this.#result(orderRef, this.#paid(p.body, p.code, input.amountCents, input.currency, action));
    };
    const reconcile = async () => this.#lookup(orderRef, null).catch(() => undefined);
    return this.operations.once('charge', input.idempotencyKey, chargeParams(input, manual), send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  /**
   * getTransactionDetails by Payline id or order reference; undefined when Payline knows no such
   * transaction. With `history`, Payline adds the transaction's associated operations (captures,
   * resets, refunds) to its answer.
   */
  async #details(orderRef: string, paylineId: string | null, history = false): Promise<{ body: XmlNode; code: string } | undefined> {
    const r = await this.#call('ExtendedAPI', 'getTransactionDetails', {
      ...(paylineId ? { transactionId: paylineId } : {}),
      orderRef,
      ...(history ? { transactionHistory: 'Y' } : {}),
    });
    if (r.code === CODE.invalidTransactionId || r.code === CODE.invalidTransaction) return undefined;
    return r;
  }

  /**
   * The outcome of Payline's 3-D Secure page: getWebPaymentDetails with its token, as the
   * doAuthorizationRedirect reference asks (02306: the shopper is still there).
   */
  async #webPayment(orderRef: string, state: PaylineState, token: string): Promise<contract.TransactionResult> {
    const w = await this.#call('WebPaymentAPI', 'getWebPaymentDetails', { token });
    if (w.code === CODE.inProgress) return this.#result(orderRef, state);
    if (w.code === CODE.noTransactionForToken) throw this.fault('unknown_transaction', `no payment for ${orderRef}`);
    if (w.code !== CODE.accepted && !isRefusal(w.code)) throw this.fault('bad_response', `getWebPaymentDetails answered ${w.code}`);
    const action = textAt(w.body, 'payment', 'action') ?? ACTION.authorize;
    const amountCents = fromPaylineAmount(textAt(w.body, 'payment', 'amount')) ?? state.amountCents;
    if (amountCents !== state.amountCents) throw this.fault('bad_response', 'getWebPaymentDetails: another amount than requested');
    return this.#result(orderRef, { ...this.#paid(w.body, w.code, amountCents, state.currency, action), webToken: null });
  }

  /**
   * Payline's view of the payment: its read, the amounts this connector recorded since (`state`),
   * and what Payline's associated transactions show on top (a call whose answer was lost).
   */
  async #lookup(orderRef: string, state: PaylineState | null): Promise<contract.TransactionResult | undefined> {
    if (state?.status === 'requires_action' && state.webToken) return this.#webPayment(orderRef, state, state.webToken);
    const d = await this.#details(orderRef, state?.paylineId ?? null, true);
    // A payment still on Payline's page, or refused at 3-D Secure before any authorisation, is not a transaction there yet.
    if (!d) return state && (state.status === 'requires_action' || state.status === 'declined') ? this.#result(orderRef, state) : undefined;
    if (d.code === CODE.inProgress) {
      if (!state) throw this.fault('bad_response', `payment ${orderRef} in progress with nothing known of it`);
      return this.#result(orderRef, { ...state, status: 'requires_action' });
    }
    if (d.code !== CODE.accepted && !isRefusal(d.code)) throw this.fault('bad_response', `getTransactionDetails answered ${d.code}`);
    const action = textAt(d.body, 'payment', 'action') ?? ACTION.authorize;
    const amountCents = fromPaylineAmount(textAt(d.body, 'payment', 'amount'));
    const currency = state?.currency ?? 'EUR';
    if (amountCents === undefined) throw this.fault('bad_response', 'getTransactionDetails: unreadable amount');
    const fresh = this.#paid(d.body, d.code, amountCents, currency, action);
    const history = paylineHistory(child(d.body, 'associatedTransactionsList'));
    // Later captures, refunds and a reset: what this connector recorded from Payline's answers,
    // and what Payline's own record shows beyond it (an answer that was lost).
    if (state && state.status !== 'requires_action' && fresh.status !== 'declined') {
      return this.#result(orderRef, withHistory({ ...state, paylineId: fresh.paylineId ?? state.paylineId }, history));
    }
    return this.#result(orderRef, withHistory(fresh, history));
  }

  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    if (!/^[A-Za-z0-9]{1,50}$/.test(transaction.transactionId)) throw this.fault('unknown_transaction', `no transaction ${transaction.transactionId}`);
    const r = await this.#lookup(transaction.transactionId, readState(transaction.pspState) ?? null);
    if (!r) throw this.fault('unknown_transaction', `no transaction ${transaction.transactionId}`);
    return r;
  }

  /**
   * One maintenance call, once per (operation, key) through the operation log: refused on the
   * current state before any call (src/psp/kit/maintenance.ts), else `decide` answers (a result)
   * or names the call to send; the state after an accepted call is `after`. A call
   * whose answer was lost is reconciled from Payline's associated transactions: `happened` tells,
   * from the state the caller stored before the call and the payment as Payline shows it now,
   * whether it took effect; then it is answered from that read and not sent again.
   */
  #maintain(
    op: 'capture' | 'void' | 'refund',
    input: MaintenanceInput,
    decide: (before: contract.TransactionResult, s: PaylineState) => contract.TransactionResult | PaylineRequest,
    happened: (before: PaylineState, now: contract.TransactionResult) => boolean,
  ): Promise<contract.TransactionResult> {
    const id = input.transaction.transactionId;
    const send = async (): Promise<contract.TransactionResult> => {
      const before = await this.retrieve(input.transaction);
      const s = readState(before.pspState ?? null)!;
      // A captured payment has released what it did not take: nothing more can be captured.
      if (op === 'capture' && (before.status === 'captured' || before.status === 'refunded')) return this.#refuse(before, 'amount_too_large', 'Nothing is left to capture.');
      const refusal = maintenanceRefusal(op, before, input.amountCents);
      if (refusal === 'unchanged') return before;
      if (refusal) return this.#refuse(before, REFUSAL_REASONS[refusal], REFUSAL_MESSAGES[refusal]);
      const decision = decide(before, s);
      if ('transactionId' in decision) return decision;
      if (!s.paylineId) throw this.fault('bad_response', `no Payline transaction id for ${id}`);
      const r = await this.#call('DirectPaymentAPI', decision.operation, { transactionID: s.paylineId, ...decision.message });
      if (r.code === CODE.invalidTransactionId || r.code === CODE.invalidTransaction) return this.#refuse(before, 'processing_error', `Payline refused the ${op} (${r.code}).`);
      if (r.code !== CODE.accepted) {
        if (isRefusal(r.code) || r.code.startsWith('02')) return this.#refuse(before, declineReason(r.code), `Payline refused the ${op} (${r.code}).`);
        throw this.fault('bad_response', `${decision.operation} answered ${r.code}`);
      }
      return this.#result(id, decision.after);
    };
    // Payline takes no key for these calls: what it did is read from the payment's associated
    // transactions. Without the state from before the call, nothing tells this call's effect from
    // an earlier one's: sent again (docs/psp/payline.md, "Idempotency").
    return maintainOnce(this.operations, op, input, send, { before: () => readState(input.transaction.pspState), now: (t) => this.retrieve(t), happened });
  }

  #refuse(before: contract.TransactionResult, reason: contract.DeclineReason, message: string): contract.TransactionResult {
    return refusedAsItStands(before, { reason, message });
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const request = (_before: contract.TransactionResult, s: PaylineState): PaylineRequest => ({
      operation: 'doCapture',
      message: { payment: this.#payment(input.amountCents, s.currency, ACTION.capture) },
      after: { ...s, status: 'captured', capturedCents: input.amountCents },
    });
    return this.#maintain('capture', input, request, (before, now) => before.status === 'authorized' && now.capturedCents > 0);
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const request = (before: contract.TransactionResult, s: PaylineState): contract.TransactionResult | PaylineRequest => {
      if (before.status === 'requires_action' && !s.paylineId) return this.#result(input.transaction.transactionId, { ...s, status: 'voided' });
      // doReset cancels an authorisation not yet captured.
      return { operation: 'doReset', message: { comment: 'Chipin: hold released' }, after: { ...s, status: 'voided' } };
    };
    return this.#maintain('void', input, request, (before, now) => before.status !== 'voided' && now.status === 'voided');
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const request = (_before: contract.TransactionResult, s: PaylineState): PaylineRequest => ({
      operation: 'doRefund',
      message: { payment: this.#payment(input.amountCents, s.currency, ACTION.refund) },
      after: { ...s, status: 'refunded', refundedCents: s.refundedCents + input.amountCents },
    });
    return this.#maintain('refund', input, request, refundHappened(input.amountCents));
  }

  /**
   * Payline calls a merchant's notification URL with a GET carrying a token for its web payment
   * and redirect flows, with no signature; Chipin's notification route takes POSTs. Nothing is
   * read from it: the reconciliation reads each payment with `retrieve` (docs/psp/payline.md).
   */
  async verifyNotification(): Promise<contract.NotificationResult> {
    return { ok: false, reason: 'malformed' };
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    // A read of an order that does not exist: authenticated, and changes nothing.
    return this.probeCredentials(async () => {
      await this.#details('CHIPINCREDENTIALCHECK', null);
    }, 'Payline refused the merchant id, access key or contract number.');
  }
}
