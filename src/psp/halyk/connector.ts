import { constants, createPublicKey, publicEncrypt, type KeyObject } from 'node:crypto';
import { Redacted } from '../../domain/redacted.ts';
import type * as contract from '../connector.ts';
import { UnusableCredentialError } from '../connector.ts';
import type { ConnectorContext, PspAccountConfig, PspEnvironment } from '../definition.ts';
import { HttpKitConnector, kitOptions } from '../kit/connector-setup.ts';
import { reviveTransaction, authorizeParams, chargeParams } from '../kit/operations.ts';
import { statusFault } from '../kit/status-fault.ts';
import { assertAmount, assertCurrency, assertKey, assertReturnUrl } from '../input-checks.ts';
import {
  HALYK_CURRENCIES,
  INVOICE_ID,
  brandOf,
  cryptogramPayload,
  declineOf,
  externalIdFor,
  holdExpiry,
  invoiceIdFor,
  isEpayId,
  isLapsed,
  readError,
  readPayment,
  readStatus,
  toEpayAmount,
  toStatus,
  type EpayPayment,
  type EpayTransaction,
} from './mapping.ts';
import { checkCardLocally } from '../kit/card-checks.ts';

/**
 * ePay's API base URLs: `https://testepay.homebank.kz/api` (test) and `https://epay-api.homebank.kz`
 * (production), as its operation, status and payment pages and its SDK name them.
 */
export const HALYK_BASE_URLS = { test: 'https://testepay.homebank.kz/api', live: 'https://epay-api.homebank.kz' } as const;
/** ePay's OAuth servers (`<base>/oauth2/token`), as its token page and its SDK name them. */
export const HALYK_OAUTH_URLS = { test: 'https://testoauth.homebank.kz/epay2', live: 'https://epay-oauth.homebank.kz' } as const;
/** The hosts the connector calls, per environment (the ACS pages are the shopper's browser's business, not ours). */
export const HALYK_HOSTS = { test: ['testepay.homebank.kz', 'testoauth.homebank.kz'], live: ['epay-api.homebank.kz', 'epay-oauth.homebank.kz'] } as const;

/**
 * ePay's RSA public keys for card cryptograms (base64 DER, SubjectPublicKeyInfo), per environment,
 * as ePay's own SDK carries them (github.com/halyk/EpaySDK, `Constants.swift`: the production key,
 * and the one of its test environment, testepay.homebank.kz). An account's `public_key` replaces it.
 */
const HALYK_PUBLIC_KEYS: Record<PspEnvironment, string> = {
  test: 'MIICIjANBgkqhkiG9w0BAQEFAAOCAg8AMIICCgKCAgEAqoATnGMtByQojuoYFKExvEqszShV2vk6chCJFx0/vmSHBqcCTazhJqBmYU9gyM/TjVWLsjFAbd4nvCxIGpqFg3J7UJccfODKibyfSUSqGsAJE1MJh3EaJivkd85/FkZkv3zBeT/193NmakNs0+T+PUMmSdAPSnfUWi2KSIp48mSA38CbMvOwndkKNEeqCoIQn/fApfZ8MWIEFVd3gpfsVe0zYhSjvTOHPD0/7TOdcQyArxLZY0yS7m32rUOibuO7EhGNQL/bC73ZbuS5nXhra03nNIW3FfSJUTJBjVWDZRoNk9gm4pOimAeb0IiqnmlTPOvkqHYsOEjQ8KJAFlGO1igelk1+dA5ZiY6r0YExc1KnW7UsnGk6nr7cgOR2po/sa4kctiKLqlGA35ILmUBQYb6iReCQkggXMOvmP6p+4wEt1B7V8UJxzFZcQZ5QSRIk3o3pVrfY0gksidl0Xt5mft+E6a77ZQKG4TOQS9Ly1mIJ2qqaWqCWglVMWFiFCx9dXTN0RMli1T0rs1gA2jsPz2/HiyY8EUp6t4Ufc8VbJYG9vt24UTwYgu+qDEBjggm5YKVCxjCvhJWwh9LaL9UuK46Apgr5wgEyMIJZRO7RxkjKkJI29FAP3wEs9y+/3qsjH3chFzdX0/+6lA+9lePKPX0Z5SPexWRiQp9bND4iZRcCAwEAAQ==',
  live: 'MIICIjANBgkqhkiG9w0BAQEFAAOCAg8AMIICCgKCAgEAvZSmF6cGaZmjeWqnquUsclylxU3JuZ5zUAeQSfcAMlX37CsoSs7QWUOwVSrurLGtVB4IEHH9wmJTgVTt3I5Amm6AQ/vzeq+vB1mjNXy1V6kgjAlfJncJBq9nUKOmIihrV6K5ehIXoFXVlovQAmUm3YJ7zXwuPOqCqu/wm7POhtGI8KZ8Sdkm2uqq/jtwG7+BGu0CSrZWeWyAparVieCeizjDN3KXizXaYw9Y1hNUqU4drh/kphVxxgSb296/TVgOoYIqi2cTNRAOVDtEqZ05wH7L3u6jKjwTtQLdFRjzm5J2r+HPylAxePkU1LONFNEHtEBxEUdPOBCZrWNbz3N7DUSCwKl+H+nXYUetWYhdXH6Vqnojm8Nq8e/txPnXAJiTzndV0FHzEwVmSwzgKSu54qXrXq13f4PcvVvFUtTv8NWk2nlAHV1W9R07PvZlFN5wPJfZpFv47te+kx9qlQuaJbbz0W/YXSXZEHAMY7/ZQYD/1qG8uz7LQxut33q1iW1p3kSO3UyVCRwONmH1sjTXvDx5mb3es61h8cI4xjfpCiHWtPSZLfF8Ce+J4x+2AvcYH7C4x3VqroMpSo7zpWX0uXRX4BGaB2B5IM83yuGt7Zkg5R5x2dKE1E1wAErewyvhSqQne0QC16w00rNgDGhGKz/+DyszrX2VGmTockF/7FcCAwEAAQ==',
};

