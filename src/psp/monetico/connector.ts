import type * as contract from '../connector.ts';
import { askedThreeDSecure } from '../connector.ts';
import type { ChallengeForm } from '../challenge-relay.ts';
import { amountsBefore, type Amounts } from '../kit/amounts-state.ts';
import { HttpKitConnector, type HttpKitConnectorOptions } from '../kit/connector-setup.ts';
import { statusFault } from '../kit/status-fault.ts';
import { leftToRefund, maintainOnce, maintenanceRefusal, refundHappened, refusedAsItStands, type MaintenanceInput, type MaintenanceRefusal } from '../kit/maintenance.ts';
import { reviveTransaction, chargeParams } from '../kit/operations.ts';
import { assertAmount, assertAuthorizeInput, assertChargeInput, assertKey } from '../input-checks.ts';
import {
  MONETICO_VERSION,
  computeMac,
  formatMoneticoDate,
  formatOrderDate,
  fromMoneticoAmount,
  isPaymentCdr,
  isPaymentState,
  macMatches,
  orderReference,
  parseFlatXml,
  parseLines,
  parseMoneticoDate,
  paymentOutcome,
  toMoneticoAmount,
  toTransactionResult,
  type MoneticoView,
} from './mapping.ts';
import { verifyReturn } from './notifications.ts';

export interface MoneticoCredentials {
  tpe: string;
  societe: string;
  /** The security key, 40 hexadecimal characters. */
  key: string;
}

export interface MoneticoConnectorOptions extends HttpKitConnectorOptions<MoneticoCredentials> {
  /** `https://p.monetico-services.com/test` or `…/` in production (or a PSP account's endpoint_url). */
  baseUrl: string;
}

type Page = 'paiement.cgi' | 'capture_paiement.cgi' | 'recredit_paiement.cgi' | 'etatpaiement.cgi';

/** What a transaction's `pspState` holds: the amounts of the last result and what reads it again. */
interface MoneticoState extends Amounts {
  /** `date_commande` (DD/MM/YYYY) and `montant` ("10.00EUR"): etatpaiement.cgi finds an order by them and its reference. */
  orderDate: string;
  amount: string;
  /** Automatic capture: the connector captures once the authorisation is through (also after 3-D Secure). */
  autoCapture: boolean;
}

/** What the card check at attach holds for a moment, then cancels. */
const VERIFY_AMOUNT_CENTS = 1;
const DAY_MS = 86_400_000;

function brandName(brand: string | undefined): string {
  switch ((brand ?? '').toUpperCase()) {
    case 'VI':
      return 'visa';
    case 'MC':
      return 'mastercard';
    case 'AM':
      return 'amex';
    case 'CB':
      return 'cb';
    default:
      return 'unknown';
  }
}

/** The refusals decided before any call, worded as Monetico's own labels for them. */
const REFUSAL_LABELS: Record<MaintenanceRefusal, string> = {
  expired: 'commande expiree',
  nothing_held: 'la commande est deja annulee ou capturee',
  more_than_held: 'montant errone',
  captured: 'paiement deja accepte',
  more_than_left: 'montant errone',
};

function stateOf(ref: contract.TransactionRef): MoneticoState | undefined {
  const s = ref.pspState;
  const amounts = amountsBefore(ref);
  if (!s || !amounts || typeof s.orderDate !== 'string' || typeof s.amount !== 'string') return undefined;
  return { ...amounts, orderDate: s.orderDate, amount: s.amount, autoCapture: s.autoCapture === true };
}

/**
 * Monetico Paiement (Crédit Mutuel, CIC): form-encoded POSTs sealed with the MAC (HMAC-SHA1 of the
 * sorted fields, key from the 40-hex security key) to paiement.cgi (server-to-server payment),
 * capture_paiement.cgi (capture, and cancellation with nothing to capture), recredit_paiement.cgi
 * (refund) and etatpaiement.cgi (a payment's state). Wire format and sources: docs/psp/monetico.md.
 *
 * Capture is the TPE's "paiement différé" mode: every payment is authorised, and an automatic
 * capture is a capture_paiement.cgi call right after (after 3-D Secure, on the next read).
 *
 * Idempotency: an order's `reference` is derived from our idempotency key, and Monetico refuses a
 * second payment under a reference already used; mutating calls go through the operation log,
 * and one whose outcome is unknown is reconciled by reading the order (etatpaiement.cgi).
 */
