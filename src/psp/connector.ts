/**
 * The contract every PSP connector fulfils (docs/psp-connectors.md#the-contract). Chipin's payment
 * flows speak only this interface; a registry picks the connector per offer (`offers.psp`).
 *
 * Rules for implementations:
 * - A refusal (declined card, insufficient funds, failed 3-D Secure) is a result value with a
 *   reason code, never an exception. Exceptions are for integration faults only
 *   ({@link PspIntegrationError}): network down, bad credentials, malformed PSP answer.
 * - Every mutating call takes an `idempotencyKey`: the same key twice returns the first outcome
 *   and never charges twice, whichever process sends it: through the operation log
 *   (`ConnectorContext.operations`, src/psp/kit/operations.ts) and the PSP's own idempotency key
 *   where it has one.
 * - Calls are made outside database transactions by the caller; connectors hold no DB transaction.
 * - Amounts are integers in the currency's minor unit.
 * - A connector keeps no payment state in memory: what it learns from its PSP comes back as
 *   {@link TransactionResult.pspState}, the caller stores it with the payment, and every later
 *   call on that transaction receives it back ({@link TransactionRef}). Any instance, in any
 *   process, after any restart, can capture, void, refund or read any transaction.
 */
import type { ChallengeForm } from './challenge-relay.ts';
export interface PspConnector {
  /** Registry name, stored on offers and payments (`sandbox`, ...). */
  readonly name: string;
  /** True for test systems: reported as `sandbox` in notifications. */
  readonly sandbox: boolean;

  /** Tokenises card details into a reusable payment method. Raw card data goes no further. */
  attachPaymentMethod(input: AttachInput): Promise<AttachResult>;

  /**
   * Authorises an amount on a payment method, on session (the shopper is present). With
   * `capture: 'automatic'` the amount is captured at once. May answer `requires_action` with a
   * 3-D Secure challenge URL; the shopper completes it, then {@link retrieve} tells the outcome.
   */
  authorize(input: AuthorizeInput): Promise<TransactionResult>;

  /** Captures an authorised transaction, fully or partly (`amountCents` ≤ authorised). */
  capture(input: AmountOperation): Promise<TransactionResult>;

  /** Releases an authorisation (hold) without capturing. */
  void(input: Operation): Promise<TransactionResult>;

  /** Refunds a captured transaction, fully or partly. */
  refund(input: AmountOperation): Promise<TransactionResult>;

  /**
   * Charges a saved payment method with the shopper absent (installments, the pot's rest):
   * a merchant-initiated transaction (PSD2) referencing the customer-initiated one that stored
   * the card (`storedCredential`), so that no new 3-D Secure challenge is needed. Captured at once,
   * unless `capture: 'manual'` (where the definition declares `offSessionHold`).
   */
  chargeOffSession(input: OffSessionInput): Promise<TransactionResult>;

  /**
   * The PSP's current view of a transaction (status sync, after a challenge or a timeout). With
   * `notification` (the `event` of a verified notification about this transaction), what only
   * that notification tells (Adyen's capture, refund and cancellation outcomes) is folded in.
   * With `returned` (what the shopper's browser brought back from a 3-D Secure challenge), a PSP
   * that finishes the authentication only when the merchant hands it over (Fondy's `PaRes`) is
   * given it first (docs/psp-connectors.md#the-return-from-3-d-secure).
   */
  retrieve(transaction: TransactionRef, options?: RetrieveOptions): Promise<TransactionResult>;

  /** Checks an incoming PSP notification (signature, freshness) and reads it. */
  verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<NotificationResult>;

  /**
   * One harmless authenticated call that proves the credentials work (on saving a PSP account,
   * docs/psp-connectors.md#credentials). Refused credentials are a result; an unreachable PSP
   * throws {@link PspIntegrationError} `unreachable`.
   */
  verifyCredentials(): Promise<{ ok: true } | { ok: false; message: string }>;

  /**
   * The PSP's own records of the transactions that moved in `[from, to)`, read through its
   * documented report or list API, a page at a time (docs/money-operations.md#reconciliation).
   * Absent when the PSP has no such API (or it is not built yet): reconciliation then asks
   * {@link retrieve} about each of Chipin's payments instead, and cannot see what only the PSP knows.
   */
  listTransactions?(input: ListTransactionsInput): Promise<PspRecordPage>;

