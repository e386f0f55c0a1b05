import { createHash } from 'node:crypto';
import type * as contract from '../connector.ts';
import { askedThreeDSecure } from '../connector.ts';
import type { ChallengeForm } from '../challenge-relay.ts';
import { HttpKitConnector, type HttpKitConnectorOptions } from '../kit/connector-setup.ts';
import { parseJson } from '../kit/json-call.ts';
import { REFUSAL_MESSAGES, captureRefusal, refundRefusal, refusedAsItStands, voidRefusal, type MaintenanceRefusal } from '../kit/maintenance.ts';
import { reviveTransaction } from '../kit/operations.ts';
import { statusFault } from '../kit/status-fault.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import { luhnValid } from '../kit/card-checks.ts';
import {
  cardValidityDate,
  challengeFormFromRedirectHtml,
  dalenysHash,
  declineFor,
  execOutcome,
  formBody,
  holdExpiry,
  isExecCode,
  readTransaction,
  toDalenysAmount,
  toStatus,
  type DalenysParams,
  type DalenysTransaction,
} from './mapping.ts';
import { verifyNotification } from './notifications.ts';

export interface DalenysCredentials {
  identifier: string;
  password: string;
}

export interface DalenysConnectorOptions extends HttpKitConnectorOptions<DalenysCredentials> {
  /** The host's root (`https://secure-test.dalenys.com`, or a PSP account's endpoint_url): the API paths are under it. */
  baseUrl: string;
}

/**
 * The API version: 3.0, as the Dalenys-era integrations send with 3-D Secure 2 (Payum/Be2Bill
 * `Api::VERSION`, Tikamoon's plugin `INTERFACE_VERSION`); the PHP SDK's default was 2.0.
 */
const VERSION = '3.0';
const PROCESS_PATH = '/front/service/rest/process';
const EXPORT_PATH = '/front/service/rest/export';
/** The card check at attach: the smallest authorisation, never captured (Dalenys has no operation that releases one: it lapses). */
const VERIFY_AMOUNT = '1';
/** Dalenys' EXECCODEs for the refusals decided before any call. */
const REFUSAL_CODES: Record<MaintenanceRefusal, string> = { expired: '2009', nothing_held: '2005', captured: '2005', more_than_held: '2007', more_than_left: '2008' };
/**
 * Dalenys wants the shopper's e-mail address, IP address and browser with every transaction
 * (`DirectLinkClient::transaction`); the connector contract carries none of them, so these stand in.
 */
const CLIENT = { CLIENTEMAIL: 'shopper@chipin.invalid', CLIENTIP: '127.0.0.1', CLIENTUSERAGENT: 'Chipin' } as const;

type Op = 'attach' | 'authorize' | 'charge' | 'capture' | 'refund';

/**
 * What the connector keeps of a transaction (`pspState`): the status and amounts of the last
 * result, and what Dalenys only tells by its own transactions — the capture's and the refunds'
 * TRANSACTIONIDs (each operation is a transaction of its own at Dalenys) — and a void, which
 * Dalenys has no operation for.
 */
interface DalenysState {
  status: contract.TransactionResult['status'];
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
  authorisedAt?: string;
  captureId?: string;
  refundIds: string[];
  voided?: boolean;
}

function readState(s: contract.PspState | null): DalenysState | undefined {
  if (!s || typeof s.status !== 'string' || !Number.isSafeInteger(s.capturedCents) || !Number.isSafeInteger(s.refundedCents)) return undefined;
  const state: DalenysState = {
    status: s.status as DalenysState['status'],
    amountCents: Number.isSafeInteger(s.amountCents) ? (s.amountCents as number) : 0,
    capturedCents: s.capturedCents as number,
    refundedCents: s.refundedCents as number,
    refundIds: Array.isArray(s.refundIds) ? (s.refundIds as unknown[]).filter((x): x is string => typeof x === 'string') : [],
  };
  if (typeof s.authorisedAt === 'string') state.authorisedAt = s.authorisedAt;
  if (typeof s.captureId === 'string') state.captureId = s.captureId;
  if (s.voided === true) state.voided = true;
  return state;
}

