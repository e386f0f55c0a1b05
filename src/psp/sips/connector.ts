import type * as contract from '../connector.ts';
import { PspIntegrationError } from '../connector.ts';
import { HttpKitConnector, type HttpKitConnectorOptions } from '../kit/connector-setup.ts';
import { parseJson } from '../kit/json-call.ts';
import { statusFault } from '../kit/status-fault.ts';
import { createHash } from 'node:crypto';
import { amountsBefore, type Amounts } from '../kit/amounts-state.ts';
import { maintainOnce, maintenanceRefusal, refundHappened, refusedAsItStands, type MaintenanceInput } from '../kit/maintenance.ts';
import { reviveTransaction, chargeParams } from '../kit/operations.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import {
  acquirerReason,
  computeSeal,
  declineMessage,
  fromSipsAmount,
  fromSipsCurrency,
  hasValidSeal,
  INTERFACE_VERSIONS,
  isSipsResponseCode,
  isSipsTransactionStatus,
  responseMeaning,
  SEAL_ALGORITHM,
  SIPS_PATHS,
  toExpiryDate,
  toSipsAmount,
  toSipsCurrency,
  toStatus,
  transactionReference,
  type SipsPath,
  type SipsTransactionStatus,
  type SipsValue,
} from './mapping.ts';

export interface SipsCredentials {
  merchantId: string;
  secretKey: string;
  keyVersion: string;
}

export interface SipsConnectorOptions extends HttpKitConnectorOptions<SipsCredentials> {
  /** The brand's Office server (`https://office-server….`), or a PSP account's endpoint_url. */
  baseUrl: string;
}

/** An Office JSON answer whose seal was checked: its fields, `responseCode` among them. */
export type SipsAnswer = { readonly [k: string]: SipsValue; readonly responseCode: string };

/**
 * Worldline Sips 2.0 Office, JSON (Mercanet, Sogenactif, Sherlock's and Worldline's own offer:
 * one platform, the brand chooses the host): server-to-server POSTs of JSON messages, each
 * carrying `merchantId`, `interfaceVersion`, `keyVersion` and its `seal` (HMAC-SHA-256 of the
 * field values, src/psp/sips/mapping.ts); every answer carries a seal too, checked before
 * anything of it is believed.
 *
 * Cards are stored in a Sips wallet (`wallet/addCard`: one wallet per stored card, the
 * paymentMethodId names the wallet and its payment mean). A payment on session checks 3-D Secure
 * (`walletCheckEnrollment`), posts the shopper to the ACS when Sips asks (`challengeForm`), and is
 * ordered by `cardValidateAuthenticationAndOrder`; a merchant-initiated charge duplicates the
 * customer-initiated payment (`cashManagement/duplicate`, the stored-credential chain); holds are
 * validated, cancelled or refunded by cash management; `getTransactionData` reads a transaction.
 *
 * Idempotency. Our `transactionReference` (unique per shop, never reusable) is derived from the
 * idempotency key, and every mutating call goes through the operation log; a creation whose
 * outcome is unknown is reconciled by reading that reference, a cash-management call by reading
 * the transaction and comparing it with the amounts stored before it (`pspState`).
 */
export class SipsConnector extends HttpKitConnector<SipsCredentials> implements contract.PspConnector {
  constructor(opts: SipsConnectorOptions) {
    super('sips', opts);
  }