  /**
   * Submits the merchant's evidence on a dispute, where the PSP has an API for it (Stripe's
   * `POST /v1/disputes/{id}`; docs/money-operations.md#disputes). Absent when it has none: staff
   * send the evidence through the PSP's back office and only mark it as sent in Chipin's.
   */
  submitDisputeEvidence?(input: { idempotencyKey: string; pspDisputeId: string; text: string }): Promise<{ ok: true } | { ok: false; message: string }>;
}

export interface ListTransactionsInput {
  from: Date;
  to: Date;
  /** Where the previous page ended (its `nextCursor`); null for the first page. */
  cursor: string | null;
}

/** One page of the PSP's records; `nextCursor` null on the last. */
export interface PspRecordPage {
  records: readonly PspRecord[];
  nextCursor: string | null;
}

/**
 * The PSP's current totals of one transaction that moved in the period: the same transaction may
 * appear on several pages (one per movement); every appearance carries its current totals.
 */
export interface PspRecord {
  /** The id Chipin stores as `payments.psp_transaction_id`. */
  transactionId: string;
  status: TransactionStatus;
  currency: string;
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
  /** Taken back from the merchant by lost chargebacks. */
  chargedBackCents: number;
}

/**
 * What a connector learnt from its PSP about one transaction: PSP references, the
 * stored-credential reference, capture and refund references, the last known amounts where the
 * PSP cannot be asked (Adyen has no payment read). JSON only (it is stored in `payments.psp_state`
 * and read back by another process), opaque to Chipin: only the connector that wrote it reads it.
 */
export type PspState = { readonly [field: string]: JsonValue };
type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [field: string]: JsonValue };

/**
 * A transaction as later calls name it: its id and the {@link PspState} stored from the last
 * result about it. `pspState` is null for a payment whose row holds none (written by a build whose connectors
 * returned none): a connector whose PSP can be read by id works from the id alone; one that
 * cannot (Adyen) answers `unknown_transaction`.
 */
export interface TransactionRef {
  transactionId: string;
  pspState: PspState | null;
}

/** A mutating call on an existing transaction. */
export interface Operation {
  idempotencyKey: string;
  transaction: TransactionRef;
}

/** A capture or refund: an {@link Operation} with an amount. */
export interface AmountOperation extends Operation {
  amountCents: number;
}

export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  holderName: string;
}

export interface AttachInput {
  idempotencyKey: string;
  card: CardInput;
}

export type AttachResult =
  | {
      ok: true;
      paymentMethodId: string;
      brand: string;
      last4: string;
      expMonth: number;
      expYear: number;
      /** The card's funding, where the PSP's tokeniser tells it (Stripe, the sandbox): the prepaid rule reads it (docs/risk.md#card-facts). */
      funding?: 'credit' | 'debit' | 'prepaid';
      /** The issuing country, ISO 3166 alpha-2, where the PSP tells it. */
      country?: string;
    }
  | { ok: false; reason: DeclineReason; message: string };

export interface AuthorizeInput {
  idempotencyKey: string;
  paymentMethodId: string;
  amountCents: number;
  currency: string;
  capture: 'automatic' | 'manual';
  /** Where the 3-D Secure challenge page sends the shopper back. */
  returnUrl: string;
  /**
   * The shopper consents to the card being stored for later merchant-initiated charges (PSD2
   * customer-initiated transaction with `setup_future_usage` / `recurringProcessingModel` or the
   * PSP's equivalent). Chipin sets it on the leader's checkout of every offer that charges later.
   */
  storeForLater?: boolean;
  /**
   * The merchant's 3-D Secure choice, the offer's `use3ds` (docs/psp-connectors.md#the-merchants-3-d-secure-choice):
   * `always` asks the PSP to authenticate the shopper; `never` asks it not to, unless the card's
   * issuer requires it. Absent: the offer's `auto`, the PSP (and the issuer) decide as they always
   * did. A connector reads it through {@link askedThreeDSecure}, never directly.
   */
  threeDSecure?: 'always' | 'never';
}

/** An offer's 3-D Secure choice, as the merchant sets it (`use3ds`). */
export type ThreeDSecureChoice = 'always' | 'never' | 'auto';

/** The part of an authorisation that carries an offer's 3-D Secure choice: nothing for `auto`, so that its calls stay what they were. */
export function threeDSecureInput(choice: ThreeDSecureChoice): Pick<AuthorizeInput, 'threeDSecure'> {
  return choice === 'auto' ? {} : { threeDSecure: choice };
}

/**
 * What a connector asks its PSP for. `never` is not honoured on a checkout that stores the card
 * for later charges: PSD2 wants that consent strongly authenticated, and the merchant-initiated
 * charges that follow are declined without it; such a checkout asks as under `auto`.
 */
