import { createHash } from 'node:crypto';
import { isKnownCurrency } from '../../domain/money.ts';
import type * as contract from '../connector.ts';
import { PspIntegrationError } from '../connector.ts';
import { amountsBefore, withAmounts, type Amounts } from '../kit/amounts-state.ts';
import { HttpKitConnector, type HttpKitConnectorOptions } from '../kit/connector-setup.ts';
import { statusFault } from '../kit/status-fault.ts';
import { REFUSAL_MESSAGES, maintainOnce, maintenanceRefusal, refundHappened, refusedAsItStands, type MaintenanceInput, type MaintenanceRefusal } from '../kit/maintenance.ts';
import {
  DUPLICATE_ORDER,
  UNKNOWN_ALIAS,
  UNKNOWN_ORDER,
  challengeFormFromHtml,
  declineFor,
  fromOgoneAmount,
  holdExpiry,
  isCredentialRefusal,
  isOgoneStatus,
  operationKind,
  parseNcResponse,
  parseTrxDate,
  shaSign,
  toOgoneAmount,
  toTransactionResult,
  type HashAlgorithm,
  type NcResponse,
  type OgoneView,
} from './mapping.ts';
import { verifyFeedback } from './notifications.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';

export interface OgoneCredentials {
  pspid: string;
  userId: string;
  password: string;
  shaIn: string;
  shaOut: string;
  algorithm: HashAlgorithm;
}

export interface OgoneConnectorOptions extends HttpKitConnectorOptions<OgoneCredentials> {
  /** `…/ncol/test` or `…/ncol/prod` (or a PSP account's endpoint_url): the DirectLink pages are under it. */
  baseUrl: string;
}

type Op = 'attach' | 'authorize' | 'charge' | 'capture' | 'void' | 'refund';

/** What the card verification at attach costs the shopper for a moment: 0.01 EUR, deleted at once. */
const VERIFY_AMOUNT = '1';
/** Ogone's own codes for the refusals decided before any call: expired, no such operation, amount too large. */
const REFUSAL_CODES: Record<MaintenanceRefusal, '50001048' | '50001127' | '50001174'> = {
  expired: '50001048',
  nothing_held: '50001127',
  captured: '50001127',
  more_than_held: '50001174',
  more_than_left: '50001174',
};
const ALIAS_USAGE = 'Chipin: later payments of the group purchases you join';
/** Sent with 3-D Secure requests where Chipin has not the shopper's own header. */
const HTTP_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function brandName(brand: string | undefined): string {
  const b = (brand ?? '').toLowerCase().replace(/\s+/g, '');
  if (b === 'visa') return 'visa';
  if (b === 'mastercard' || b === 'maestro') return b;
  if (b === 'americanexpress' || b === 'amex') return 'amex';
  if (b === 'discover' || b === 'jcb' || b === 'dinersclub') return b;
  return b || 'unknown';
}

/**
 * Ogone (Ingenico ePayments) DirectLink: form-encoded POSTs to orderdirect.asp, maintenancedirect.asp
 * and querydirect.asp with the API user's credentials and a SHA-IN signature; XML answers.
 *
 * Idempotency. DirectLink has no idempotency header; the merchant's ORDERID is unique per order
 * and the platform refuses a second order under an ORDERID already paid (NCERROR 50001113). So
 * an order's ORDERID is derived from our idempotency key, and before sending one the connector
 * asks querydirect.asp for that ORDERID: a call repeated with the same key — after a timeout,
 * from another process, after a restart — finds the first order and answers it, never charging
 * twice. Maintenance (capture, void, refund) has no merchant reference at Ogone: it goes through
 * the operation log (src/psp/kit/operations.ts), which replays a done call whichever process asks,
 * and a call whose outcome is unknown is reconciled by reading the transaction
 * (querydirect.asp) and comparing it with the amounts the caller stored before it (`pspState`).
 */