/** What an account's `public_key` must be, as a refusal says it. */
export const HALYK_PUBLIC_KEY_EXPECTED = 'expected an RSA public key in base64 (DER, SubjectPublicKeyInfo), on one line';

/**
 * An RSA public key from its base64 DER (SubjectPublicKeyInfo), as ePay gives it; undefined when
 * the text is not one: base64 that does not read back as itself (stray characters), or bytes that
 * are no public key, or a key that is not RSA (ePay's cryptogram is RSA PKCS#1 v1.5).
 */
export function halykPublicKey(base64: string): KeyObject | undefined {
  const der = Buffer.from(base64, 'base64');
  // Read back as written (its padding aside): Node's decoder skips what is not base64 silently.
  if (der.length === 0 || der.toString('base64').replace(/=+$/, '') !== base64.replace(/=+$/, '')) return undefined;
  try {
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'rsa' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** A card cryptogram: the payload encrypted with ePay's key (RSA PKCS#1 v1.5), base64. */
function cryptogramOf(key: KeyObject, payload: string): string {
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(payload, 'utf8')).toString('base64');
}

/** The scope ePay's payment, card verification and status pages ask the token for. */
const SCOPE = 'webapi usermanagement email_send verification statement statistics payment';
/**
 * The request field of the cryptogram, spelt as ePay's cryptogram page and its SDK spell it: the
 * first letter is the Cyrillic "с" (U+0441), not the Latin "c".
 */
const CRYPTOGRAM_FIELD = '\u0441ryptogram';
/** The currency of a card verification (attach), which moves no money. */
const VERIFICATION_CURRENCY = 'KZT';

/** What the connector keeps of a transaction (see {@link PspState}). */
interface HalykState {
  status: contract.TransactionResult['status'];
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
  currency: string;
  /** ePay's transaction id (`/operation/:id/...`), once known. */
  epay?: string;
  /** An on-session payment waiting for 3-D Secure: charge it once authorised (automatic capture). */
  capture?: boolean;
  /** A payment Chipin voided while its 3-D Secure was pending: its hold is released once it appears. */
  voided?: boolean;
  /** Why ePay refused the payment, as its error answer said (its status answer may not). */
  decline?: { reason: contract.DeclineReason; message: string };
}

/**
 * Halyk bank's ePay for one merchant terminal (docs/psp/halyk.md): an OAuth token per operation
 * (client credentials, the terminal, and for a payment its invoice number, amount and currency),
 * JSON calls with it as a bearer token.
 *
 * - The terminal must run ePay's two-step scheme (DMS): every payment is a hold (`AUTH`);
 *   automatic capture charges it at once (`POST /operation/:id/charge`).
 * - Attach is ePay's card verification: a payment of 0 with the card's cryptogram (the card data
 *   encrypted with ePay's RSA public key) and `cardSave: true`; ePay's `CardID` is our payment
 *   method. Payments, on and off session, are `POST /payments/cards/auth` with that CardID.
 * - Chipin names a transaction by our invoice number (15 digits derived from the idempotency key),
 *   which ePay's status answer is read by; ePay's transaction id travels in `pspState`.
 * - ePay keeps no idempotency key: a call whose answer was lost is reconciled by reading the
 *   invoice's status (a payment made, a hold charged or cancelled, what remains after a refund).
 */
export class HalykConnector extends HttpKitConnector<{ clientId: string; clientSecret: string }> implements contract.PspConnector {
  readonly #terminalId: string;
  readonly #publicKey: KeyObject | undefined;
  readonly #oauth: string;

  constructor(account: PspAccountConfig, context: ConnectorContext) {
    const { client_id: clientId, client_secret: clientSecret, terminal_id: terminalId, public_key: publicKey } = account.credentials;
    if (!clientId || !clientSecret || !terminalId) throw new TypeError('halyk: client_id, client_secret and terminal_id are required');
    super('halyk', { ...kitOptions(account, context), credentials: { clientId, clientSecret } }, 'baseUrl');
    this.#terminalId = terminalId;
    // ePay's token server is a host of its own; an endpoint_url other than the published API base
    // (a proxy, a local fake) is taken to serve `/oauth2/token` too.
    this.#oauth = this.baseUrl === HALYK_BASE_URLS[account.environment] ? HALYK_OAUTH_URLS[account.environment] : this.baseUrl;
    // An unusable stored key stops card attaches only (a typed fault there): reads, and so the
    // reconciliation, go on (docs/psp-connectors.md#credential-checks).
    this.#publicKey = halykPublicKey(publicKey || HALYK_PUBLIC_KEYS[account.environment]);
  }

  /** ePay's key for cryptograms; an {@link UnusableCredentialError} when the account's cannot be read as one. */
  #usableKey(): KeyObject {
    if (!this.#publicKey) throw new UnusableCredentialError('halyk', 'credentials.public_key', HALYK_PUBLIC_KEY_EXPECTED);
    return this.#publicKey;
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const key = this.#usableKey();
    const check = checkCardLocally(input.card, this.clock.now());
    if (!check.ok) return check;
    const c = input.card;
    const invoice = invoiceIdFor('attach', input.idempotencyKey);
    const card = { brand: brandOf(check.digits), last4: check.digits.slice(-4), expMonth: c.expMonth, expYear: check.year };
    const send = async (): Promise<contract.AttachResult> => {
      const cryptogram = cryptogramOf(key, cryptogramPayload(check.digits, c.expMonth, check.year, c.cvc, this.#terminalId));
      const token = await this.#token({ invoiceID: invoice, amount: '0', currency: VERIFICATION_CURRENCY, postLink: '', failurePostLink: '' });
      const answer = await this.#post('payment/cryptopay', '/payment/cryptopay', token, {
        amount: 0,
        currency: VERIFICATION_CURRENCY,
        name: c.holderName,
        [CRYPTOGRAM_FIELD]: cryptogram,
        invoiceId: invoice,
        description: 'Card verification',
        postLink: '',
        failurePostLink: '',
        cardSave: true,
      });
      if ('refused' in answer) return { ok: false, ...answer.refused };
      if (answer.payment.secure3D) throw this.fault('not_supported', 'payment/cryptopay: ePay asks 3-D Secure to verify the card, which a card attach cannot relay');
      if (!answer.payment.cardId) throw this.fault('bad_response', 'payment/cryptopay: the answer has no CardID');
      return { ok: true, paymentMethodId: answer.payment.cardId, ...card };
    };
    const reconcile = async (): Promise<contract.AttachResult | undefined> => {
      const t = await this.#status(invoice);
      if (!t) return undefined;
      if (t.cardId && t.statusName !== 'REJECT' && t.statusName !== 'FAILED') return { ok: true, paymentMethodId: t.cardId, ...card };
      return { ok: false, ...declineOf(t.reasonCode) };
    };
    return this.operations.once('attach', input.idempotencyKey, [check.digits, c.expMonth, check.year, c.cvc, c.holderName], send, reconcile);
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    assertAmount(input.amountCents);
    this.#assertCurrency(input.currency);
    assertReturnUrl(input.returnUrl);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    const cardId = this.#cardId(input.paymentMethodId);
    const invoice = invoiceIdFor('cit', input.idempotencyKey);
    const capture = input.capture === 'automatic';
    const params = authorizeParams(input);
    const base: HalykState = { status: 'requires_action', amountCents: input.amountCents, capturedCents: 0, refundedCents: 0, currency: input.currency };
    const send = async (): Promise<contract.TransactionResult> => {
      // ePay asks 3-D Secure where the terminal and the issuer want it; the shopper comes back to
      // `backLink` (or `failureBackLink`) once the ACS is done.
      const p = await this.#payByCard(invoice, cardId, input.amountCents, input.currency, { backLink: input.returnUrl, failureBackLink: input.returnUrl });
      if ('refused' in p) return this.#declined(invoice, { ...base, status: 'declined', decline: p.refused });
      if (p.payment.secure3D) {
        const s = p.payment.secure3D;
        const fields = { PaReq: s.paReq, MD: s.md, TermUrl: s.termUrl ?? `${this.baseUrl}/payments/cards/confirmPayment?Access=${encodeURIComponent(p.token.reveal())}` };
        const pending: HalykState = { ...base, epay: p.payment.id, capture };
        return { ...bare(invoice, 'requires_action', input.amountCents), challengeForm: { action: s.action, fields }, pspState: state(pending) };
      }
      return this.#held(invoice, p.payment.id, { ...base, status: 'authorized' }, capture);
    };
    const reconcile = () => this.#reconcilePayment(invoice, base, capture);
    return this.operations.once('authorize', input.idempotencyKey, params, send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertKey(input.idempotencyKey);
    assertAmount(input.amountCents);
    this.#assertCurrency(input.currency);
    const cardId = this.#cardId(input.paymentMethodId);
    const invoice = invoiceIdFor('mit', input.idempotencyKey);
    // The saved card itself is ePay's stored credential (saved by the verification with the
    // shopper's consent, at attach); a payment by CardID calls no 3-D Secure page (the saved-card
    // page). `manual`: the hold is left for a later capture (a re-authorisation).
    const capture = input.capture !== 'manual';
    const base: HalykState = { status: 'declined', amountCents: input.amountCents, capturedCents: 0, refundedCents: 0, currency: input.currency };
    const send = async (): Promise<contract.TransactionResult> => {
      const p = await this.#payByCard(invoice, cardId, input.amountCents, input.currency, {});
      if ('refused' in p) return this.#declined(invoice, { ...base, decline: p.refused });
      if (p.payment.secure3D) {
        return this.#declined(invoice, {
          ...base,
          epay: p.payment.id,
          decline: { reason: 'authentication_failed', message: 'ePay asked 3-D Secure for a payment the shopper is not there to authenticate.' },
        });
      }
      return this.#held(invoice, p.payment.id, { ...base, status: 'authorized' }, capture);
    };
    const params = chargeParams(input, !capture);
    return this.operations.once(
      'charge_off_session',
      input.idempotencyKey,
      params,
      send,
      () => this.#reconcilePayment(invoice, base, capture),
      reviveTransaction<contract.TransactionResult>,
    );
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const ref = input.transaction;
    const send = async (): Promise<contract.TransactionResult> => {
      const t = await this.#existing(ref);
      const now = this.#result(ref, t);
      if (now.status === 'expired') return refused(now, 'authorization_expired', 'The hold lapsed before it was captured.');
      if (now.status !== 'authorized') return refused(now, 'amount_too_large', 'Nothing held to capture.');
      if (input.amountCents > now.amountCents) return refused(now, 'amount_too_large', 'The capture exceeds the authorised amount.');
      const currency = stateOf(now)!.currency;
      const answer = await this.#operation(t.id, 'charge', { amount: toEpayAmount(input.amountCents, currency) });
      if (answer === 'refused') return refused(this.#result(ref, await this.#existing(ref)), 'amount_too_large', 'ePay refused the capture.');
      return captured(now, input.amountCents);
    };
    const reconcile = async () => {
      const t = await this.#status(ref.transactionId);
      return t && t.statusName === 'CHARGE' ? this.#result(ref, t) : undefined;
    };
    return this.operations.once('capture', input.idempotencyKey, [ref.transactionId, input.amountCents], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const ref = input.transaction;
    const send = async (): Promise<contract.TransactionResult> => {
      const s = stateOf(ref);
      const t = await this.#lookup(ref);
      if (!t || t.statusName === '3D' || t.statusName === 'NEW') {
        // 3-D Secure still pending: nothing is held yet; a hold that appears later is released by retrieve.
        if (!s || s.status !== 'requires_action') throw this.fault('unknown_transaction', `no transaction ${JSON.stringify(ref.transactionId.slice(0, 80))}`);
        const voided: HalykState = { ...s, status: 'voided', voided: true };
        return { ...bare(ref.transactionId, 'voided', s.amountCents), pspState: state(voided) };
      }
      const now = this.#result(ref, t);
      if (now.status === 'expired') return refused(now, 'authorization_expired', 'The hold already lapsed.');
      if (now.status === 'voided' || now.status === 'declined') return now;
      if (now.status !== 'authorized') return refused(now, 'amount_too_large', 'Only a hold not yet captured can be cancelled.');
      const answer = await this.#operation(t.id, 'cancel', {});
      if (answer === 'refused') return refused(this.#result(ref, await this.#existing(ref)), 'amount_too_large', 'ePay refused the cancellation.');
      return withState({ ...now, status: 'voided', expiresAt: undefined }, stateOf(now)!);
    };
    const reconcile = async () => {
      const t = await this.#status(ref.transactionId);
      return t && t.statusName === 'CANCEL' ? this.#result(ref, t) : undefined;
    };
    return this.operations.once('void', input.idempotencyKey, [ref.transactionId], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const ref = input.transaction;
    const before = stateOf(ref);
    const send = async (): Promise<contract.TransactionResult> => {
      const t = await this.#existing(ref);
      const now = this.#result(ref, t);
      if (now.status !== 'captured' && now.status !== 'refunded') return refused(now, 'amount_too_large', 'Nothing captured to refund.');
      if (input.amountCents > now.capturedCents - now.refundedCents) return refused(now, 'amount_too_large', 'The refund exceeds what is left to refund.');
      const currency = stateOf(now)!.currency;
      const answer = await this.#operation(t.id, 'refund', { amount: toEpayAmount(input.amountCents, currency), externalID: externalIdFor(input.idempotencyKey) });
      if (answer === 'refused') return refused(this.#result(ref, await this.#existing(ref)), 'amount_too_large', 'ePay refused the refund.');
      const refundedCents = now.refundedCents + input.amountCents;
      return withState({ ...now, status: 'refunded', refundedCents }, { ...stateOf(now)!, status: 'refunded', refundedCents });
    };
    // ePay's status tells what remains after refunds (`amount`): less than before the call, the refund went through.
    const reconcile = async () => {
      const t = await this.#status(ref.transactionId);
      if (!t || !before) return undefined;
      const after = this.#result(ref, t);
      return after.refundedCents > before.refundedCents ? after : undefined;
    };
    return this.operations.once('refund', input.idempotencyKey, [ref.transactionId, input.amountCents], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  /**
   * ePay's view of the transaction, read by its invoice number. A payment whose 3-D Secure passed
   * is a hold: charged now if it was to be captured at once, released if Chipin voided it meanwhile
   * (each once, through the operation log, whichever process reads first).
   */
  async retrieve(ref: contract.TransactionRef): Promise<contract.TransactionResult> {
    const s = stateOf(ref);
    const t = await this.#lookup(ref);
    if (!t) {
      if (s?.status === 'declined' || s?.voided) return { ...bare(ref.transactionId, s.status, s.amountCents), ...(s.decline ? { decline: s.decline } : {}), pspState: state(s) };
      throw this.fault('unknown_transaction', `no transaction ${JSON.stringify(ref.transactionId.slice(0, 80))}`);
    }
    const now = this.#result(ref, t);
    // Voided while 3-D Secure was pending: it stays voided whatever the shopper does at the ACS.
    if (s?.voided && (now.status === 'requires_action' || now.status === 'declined')) return { ...bare(ref.transactionId, 'voided', s.amountCents), pspState: state(s) };
    if (now.status !== 'authorized' || s?.status !== 'requires_action') return now;
    if (s.voided) {
      const release = async () => {
        if ((await this.#operation(t.id, 'cancel', {})) === 'refused') throw this.fault('bad_response', 'ePay refused to release a hold Chipin voided');
        return withState({ ...now, status: 'voided', expiresAt: undefined }, { ...s, status: 'voided' });
      };
      const released = async () => ((await this.#status(ref.transactionId))?.statusName === 'CANCEL' ? release() : undefined);
      return this.operations.once('release_after_challenge', ref.transactionId, [t.id], release, released, reviveTransaction<contract.TransactionResult>);
    }
    if (!s.capture) return now;
    const charge = async () => {
      if ((await this.#operation(t.id, 'charge', { amount: toEpayAmount(now.amountCents, s.currency) })) === 'refused')
        throw this.fault('bad_response', 'ePay refused to charge an authenticated payment');
      return captured(now, now.amountCents);
    };
    const charged = async () => {
      const after = await this.#status(ref.transactionId);
      return after?.statusName === 'CHARGE' ? this.#result(ref, after) : undefined;
    };
    return this.operations.once('charge_after_challenge', ref.transactionId, [t.id], charge, charged, reviveTransaction<contract.TransactionResult>);
  }

  /**
   * ePay's postLink carries no signature; its only check is a `secret_hash` the shop gives with the
   * token and ePay echoes, in a body whose fields ePay does not publish (docs/psp/halyk.md): no
   * notification can be verified, so every one is refused and outcomes are read with {@link retrieve}.
   */
  async verifyNotification(): Promise<contract.NotificationResult> {
    return { ok: false, reason: 'bad_signature' };
  }

  /** A token for the terminal: authenticated, changes nothing. */
  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    return this.probeCredentials(async () => {
      await this.#token({});
    }, 'ePay refused the client id, client secret or terminal id (check them in the ePay merchant cabinet).');
  }

  // ---------------------------------------------------------------------------------------------

  #assertCurrency(currency: string): void {
    assertCurrency(currency);
    if (!(HALYK_CURRENCIES as readonly string[]).includes(currency)) throw new RangeError(`halyk: ePay takes ${HALYK_CURRENCIES.join(' and ')}, not ${currency}`);
  }

  #cardId(paymentMethodId: string): string {
    const shown = JSON.stringify(paymentMethodId.slice(0, 80));
    if (!isEpayId(paymentMethodId)) throw this.fault('unknown_payment_method', `no payment method ${shown}`);
    return paymentMethodId;
  }

  /**
   * A token for one operation (ePay: "for each operation, you must receive and use the original
   * token"): client credentials, the terminal and, for a payment, its invoice, amount and currency.
   * ePay answers a refusal with a 4XX: the credentials.
   */
  async #token(extra: Record<string, string>): Promise<Redacted<string>> {
    const { clientId, clientSecret } = this.credentials.reveal();
    const body = new URLSearchParams({ grant_type: 'client_credentials', scope: SCOPE, client_id: clientId, client_secret: clientSecret, terminal: this.#terminalId, ...extra });
    const what = 'POST /oauth2/token';
    const answer = await this.client.request(what, `${this.#oauth}/oauth2/token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    const fault = statusFault('halyk', what, answer.status);
    if (fault) throw fault;
    if (answer.status >= 400 && answer.status < 500) throw this.fault('bad_credentials', `${what}: ePay refused the client credentials (HTTP ${answer.status})`);
    const token = (parse(answer.text) as { access_token?: unknown } | undefined)?.access_token;
    if (answer.status !== 200 || typeof token !== 'string' || token === '') throw this.fault('bad_response', `${what}: no access_token (HTTP ${answer.status})`);
    return new Redacted(token);
  }

  async #call(method: 'GET' | 'POST', what: string, path: string, token: Redacted<string>, body?: unknown): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${token.reveal()}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const where = `${method} ${what}`;
    const answer = await this.client.request(where, `${this.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const fault = statusFault('halyk', where, answer.status);
    if (fault) throw fault;
    if (answer.text.length === 0) return { status: answer.status, body: undefined };
    const parsed = parse(answer.text);
    if (parsed === undefined) throw this.fault('bad_response', `${where}: ePay answered ${answer.status} with a body that is not JSON`);
    return { status: answer.status, body: parsed };
  }

  /** A payment call: its answer, or ePay's refusal (`{code, message}`, HTTP 400) as a decline. */
  async #post(
    what: string,
    path: string,
    token: Redacted<string>,
    body: unknown,
  ): Promise<{ payment: EpayPayment } | { refused: { reason: contract.DeclineReason; message: string } }> {
    const answer = await this.#call('POST', what, path, token, body);
    if (answer.status === 400) {
      const error = readError(answer.body);
      if (!error) throw this.fault('bad_response', `${what}: unreadable refusal`);
      return { refused: declineOf(error.code) };
    }
    if (answer.status !== 200) throw this.fault('bad_response', `${what}: unexpected answer ${answer.status}`);
    const payment = readPayment(answer.body);
    if (!payment) throw this.fault('bad_response', `${what}: unreadable answer`);
    return { payment };
  }

  /** `POST /payments/cards/auth` with a saved card (`paymentType: cardId`), under a token for this invoice and amount. */
  async #payByCard(
    invoice: string,
    cardId: string,
    amountCents: number,
    currency: string,
    links: { backLink?: string; failureBackLink?: string },
  ): Promise<({ payment: EpayPayment } | { refused: { reason: contract.DeclineReason; message: string } }) & { token: Redacted<string> }> {
    const amount = toEpayAmount(amountCents, currency);
    const token = await this.#token({ invoiceID: invoice, amount, currency, postLink: '', failurePostLink: '' });
    const answer = await this.#post('payments/cards/auth', '/payments/cards/auth', token, {
      amount: Number(amount),
      currency,
      terminalId: this.#terminalId,
      invoiceId: invoice,
      description: 'Payment',
      postLink: '',
      failurePostLink: '',
      ...links,
      paymentType: 'cardId',
      cardId: { id: cardId },
    });
    return { ...answer, token };
  }

  /** `POST /operation/:id/<charge|cancel|refund>`: done, or refused by ePay (HTTP 400). */
  async #operation(epayId: string, op: 'charge' | 'cancel' | 'refund', query: Record<string, string>): Promise<'done' | 'refused'> {
    const token = await this.#token({});
    const q = new URLSearchParams(query).toString();
    const answer = await this.#call('POST', `operation/{id}/${op}`, `/operation/${encodeURIComponent(epayId)}/${op}${q ? `?${q}` : ''}`, token);
    if (answer.status === 200) return 'done';
    if (answer.status === 404) throw this.fault('unknown_transaction', `no ePay transaction ${epayId}`);
    if (answer.status === 400) return 'refused';
    throw this.fault('bad_response', `operation/{id}/${op}: unexpected answer ${answer.status}`);
  }

  /** `GET /check-status/payment/transaction/:invoiceid`: the transaction, or undefined when ePay has none under that invoice. */
  async #status(invoice: string): Promise<EpayTransaction | undefined> {
    if (!INVOICE_ID.test(invoice)) return undefined;
    const token = await this.#token({});
    const answer = await this.#call('GET', 'check-status/payment/transaction/{invoiceid}', `/check-status/payment/transaction/${invoice}`, token);
    if (answer.status !== 200 && answer.status !== 400) throw this.fault('bad_response', `check-status: unexpected answer ${answer.status}`);
    const read = readStatus(answer.body);
    if (!read) throw this.fault('bad_response', 'check-status: unreadable answer');
    return read.found ? read.transaction : undefined;
  }

  async #lookup(ref: contract.TransactionRef): Promise<EpayTransaction | undefined> {
    return this.#status(ref.transactionId);
  }

  async #existing(ref: contract.TransactionRef): Promise<EpayTransaction> {
    const t = await this.#lookup(ref);
    if (!t) throw this.fault('unknown_transaction', `no transaction ${JSON.stringify(ref.transactionId.slice(0, 80))}`);
    return t;
  }

  /** A payment whose answer was lost: what ePay holds under its invoice, carried on as the answer would have been. */
  async #reconcilePayment(invoice: string, base: HalykState, capture: boolean): Promise<contract.TransactionResult | undefined> {
    const t = await this.#status(invoice);
    if (!t) return undefined;
    if (t.statusName === 'AUTH' && !isLapsed(t, this.clock.now())) return this.#held(invoice, t.id, { ...base, status: 'authorized' }, capture);
    if (t.statusName === '3D' || t.statusName === 'NEW') {
      // The ACS form was in the lost answer: the shopper cannot be sent there any more.
      return this.#declined(invoice, {
        ...base,
        status: 'declined',
        epay: t.id,
        decline: { reason: 'processing_error', message: "ePay's 3-D Secure form was lost with its answer." },
      });
    }
    return this.#result({ transactionId: invoice, pspState: state(base) }, t);
  }

  /** A hold just placed: charged at once for automatic capture (the terminal holds every payment). */
  async #held(invoice: string, epayId: string, s: HalykState, capture: boolean): Promise<contract.TransactionResult> {
    const held: HalykState = { ...s, status: 'authorized', epay: epayId };
    const now = withState({ ...bare(invoice, 'authorized', s.amountCents), expiresAt: holdExpiry(this.clock.now()) }, held);
    if (!capture) return now;
    if ((await this.#operation(epayId, 'charge', { amount: toEpayAmount(s.amountCents, s.currency) })) === 'refused')
      throw this.fault('bad_response', 'ePay refused to charge a hold it just placed');
    return captured(now, s.amountCents);
  }

  #declined(invoice: string, s: HalykState): contract.TransactionResult {
    return { ...bare(invoice, 'declined', s.amountCents), ...(s.decline ? { decline: s.decline } : {}), pspState: state({ ...s, status: 'declined' }) };
  }

  /** Our view of an ePay transaction, with the amounts the state knows (ePay's answer tells only what remains). */
  #result(ref: contract.TransactionRef, t: EpayTransaction): contract.TransactionResult {
    const s = stateOf(ref);
    const amountCents = s?.amountCents ?? t.originalCents ?? t.amountCents;
    let capturedCents = 0;
    let refundedCents = 0;
    if (t.statusName === 'CHARGE' || t.statusName === 'REFUND') {
      refundedCents = s?.refundedCents ?? 0;
      capturedCents = s && s.capturedCents > 0 ? s.capturedCents : Math.min(amountCents, t.amountCents + refundedCents);
      // ePay's remaining amount below what the state knows: refunds the state has not seen (a lost answer).
      if (t.amountCents < capturedCents - refundedCents) refundedCents = capturedCents - t.amountCents;
    }
    const lapsed = isLapsed(t, this.clock.now());
    const status = toStatus(t.statusName, { refundedCents, lapsed });
    const next: HalykState = { ...(s ?? {}), status, amountCents, capturedCents, refundedCents, currency: t.currency, epay: t.id };
    const result: contract.TransactionResult = { transactionId: ref.transactionId, status, amountCents, capturedCents, refundedCents };
    if (status === 'declined') result.decline = s?.decline ?? declineOf(t.reasonCode);
    if (status === 'authorized') result.expiresAt = holdExpiry(t.createdAt);
    return withState(result, next);
  }
}

function bare(id: string, status: contract.TransactionResult['status'], amountCents: number): contract.TransactionResult {
  return { transactionId: id, status, amountCents, capturedCents: 0, refundedCents: 0 };
}

/** A hold charged (fully or partly: the rest is released). */
function captured(now: contract.TransactionResult, amountCents: number): contract.TransactionResult {
  const s = stateOf(now)!;
  const { expiresAt: _, ...rest } = now;
  return withState({ ...rest, status: 'captured', capturedCents: amountCents, refundedCents: 0 }, { ...s, status: 'captured', capturedCents: amountCents, refundedCents: 0 });
}

function withState(r: contract.TransactionResult, s: HalykState): contract.TransactionResult {
  const out = { ...r, pspState: state({ ...s, status: r.status, capturedCents: r.capturedCents, refundedCents: r.refundedCents }) };
  if (out.expiresAt === undefined) delete out.expiresAt;
  return out;
}

/** The refusal of an operation: the transaction as it stands, with the reason. */
function refused(now: contract.TransactionResult, reason: 'amount_too_large' | 'authorization_expired', message: string): contract.TransactionResult {
  return { ...now, decline: { reason, message } };
}

function state(s: HalykState): contract.PspState {
  return JSON.parse(JSON.stringify(s)) as contract.PspState;
}

function stateOf(ref: { pspState?: contract.PspState | null }): HalykState | undefined {
  const s = ref.pspState;
  if (!s || typeof s !== 'object' || typeof s.amountCents !== 'number' || typeof s.currency !== 'string') return undefined;
  return s as unknown as HalykState;
}

function parse(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