export function askedThreeDSecure(input: Pick<AuthorizeInput, 'threeDSecure' | 'storeForLater'>): ThreeDSecureChoice {
  if (input.threeDSecure === 'always') return 'always';
  if (input.threeDSecure === 'never' && !input.storeForLater) return 'never';
  return 'auto';
}

/** A merchant-initiated charge on a stored card (PSD2 MIT). */
export interface OffSessionInput {
  idempotencyKey: string;
  paymentMethodId: string;
  amountCents: number;
  currency: string;
  /**
   * The customer-initiated transaction that stored the card: its PSP transaction id and, where the
   * PSP returned one, the card scheme's network transaction id. A connector whose PSP declines a
   * MIT without such a reference must send it; the fakes refuse a MIT without it, as the PSPs do.
   */
  storedCredential?: { initialTransactionId: string; networkTransactionId?: string };
  /**
   * `manual`: a merchant-initiated hold, captured later (a re-authorisation,
   * docs/money-operations.md#re-authorisation). Default `automatic`: captured at once. Only the
   * connectors whose definition declares `authorizationValidity.offSessionHold` honour `manual`;
   * no one else is asked for it.
   */
  capture?: 'automatic' | 'manual';
}

/** Our view of a PSP transaction. */
export type TransactionStatus =
  | 'requires_action' // 3-D Secure challenge pending
  | 'authorized' // held, not captured
  | 'captured' // fully or partly captured
  | 'voided'
  | 'refunded' // fully or partly
  | 'declined'
  | 'expired'; // an authorisation hold that lapsed

export interface TransactionResult {
  transactionId: string;
  status: TransactionStatus;
  amountCents: number;
  capturedCents: number;
  refundedCents: number;
  /** Present when status is `declined` (or a capture/charge was refused). */
  decline?: { reason: DeclineReason; message: string };
  /** Present when status is `requires_action` and the shopper's browser opens the issuer's page with a GET. */
  challengeUrl?: string;
  /**
   * Present instead of {@link challengeUrl} when the issuer's page wants a form POST (Ogone's
   * HTML_ANSWER, Lyra's postData, Adyen's POST redirect). The registry turns it into a
   * `challengeUrl` of ours whose page posts the form (src/psp/challenge-relay.ts).
   */
  challengeForm?: ChallengeForm;
  /** When an authorisation hold lapses, if it does. */
  expiresAt?: Date;
  /** The card scheme's transaction id of a customer-initiated transaction that stored the card (referenced by later MITs). */
  networkTransactionId?: string;
  /**
   * The processor's own identifiers and status label, for a PSP whose merchants' integrations
   * expect them in the notification and the front-end result (the contract's "card processor"
   * variant: Lyra's REST API). Absent for every other PSP, whose payloads stay standard.
   */
  processor?: ProcessorDetails;
  /**
   * What the connector learnt (see {@link PspState}): the caller stores it with the payment and
   * gives it back in every later {@link TransactionRef}. Absent: nothing to keep beyond the id.
   */
  pspState?: PspState;
}

/** See {@link TransactionResult.processor}. */
export interface ProcessorDetails {
  /** The processor's current identifier of the transaction, the one to use (Lyra: the transaction `uuid`). */
  uid: string;
  /** Its old identifier, when it has one (Lyra: `cardDetails.legacyTransId`, 6 characters, unique per shop and day only). */
  legacyId: string | null;
  /** The processor's reference of the order the transaction belongs to (Lyra: `orderDetails.orderId`). */
  reference: string;
  /** The processor's status label, verbatim (Lyra: `detailedStatus`, e.g. `AUTHORISED`). */
  statusLabel: string;
}

/**
 * The event data of {@link ProcessorDetails} (snake case, as the rest of the event data): what the
 * payments' repository stores in a `payment.transaction` event and delivery/transaction.ts reads
 * back.
 */
export function processorData(p: ProcessorDetails): Record<string, unknown> {
  return { uid: p.uid, legacy_id: p.legacyId, reference: p.reference, status_label: p.statusLabel };
}

/** Why a payment was refused: a closed set every connector maps its PSP's codes onto. */
export type DeclineReason =
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'invalid_card'
  | 'authentication_failed' // 3-D Secure failed or abandoned
  | 'authorization_expired'
  | 'amount_too_large' // capture/refund beyond what is left
  | 'processing_error';