  /**
   * One Office call: `merchantId`, `interfaceVersion`, `keyVersion`, `sealAlgorithm` and the seal
   * added; the answer read as JSON and its seal checked. Sips answers its own refusals of the
   * request (a wrong seal: `34`; an unknown merchant contract: `03`) in a 200 with that
   * `responseCode` and no seal we could check, so those are read before the seal.
   */
  async #call(path: SipsPath, interfaceVersion: string, fields: Readonly<Record<string, SipsValue>>): Promise<SipsAnswer> {
    const c = this.credentials.reveal();
    const message: Record<string, SipsValue> = { ...fields, interfaceVersion, merchantId: c.merchantId, keyVersion: c.keyVersion, sealAlgorithm: SEAL_ALGORITHM };
    message.seal = computeSeal(message, c.secretKey);
    const what = path.slice(path.lastIndexOf('/') + 1);
    const answer = await this.client.json(what, `${this.baseUrl}${path}`, { method: 'POST', headers: { accept: 'application/json' }, body: message });
    const fault = statusFault(this.name, what, answer.status);
    if (fault) throw fault;
    if (answer.status !== 200) throw this.fault('bad_response', `${what}: HTTP ${answer.status}`);
    const body = parseJson(this.name, what, answer);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw this.fault('bad_response', `${what}: the answer is not a JSON object`);
    const parsed = body as Record<string, SipsValue>;
    const code = parsed.responseCode;
    if (!isSipsResponseCode(code)) throw this.fault('bad_response', `${what}: no readable responseCode`);
    const meaning = responseMeaning(code);
    if (meaning.kind === 'fault' && meaning.code === 'bad_credentials') {
      throw this.fault('bad_credentials', `${what}: Sips refused the merchantId, secret key or key version (responseCode ${code})`);
    }
    if (!hasValidSeal(parsed, c.secretKey)) throw this.fault('bad_response', `${what}: the answer's seal is missing or wrong`);
    return parsed as SipsAnswer;
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    // Reading a transaction that does not exist: sealed and authenticated, and changes nothing.
    // Sips answers `25` (unknown transaction) to good credentials.
    return this.probeCredentials(async () => {
      const a = await this.#call(SIPS_PATHS.getTransactionData, INTERFACE_VERSIONS.diagnostic, { transactionReference: 'CHIPINCREDENTIALCHECK' });
      if (a.responseCode !== '25' && a.responseCode !== '00') throw this.fault('bad_response', `getTransactionData: responseCode ${a.responseCode}`);
    }, 'Sips refused the merchant id, the secret key or its version (check the brand too: each bank has its own server).');
  }

  #reference(op: string, key: string): string {
    return transactionReference(op, key, (t) => createHash('sha256').update(t).digest('hex'));
  }

  /** A refusal or fault of a `responseCode` that is neither `00` nor handled by the caller. */
  #unexpected(what: string, a: SipsAnswer): PspIntegrationError {
    const code = a.responseCode as Parameters<typeof responseMeaning>[0];
    const m = responseMeaning(code);
    if (m.kind === 'unknown_transaction') return this.fault('unknown_transaction', `${what}: unknown transaction`);
    if (m.kind === 'fault') return this.fault(m.code, `${what}: responseCode ${code}`);
    return this.fault('bad_response', `${what}: unexpected responseCode ${code}`);
  }

  /** The transaction as `getTransactionData` shows it, with the amounts the caller stored before. */
  async #read(transactionId: string, state: contract.PspState | null): Promise<contract.TransactionResult> {
    return (await this.#view(transactionId, state)).result;
  }

  async #view(transactionId: string, state: contract.PspState | null): Promise<{ result: contract.TransactionResult; sips: SipsTransactionStatus }> {
    if (!/^[A-Za-z0-9]{1,35}$/.test(transactionId)) throw this.fault('unknown_transaction', `no transaction ${transactionId}`);
    const g = await this.#call(SIPS_PATHS.getTransactionData, INTERFACE_VERSIONS.diagnostic, { transactionReference: transactionId });
    if (g.responseCode === '25') {
      const voided = unorderedVoid(transactionId, state);
      if (voided) return { result: voided, sips: 'CANCELLED' };
      throw this.fault('unknown_transaction', `no transaction ${transactionId}`);
    }
    if (g.responseCode !== '00') throw this.#unexpected('getTransactionData', g);
    const status = g.transactionStatus;
    const amount = fromSipsAmount(g.originAmount);
    const current = fromSipsAmount(g.currentAmount);
    const currency = fromSipsCurrency(g.currencyCode);
    if (!isSipsTransactionStatus(status) || amount === undefined || current === undefined || !currency) {
      throw this.fault('bad_response', `getTransactionData: unreadable status, amounts or currency of ${transactionId}`);
    }
    return { result: this.#result(transactionId, status, amount, current, currency, g, state), sips: status };
  }

  /**
   * Our result from Sips' view. Sips shows the original amount and the current one (what is still
   * to collect or collected, after cancellations and refunds), not what was captured then
   * refunded: the capture is remembered in `pspState` from the result that made it (a partial
   * validation, the only one), and a payment known without it counts its current amount as captured.
   */
  #result(
    transactionId: string,
    status: SipsTransactionStatus,
    amountCents: number,
    currentCents: number,
    currency: string,
    g: SipsAnswer,
    state: contract.PspState | null,
  ): contract.TransactionResult {
    const before = amountsBefore({ transactionId, pspState: state });
    const knownCaptured = before && (before.status === 'captured' || before.status === 'refunded') ? before.capturedCents : undefined;
    let ours = toStatus(status, 0);
    let captured = 0;
    let refunded = 0;
    if (ours === 'captured') {
      captured = knownCaptured ?? currentCents;
      refunded = Math.max(0, captured - currentCents);
      ours = refunded > 0 ? 'refunded' : 'captured';
    } else if (ours === 'voided' && knownCaptured !== undefined) {
      // Cancelling what was still to collect, down to nothing: the whole capture given back.
      captured = knownCaptured;
      refunded = knownCaptured;
      ours = 'refunded';
    }
    const r: contract.TransactionResult = { transactionId, status: ours, amountCents, capturedCents: captured, refundedCents: refunded };
    if (ours === 'declined') {
      const reason =
        g.holderAuthentStatus === 'FAILURE'
          ? 'authentication_failed'
          : (acquirerReason(typeof g.acquirerResponseCode === 'string' ? g.acquirerResponseCode : undefined) ?? 'card_declined');
      r.decline = { reason, message: declineMessage(reason) };
    }
    if (ours === 'authorized' && typeof g.captureLimitDate === 'string' && /^\d{8}$/.test(g.captureLimitDate)) {
      const d = g.captureLimitDate;
      r.expiresAt = new Date(Date.UTC(Number(d.slice(0, 4)), Number(d.slice(4, 6)) - 1, Number(d.slice(6, 8)) + 1));
    }
    r.pspState = { status: r.status, capturedCents: r.capturedCents, refundedCents: r.refundedCents, currency };
    return r;
  }

  async retrieve(transaction: contract.TransactionRef, _options?: unknown): Promise<contract.TransactionResult> {
    const pending = transaction.pspState?.pending;
    if (pending && typeof pending === 'object' && !Array.isArray(pending)) {
      const p = pending as { redirectionData?: unknown; messageVersion?: unknown; amountCents?: unknown };
      if (typeof p.redirectionData === 'string') {
        const waiting = await this.#order(transaction.transactionId, p.redirectionData, typeof p.messageVersion === 'string' ? p.messageVersion : undefined);
        if (waiting) {
          const amountCents = typeof p.amountCents === 'number' ? p.amountCents : waiting.amountCents;
          return { ...waiting, amountCents, pspState: transaction.pspState ?? { status: waiting.status, capturedCents: 0, refundedCents: 0 } };
        }
      }
    }
    return this.#read(transaction.transactionId, transaction.pspState);
  }

  /**
   * Orders a payment whose 3-D Secure check is done (`cardValidateAuthenticationAndOrder`): Sips
   * takes the authentication's outcome from the `redirectionData` of the check. Answers a result
   * when the authentication is not over yet (the shopper is still at the ACS); undefined once the
   * payment is ordered, refused, or was ordered before (`24`, `94`): then read it.
   */
  async #order(reference: string, redirectionData: string, messageVersion: string | undefined): Promise<contract.TransactionResult | undefined> {
    const a = await this.#call(SIPS_PATHS.validateAndOrder, INTERFACE_VERSIONS.checkout, {
      transactionReference: reference,
      redirectionData,
      ...(messageVersion ? { messageVersion } : {}),
    });
    const m = responseMeaning(a.responseCode as Parameters<typeof responseMeaning>[0]);
    if (m.kind === 'pending') {
      const amount = fromSipsAmount(a.amount) ?? 0;
      return { transactionId: reference, status: 'requires_action', amountCents: amount, capturedCents: 0, refundedCents: 0 };
    }
    if (m.kind === 'ok' || m.kind === 'refused' || m.kind === 'duplicate') return undefined;
    throw this.#unexpected('cardValidateAuthenticationAndOrder', a);
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const digits = input.card.number.replace(/ /g, '');
    const last4 = digits.slice(-4);
    const expYear = input.card.expYear >= 0 && input.card.expYear < 100 ? 2000 + input.card.expYear : input.card.expYear;
    // A Sips wallet keeps no security code (PCI DSS forbids storing it): its format is checked
    // here, the only place Chipin sees it.
    if (!/^\d{3,4}$/.test(input.card.cvc)) return { ok: false, reason: 'incorrect_cvc', message: declineMessage('incorrect_cvc') };
    const wallet = this.#reference('wallet', input.idempotencyKey);
    const send = async (): Promise<contract.AttachResult> => {
      const a = await this.#call(SIPS_PATHS.addCard, INTERFACE_VERSIONS.wallet, {
        merchantWalletId: wallet,
        cardNumber: digits,
        cardExpiryDate: toExpiryDate(input.card.expMonth, expYear),
        panType: 'PAN',
      });
      const m = responseMeaning(a.responseCode as Parameters<typeof responseMeaning>[0]);
      if (m.kind === 'refused') return { ok: false, reason: m.reason, message: declineMessage(m.reason) };
      if (m.kind !== 'ok') throw this.#unexpected('addCard', a);
      const id = a.paymentMeanId;
      if (typeof id !== 'string' || !/^[A-Za-z0-9]{1,40}$/.test(id)) throw this.fault('bad_response', 'addCard: no paymentMeanId');
      const brand = typeof a.paymentMeanBrand === 'string' ? a.paymentMeanBrand.toLowerCase() : 'unknown';
      return { ok: true, paymentMethodId: `${wallet}:${id}`, brand, last4, expMonth: input.card.expMonth, expYear };
    };
    // The same card added again to the same wallet is the same payment mean: sending again is the reconciliation.
    return this.operations.once('attach', input.idempotencyKey, [last4, input.card.expMonth, expYear], send, () => Promise.resolve(undefined));
  }

  #paymentMethod(paymentMethodId: string): { merchantWalletId: string; paymentMeanId: string } {
    const m = /^([A-Za-z0-9]{1,35}):([A-Za-z0-9]{1,40})$/.exec(paymentMethodId);
    if (!m) throw this.fault('unknown_payment_method', 'not a Sips wallet payment mean');
    return { merchantWalletId: m[1]!, paymentMeanId: m[2]! };
  }

  /** A creation's reconciliation: the transaction under its reference, or undefined when Sips has none. */
  async #found(reference: string): Promise<contract.TransactionResult | undefined> {
    try {
      return await this.#read(reference, null);
    } catch (e) {
      if (e instanceof PspIntegrationError && e.code === 'unknown_transaction') return undefined;
      throw e;
    }
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const pm = this.#paymentMethod(input.paymentMethodId);
    // A reference Sips has taken stays taken (`94`) even when the check it started was never
    // ordered (its answer lost, the redirectionData with it): the next attempt takes the next one.
    const references = [0, 1, 2].map((i) => this.#reference(i === 0 ? 'authorize' : `authorize#${i}`, input.idempotencyKey));
    const send = async (): Promise<contract.TransactionResult> => {
      for (const reference of references) {
        const r = await this.#checkAndOrder(input, pm, reference);
        if (r) return r;
      }
      throw this.fault('bad_response', 'walletCheckEnrollment: every transactionReference of this payment is taken');
    };
    const reconcile = async (): Promise<contract.TransactionResult | undefined> => {
      for (const reference of references) {
        const found = await this.#found(reference);
        if (found) return found;
      }
      return undefined;
    };
    return this.operations.once(
      'authorize',
      input.idempotencyKey,
      [input.paymentMethodId, input.amountCents, input.currency, input.capture, input.storeForLater === true],
      send,
      reconcile,
      reviveTransaction<contract.TransactionResult>,
    );
  }

  /**
   * The 3-D Secure check of a payment under `reference`, and its order when no challenge is asked.
   * Undefined when Sips already took the reference and holds no payment under it.
   */
  async #checkAndOrder(
    input: contract.AuthorizeInput,
    pm: { merchantWalletId: string; paymentMeanId: string },
    reference: string,
  ): Promise<contract.TransactionResult | undefined> {
    const a = await this.#call(SIPS_PATHS.walletCheckEnrollment, INTERFACE_VERSIONS.checkout, {
      ...pm,
      amount: toSipsAmount(input.amountCents, input.currency),
      currencyCode: toSipsCurrency(input.currency),
      transactionReference: reference,
      orderChannel: 'INTERNET',
      merchantReturnUrl: input.returnUrl,
      // AUTHOR_CAPTURE: collected at the end of the capture day with no further act; VALIDATION:
      // a hold, validated by cashManagement/validate within captureDay days, else it expires.
      captureMode: input.capture === 'automatic' ? 'AUTHOR_CAPTURE' : 'VALIDATION',
      captureDay: input.capture === 'automatic' ? 0 : HOLD_DAYS,
      // PSD2: with storeForLater, the first of a series of merchant-initiated payments.
      paymentPattern: input.storeForLater ? 'RECURRING_1' : 'ONE_SHOT',
    });
    if (a.responseCode === '94') return this.#found(reference);
    if (a.responseCode !== '00') {
      const m = responseMeaning(a.responseCode as Parameters<typeof responseMeaning>[0]);
      if (m.kind === 'refused') {
        return {
          transactionId: reference,
          status: 'declined',
          amountCents: input.amountCents,
          capturedCents: 0,
          refundedCents: 0,
          decline: { reason: m.reason, message: declineMessage(m.reason) },
        };
      }
      throw this.#unexpected('walletCheckEnrollment', a);
    }
    const redirectionData = typeof a.redirectionData === 'string' ? a.redirectionData : undefined;
    const messageVersion = typeof a.messageVersion === 'string' ? a.messageVersion : undefined;
    if (!redirectionData) throw this.fault('bad_response', 'walletCheckEnrollment: no redirectionData');
    if (a.redirectionStatusCode === '00') {
      // Sips asks for the shopper at the ACS: a form POST ("POST form to the ACS").
      if (typeof a.redirectionUrl !== 'string' || !/^https?:\/\//.test(a.redirectionUrl)) throw this.fault('bad_response', 'walletCheckEnrollment: no redirectionUrl');
      const fields: Record<string, string> = { TermUrl: input.returnUrl, MD: redirectionData };
      if (typeof a.paReqMessage === 'string') fields.PaReq = a.paReqMessage;
      return {
        transactionId: reference,
        status: 'requires_action',
        amountCents: input.amountCents,
        capturedCents: 0,
        refundedCents: 0,
        challengeForm: { action: a.redirectionUrl, fields },
        pspState: {
          status: 'requires_action',
          capturedCents: 0,
          refundedCents: 0,
          pending: { redirectionData, amountCents: input.amountCents, ...(messageVersion ? { messageVersion } : {}) },
        },
      };
    }
    // No authentication asked (frictionless, or a card outside 3-D Secure): order at once.
    const waiting = await this.#order(reference, redirectionData, messageVersion);
    if (waiting) throw this.fault('bad_response', 'cardValidateAuthenticationAndOrder: pending without a challenge');
    return this.#read(reference, null);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    const pm = this.#paymentMethod(input.paymentMethodId);
    const reference = this.#reference('charge', input.idempotencyKey);
    const manual = input.capture === 'manual';
    const common = {
      amount: toSipsAmount(input.amountCents, input.currency),
      currencyCode: toSipsCurrency(input.currency),
      transactionReference: reference,
      // `manual`: a merchant-initiated hold (VALIDATION, as on session), validated or cancelled
      // later (a re-authorisation, docs/money-operations.md#re-authorisation).
      captureMode: manual ? 'VALIDATION' : 'AUTHOR_CAPTURE',
      captureDay: manual ? HOLD_DAYS : 0,
    };
    const send = async (): Promise<contract.TransactionResult> => {
      // A merchant-initiated payment is a duplicate of the customer-initiated one that stored the
      // card: Sips takes its bank details and its place in the stored-credential chain. Without
      // one, the wallet's payment mean alone is all there is (`walletOrder`), which issuers refuse
      // for want of the shopper's authentication.
      const initial = input.storedCredential?.initialTransactionId;
      const a = initial
        ? await this.#call(SIPS_PATHS.duplicate, INTERFACE_VERSIONS.cashManagement, { ...common, fromTransactionReference: initial, orderChannel: 'INTERNET' })
        : await this.#call(SIPS_PATHS.walletOrder, INTERFACE_VERSIONS.checkout, { ...common, ...pm, orderChannel: 'INTERNET', paymentPattern: 'RECURRING_N' });
      if (a.responseCode === '94') throw this.fault('idempotency_conflict', `transaction ${reference} already exists`);
      const m = responseMeaning(a.responseCode as Parameters<typeof responseMeaning>[0]);
      if (m.kind !== 'ok' && m.kind !== 'refused') throw this.#unexpected(initial ? 'duplicate' : 'walletOrder', a);
      return this.#read(reference, null);
    };
    return this.operations.once('charge', input.idempotencyKey, chargeParams(input, manual), send, () => this.#found(reference), reviveTransaction<contract.TransactionResult>);
  }

  /**
   * One cash-management operation, once per (operation, key) through the operation log: refused
   * on the transaction now before any call (src/psp/kit/maintenance.ts), else `request` names the
   * call to make; `happened` tells, from the amounts before and the transaction now, whether a
   * call whose outcome is unknown took effect.
   */
  #maintain(
    op: 'capture' | 'void' | 'refund',
    input: MaintenanceInput,
    request: (before: contract.TransactionResult, sips: SipsTransactionStatus) => { path: SipsPath; operationAmount: number },
    happened: (before: Amounts, now: contract.TransactionResult) => boolean,
  ): Promise<contract.TransactionResult> {
    const transaction = input.transaction;
    const id = transaction.transactionId;
    const send = async (): Promise<contract.TransactionResult> => {
      const pending = transaction.pspState?.pending;
      if (op === 'void' && pending && typeof pending === 'object' && !Array.isArray(pending)) {
        // A payment still at 3-D Secure is not ordered: voiding it is forgetting its check, so
        // that no later retrieve orders it. Sips has nothing to cancel.
        const ordered = await this.#found(id);
        if (!ordered) {
          const amountCents = typeof (pending as { amountCents?: unknown }).amountCents === 'number' ? (pending as { amountCents: number }).amountCents : 0;
          return unorderedVoid(id, { status: 'voided', capturedCents: 0, refundedCents: 0, unordered: true, amountCents })!;
        }
      }
      const { result: before, sips } = await this.#view(id, transaction.pspState);
      // A captured payment is refunded, not cancelled whole.
      const refusal = maintenanceRefusal(op, before, input.amountCents, ['authorized']);
      if (refusal === 'unchanged') return before;
      if (refusal) return this.#refuse(before, refusal === 'expired' ? 'authorization_expired' : refusal === 'captured' ? 'processing_error' : 'amount_too_large');
      const decision = request(before, sips);
      const currency = typeof before.pspState?.currency === 'string' ? before.pspState.currency : 'EUR';
      const a = await this.#call(decision.path, INTERFACE_VERSIONS.cashManagement, {
        transactionReference: id,
        operationAmount: decision.operationAmount,
        currencyCode: toSipsCurrency(currency),
        operationOrigin: 'CHIPIN',
      });
      const m = responseMeaning(a.responseCode as Parameters<typeof responseMeaning>[0]);
      if (m.kind === 'refused') return this.#refuse(before, m.reason);
      if (m.kind !== 'ok') throw this.#unexpected(decision.path.slice(decision.path.lastIndexOf('/') + 1), a);
      const after = await this.#read(id, before.pspState ?? null);
      if (op === 'capture' && after.status === 'captured') {
        // What was validated is what is captured from now on (the rest is released).
        after.capturedCents = decision.operationAmount;
        after.pspState = { ...after.pspState, capturedCents: decision.operationAmount };
      }
      return after;
    };
    return maintainOnce(this.operations, op, input, send, { before: () => amountsBefore(transaction), now: () => this.#read(id, transaction.pspState), happened });
  }

  #refuse(before: contract.TransactionResult, reason: contract.DeclineReason): contract.TransactionResult {
    return refusedAsItStands(before, { reason, message: declineMessage(reason) });
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    // validate: the one validation of a hold; what it leaves out is released.
    const request = () => ({ path: SIPS_PATHS.validate, operationAmount: input.amountCents });
    return this.#maintain('capture', input, request, (before, now) => before.status === 'authorized' && now.status === 'captured');
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    // cancel of the whole amount: nothing is ever collected.
    const request = (before: contract.TransactionResult) => ({ path: SIPS_PATHS.cancel, operationAmount: before.amountCents });
    return this.#maintain('void', input, request, (_before, now) => now.status === 'voided');
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    // Sips refunds what was collected (CAPTURED); what is still to collect (TO_CAPTURE) is
    // cancelled instead: the shopper is then never debited that part.
    const request = (_before: contract.TransactionResult, sips: SipsTransactionStatus) => ({
      path: sips === 'CAPTURED' ? SIPS_PATHS.refund : SIPS_PATHS.cancel,
      operationAmount: input.amountCents,
    });
    return this.#maintain('refund', input, request, refundHappened(input.amountCents));
  }

  verifyNotification(_input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    // Sips Office sends no notification (automatic responses belong to the Paypage): Chipin's
    // reconciliation reads the outcome with getTransactionData (retrieve).
    return Promise.resolve({ ok: false, reason: 'malformed' });
  }
}

/** The result of a payment voided while still at 3-D Secure (never ordered at Sips), from its state. */
function unorderedVoid(transactionId: string, state: contract.PspState | null): contract.TransactionResult | undefined {
  if (!state || state.unordered !== true || typeof state.amountCents !== 'number') return undefined;
  return { transactionId, status: 'voided', amountCents: state.amountCents, capturedCents: 0, refundedCents: 0, pspState: state };
}

/** Days a manual-capture hold can be validated (captureDay): it lapses on the 7th day, as the contract's holds do. */
const HOLD_DAYS = 6;