function toPspState(s: DalenysState): contract.PspState {
  return {
    status: s.status,
    amountCents: s.amountCents,
    capturedCents: s.capturedCents,
    refundedCents: s.refundedCents,
    refundIds: s.refundIds,
    ...(s.authorisedAt ? { authorisedAt: s.authorisedAt } : {}),
    ...(s.captureId ? { captureId: s.captureId } : {}),
    ...(s.voided ? { voided: true } : {}),
  };
}

const EMPTY: DalenysState = { status: 'requires_action', amountCents: 0, capturedCents: 0, refundedCents: 0, refundIds: [] };

/** A card Dalenys would refuse as an invalid parameter, in our words. */
function cardRefusal(digits: string, expMonth: number, expYear: number, cvc: string, now: Date): { reason: contract.DeclineReason; message: string } | undefined {
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) return { reason: 'invalid_card', message: 'The card number is not valid.' };
  if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12 || expYear * 12 + expMonth - 1 < now.getUTCFullYear() * 12 + now.getUTCMonth()) {
    return { reason: 'expired_card', message: 'The card has expired.' };
  }
  if (!/^\d{3,4}$/.test(cvc)) return { reason: 'incorrect_cvc', message: 'The security code is not valid.' };
  return undefined;
}

function brandName(cardType: string | undefined, digits: string): string {
  const b = (cardType ?? '').toLowerCase().replace(/\s+/g, '');
  if (b === 'visa' || b === 'mastercard' || b === 'maestro' || b === 'jcb' || b === 'discover') return b;
  if (b === 'americanexpress' || b === 'amex') return 'amex';
  if (b === 'cb' || b === '') return digits.startsWith('4') ? 'visa' : /^(5[1-5]|2[2-7])/.test(digits) ? 'mastercard' : 'unknown';
  return b;
}

/**
 * Dalenys (formerly Be2bill) server-to-server API: form-encoded POSTs of `method=<operation>` and
 * `params[…]` to /front/service/rest/process (and /export for `getTransactions`), signed with
 * HASH (SHA-256 over the sorted parameters and the account's password); JSON answers with an
 * EXECCODE.
 *
 * Idempotency. Dalenys has no idempotency key and checks no ORDERID for uniqueness, so every
 * mutating call goes through the operation log, and each carries an ORDERID derived from its
 * idempotency key: a call whose outcome is unknown (a timeout, a crash) is reconciled by asking
 * `getTransactions` for that ORDERID, and sent again only if Dalenys has no transaction under it.
 */
export class DalenysConnector extends HttpKitConnector<DalenysCredentials> implements contract.PspConnector {
  constructor(opts: DalenysConnectorOptions) {
    super('dalenys', opts);
  }