/** One transaction a verified notification is about. */
export interface NotifiedTransaction {
  transactionId: string;
  status: TransactionStatus;
  /** What only this notification tells about the transaction (Adyen): give it to {@link PspConnector.retrieve}. */
  event?: NotificationEvent;
  /**
   * Present when the notification is about a dispute on this transaction (a chargeback, a
   * retrieval request, a fraud warning; docs/money-operations.md#disputes): Chipin records the
   * dispute and does not read the transaction again.
   */
  dispute?: NotifiedDispute;
}

/** What a dispute is: a chargeback takes money back; a retrieval request asks for information; a fraud warning (TC40/SAFE) only warns. */
export type DisputeKind = 'chargeback' | 'retrieval' | 'fraud_warning';

/** A dispute's status as the PSP tells it, mapped by each connector. */
export type DisputeStatus = 'opened' | 'evidence_needed' | 'won' | 'lost' | 'closed';

/** A dispute as one verified notification tells it (its current state at the PSP). */
export interface NotifiedDispute {
  /** The PSP's id of the dispute (Stripe `dp_…`, Adyen's chargeback pspReference …); unique per PSP. */
  pspDisputeId: string;
  /** The disputed transaction (the id Chipin stores as `payments.psp_transaction_id`). */
  transactionId: string;
  kind: DisputeKind;
  status: DisputeStatus;
  /** The PSP's reason code or label, verbatim. */
  reason: string | null;
  /**
   * What the bank disputes, minor units (a lost chargeback takes it from the merchant), and its
   * currency. Absent when the PSP's notice does not tell it (Stripe's early fraud warning): the
   * disputed payment's captured amount less its refunds, in the purchase's currency.
   */
  amountCents?: number;
  currency?: string;
  /** When the merchant's evidence is due, where the PSP tells it. */
  evidenceDueAt?: Date;
}

export type NotificationResult =
  | (NotifiedTransaction & {
      ok: true;
      ack?: NotificationAck;
      /**
       * The other transactions of a batched notification (Adyen sends several items in one call
       * when batching is on), each applied as if it had come alone.
       */
      also?: readonly NotifiedTransaction[];
    })
  | { ok: false; reason: 'bad_signature' | 'malformed' | 'stale' };

/** What {@link PspConnector.retrieve} may be given besides the transaction. */
export interface RetrieveOptions {
  notification?: NotificationEvent;
  returned?: ChallengeReturn;
}

/**
 * The fields a 3-D Secure challenge sent back with the shopper to the return URL (the issuer's
 * form POST, or the query of a redirect), Chipin's own removed. Anyone can send them: a connector
 * gives them only to its PSP, which checks them, never trusts them itself.
 */
export type ChallengeReturn = Readonly<Record<string, string>>;

/** A verified notification's content, as its connector reads it back in `retrieve` (JSON). */
export type NotificationEvent = { readonly [field: string]: JsonValue };

/** What the PSP expects as the answer to its notification (Adyen: `[accepted]`); 200 with an empty body when absent. */
export interface NotificationAck {
  status: number;
  contentType: string;
  body: string;
}

/** A fault in talking to the PSP (not a refusal): retry later or alert the operator. */
export class PspIntegrationError extends Error {
  constructor(
    readonly connector: string,
    readonly code:
      | 'unreachable'
      | 'bad_credentials'
      | 'bad_response'
      | 'not_supported'
      | 'unknown_transaction'
      | 'unknown_payment_method'
      // The same idempotency key was sent again with other parameters: a bug on our side.
      | 'idempotency_conflict',
    message: string,
  ) {
    super(`${connector}: ${message}`);
  }
}

/**
 * A stored credential its connector cannot use (a public key that is not one, a URL that cannot
 * be built): a fault of the PSP account's settings, found where the connector needs the value,
 * never a `TypeError`. `field` names it (`credentials.public_key`). A notification that needs it
 * is answered "send it again later" (src/use-cases/reconciliation/psp-notification.ts); a payment, as any
 * `bad_credentials` fault (docs/psp-connectors.md#credential-checks).
 */
export class UnusableCredentialError extends PspIntegrationError {
  constructor(
    connector: string,
    readonly field: string,
    expected: string,
  ) {
    super(connector, 'bad_credentials', `credential ${field} cannot be used: ${expected}`);
  }
}

/**
 * Whether an error is a fault in reaching the PSP (unreachable, timed out, an answer we cannot
 * read such as a 5xx page): the outcome of the call is unknown, so it is replayed with the same
 * idempotency key (or reconciled with `retrieve`) before anything else is charged.
 */
export function isPspFault(err: unknown): err is PspIntegrationError {
  return err instanceof PspIntegrationError && (err.code === 'unreachable' || err.code === 'bad_response');
}