export class OgoneConnector extends HttpKitConnector<OgoneCredentials> implements contract.PspConnector {
  constructor(opts: OgoneConnectorOptions) {
    super('ogone', opts);
  }

  /** One DirectLink call: credentials and SHASIGN added, the XML answer read; faults thrown. */
  async #post(page: 'orderdirect.asp' | 'maintenancedirect.asp' | 'querydirect.asp', params: Record<string, string>): Promise<NcResponse> {
    const c = this.credentials.reveal();
    const all: Record<string, string> = { ...params, PSPID: c.pspid, USERID: c.userId, PSWD: c.password };
    all.SHASIGN = shaSign(all, c.shaIn, c.algorithm);
    const res = await this.client.request(page, `${this.baseUrl}/${page}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/xml, text/xml' },
      body: new URLSearchParams(all).toString(),
    });
    const text = res.text;
    const fault = statusFault(this.name, page, res.status);
    if (fault) throw fault;
    if (res.status !== 200) throw this.fault('bad_response', `${page}: HTTP ${res.status}`);
    const parsed = parseNcResponse(text);
    if (!parsed) throw this.fault('bad_response', `${page}: the answer is not an ncresponse`);
    if (isCredentialRefusal(parsed.attrs.NCERRORPLUS)) {
      throw this.fault(
        'bad_credentials',
        `${page}: refused the PSPID, API user, password, SHA-IN signature or server IP (${(parsed.attrs.NCERRORPLUS ?? '').split('/').slice(0, 3).join('/')})`,
      );
    }
    return parsed;
  }

  /** A 30-character ORDERID (Ogone's limit) derived from the operation and our idempotency key. */
  #orderId(op: Op, key: string): string {
    return `C${createHash('sha256').update(`${op}\u0000${key}`).digest('hex').slice(0, 29)}`;
  }

  async #queryOrder(orderId: string): Promise<Record<string, string> | undefined> {
    const r = await this.#post('querydirect.asp', { ORDERID: orderId });
    if (r.attrs.NCERROR === UNKNOWN_ORDER || r.attrs.STATUS === '88' || !r.attrs.PAYID || r.attrs.PAYID === '0') return undefined;
    return r.attrs;
  }

  /**
   * Sends an order under an ORDERID derived from the key, unless that ORDERID already exists:
   * then that order is the answer (after checking it is the same order).
   */
  async #order(
    orderId: string,
    params: Record<string, string>,
    same: (existing: Record<string, string>) => boolean,
  ): Promise<{ kind: 'order'; payId: string; htmlAnswer?: string } | { kind: 'refused'; ncError: string; ncErrorPlus?: string }> {
    const existing = await this.#queryOrder(orderId);
    if (existing) {
      if (!same(existing)) throw this.fault('idempotency_conflict', `order ${orderId} already exists with other parameters`);
      return { kind: 'order', payId: existing.PAYID! };
    }
    let r: NcResponse;
    try {
      r = await this.#post('orderdirect.asp', { ...params, ORDERID: orderId });
    } catch (e) {
      // The order may have been taken before the answer was lost: look before anyone retries.
      if (e instanceof PspIntegrationError && e.code === 'unreachable') {
        const found = await this.#queryOrder(orderId).catch(() => undefined);
        if (found) return { kind: 'order', payId: found.PAYID! };
      }
      throw e;
    }
    const a = r.attrs;
    if (a.NCERROR === DUPLICATE_ORDER) {
      const found = await this.#queryOrder(orderId);
      if (!found) throw this.fault('bad_response', `order ${orderId} reported as already processed but not found`);
      if (!same(found)) throw this.fault('idempotency_conflict', `order ${orderId} already exists with other parameters`);
      return { kind: 'order', payId: found.PAYID! };
    }
    if (a.NCERROR === UNKNOWN_ALIAS) throw this.fault('unknown_payment_method', `no stored card ${params.ALIAS ?? ''}`);
    if (!a.PAYID || a.PAYID === '0' || a.STATUS === '0') {
      if (a.NCERROR && a.NCERROR !== '0') return { kind: 'refused', ncError: a.NCERROR, ncErrorPlus: a.NCERRORPLUS };
      throw this.fault('bad_response', 'order answer without PAYID');
    }
    return { kind: 'order', payId: a.PAYID, ...(r.htmlAnswer ? { htmlAnswer: r.htmlAnswer } : {}) };
  }

  /** The transaction as Ogone holds it: its global status and its history of maintenance operations. */
  async #view(payId: string): Promise<OgoneView & { currency: string }> {
    if (!/^\d{1,20}$/.test(payId)) throw this.fault('unknown_transaction', `no transaction ${payId}`);
    const g = await this.#post('querydirect.asp', { PAYID: payId });
    const a = g.attrs;
    if (a.NCERROR === UNKNOWN_ORDER || a.STATUS === '88') throw this.fault('unknown_transaction', `no transaction ${payId}`);
    const status = Number(a.STATUS);
    const currency = a.currency ?? '';
    if (!/^\d+$/.test(a.STATUS ?? '') || !isOgoneStatus(status) || !isKnownCurrency(currency)) {
      throw this.fault('bad_response', `querydirect.asp: unreadable status or currency for ${payId}`);
    }
    const amountCents = fromOgoneAmount(a.amount, currency);
    if (amountCents === undefined) throw this.fault('bad_response', `querydirect.asp: unreadable amount for ${payId}`);
    const last = Number(a.PAYIDSUB ?? '0');
    if (!Number.isSafeInteger(last) || last < 0 || last > 1000) throw this.fault('bad_response', 'querydirect.asp: unreadable PAYIDSUB');
    let captured = 0;
    let refunded = 0;
    let authorisedOn: Date | undefined;
    for (let sub = 0; sub <= last; sub++) {
      const h = (await this.#post('querydirect.asp', { PAYID: payId, PAYIDSUB: String(sub) })).attrs;
      const s = Number(h.STATUS);
      if (!isOgoneStatus(s)) throw this.fault('bad_response', `querydirect.asp: unreadable status of ${payId}/${sub}`);
      const amount = fromOgoneAmount(h.amount, currency) ?? 0;
      const kind = operationKind(s);
      if (kind === 'capture') captured += sub === 0 ? amountCents : amount;
      else if (kind === 'refund') refunded += amount;
      if (sub === 0) authorisedOn = parseTrxDate(h.TRXDATE);
    }
    const view: OgoneView & { currency: string } = {
      currency,
      payId,
      status,
      amountCents,
      capturedCents: Math.min(captured, amountCents),
      refundedCents: refunded,
      ncError: a.NCERROR ?? '',
    };
    if (a.NCERRORPLUS) view.ncErrorPlus = a.NCERRORPLUS;
    if (status === 5 && authorisedOn) view.expiresAt = holdExpiry(authorisedOn);
    return view;
  }

  /** Ogone reads a transaction by its PAYID: the id is all this needs. */
  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return this.#read(transaction.transactionId);
  }

  async #read(transactionId: string): Promise<contract.TransactionResult> {
    return withAmounts(toTransactionResult(await this.#view(transactionId), this.clock.now()));
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const digits = input.card.number.replace(/ /g, '');
    const last4 = digits.slice(-4);
    const expYear = input.card.expYear >= 0 && input.card.expYear < 100 ? 2000 + input.card.expYear : input.card.expYear;
    const orderId = this.#orderId('attach', input.idempotencyKey);
    const alias = `CHIPIN${orderId.slice(1)}`;
    const ed = `${String(input.card.expMonth).padStart(2, '0')}${String(expYear % 100).padStart(2, '0')}`;
    // A 0.01 EUR authorisation stores the card as an Alias (a customer-initiated transaction,
    // first of a credential on file, with the shopper's consent given on Chipin's card form),
    // then is deleted at once: DirectLink has no card check without an authorisation.
    const params: Record<string, string> = {
      AMOUNT: VERIFY_AMOUNT,
      CURRENCY: 'EUR',
      OPERATION: 'RES',
      CARDNO: digits,
      ED: ed,
      CVC: input.card.cvc,
      CN: input.card.holderName,
      ALIAS: alias,
      ALIASUSAGE: ALIAS_USAGE,
      ECI: '7',
      COF_INITIATOR: 'CIT',
      COF_TRANSACTION: 'FIRST',
      COF_SCHEDULE: 'UNSCHED',
    };
    const o = await this.#order(orderId, params, (e) => (e.CARDNO ?? '').slice(-4) === last4 || !e.CARDNO);
    if (o.kind === 'refused') return { ok: false, ...declineFor(o.ncError, o.ncErrorPlus) };
    const g = (await this.#post('querydirect.asp', { PAYID: o.payId })).attrs;
    const status = Number(g.STATUS);
    if (status === 2 || status === 0 || status === 93) return { ok: false, ...declineFor(g.NCERROR || '30001001', g.NCERRORPLUS) };
    if (status === 5) {
      const del = await this.#post('maintenancedirect.asp', { PAYID: o.payId, OPERATION: 'DES' });
      if (del.attrs.NCERROR && del.attrs.NCERROR !== '0') throw this.fault('bad_response', `could not delete the card check ${o.payId}`);
    } else if (status !== 6 && status !== 61 && status !== 64) {
      throw this.fault('bad_response', `card check ${o.payId} answered status ${g.STATUS}`);
    }
    return { ok: true, paymentMethodId: alias, brand: brandName(g.BRAND), last4, expMonth: input.card.expMonth, expYear };
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const amount = toOgoneAmount(input.amountCents, input.currency);
    const params: Record<string, string> = {
      AMOUNT: amount,
      CURRENCY: input.currency,
      OPERATION: input.capture === 'automatic' ? 'SAL' : 'RES',
      ALIAS: input.paymentMethodId,
      ECI: '7',
      // 3-D Secure through DirectLink: FLAG3D, where to show the issuer's page, where it sends the shopper back.
      FLAG3D: 'Y',
      WIN3DS: 'MAINW',
      HTTP_ACCEPT,
      HTTP_USER_AGENT: 'Mozilla/5.0 (Chipin)',
      ACCEPTURL: input.returnUrl,
      DECLINEURL: input.returnUrl,
      EXCEPTIONURL: input.returnUrl,
      // PSD2: the shopper is present. With storeForLater this payment is the first of a credential
      // on file, with consent for unscheduled merchant-initiated charges later.
      COF_INITIATOR: 'CIT',
      COF_TRANSACTION: input.storeForLater ? 'FIRST' : 'SUBSEQ',
      COF_SCHEDULE: 'UNSCHED',
      ...(input.storeForLater ? { ALIASUSAGE: ALIAS_USAGE } : {}),
    };
    const orderId = this.#orderId('authorize', input.idempotencyKey);
    const o = await this.#order(orderId, params, (e) => this.#sameOrder(e, input.amountCents, input.currency));
    if (o.kind === 'refused') throw this.fault('bad_response', `order refused before authorisation (NCERROR ${o.ncError})`);
    const challenge = o.htmlAnswer ? challengeFormFromHtml(o.htmlAnswer) : undefined;
    return withAmounts(toTransactionResult(await this.#view(o.payId), this.clock.now(), challenge));
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    // Ogone ties a merchant-initiated charge to the customer-initiated one through the Alias
    // (stored by a COF_TRANSACTION=FIRST order); DirectLink takes no initial PAYID, so
    // `storedCredential` has nothing to carry here.
    const params: Record<string, string> = {
      AMOUNT: toOgoneAmount(input.amountCents, input.currency),
      CURRENCY: input.currency,
      // RES with `capture: 'manual'`: a merchant-initiated hold (status 5), captured (SAL/SAS) or
      // deleted (DES) by the same maintenance calls as the checkout's hold (a re-authorisation,
      // docs/money-operations.md#re-authorisation); otherwise SAL, captured at once.
      OPERATION: input.capture === 'manual' ? 'RES' : 'SAL',
      ALIAS: input.paymentMethodId,
      ECI: '9',
      COF_INITIATOR: 'MIT',
      COF_TRANSACTION: 'SUBSEQ',
      COF_SCHEDULE: 'UNSCHED',
    };
    const orderId = this.#orderId('charge', input.idempotencyKey);
    const o = await this.#order(orderId, params, (e) => this.#sameOrder(e, input.amountCents, input.currency));
    if (o.kind === 'refused') throw this.fault('bad_response', `order refused before authorisation (NCERROR ${o.ncError})`);
    return withAmounts(toTransactionResult(await this.#view(o.payId), this.clock.now()));
  }

  #sameOrder(e: Record<string, string>, amountCents: number, currency: string): boolean {
    return e.currency === currency && fromOgoneAmount(e.amount, currency) === amountCents;
  }

  /**
   * One maintenance operation, once per (operation, key) through the operation log: refused on the
   * current state before any call (src/psp/kit/maintenance.ts), else `request` is sent; `happened`
   * tells, from the amounts before the call and the transaction now, whether a call whose outcome
   * is unknown took effect.
   */
  #maintain(
    op: 'capture' | 'void' | 'refund',
    input: MaintenanceInput,
    request: (currency: string) => Record<string, string>,
    happened: (before: Amounts, now: contract.TransactionResult) => boolean,
  ): Promise<contract.TransactionResult> {
    const transactionId = input.transaction.transactionId;
    const send = async (): Promise<contract.TransactionResult> => {
      const view = await this.#view(transactionId);
      const before = withAmounts(toTransactionResult(view, this.clock.now()));
      const refusal = maintenanceRefusal(op, before, input.amountCents);
      if (refusal === 'unchanged') return before;
      if (refusal) return refusedAsItStands(before, { ...declineFor(REFUSAL_CODES[refusal], undefined), message: REFUSAL_MESSAGES[refusal] });
      const r = await this.#post('maintenancedirect.asp', { ...request(view.currency), PAYID: transactionId });
      const err = r.attrs.NCERROR ?? '';
      if (err === UNKNOWN_ORDER) throw this.fault('unknown_transaction', `no transaction ${transactionId}`);
      if (err !== '' && err !== '0') return refusedAsItStands(await this.#read(transactionId), declineFor(err, r.attrs.NCERRORPLUS));
      return this.#read(transactionId);
    };
    // No amounts from before the call: see docs/psp/ogone.md.
    return maintainOnce(this.operations, op, input, send, { before: () => amountsBefore(input.transaction), now: () => this.#read(transactionId), happened });
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    // SAS: the last (here the only) capture; what is not captured is released.
    const request = (currency: string) => ({ OPERATION: 'SAS', AMOUNT: toOgoneAmount(input.amountCents, currency) });
    return this.#maintain('capture', input, request, (before, now) => before.status === 'authorized' && now.capturedCents === input.amountCents);
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    // DES: delete the authorisation and close the transaction.
    return this.#maintain(
      'void',
      input,
      () => ({ OPERATION: 'DES' }),
      (_before, now) => now.status === 'voided',
    );
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    // RFD: a partial refund that leaves the transaction open for more.
    const request = (currency: string) => ({ OPERATION: 'RFD', AMOUNT: toOgoneAmount(input.amountCents, currency) });
    return this.#maintain('refund', input, request, refundHappened(input.amountCents));
  }

  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    const c = this.credentials.reveal();
    return verifyFeedback(input.rawBody, c.shaOut, c.algorithm);
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    // A query for an order that does not exist: authenticated and signed, and changes nothing.
    return this.probeCredentials(async () => {
      await this.#post('querydirect.asp', { ORDERID: 'CHIPIN-CREDENTIAL-CHECK' });
    }, 'Ogone refused the PSPID, API user, password or SHA-IN passphrase (or this server’s IP address).');
  }
}
