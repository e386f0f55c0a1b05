import { createHash, randomInt, type KeyObject } from 'node:crypto';
import { pspNotificationUrl } from '../../domain/links.ts';
import type { ChallengeForm } from '../challenge-relay.ts';
import type * as contract from '../connector.ts';
import { PspIntegrationError, UnusableCredentialError } from '../connector.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import { HttpKitConnector, type HttpKitConnectorOptions } from '../kit/connector-setup.ts';
import { REFUSAL_MESSAGES, captureRefusal, refundRefusal, voidRefusal, type MaintenanceRefusal } from '../kit/maintenance.ts';
import { reviveTransaction } from '../kit/operations.ts';
import { statusFault } from '../kit/status-fault.ts';
import {
  ACTIVITY_INTERNET,
  ACTIVITY_RECURRING,
  DIRECT_PLUS_VERSION,
  HOLD_DAYS,
  TYPES,
  currencyCode,
  dateq,
  dateval,
  decodePaymentMethod,
  encodePaymentMethod,
  outcomeOfAny,
  parseAnswer,
  statusLabelOf,
  toMontant,
  toStatus,
  type Outcome,
  type Subscriber,
} from './mapping.ts';
import { PAYBOX_PUBLIC_KEY_EXPECTED, payboxPublicKey, signedSession, verifyMpiReturn } from './notifications.ts';

export interface PayboxCredentials {
  site: string;
  rank: string;
  identifier: string;
  cle: string;
  /** Paybox's public key (PEM, or its base64): checks the RemoteMPI return's signature. Absent or unreadable: no return is trusted. */
  publicKey?: string;
}

export interface PayboxConnectorOptions extends HttpKitConnectorOptions<PayboxCredentials> {
  /** The PPPS origin (`https://preprod-ppps.paybox.com`, or a PSP account's endpoint_url): PPPS.php is under it. */
  baseUrl: string;
  /** Where the shopper's browser posts the RemoteMPI form (3-D Secure): `…/cgi/RemoteMPI.cgi`. */
  mpiUrl: string;
  accountId: string;
  publicUrl: string;
}

const DAY_MS = 86_400_000;
/** The registration's card check: an authorisation of 1.00 in the currency, cancelled at once. */
const VERIFY_AMOUNT = 100;

/**
 * What the connector keeps of a transaction (`pspState`). Paybox's inquiry answers a status
 * label only, never amounts: the amounts, the Paybox numbers (NUMTRANS, NUMAPPEL) and, while the
 * shopper is at the issuer's page, the RemoteMPI form live here. `phase`: `pending` (3-D Secure
 * under way, nothing at Paybox yet), `final` (nothing at Paybox and never will be: declined, or
 * voided while pending), `done` (a Paybox transaction exists).
 */
interface PayboxState {
  phase: 'pending' | 'final' | 'done';
  reference: string;
  pm: string;
  amountCents: number;
  currency: string;
  capture: 'automatic' | 'manual';
  status: contract.TransactionStatus;
  capturedCents: number;
  refundedCents: number;
  numTrans?: string;
  numAppel?: string;
  authorisedAt?: string;
  decline?: { reason: contract.DeclineReason; message: string };
  form?: { action: string; fields: Record<string, string> };
}

function readState(ref: contract.TransactionRef): PayboxState | undefined {
  const s = ref.pspState as unknown as Partial<PayboxState> | null;
  if (!s || typeof s !== 'object') return undefined;
  if (s.phase !== 'pending' && s.phase !== 'final' && s.phase !== 'done') return undefined;
  if (s.reference !== ref.transactionId || typeof s.pm !== 'string' || typeof s.currency !== 'string') return undefined;
  if (!Number.isSafeInteger(s.amountCents) || !Number.isSafeInteger(s.capturedCents) || !Number.isSafeInteger(s.refundedCents)) return undefined;
  if (s.phase === 'done' && (typeof s.numTrans !== 'string' || typeof s.numAppel !== 'string')) return undefined;
  // A refusal of a capture or refund is that answer's, not the transaction's.
  if (s.status !== 'declined' && s.decline) {
    const { decline: _refusal, ...rest } = s as PayboxState;
    return rest;
  }
  return s as PayboxState;
}