  /** One call: IDENTIFIER, VERSION and HASH added, the JSON answer read; faults thrown (credential refusals included). */
  async #call(method: string, params: Record<string, string>, path = PROCESS_PATH): Promise<Record<string, unknown>> {
    const c = this.credentials.reveal();
    const all: Record<string, string> = { ...params, IDENTIFIER: c.identifier, OPERATIONTYPE: method, VERSION };
    all.HASH = dalenysHash(all, c.password);
    const res = await this.client.request(method, `${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/json' },
      body: formBody(method, all as DalenysParams),
    });
    const fault = statusFault(this.name, method, res.status);
    if (fault) throw fault;
    if (res.status !== 200) throw this.fault('bad_response', `${method}: HTTP ${res.status}`);
    const body = parseJson(this.name, method, res);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw this.fault('bad_response', `${method}: the answer is not a JSON object`);
    const answer = body as Record<string, unknown>;
    const code = typeof answer.EXECCODE === 'string' ? answer.EXECCODE : '';
    const outcome = isExecCode(code) ? execOutcome(code) : undefined;
    if (outcome?.kind === 'fault' && outcome.fault === 'bad_credentials') {
      throw this.fault('bad_credentials', `${method}: Dalenys refused the identifier, the password (HASH) or this server's IP address (EXECCODE ${code})`);
    }
    if (outcome?.kind === 'fault' && outcome.fault === 'unreachable') throw this.fault('unreachable', `${method}: Dalenys is under maintenance (EXECCODE ${code})`);
    if (outcome?.kind === 'fault' && outcome.fault === 'bad_request') throw this.fault('bad_response', `${method}: Dalenys refused the request (EXECCODE ${code})`);
    return answer;
  }

  /** `getTransactions` without a destination: the transactions themselves, in DATA. Unknown ids are simply absent. */
  async #lookup(by: { TRANSACTIONID: string } | { ORDERID: string }): Promise<DalenysTransaction[]> {
    const answer = await this.#call('getTransactions', by, EXPORT_PATH);
    if (answer.EXECCODE === '2002') return [];
    if (answer.EXECCODE !== '0000') throw this.fault('bad_response', `getTransactions: EXECCODE ${String(answer.EXECCODE)}`);
    if (!Array.isArray(answer.DATA)) return [];
    const out: DalenysTransaction[] = [];
    for (const entry of answer.DATA) {
      const t = readTransaction(entry);
      if (!t) throw this.fault('bad_response', 'getTransactions: a DATA entry without TRANSACTIONID or EXECCODE');
      out.push(t);
    }
    return out;
  }

  /** A 32-character ORDERID derived from the operation and our idempotency key. */
  #orderId(op: Op, key: string): string {
    return `CH${createHash('sha256').update(`${op}\u0000${key}`).digest('hex').slice(0, 30)}`;
  }

  /** The payment or authorisation folded with its capture, refunds and our void: the result and the state to keep. */
  #fold(main: DalenysTransaction, state: DalenysState, children: readonly DalenysTransaction[], challenge?: ChallengeForm): contract.TransactionResult {
    const now = this.clock.now();
    const amountCents = main.amountCents ?? state.amountCents;
    let status = toStatus(main);
    let captured = status === 'captured' ? amountCents : 0;
    const next: DalenysState = { ...state, refundIds: [...state.refundIds], amountCents };
    let expiresAt: Date | undefined;
    if (status === 'authorized') {
      const authorisedAt = state.authorisedAt ? new Date(state.authorisedAt) : (main.date ?? now);
      next.authorisedAt = authorisedAt.toISOString();
      const capture = children.find((t) => t.transactionId === state.captureId && t.execCode === '0000');
      expiresAt = holdExpiry(authorisedAt);
      if (capture) {
        captured = capture.amountCents ?? amountCents;
        status = 'captured';
        expiresAt = undefined;
      } else if (state.voided) status = 'voided';
      else if (now.getTime() >= expiresAt.getTime()) status = 'expired';
    }
    if (status === 'requires_action' && state.voided) status = 'voided';
    let refunded = 0;
    for (const t of children) if (state.refundIds.includes(t.transactionId) && t.execCode === '0000') refunded += t.amountCents ?? 0;
    if (refunded > 0 && (status === 'captured' || status === 'refunded')) status = 'refunded';
    next.status = status;
    next.capturedCents = captured;
    next.refundedCents = refunded;
    const result: contract.TransactionResult = {
      transactionId: main.transactionId,
      status,
      amountCents,
      capturedCents: captured,
      refundedCents: refunded,
      pspState: toPspState(next),
    };
    if (status === 'declined') result.decline = declineFor(main.execCode, main.message);
    if (status === 'requires_action' && challenge) result.challengeForm = challenge;
    if ((status === 'authorized' || status === 'expired') && expiresAt) result.expiresAt = expiresAt;
    return result;
  }

  /** The transaction as Dalenys holds it now, with its capture and refunds (the ids the state names). */
  async #read(transactionId: string, state: DalenysState): Promise<contract.TransactionResult> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(transactionId)) throw this.fault('unknown_transaction', `no transaction ${transactionId}`);
    const ids = [transactionId, ...(state.captureId ? [state.captureId] : []), ...state.refundIds];
    const found = await this.#lookup({ TRANSACTIONID: ids.join(';') });
    const main = found.find((t) => t.transactionId === transactionId);
    if (!main) throw this.fault('unknown_transaction', `no transaction ${transactionId}`);
    return this.#fold(
      main,
      state,
      found.filter((t) => t !== main),
    );
  }

  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    return this.#read(transaction.transactionId, readState(transaction.pspState) ?? EMPTY);
  }

  /** A transaction's answer as a DalenysTransaction (the answer to a payment does not repeat the AMOUNT). */
  #answered(answer: Record<string, unknown>, operationType: string, amount: string): DalenysTransaction {
    const t = readTransaction({ OPERATIONTYPE: operationType, AMOUNT: amount, ...answer });
    if (!t) throw this.fault('bad_response', `${operationType}: an answer without TRANSACTIONID or EXECCODE`);
    return t;
  }

  /** A creation (attach, authorisation, off-session charge): found again by its ORDERID when its outcome is unknown. */
  async #create(op: Op, key: string, fingerprint: readonly unknown[], send: () => Promise<contract.TransactionResult>, amount: string): Promise<contract.TransactionResult> {
    const orderId = this.#orderId(op, key);
    const reconcile = async (): Promise<contract.TransactionResult | undefined> => {
      const found = (await this.#lookup({ ORDERID: orderId })).find((t) => t.operationType === 'payment' || t.operationType === 'authorization');
      if (!found) return undefined;
      if (found.amountCents !== undefined && String(found.amountCents) !== amount) throw this.fault('idempotency_conflict', `order ${orderId} exists with another amount`);
      return this.#fold(found, EMPTY, []);
    };
    return this.operations.once(op, key, fingerprint, send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async #transaction(op: Op, key: string, params: Record<string, string>): Promise<{ answer: Record<string, unknown>; t: DalenysTransaction }> {
    const method = params.OPERATIONTYPE!;
    const { OPERATIONTYPE: _drop, ...rest } = params;
    const answer = await this.#call(method, { ...rest, ORDERID: this.#orderId(op, key) });
    if (answer.EXECCODE === '2001') throw this.fault('unknown_payment_method', 'no stored card under this ALIAS');
    return { answer, t: this.#answered(answer, method, params.AMOUNT ?? '') };
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const digits = input.card.number.replace(/ /g, '');
    const expYear = input.card.expYear >= 0 && input.card.expYear < 100 ? 2000 + input.card.expYear : input.card.expYear;
    const key = input.idempotencyKey;
    // Dalenys answers a malformed card as an invalid parameter (1002), not a refusal: checked here
    // first, as the card form would, so that the shopper gets the refusal's reason.
    const refusal = cardRefusal(digits, input.card.expMonth, expYear, input.card.cvc, this.clock.now());
    if (refusal) return { ok: false, ...refusal };
    const send = async (): Promise<contract.TransactionResult & { attach?: contract.AttachResult }> => {
      // An authorisation that creates the ALIAS (CREATEALIAS=yes): the customer-initiated
      // transaction that stores the card, with the shopper's consent given on Chipin's card form.
      const { answer, t } = await this.#transaction('attach', key, {
        OPERATIONTYPE: 'authorization',
        AMOUNT: VERIFY_AMOUNT,
        CARDCODE: digits,
        CARDVALIDITYDATE: cardValidityDate(input.card.expMonth, expYear),
        CARDCVV: input.card.cvc,
        CARDFULLNAME: input.card.holderName,
        CREATEALIAS: 'yes',
        CLIENTIDENT: `chipin-${this.#orderId('attach', key).slice(2, 18)}`,
        DESCRIPTION: 'Chipin: card check',
        ...CLIENT,
      });
      const result = this.#fold(t, EMPTY, []);
      if (result.status === 'declined') return { ...result, attach: { ok: false, ...result.decline! } };
      const alias = typeof answer.ALIAS === 'string' ? answer.ALIAS : '';
      if (result.status !== 'authorized' || !alias) throw this.fault('bad_response', `card check ${t.transactionId} answered EXECCODE ${t.execCode} without an ALIAS`);
      return {
        ...result,
        attach: { ok: true, paymentMethodId: alias, brand: brandName(t.cardType, digits), last4: digits.slice(-4), expMonth: input.card.expMonth, expYear },
      };
    };
    // A card check whose answer was lost is simply sent again (reconcile finds nothing to reuse):
    // it takes no money, and its ALIAS came only in the lost answer.
    const r = await this.operations.once(
      'attach',
      key,
      [digits, input.card.expMonth, expYear, input.card.holderName],
      send,
      async () => undefined,
      (x) => x as contract.TransactionResult & { attach?: contract.AttachResult },
    );
    if (!r.attach) throw this.fault('bad_response', 'card check without an outcome');
    return r.attach;
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const amount = toDalenysAmount(input.amountCents, input.currency);
    const send = async () => {
      // The shopper is present: a one-click payment on the ALIAS, with 3-D Secure where the issuer wants it.
      const { answer, t } = await this.#transaction('authorize', input.idempotencyKey, {
        OPERATIONTYPE: input.capture === 'automatic' ? 'payment' : 'authorization',
        AMOUNT: amount,
        ALIAS: input.paymentMethodId,
        ALIASMODE: 'oneclick',
        '3DSECURE': 'yes',
        '3DSECUREDISPLAYMODE': 'main',
        // PSD2: the checkout that consents to later charges asks the issuer for strong
        // authentication, as does the merchant's `always`; its `never` asks for none, the issuer
        // deciding whether it may (docs/psp-connectors.md#the-merchants-3-d-secure-choice).
        ...threeDSecurePreference(input),
        CLIENTIDENT: this.#clientIdent(input.paymentMethodId),
        DESCRIPTION: 'Chipin',
        ...CLIENT,
      });
      // 0001 carries the issuer's form in 3DSECUREHTML; 0002 (a redirection) in REDIRECTHTML.
      const html = answer['3DSECUREHTML'] ?? answer.REDIRECTHTML;
      const challenge = typeof html === 'string' ? challengeFormFromRedirectHtml(html) : undefined;
      if (t.execCode === '0001' && !challenge) throw this.fault('bad_response', `authorisation ${t.transactionId}: 3-D Secure without a readable 3DSECUREHTML form`);
      return this.#fold(t, EMPTY, [], challenge);
    };
    return this.#create('authorize', input.idempotencyKey, [input.paymentMethodId, amount, input.currency, input.capture, input.storeForLater === true], send, amount);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    const amount = toDalenysAmount(input.amountCents, input.currency);
    const send = async () => {
      // A merchant-initiated charge: ALIASMODE=subscription on the ALIAS that the shopper's own
      // card check stored (Dalenys ties the MIT to the credential by the ALIAS; it takes no initial
      // TRANSACTIONID, so `storedCredential` has nothing more to carry).
      const { t } = await this.#transaction('charge', input.idempotencyKey, {
        OPERATIONTYPE: 'payment',
        AMOUNT: amount,
        ALIAS: input.paymentMethodId,
        ALIASMODE: 'subscription',
        CLIENTIDENT: this.#clientIdent(input.paymentMethodId),
        DESCRIPTION: 'Chipin',
        ...CLIENT,
      });
      return this.#fold(t, EMPTY, []);
    };
    return this.#create('charge', input.idempotencyKey, [input.paymentMethodId, amount, input.currency], send, amount);
  }

  #clientIdent(alias: string): string {
    return `chipin-${createHash('sha256').update(alias).digest('hex').slice(0, 16)}`;
  }

  #refuse(before: contract.TransactionResult, code: string, message: string): contract.TransactionResult {
    return refusedAsItStands(before, { ...declineFor(code, message) });
  }

  /** A refusal decided before any call, with the EXECCODE Dalenys gives it. */
  #refuseAsIs(before: contract.TransactionResult, refusal: MaintenanceRefusal): contract.TransactionResult {
    return this.#refuse(before, REFUSAL_CODES[refusal], REFUSAL_MESSAGES[refusal]);
  }

  /**
   * A capture or refund, once per key through the operation log: `decide` refuses on the current
   * state or names the request; a call whose outcome is unknown is found again by its ORDERID.
   */
  #maintain(
    op: 'capture' | 'refund',
    input: contract.AmountOperation,
    decide: (before: contract.TransactionResult, state: DalenysState) => contract.TransactionResult | { target: string },
  ): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    assertAmount(input.amountCents);
    const transactionId = input.transaction.transactionId;
    const stored = readState(input.transaction.pspState) ?? EMPTY;
    const orderId = this.#orderId(op, input.idempotencyKey);
    const withChild = (state: DalenysState, childId: string): DalenysState =>
      op === 'capture' ? { ...state, captureId: childId } : { ...state, refundIds: [...state.refundIds, childId] };
    const settle = async (state: DalenysState, child: DalenysTransaction): Promise<contract.TransactionResult> => {
      if (child.execCode === '0000') return this.#read(transactionId, withChild(state, child.transactionId));
      return this.#refuse(await this.#read(transactionId, state), child.execCode, child.message);
    };
    const send = async (): Promise<contract.TransactionResult> => {
      const before = await this.#read(transactionId, stored);
      const state = readState(before.pspState!)!;
      const decision = decide(before, state);
      if ('transactionId' in decision) return decision;
      const amount = String(input.amountCents);
      const answer = await this.#call(op, {
        TRANSACTIONID: decision.target,
        ORDERID: orderId,
        AMOUNT: amount,
        DESCRIPTION: op === 'capture' ? 'Chipin: capture' : 'Chipin: refund',
      });
      if (answer.EXECCODE === '2002') throw this.fault('unknown_transaction', `no transaction ${decision.target}`);
      return settle(state, this.#answered(answer, op, amount));
    };
    const reconcile = async (): Promise<contract.TransactionResult | undefined> => {
      const found = (await this.#lookup({ ORDERID: orderId })).find((t) => t.operationType === op);
      return found ? settle(stored, found) : undefined;
    };
    return this.operations.once(op, input.idempotencyKey, [transactionId, input.amountCents], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    return this.#maintain('capture', input, (before) => {
      const refusal = captureRefusal(before, input.amountCents);
      if (refusal) return this.#refuseAsIs(before, refusal);
      // One capture; an AMOUNT below the authorised one captures that much and releases the rest.
      return { target: before.transactionId };
    });
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    return this.#maintain('refund', input, (before, state) => {
      const refusal = refundRefusal(before, input.amountCents);
      if (refusal) return this.#refuseAsIs(before, refusal);
      // A captured authorisation is refunded through its capture transaction, a payment directly.
      return { target: state.captureId ?? before.transactionId };
    });
  }

  /**
   * Dalenys has no operation that releases an authorisation (its operations: payment,
   * authorization, capture, refund, credit, stopntimes, getTransactions and the exports): an
   * authorisation not captured lapses on its own after 7 days. A void is therefore Chipin's
   * decision never to capture it, kept in `pspState`, through the operation log as any call.
   */
  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    const transactionId = input.transaction.transactionId;
    const send = async (): Promise<contract.TransactionResult> => {
      const state = readState(input.transaction.pspState) ?? EMPTY;
      const before = await this.#read(transactionId, state);
      const refusal = voidRefusal(before);
      if (refusal === 'unchanged') return before;
      if (refusal) return this.#refuseAsIs(before, refusal);
      return this.#read(transactionId, { ...readState(before.pspState!)!, voided: true });
    };
    return this.operations.once('void', input.idempotencyKey, [transactionId], send, async () => undefined, reviveTransaction<contract.TransactionResult>);
  }

  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    return verifyNotification(input.rawBody, this.credentials.reveal().password);
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    // A read of a transaction that does not exist: signed, authenticated, and changes nothing.
    return this.probeCredentials(async () => {
      await this.#lookup({ TRANSACTIONID: 'CHIPINCREDENTIALCHECK' });
    }, 'Dalenys refused the identifier or the password (or this server’s IP address).');
  }
}

/** Dalenys' `3DSECUREPREFERENCE` of an on-session payment; none: the issuer decides. */
function threeDSecurePreference(input: contract.AuthorizeInput): { '3DSECUREPREFERENCE'?: 'sca' | 'frictionless' } {
  const asked = askedThreeDSecure(input);
  if (input.storeForLater || asked === 'always') return { '3DSECUREPREFERENCE': 'sca' };
  return asked === 'never' ? { '3DSECUREPREFERENCE': 'frictionless' } : {};
}