export class MoneticoConnector extends HttpKitConnector<MoneticoCredentials> implements contract.PspConnector {
  constructor(opts: MoneticoConnectorOptions) {
    super('monetico', opts);
  }

  /** One call: version, TPE, societe and date added, the MAC computed; the answer's text, HTTP faults thrown. */
  async #post(page: Page, fields: Record<string, string>): Promise<string> {
    const c = this.credentials.reveal();
    const all: Record<string, string> = { version: MONETICO_VERSION, TPE: c.tpe, societe: c.societe, date: formatMoneticoDate(this.clock.now()), ...fields };
    all.MAC = computeMac(all, c.key);
    const res = await this.client.request(page, `${this.baseUrl}/${page}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'text/plain, application/xml' },
      body: new URLSearchParams(all).toString(),
    });
    const fault = statusFault(this.name, page, res.status);
    if (fault) throw fault;
    if (res.status !== 200) throw this.fault('bad_response', `${page}: HTTP ${res.status}`);
    return res.text;
  }

  /** An XML answer sealed with the MAC (payment, state): its fields, refused when the seal does not match. */
  #sealedXml(page: Page, text: string): Record<string, string> {
    const x = parseFlatXml(text);
    if (!x) throw this.fault('bad_response', `${page}: the answer is not Monetico's XML`);
    if (x.cdr === '-2' || x.cdr === '-3') throw this.fault('bad_credentials', `${page}: Monetico refused the TPE, company code or MAC (cdr ${x.cdr})`);
    if (!macMatches(x, this.credentials.reveal().key)) throw this.fault('bad_response', `${page}: the answer's MAC does not match`);
    return x;
  }