/**
 * PayBox Direct / Direct Plus (PPPS): form-encoded POSTs to PPPS.php, authenticated by SITE,
 * RANG and the Direct key CLE, answered form-encoded in the same exchange (CODEREPONSE,
 * NUMTRANS, NUMAPPEL…). Cards are stored as subscribers (Direct Plus): attach registers one
 * (TYPE 00056), whose token (PORTEUR) every later payment uses with REFABONNE.
 *
 * Idempotency. Paybox takes no idempotency key. Every creation carries a REFERENCE derived from
 * our key, and a creation whose outcome is unknown is looked up by REFERENCE and amount (TYPE
 * 00011) before it is sent again. Capture, cancel and refund go through the operation log, and
 * one whose outcome is unknown is reconciled before it is sent again: a refund carries its own
 * REFERENCE, derived from its key, and is looked up by it and its amount (TYPE 00011); a capture
 * or cancel by the transaction's status (TYPE 00017) against the state stored before the call
 * (docs/psp/paybox.md).
 *
 * 3-D Secure. An authorisation Paybox answers 00040 (cardholder enrolled, not authenticated)
 * waits for the RemoteMPI: the shopper's browser posts its form (through Chipin's sealed relay),
 * RemoteMPI calls back the account's notification URL with the authentication's outcome and
 * ID3D, signed by Paybox (checked with the account's `public_key`, ./notifications.ts), and
 * `retrieve` given that notification sends the authorisation again with ID3D, once.
 */
export class PayboxConnector extends HttpKitConnector<PayboxCredentials> implements contract.PspConnector {
  readonly #mpiUrl: string;
  readonly #accountId: string;
  readonly #publicUrl: string;
  /** Paybox's key for the RemoteMPI return's signature; undefined: every return is refused (bad_signature). */
  readonly #mpiKey: KeyObject | undefined;

  constructor(opts: PayboxConnectorOptions) {
    super('paybox', opts);
    this.#mpiUrl = opts.mpiUrl;
    this.#accountId = opts.accountId;
    this.#publicUrl = opts.publicUrl.replace(/\/+$/, '');
    this.#mpiKey = payboxPublicKey(opts.credentials.publicKey);
  }

  /** One PPPS question: the account's fields, a fresh NUMQUESTION and DATEQ added; the answer read; transport faults thrown. */
  async #ask(what: string, type: string, params: Record<string, string>): Promise<{ fields: Record<string, string>; outcome: Outcome }> {
    const c = this.credentials.reveal();
    const body: Record<string, string> = {
      VERSION: DIRECT_PLUS_VERSION,
      TYPE: type,
      SITE: c.site,
      RANG: c.rank,
      CLE: c.cle,
      // Unique per question and day at Paybox; a random one never repeats in practice.
      NUMQUESTION: String(randomInt(1, 2_000_000_000)).padStart(10, '0'),
      DATEQ: dateq(this.clock.now()),
      ...params,
    };
    const res = await this.client.request(what, `${this.baseUrl}/PPPS.php`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
    });
    const fault = statusFault(this.name, what, res.status);
    if (fault) throw fault;
    if (res.status !== 200) throw this.fault('bad_response', `${what}: HTTP ${res.status}`);
    const fields = parseAnswer(res.text);
    if (!fields) throw this.fault('bad_response', `${what}: the answer has no CODEREPONSE`);
    // Paybox repeats SITE, RANG and NUMQUESTION so that an answer can be matched to its question (the manual advises checking them).
    if ((fields.NUMQUESTION !== undefined && Number(fields.NUMQUESTION) !== Number(body.NUMQUESTION)) || (fields.SITE !== undefined && fields.SITE !== c.site)) {
      throw this.fault('bad_response', `${what}: the answer is not to this question`);
    }
    const outcome = outcomeOfAny(fields.CODEREPONSE ?? '');
    if (outcome.kind === 'fault') {
      const comment = (fields.COMMENTAIRE ?? '').slice(0, 120);
      throw this.fault(outcome.code, `${what}: CODEREPONSE ${fields.CODEREPONSE}${comment ? ` (${comment})` : ''}`);
    }
    return { fields, outcome };
  }

  #message(fields: Record<string, string>): string {
    const comment = (fields.COMMENTAIRE ?? '').trim();
    return comment ? `${comment} (CODEREPONSE ${fields.CODEREPONSE})` : `Refused by Paybox (CODEREPONSE ${fields.CODEREPONSE}).`;
  }

  /** A 30-character REFERENCE derived from the operation and our idempotency key. */
  #reference(op: string, key: string): string {
    return `C${createHash('sha256').update(`${op}\u0000${key}`).digest('hex').slice(0, 29)}`;
  }

  #subscriber(pm: string): Subscriber {
    const s = decodePaymentMethod(pm);
    if (!s) throw this.fault('unknown_payment_method', 'not a Paybox subscriber');
    return s;
  }

  #result(s: PayboxState): contract.TransactionResult {
    const r: contract.TransactionResult = {
      transactionId: s.reference,
      status: s.status,
      amountCents: s.amountCents,
      capturedCents: s.capturedCents,
      refundedCents: s.refundedCents,
      pspState: s as unknown as contract.PspState,
    };
    if (s.decline) r.decline = s.decline;
    if (s.status === 'requires_action' && s.form) r.challengeForm = s.form as ChallengeForm;
    if (s.authorisedAt && (s.status === 'authorized' || s.status === 'expired')) r.expiresAt = new Date(Date.parse(s.authorisedAt) + HOLD_DAYS * DAY_MS);
    return r;
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const digits = input.card.number.replace(/ /g, '');
    const expYear = input.card.expYear >= 0 && input.card.expYear < 100 ? 2000 + input.card.expYear : input.card.expYear;
    const refAbonne = this.#reference('attach', input.idempotencyKey);
    const dv = dateval(input.card.expMonth, expYear);
    const register = () =>
      this.#ask('register subscriber', TYPES.subscriberRegister, {
        MONTANT: toMontant(VERIFY_AMOUNT),
        DEVISE: '978',
        REFERENCE: refAbonne,
        REFABONNE: refAbonne,
        PORTEUR: digits,
        DATEVAL: dv,
        CVV: input.card.cvc,
        ACTIVITE: ACTIVITY_INTERNET,
      });
    const send = async (): Promise<contract.AttachResult> => {
      let a = await register();
      if (a.outcome.kind === 'subscriber_exists') {
        // A registration whose answer was lost: its token is not known, so the subscriber is registered afresh.
        await this.#ask('delete subscriber', TYPES.subscriberDelete, { REFABONNE: refAbonne });
        a = await register();
      }
      if (a.outcome.kind === 'refused') return { ok: false, reason: a.outcome.reason, message: this.#message(a.fields) };
      if (a.outcome.kind !== 'ok' || !a.fields.PORTEUR) throw this.fault('bad_response', `register subscriber: CODEREPONSE ${a.fields.CODEREPONSE} without a token`);
      const s: Subscriber = { refAbonne, token: a.fields.PORTEUR, dateval: dv };
      if (a.fields.NUMTRANS && /^0*[1-9]\d*$/.test(a.fields.NUMTRANS) && a.fields.NUMAPPEL) {
        // The card check's authorisation is released at once; a failure to release it leaves a hold that lapses on its own.
        await this.#ask('cancel card check', TYPES.subscriberCancel, {
          MONTANT: toMontant(VERIFY_AMOUNT),
          DEVISE: '978',
          REFERENCE: refAbonne,
          REFABONNE: refAbonne,
          PORTEUR: s.token,
          DATEVAL: dv,
          NUMTRANS: a.fields.NUMTRANS,
          NUMAPPEL: a.fields.NUMAPPEL,
        }).catch(() => undefined);
      }
      return { ok: true, paymentMethodId: encodePaymentMethod(s), brand: brandOf(digits), last4: digits.slice(-4), expMonth: input.card.expMonth, expYear };
    };
    return this.operations.once('attach', input.idempotencyKey, [digits, input.card.expMonth, expYear, input.card.cvc], send, async () => undefined);
  }

  /** The authorisation (or authorisation and capture) of a subscriber, on session or not, with the 3-D Secure ID3D when there is one. */
  async #authorise(s: PayboxState, activity: string, id3d?: string): Promise<PayboxState> {
    const sub = this.#subscriber(s.pm);
    const a = await this.#ask('authorize', s.capture === 'automatic' ? TYPES.subscriberCharge : TYPES.subscriberAuthorize, {
      MONTANT: toMontant(s.amountCents),
      DEVISE: currencyCode(s.currency),
      REFERENCE: s.reference,
      REFABONNE: sub.refAbonne,
      PORTEUR: sub.token,
      DATEVAL: sub.dateval,
      ACTIVITE: activity,
      ...(id3d ? { ID3D: id3d } : {}),
    });
    return this.#afterAuthorise(s, a.fields, a.outcome, activity === ACTIVITY_INTERNET && !id3d);
  }

  #afterAuthorise(s: PayboxState, fields: Record<string, string>, outcome: Outcome, mayChallenge: boolean): PayboxState {
    const now = this.clock.now().toISOString();
    if (outcome.kind === 'ok') {
      if (!fields.NUMTRANS || !fields.NUMAPPEL) throw this.fault('bad_response', 'authorize: no NUMTRANS or NUMAPPEL');
      const captured = s.capture === 'automatic';
      const done: PayboxState = {
        ...s,
        phase: 'done',
        numTrans: fields.NUMTRANS,
        numAppel: fields.NUMAPPEL,
        authorisedAt: now,
        status: captured ? 'captured' : 'authorized',
        capturedCents: captured ? s.amountCents : 0,
      };
      delete done.form;
      return done;
    }
    if (outcome.kind === 'challenge' && mayChallenge) return { ...s, phase: 'pending', status: 'requires_action', form: this.#mpiForm(s) };
    const reason: contract.DeclineReason = outcome.kind === 'refused' ? outcome.reason : 'authentication_failed';
    const final: PayboxState = { ...s, phase: 'final', status: 'declined', decline: { reason, message: this.#message(fields) } };
    delete final.form;
    return final;
  }

  /** The RemoteMPI form the shopper's browser posts (3-D Secure): the card is named by its subscriber token, never its number. */
  #mpiForm(s: PayboxState): { action: string; fields: Record<string, string> } {
    const sub = this.#subscriber(s.pm);
    const c = this.credentials.reveal();
    return {
      action: this.#mpiUrl,
      fields: {
        IdMerchant: c.identifier,
        IdSession: signedSession(s.reference, c.cle),
        Amount: String(s.amountCents),
        Currency: currencyCode(s.currency),
        CCNumber: sub.token,
        CCExpDate: sub.dateval,
        URLRetour: s.form?.fields.URLRetour ?? '',
        URLHttpDirect: pspNotificationUrl(this.#publicUrl, this.#accountId),
      },
    };
  }

  /** A creation whose outcome is unknown: is there a transaction under its REFERENCE and amount (TYPE 00011)? */
  async #found(s: PayboxState): Promise<PayboxState | undefined> {
    try {
      const a = await this.#ask('check', TYPES.check, { MONTANT: toMontant(s.amountCents), DEVISE: currencyCode(s.currency), REFERENCE: s.reference });
      if (a.outcome.kind !== 'ok') return undefined;
      return this.#afterAuthorise(s, a.fields, a.outcome, false);
    } catch (e) {
      if (e instanceof PspIntegrationError && e.code === 'unknown_transaction') return undefined;
      throw e;
    }
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    currencyCode(input.currency);
    this.#subscriber(input.paymentMethodId);
    // The URLRetour rides in the pending state's form; the rest of the form is rebuilt from the state.
    const start: PayboxState = {
      phase: 'final',
      reference: this.#reference('authorize', input.idempotencyKey),
      pm: input.paymentMethodId,
      amountCents: input.amountCents,
      currency: input.currency,
      capture: input.capture,
      status: 'requires_action',
      capturedCents: 0,
      refundedCents: 0,
      form: { action: '', fields: { URLRetour: input.returnUrl } },
    };
    const send = async () => this.#result(await this.#authorise(start, ACTIVITY_INTERNET));
    const reconcile = async () => {
      const found = await this.#found(start);
      return found && this.#result(found);
    };
    return this.operations.once(
      'authorize',
      input.idempotencyKey,
      [input.paymentMethodId, input.amountCents, input.currency, input.capture, input.storeForLater ?? false],
      send,
      reconcile,
      reviveTransaction<contract.TransactionResult>,
    );
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    currencyCode(input.currency);
    this.#subscriber(input.paymentMethodId);
    // The stored credential of a Paybox MIT is the subscriber itself (REFABONNE and its token),
    // registered by the shopper; ACTIVITE 027 tells the acquirer the shopper is not there.
    // `manual`: TYPE 00051 (authorisation only) instead of 00053, a merchant-initiated hold that
    // 00052 captures and 00055 cancels as the checkout's (a re-authorisation,
    // docs/money-operations.md#re-authorisation).
    const capture = input.capture === 'manual' ? 'manual' : 'automatic';
    const start: PayboxState = {
      phase: 'final',
      reference: this.#reference('charge', input.idempotencyKey),
      pm: input.paymentMethodId,
      amountCents: input.amountCents,
      currency: input.currency,
      capture,
      status: 'declined',
      capturedCents: 0,
      refundedCents: 0,
    };
    const send = async () => this.#result(await this.#authorise(start, ACTIVITY_RECURRING));
    const reconcile = async () => {
      const found = await this.#found(start);
      return found && this.#result(found);
    };
    const params = [input.paymentMethodId, input.amountCents, input.currency, ...(capture === 'manual' ? ['manual'] : [])];
    return this.operations.once('charge', input.idempotencyKey, params, send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  /** The transaction now: Paybox's status label (TYPE 00017) over the amounts of the stored state. */
  async #read(s: PayboxState): Promise<PayboxState> {
    if (s.phase !== 'done') return s;
    const a = await this.#ask('inquiry', TYPES.inquiry, { NUMTRANS: s.numTrans!, NUMAPPEL: s.numAppel!, REFERENCE: s.reference });
    if (a.outcome.kind !== 'ok') throw this.fault('bad_response', `inquiry: CODEREPONSE ${a.fields.CODEREPONSE}`);
    const lapsed = s.authorisedAt !== undefined && this.clock.now().getTime() >= Date.parse(s.authorisedAt) + HOLD_DAYS * DAY_MS;
    const status = toStatus(statusLabelOf(a.fields.STATUS ?? ''), lapsed);
    if (!status) throw this.fault('bad_response', 'inquiry: an unknown STATUS');
    const now: PayboxState = { ...s, status };
    if (status === 'captured' && s.capturedCents === 0) now.capturedCents = s.amountCents;
    return now;
  }

  async retrieve(transaction: contract.TransactionRef, options?: { notification?: contract.NotificationEvent }): Promise<contract.TransactionResult> {
    const s = readState(transaction);
    if (!s) throw this.fault('unknown_transaction', `no transaction ${transaction.transactionId} (no stored state)`);
    const event = options?.notification;
    if (s.phase === 'pending' && event && event.kind === 'remote_mpi' && event.idSession === signedSession(s.reference, this.credentials.reveal().cle)) {
      if (event.authenticated !== true || typeof event.id3d !== 'string' || event.id3d === '') {
        const failed: PayboxState = { ...s, phase: 'final', status: 'declined', decline: { reason: 'authentication_failed', message: 'The 3-D Secure authentication failed.' } };
        delete failed.form;
        return this.#result(failed);
      }
      const id3d = event.id3d;
      return this.operations.once(
        'authorize3ds',
        s.reference,
        [s.reference, id3d],
        async () => this.#result(await this.#authorise(s, ACTIVITY_INTERNET, id3d)),
        async () => {
          const found = await this.#found(s);
          return found && this.#result(found);
        },
        reviveTransaction<contract.TransactionResult>,
      );
    }
    if (s.phase === 'pending') return this.#result({ ...s, form: this.#mpiForm(s) });
    return this.#result(await this.#read(s));
  }

  /**
   * One capture, cancel or refund, once per (operation, key) through the operation log. `decide`
   * refuses (a state with a decline) or names the request; `apply` is the state once Paybox
   * agreed; `happened` tells, from the stored state and the transaction now, whether a call whose
   * outcome is unknown took effect.
   */
  #maintain(
    op: 'capture' | 'void' | 'refund',
    key: string,
    transaction: contract.TransactionRef,
    amountCents: number | undefined,
    decide: (before: PayboxState) => { refuse: PayboxState } | { type: string; params: Record<string, string>; apply: PayboxState },
    happened: (before: PayboxState, now: PayboxState) => boolean | Promise<boolean>,
  ): Promise<contract.TransactionResult> {
    assertKey(key);
    const stored = readState(transaction);
    if (!stored) throw this.fault('unknown_transaction', `no transaction ${transaction.transactionId} (no stored state)`);
    const send = async (): Promise<contract.TransactionResult> => {
      const before = await this.#read(stored);
      const d = decide(before);
      if ('refuse' in d) return this.#result(d.refuse);
      const a = await this.#ask(op, d.type, d.params);
      if (a.outcome.kind === 'ok') return this.#result(d.apply);
      return this.#result({ ...before, decline: { reason: a.outcome.kind === 'refused' ? a.outcome.reason : 'processing_error', message: this.#message(a.fields) } });
    };
    const reconcile = async (): Promise<contract.TransactionResult | undefined> => {
      const now = await this.#read(stored);
      if (!(await happened(stored, now))) return undefined;
      const d = decide(stored);
      return 'apply' in d ? this.#result(d.apply) : undefined;
    };
    return this.operations.once(op, key, [transaction.transactionId, amountCents ?? null], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  /** A refusal decided before any call: Paybox's reasons are a lapsed hold, else an amount it would not take. */
  #refused(before: PayboxState, refusal: MaintenanceRefusal): { refuse: PayboxState } {
    const reason = refusal === 'expired' ? 'authorization_expired' : 'amount_too_large';
    const r: PayboxState = { ...before, decline: { reason, message: REFUSAL_MESSAGES[refusal] } };
    delete r.form;
    return { refuse: r };
  }

  #numbers(s: PayboxState): Record<string, string> {
    return { NUMTRANS: s.numTrans!, NUMAPPEL: s.numAppel!, REFERENCE: s.reference, DEVISE: currencyCode(s.currency) };
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    return this.#maintain(
      'capture',
      input.idempotencyKey,
      input.transaction,
      input.amountCents,
      (before) => {
        const refusal = captureRefusal(before, input.amountCents);
        if (refusal) return this.#refused(before, refusal);
        // One capture per authorisation at Paybox: what it does not take is released.
        return {
          type: TYPES.subscriberCapture,
          params: { ...this.#numbers(before), MONTANT: toMontant(input.amountCents) },
          apply: { ...before, status: 'captured', capturedCents: input.amountCents },
        };
      },
      (before, now) => before.status === 'authorized' && now.status === 'captured',
    );
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const stored = readState(input.transaction);
    if (stored && stored.phase === 'pending') {
      // Nothing exists at Paybox while the shopper is at the issuer's page: the payment is simply abandoned.
      const voided: PayboxState = { ...stored, phase: 'final', status: 'voided' };
      delete voided.form;
      return this.#result(voided);
    }
    return this.#maintain(
      'void',
      input.idempotencyKey,
      input.transaction,
      undefined,
      (before) => {
        const refusal = voidRefusal(before, ['authorized']);
        if (refusal === 'expired') return this.#refused(before, refusal);
        if (refusal === 'unchanged' || before.phase !== 'done') return { refuse: before };
        if (refusal) return this.#refused(before, refusal);
        const sub = this.#subscriber(before.pm);
        return {
          type: TYPES.subscriberCancel,
          params: { ...this.#numbers(before), MONTANT: toMontant(before.amountCents), REFABONNE: sub.refAbonne, PORTEUR: sub.token, DATEVAL: sub.dateval },
          apply: { ...before, status: 'voided' },
        };
      },
      (_before, now) => now.status === 'voided',
    );
  }

  /** Whether Paybox holds a transaction under this REFERENCE and amount (TYPE 00011). */
  async #exists(reference: string, amountCents: number, currency: string): Promise<boolean> {
    try {
      const a = await this.#ask('check', TYPES.check, { MONTANT: toMontant(amountCents), DEVISE: currencyCode(currency), REFERENCE: reference });
      return a.outcome.kind === 'ok';
    } catch (e) {
      if (e instanceof PspIntegrationError && e.code === 'unknown_transaction') return false;
      throw e;
    }
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    // Each refund is a transaction of its own at Paybox, under a REFERENCE of its own: this key's,
    // so that a refund whose answer was lost is found again by it.
    const reference = this.#reference('refund', input.idempotencyKey);
    return this.#maintain(
      'refund',
      input.idempotencyKey,
      input.transaction,
      input.amountCents,
      (before) => {
        const refusal = refundRefusal(before, input.amountCents);
        if (refusal) return this.#refused(before, refusal);
        return {
          type: TYPES.refund,
          params: { ...this.#numbers(before), REFERENCE: reference, MONTANT: toMontant(input.amountCents) },
          apply: { ...before, status: 'refunded', refundedCents: before.refundedCents + input.amountCents },
        };
      },
      // Found under its own REFERENCE and amount. Failing that, the status still tells a first
      // refund (one sent before refunds had their own REFERENCE; docs/psp/paybox.md).
      async (before, now) => (await this.#exists(reference, input.amountCents, before.currency)) || (before.status === 'captured' && now.status === 'refunded'),
    );
  }

  /** The RemoteMPI return: Paybox's RSA signature, then Chipin's on IdSession (./notifications.ts). */
  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    // A key stored but unusable (saved before it was parsed): a typed fault, which the PSP is told
    // to send again once the merchant has fixed it; none stored refuses every return, as before.
    if (!this.#mpiKey && this.credentials.reveal().publicKey) throw new UnusableCredentialError('paybox', 'credentials.public_key', PAYBOX_PUBLIC_KEY_EXPECTED);
    return verifyMpiReturn(input.rawBody, this.credentials.reveal().cle, this.#mpiKey);
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    // An inquiry about a transaction that does not exist: authenticated, and changes nothing.
    return this.probeCredentials(async () => {
      try {
        await this.#ask('inquiry', TYPES.inquiry, { NUMTRANS: '0000000001', NUMAPPEL: '0000000001' });
      } catch (e) {
        if (e instanceof PspIntegrationError && e.code === 'unknown_transaction') return;
        throw e;
      }
    }, 'Paybox refused the site, rank or key (CLE) (CODEREPONSE 00006).');
  }
}

function brandOf(digits: string): string {
  if (digits.startsWith('4')) return 'visa';
  if (/^5[1-5]/.test(digits) || /^2[2-7]/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  return 'unknown';
}