  /** A payment as etatpaiement.cgi tells it; undefined when Monetico has no such order. */
  async #find(reference: string, orderDate: string, amount: string): Promise<MoneticoView | undefined> {
    const x = this.#sealedXml('etatpaiement.cgi', await this.#post('etatpaiement.cgi', { reference, date_commande: orderDate, montant: amount }));
    if (x.cdr === '-1') return undefined; // "commande non authentifiee": no order with this reference, date and amount
    if (x.cdr) throw this.fault('bad_response', `etatpaiement.cgi: cdr ${x.cdr}`);
    const total = fromMoneticoAmount(x.montant);
    const captured = fromMoneticoAmount(x.montantrecouvre || `0${total?.currency ?? ''}`);
    const refunded = fromMoneticoAmount(x.montantrecredite || `0${total?.currency ?? ''}`);
    if (!total || !captured || !refunded || !isPaymentState(x.etat) || x.reference !== reference) {
      throw this.fault('bad_response', `etatpaiement.cgi: unreadable state or amounts for ${reference}`);
    }
    const view: MoneticoView = {
      reference,
      state: x.etat,
      amountCents: total.amountCents,
      currency: total.currency,
      capturedCents: Math.min(captured.amountCents, total.amountCents),
      refundedCents: refunded.amountCents,
    };
    const authorisedAt = parseMoneticoDate(x.dateautorisation);
    if (authorisedAt) view.authorisedAt = authorisedAt;
    if (x.motifrefus) view.motive = x.motifrefus;
    if (x.motifrefusautorisation) view.authorisationCode = x.motifrefusautorisation;
    return view;
  }

  #result(view: MoneticoView, state: Pick<MoneticoState, 'orderDate' | 'amount' | 'autoCapture'>, challenge?: ChallengeForm): contract.TransactionResult {
    const r = toTransactionResult(view, this.clock.now(), challenge);
    const pspState: contract.PspState = {
      status: r.status,
      capturedCents: r.capturedCents,
      refundedCents: r.refundedCents,
      orderDate: state.orderDate,
      amount: state.amount,
      autoCapture: state.autoCapture,
    };
    return { ...r, pspState };
  }

  async #view(ref: contract.TransactionRef): Promise<{ view: MoneticoView; state: MoneticoState }> {
    const state = stateOf(ref);
    // etatpaiement.cgi needs the order's date and amount beside its reference: a payment without them is not ours to read.
    if (!state || !/^[A-Za-z0-9]{1,12}$/.test(ref.transactionId)) throw this.fault('unknown_transaction', `no transaction ${ref.transactionId}`);
    const view = await this.#find(ref.transactionId, state.orderDate, state.amount);
    if (!view) throw this.fault('unknown_transaction', `no transaction ${ref.transactionId}`);
    return { view, state };
  }

  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    const { view, state } = await this.#view(transaction);
    const r = this.#result(view, state);
    // An automatic-capture payment authorised after 3-D Secure is captured now, once.
    if (state.autoCapture && r.status === 'authorized') return this.#autoCapture(transaction.transactionId, view, state);
    return r;
  }

  /** The full capture of an automatic-capture payment, once per transaction whichever path comes first. */
  async #autoCapture(reference: string, view: MoneticoView, state: MoneticoState): Promise<contract.TransactionResult> {
    const send = async () => {
      await this.#captureCall(reference, state, view.amountCents, view.amountCents, view.currency);
      return this.#read(reference, state);
    };
    const reconcile = async () => {
      const now = await this.#read(reference, state);
      return now.status === 'authorized' ? undefined : now;
    };
    return this.operations.once('capture', `auto:${reference}`, [reference], send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async #read(reference: string, state: Pick<MoneticoState, 'orderDate' | 'amount' | 'autoCapture'>): Promise<contract.TransactionResult> {
    const view = await this.#find(reference, state.orderDate, state.amount);
    if (!view) throw this.fault('unknown_transaction', `no transaction ${reference}`);
    return this.#result(view, state);
  }

  /** capture_paiement.cgi: captures `captureCents` and releases the rest (`montant_restant` 0); 0 cancels the hold. */
  async #captureCall(
    reference: string,
    state: Pick<MoneticoState, 'orderDate'>,
    amountCents: number,
    captureCents: number,
    currency: string,
  ): Promise<{ ok: true } | { ok: false; lib: string }> {
    const text = await this.#post('capture_paiement.cgi', {
      reference,
      date_commande: state.orderDate,
      montant: toMoneticoAmount(amountCents, currency),
      montant_a_capturer: toMoneticoAmount(captureCents, currency),
      montant_deja_capture: toMoneticoAmount(0, currency),
      montant_restant: toMoneticoAmount(0, currency),
      lgue: 'FR',
    });
    return this.#maintenanceAnswer('capture_paiement.cgi', text, '1', reference);
  }

  #maintenanceAnswer(page: Page, text: string, okCdr: string, reference: string): { ok: true } | { ok: false; lib: string } {
    const a = parseLines(text);
    if (!a) throw this.fault('bad_response', `${page}: unreadable answer`);
    const lib = (a.lib ?? '').trim().toLowerCase();
    if (lib === 'signature non valide' || lib === 'commercant non identifie')
      throw this.fault('bad_credentials', `${page}: Monetico refused the TPE, company code or MAC (${lib})`);
    if (lib === 'commande non authentifiee') throw this.fault('unknown_transaction', `no transaction ${reference}`);
    if (lib === 'probleme technique' || lib === 'traitement en cours' || lib === 'autre traitement en cours') throw this.fault('unreachable', `${page}: ${lib}`);
    return a.cdr === okCdr ? { ok: true } : { ok: false, lib };
  }

  /**
   * A server-to-server payment under `reference`, unless that order exists already (then it is
   * the answer). Faults are thrown; a refusal or a 3-D Secure step is in the answer.
   */
  async #pay(reference: string, fields: Record<string, string>, state: Pick<MoneticoState, 'orderDate' | 'amount' | 'autoCapture'>): Promise<contract.TransactionResult> {
    const x = this.#sealedXml('paiement.cgi', await this.#post('paiement.cgi', { ...fields, reference, montant: state.amount, lgue: 'FR', 'texte-libre': '' }));
    if (!isPaymentCdr(x.cdr)) throw this.fault('bad_response', `paiement.cgi: unknown cdr ${x.cdr ?? ''}`);
    const outcome = paymentOutcome(x.cdr);
    switch (outcome.kind) {
      case 'credentials':
        throw this.fault('bad_credentials', `paiement.cgi: Monetico refused the TPE, company code or MAC (cdr ${x.cdr})`);
      case 'fault':
        throw this.fault('bad_response', `paiement.cgi: cdr ${x.cdr} (${x.lib ?? ''})`);
      case 'duplicate':
        return this.#read(reference, state);
      case 'refused':
        if (x.cdr !== '0') {
          // Refused before any authorisation (card number, expiry, CVX): no order to read.
          return {
            transactionId: reference,
            status: 'declined',
            amountCents: fromMoneticoAmount(state.amount)?.amountCents ?? 0,
            capturedCents: 0,
            refundedCents: 0,
            decline: { reason: outcome.reason, message: `Refused by Monetico (cdr ${x.cdr}${x.lib ? `, ${x.lib}` : ''}).` },
            pspState: { status: 'declined', capturedCents: 0, refundedCents: 0, orderDate: state.orderDate, amount: state.amount, autoCapture: state.autoCapture },
          };
        }
        return this.#read(reference, state);
      case 'challenge': {
        const action = x.url_acs ?? '';
        let url: URL;
        try {
          url = new URL(action);
        } catch {
          throw this.fault('bad_response', 'paiement.cgi: a 3-D Secure step without the issuer’s address');
        }
        if (url.protocol !== 'https:' && url.protocol !== 'http:') throw this.fault('bad_response', 'paiement.cgi: the issuer’s address is not http(s)');
        const form: ChallengeForm = { action: url.toString(), fields: { creq: x.creq ?? '', threeDSSessionData: x.threeDSSessionData ?? '' } };
        const view = await this.#find(reference, state.orderDate, state.amount);
        if (!view) throw this.fault('bad_response', `paiement.cgi: order ${reference} awaiting 3-D Secure not found`);
        return this.#result(view, state, form);
      }
      case 'accepted': {
        const r = await this.#read(reference, state);
        if (state.autoCapture && r.status === 'authorized') {
          const view = (await this.#find(reference, state.orderDate, state.amount))!;
          return this.#autoCapture(reference, view, { ...state, status: r.status, capturedCents: 0, refundedCents: 0 });
        }
        return r;
      }
    }
  }

  /** Creations (attach, authorize, charge) through the operation log; reconciled by reading the order by its reference. */
  #create(
    op: string,
    key: string,
    params: readonly unknown[],
    amountCents: number,
    currency: string,
    autoCapture: boolean,
    fields: Record<string, string>,
  ): Promise<contract.TransactionResult> {
    assertKey(key);
    const reference = orderReference(op, key);
    const amount = toMoneticoAmount(amountCents, currency);
    const send = () => {
      // One instant for the request's date and the order's date, which etatpaiement.cgi finds it by.
      const now = this.clock.now();
      return this.#pay(reference, { ...fields, date: formatMoneticoDate(now) }, { orderDate: formatOrderDate(now), amount, autoCapture });
    };
    const reconcile = async (): Promise<contract.TransactionResult | undefined> => {
      // The order's date is the day it was sent: today, or yesterday for a call sent before midnight.
      const now = this.clock.now().getTime();
      for (const day of [now, now - DAY_MS]) {
        const state = { orderDate: formatOrderDate(new Date(day)), amount, autoCapture };
        const view = await this.#find(reference, state.orderDate, amount);
        if (view) return this.retrieve({ transactionId: reference, pspState: this.#result(view, state).pspState! });
      }
      return undefined;
    };
    return this.operations.once(op, key, params, send, reconcile, reviveTransaction<contract.TransactionResult>);
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    assertKey(input.idempotencyKey);
    const digits = input.card.number.replace(/ /g, '');
    const expYear = input.card.expYear >= 0 && input.card.expYear < 100 ? 2000 + input.card.expYear : input.card.expYear;
    const alias = `chipin${orderReference('alias', input.idempotencyKey).toLowerCase()}`;
    // A 0.01 EUR authorisation registers the card under an alias (aliascb: "paiement express"),
    // a customer-initiated payment with the shopper's consent given on Chipin's card form; it is
    // cancelled at once: Monetico has no card check without an authorisation.
    const r = await this.#create('attach', input.idempotencyKey, [digits.slice(-4), input.card.expMonth, expYear], VERIFY_AMOUNT_CENTS, 'EUR', false, {
      numero_carte: digits,
      mois_validite: String(input.card.expMonth).padStart(2, '0'),
      annee_validite: String(expYear % 100).padStart(2, '0'),
      cvx: input.card.cvc,
      aliascb: alias,
      // A card check, not a purchase: the issuer is asked for no challenge (it may still want one).
      ThreeDSecureChallenge: 'no_challenge_requested',
    });
    if (r.status === 'declined') return { ok: false, reason: r.decline?.reason ?? 'card_declined', message: r.decline?.message ?? 'Refused by Monetico.' };
    if (r.status === 'authorized') {
      const cancelled = await this.#captureCall(r.transactionId, stateOf({ transactionId: r.transactionId, pspState: r.pspState ?? null })!, VERIFY_AMOUNT_CENTS, 0, 'EUR');
      if (!cancelled.ok && cancelled.lib !== 'la commande est deja annulee') throw this.fault('bad_response', `could not cancel the card check ${r.transactionId}`);
    } else if (r.status !== 'voided') {
      throw this.fault('bad_response', `card check ${r.transactionId} answered ${r.status}`);
    }
    return {
      ok: true,
      paymentMethodId: alias,
      brand: brandName(digits.startsWith('4') ? 'VI' : /^(5[1-5]|2[2-7])/.test(digits) ? 'MC' : /^3[47]/.test(digits) ? 'AM' : ''),
      last4: digits.slice(-4),
      expMonth: input.card.expMonth,
      expYear,
    };
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAuthorizeInput(input);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError('capture must be automatic or manual');
    return this.#create(
      'authorize',
      input.idempotencyKey,
      [input.paymentMethodId, input.amountCents, input.currency, input.capture, input.storeForLater === true],
      input.amountCents,
      input.currency,
      input.capture === 'automatic',
      {
        // The card registered under the alias, the shopper present: 3-D Secure as the issuer wants,
        // a challenge preferred when the card is stored or the merchant wants it always, none
        // requested when the merchant wants it never (docs/psp-connectors.md#the-merchants-3-d-secure-choice).
        aliascb: input.paymentMethodId,
        url_retour_ok: input.returnUrl,
        url_retour_err: input.returnUrl,
        ThreeDSecureChallenge: challengePreference(input),
      },
    );
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertChargeInput(input);
    // Merchant-initiated: the stored card (aliascb), no shopper to authenticate (3dsdebrayable),
    // and the reference of the customer-initiated payment that stored it (numero_dossier).
    const fields: Record<string, string> = { aliascb: input.paymentMethodId, '3dsdebrayable': '1' };
    if (input.storedCredential) fields.numero_dossier = input.storedCredential.initialTransactionId;
    // The TPE captures in deferred mode: every payment is an authorisation. `manual` leaves it so,
    // a merchant-initiated hold that capture_paiement.cgi captures or cancels as the checkout's (a
    // re-authorisation, docs/money-operations.md#re-authorisation); otherwise captured at once.
    const manual = input.capture === 'manual';
    return this.#create('charge', input.idempotencyKey, chargeParams(input, manual), input.amountCents, input.currency, !manual, fields);
  }

  /**
   * One capture, cancellation or refund, once per (operation, key) through the operation log:
   * refused on the current state before any call (src/psp/kit/maintenance.ts), else `call` sends
   * it; `happened` tells,
   * from the amounts before the call and the transaction now, whether a call whose outcome is
   * unknown took effect.
   */
  #maintain(
    op: 'capture' | 'void' | 'refund',
    input: MaintenanceInput,
    call: (before: contract.TransactionResult, view: MoneticoView, state: MoneticoState) => Promise<{ ok: true } | { ok: false; lib: string }>,
    happened: (before: Amounts, now: contract.TransactionResult) => boolean,
  ): Promise<contract.TransactionResult> {
    const reference = input.transaction.transactionId;
    const send = async (): Promise<contract.TransactionResult> => {
      const { view, state } = await this.#view(input.transaction);
      const before = this.#result(view, state);
      const refusal = maintenanceRefusal(op, before, input.amountCents);
      if (refusal === 'unchanged') return before;
      if (refusal) return this.#refuse(before, REFUSAL_LABELS[refusal]);
      const answer = await call(before, view, state);
      const now = await this.#read(reference, state);
      if (answer.ok) return now;
      return this.#refuse(now, answer.lib);
    };
    return maintainOnce(this.operations, op, input, send, { before: () => stateOf(input.transaction), now: (t) => this.#read(reference, stateOf(t)!), happened });
  }

  /** A refusal on the transaction as it stands; capture_paiement.cgi's and recredit_paiement.cgi's labels in our words. */
  #refuse(before: contract.TransactionResult, lib: string): contract.TransactionResult {
    const reason = lib === 'commande expiree' ? ('authorization_expired' as const) : lib === 'autorisation refusee' ? ('card_declined' as const) : ('amount_too_large' as const);
    return refusedAsItStands(before, { reason, message: `Refused by Monetico (${lib}).` });
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const call = (_before: contract.TransactionResult, view: MoneticoView, state: MoneticoState) =>
      this.#captureCall(input.transaction.transactionId, state, view.amountCents, input.amountCents, view.currency);
    return this.#maintain('capture', input, call, (before, now) => before.status === 'authorized' && now.capturedCents === input.amountCents);
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    // Nothing to capture and nothing left: Monetico cancels the order ("commande annulee").
    const call = (_before: contract.TransactionResult, view: MoneticoView, state: MoneticoState) =>
      this.#captureCall(input.transaction.transactionId, state, view.amountCents, 0, view.currency);
    return this.#maintain('void', input, call, (_before, now) => now.status === 'voided');
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    const call = async (before: contract.TransactionResult, view: MoneticoView, state: MoneticoState) => {
      const text = await this.#post('recredit_paiement.cgi', {
        reference: input.transaction.transactionId,
        date_commande: state.orderDate,
        montant: toMoneticoAmount(view.amountCents, view.currency),
        montant_recredit: toMoneticoAmount(input.amountCents, view.currency),
        montant_possible: toMoneticoAmount(leftToRefund(before), view.currency),
        lgue: 'FR',
      });
      return this.#maintenanceAnswer('recredit_paiement.cgi', text, '0', input.transaction.transactionId);
    };
    return this.#maintain('refund', input, call, refundHappened(input.amountCents));
  }

  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    const c = this.credentials.reveal();
    return verifyReturn(input.rawBody, c.key, c.tpe);
  }

  async verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }> {
    // The state of an order that does not exist: authenticated and sealed, and changes nothing.
    return this.probeCredentials(async () => {
      await this.#find('CHIPINCHECK0', formatOrderDate(this.clock.now()), '0.01EUR');
    }, 'Monetico refused the TPE number, the company code or the security key.');
  }
}

/** Monetico's `ThreeDSecureChallenge` for an on-session payment. */
function challengePreference(input: contract.AuthorizeInput): 'challenge_preferred' | 'no_challenge_requested' | 'no_preference' {
  const asked = askedThreeDSecure(input);
  if (input.storeForLater || asked === 'always') return 'challenge_preferred';
  return asked === 'never' ? 'no_challenge_requested' : 'no_preference';
}
