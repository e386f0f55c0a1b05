import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Database, Sql } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import type * as contract from '../connector.ts';
import { PspIntegrationError, askedThreeDSecure } from '../connector.ts';
import { scheduleJob } from '../../jobs/scheduler.ts';
import { checkCard, type CardBehaviour } from './cards.ts';
import { decline, disputeNotificationBody, notificationBody, readNotification, toStatus, toTransactionResult, type SandboxDisputeRow, type TransactionRow } from './mapping.ts';
import { SIGNATURE_HEADER, checkSignature, headerValue, signNotification } from './notifications.ts';
import {
  addChargedBack,
  claimIdempotencyKey,
  findPaymentMethod,
  findSandboxDispute,
  insertSandboxDispute,
  setSandboxDisputeStatus,
  findTransaction,
  disputeHold,
  insertPaymentMethod,
  insertTransaction,
  listTransactionsMoved,
  storeIdempotentResult,
  updateTransaction,
  type PaymentMethodRow,
} from './sandbox-repository.ts';
import { assertAmount, assertCurrency, assertKey, assertReturnUrl, fingerprint } from '../input-checks.ts';

export interface SandboxPspOptions {
  db: Database;
  /**
   * The service clock (docs/jobs-and-clock.md#the-service-clock): hold expiry and card expiry
   * follow it, so the sandbox clock moves them.
   */
  clock: Clock;
  /** Chipin's public base URL; the 3-D Secure challenge page is served under it. */
  publicUrl: string;
  /** HMAC key of the sandbox's notifications: at least 32 bytes, the same in every process. */
  notificationSecret: Buffer;
}

/** How long a manual authorisation holds, as card networks commonly allow for online payments. */
export const SANDBOX_HOLD_DAYS = 7;
const DAY_MS = 86_400_000;
/** Records per page of the sandbox's list API. */
const SANDBOX_LIST_PAGE = 100;

function readListCursor(cursor: string): { updatedAt: Date; id: string } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { u?: unknown; i?: unknown };
    const updatedAt = typeof v.u === 'string' ? new Date(v.u) : new Date(NaN);
    if (typeof v.i === 'string' && !Number.isNaN(updatedAt.getTime())) return { updatedAt, id: v.i };
  } catch {
    // fall through
  }
  throw new PspIntegrationError('sandbox', 'bad_response', 'bad list cursor');
}

/** How long the merchant has to answer a sandbox chargeback or retrieval request before it lapses (lost). */
const SANDBOX_DISPUTE_RESPONSE_DAYS = 7;

/** The sandbox's durable jobs (registered by src/use-cases/disputes/dispute.ts): its dispute notices to Chipin, and unanswered disputes lapsing. */
export const SANDBOX_DISPUTE_NOTICE_JOB = 'sandbox_psp.dispute_notice';
export const SANDBOX_DISPUTE_LAPSE_JOB = 'sandbox_psp.dispute_lapse';

const DISPUTE_ID = /^sbx_dp_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const TRANSACTION_ID = /^sbx_txn_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What the challenge page shows; `token` guards its form against cross-site posts. */
export interface ChallengeView {
  transactionId: string;
  pending: boolean;
  amountCents: number;
  currency: string;
  brand: string;
  last4: string;
  token: string;
  returnUrl: string;
}

export type ChallengeOutcome = { ok: true; changed: boolean; returnUrl: string } | { ok: false; reason: 'unknown_transaction' | 'bad_token' };

type SandboxCall = 'attach' | 'authorize' | 'capture' | 'void' | 'refund' | 'charge_off_session';

function reviveResult<T>(stored: unknown): T {
  const r = stored as { expiresAt?: string | Date };
  if (typeof r.expiresAt === 'string') return { ...r, expiresAt: new Date(r.expiresAt) } as T;
  return r as T;
}

function sameToken(given: string, stored: string | null): boolean {
  if (!stored) return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(stored, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The built-in sandbox PSP (docs/psp-connectors.md#the-sandbox-psp): behaves like a card PSP in
 * test mode, driven by test card numbers. Its state is in the database (migration 003), so it
 * survives restarts and serves any number of Chipin processes on one PostgreSQL. It keeps no card
 * number and no CVC.
 */
export class SandboxPsp implements contract.PspConnector {
  readonly name = 'sandbox';
  readonly sandbox = true;
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #publicUrl: string;
  readonly #secret: Buffer;
  /** Records per page of {@link listTransactions}; tests lower it to cross pages. */
  listPageSize = SANDBOX_LIST_PAGE;

  constructor(opts: SandboxPspOptions) {
    let url: URL;
    try {
      url = new URL(opts.publicUrl);
    } catch {
      throw new TypeError('sandbox PSP: publicUrl must be an absolute http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('sandbox PSP: publicUrl must be an http(s) URL');
    if (!Buffer.isBuffer(opts.notificationSecret) || opts.notificationSecret.length < 32) {
      throw new TypeError('sandbox PSP: notificationSecret must be a Buffer of at least 32 bytes');
    }
    this.#db = opts.db;
    this.#clock = opts.clock;
    this.#publicUrl = opts.publicUrl.replace(/\/+$/, '');
    this.#secret = Buffer.from(opts.notificationSecret);
  }

  /** Runs `fn` once per (operation, key): a repeated call gets the stored first result, with no second effect. */
  async #idempotent<T>(op: SandboxCall, key: string, params: readonly unknown[], fn: (tx: Sql, now: Date) => Promise<T>): Promise<T> {
    assertKey(key);
    const print = fingerprint([op, ...params]);
    return this.#db.transaction(async (tx) => {
      const now = this.#clock.now();
      const claim = await claimIdempotencyKey(tx, op, key, print, now);
      if (!claim.fresh) {
        if (claim.fingerprint !== print) {
          throw new PspIntegrationError(this.name, 'idempotency_conflict', `idempotency key "${key}" was already used for another ${op} call`);
        }
        return reviveResult<T>(claim.result);
      }
      const result = await fn(tx, now);
      await storeIdempotentResult(tx, op, key, result);
      return result;
    });
  }

  async #paymentMethod(sql: Sql, id: string): Promise<PaymentMethodRow> {
    const pm = await findPaymentMethod(sql, id);
    if (!pm) throw new PspIntegrationError(this.name, 'unknown_payment_method', `no payment method ${id}`);
    return pm;
  }

  /** The transaction, locked for the rest of `tx`, with a lapsed hold recorded as such. */
  async #lockTransaction(tx: Sql, id: string, now: Date): Promise<TransactionRow> {
    const row = TRANSACTION_ID.test(id) ? await findTransaction(tx, id, true) : undefined;
    if (!row) throw new PspIntegrationError(this.name, 'unknown_transaction', `no transaction ${id}`);
    if (isLapsed(row, now)) return updateTransaction(tx, row, { status: 'lapsed' }, now);
    return row;
  }

  #result(row: TransactionRow): contract.TransactionResult {
    return toTransactionResult(row, this.#publicUrl);
  }

  async attachPaymentMethod(input: contract.AttachInput): Promise<contract.AttachResult> {
    const now = this.#clock.now();
    const check = checkCard(input.card, now);
    // The fingerprint must not let anyone recover the card: only what is kept anyway goes in.
    const params = check.ok
      ? [check.card.brand, check.card.last4, check.card.expMonth, check.card.expYear, check.card.behaviour, check.card.funding, check.card.country]
      : ['refused', check.code];
    return this.#idempotent('attach', input.idempotencyKey, params, async (tx, at): Promise<contract.AttachResult> => {
      if (!check.ok) return { ok: false, ...decline(check.code, check.message) };
      const id = `sbx_pm_${randomUUID()}`;
      await insertPaymentMethod(tx, id, check.card, at);
      const { brand, last4, expMonth, expYear, funding, country } = check.card;
      return { ok: true, paymentMethodId: id, brand, last4, expMonth, expYear, funding, country };
    });
  }

  async authorize(input: contract.AuthorizeInput): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    assertCurrency(input.currency);
    assertReturnUrl(input.returnUrl);
    if (input.capture !== 'automatic' && input.capture !== 'manual') throw new RangeError(`capture must be automatic or manual`);
    const asked = askedThreeDSecure(input);
    // The 3-D Secure choice is not part of the call's identity (as in every connector): a replay
    // after the merchant changed it answers what was done.
    const params = [input.paymentMethodId, input.amountCents, input.currency, input.capture, input.returnUrl];
    return this.#idempotent('authorize', input.idempotencyKey, params, async (tx, now) => {
      const pm = await this.#paymentMethod(tx, input.paymentMethodId);
      const row = newTransaction(pm.id, input.amountCents, input.currency, input.capture, false, now);
      row.return_url = input.returnUrl;
      switch (pm.behaviour) {
        case 'approve':
        case 'decline_off_session': // only charges without the shopper fail
        case 'dispute_fraudulent':
        case 'dispute_inquiry':
        case 'fraud_warning':
          // `always`: the issuer of every approving card challenges when asked to. `never` changes
          // nothing here: the only card that challenges requires it (docs/psp-connectors.md#test-cards).
          if (asked === 'always') challenge(row);
          else approve(row, now);
          break;
        case 'do_not_honor':
          refuse(row, 'do_not_honor');
          break;
        case 'insufficient_funds':
          refuse(row, 'insufficient_funds');
          break;
        case 'challenge':
          challenge(row);
          break;
      }
      await insertTransaction(tx, row);
      await this.#disputeOnCapture(tx, row, pm.behaviour, now);
      return this.#result(row);
    });
  }

  async capture(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    const transactionId = input.transaction.transactionId;
    assertAmount(input.amountCents);
    return this.#idempotent('capture', input.idempotencyKey, [transactionId, input.amountCents], async (tx, now) => {
      const row = await this.#lockTransaction(tx, transactionId, now);
      if (row.status === 'lapsed') return { ...this.#result(row), decline: decline('authorization_lapsed') };
      if (row.status !== 'held') {
        return { ...this.#result(row), decline: decline('exceeds_available', `Nothing to capture: the transaction is ${row.status}.`) };
      }
      if (input.amountCents > row.amount_cents) {
        return { ...this.#result(row), decline: decline('exceeds_available', `At most ${row.amount_cents} can be captured.`) };
      }
      // One capture per hold: capturing less releases the rest, as card PSPs do.
      const captured = await updateTransaction(tx, row, { status: 'settled', captured_cents: input.amountCents, expires_at: null }, now);
      await this.#disputeOnCapture(tx, captured, (await this.#paymentMethod(tx, row.payment_method_id)).behaviour, now);
      return this.#result(captured);
    });
  }

  async void(input: contract.Operation): Promise<contract.TransactionResult> {
    const transactionId = input.transaction.transactionId;
    return this.#idempotent('void', input.idempotencyKey, [transactionId], async (tx, now) => {
      const row = await this.#lockTransaction(tx, transactionId, now);
      switch (row.status) {
        case 'held':
        case 'pending_authentication':
          return this.#result(await updateTransaction(tx, row, { status: 'cancelled', expires_at: null }, now));
        case 'lapsed':
          return { ...this.#result(row), decline: decline('authorization_lapsed') };
        case 'settled':
          return { ...this.#result(row), decline: decline('exceeds_available', 'Nothing to void: the transaction is captured; refund it instead.') };
        case 'cancelled':
        case 'failed':
          return this.#result(row); // nothing is held: the void's purpose is already met
      }
    });
  }

  async refund(input: contract.AmountOperation): Promise<contract.TransactionResult> {
    const transactionId = input.transaction.transactionId;
    assertAmount(input.amountCents);
    return this.#idempotent('refund', input.idempotencyKey, [transactionId, input.amountCents], async (tx, now) => {
      const row = await this.#lockTransaction(tx, transactionId, now);
      // A chargeback awaiting the bank's decision holds the whole transaction, as Stripe's
      // `charge_disputed` does (docs/money-operations.md#refunds-and-disputes).
      const hold = await disputeHold(tx, row.id);
      if (hold.openChargeback) {
        return { ...this.#result(row), decline: decline('exceeds_available', 'A chargeback is open on this transaction: it cannot be refunded until the bank decides.') };
      }
      const refundable = row.status === 'settled' ? Math.max(0, row.captured_cents - row.refunded_cents - hold.chargedBackCents) : 0;
      if (input.amountCents > refundable) {
        return { ...this.#result(row), decline: decline('exceeds_available', `At most ${refundable} can be refunded.`) };
      }
      return this.#result(await updateTransaction(tx, row, { status: 'settled', refunded_cents: row.refunded_cents + input.amountCents }, now));
    });
  }

  async chargeOffSession(input: contract.OffSessionInput): Promise<contract.TransactionResult> {
    assertAmount(input.amountCents);
    assertCurrency(input.currency);
    const initial = input.storedCredential?.initialTransactionId;
    const manual = input.capture === 'manual';
    // `manual` only where asked, so that a charge's fingerprint stays what it always was.
    const params = [input.paymentMethodId, input.amountCents, input.currency, initial ?? null, ...(manual ? ['manual'] : [])];
    return this.#idempotent('charge_off_session', input.idempotencyKey, params, async (tx, now) => {
      const pm = await this.#paymentMethod(tx, input.paymentMethodId);
      // A merchant-initiated hold (a re-authorisation) holds SANDBOX_HOLD_DAYS like any other.
      const row = newTransaction(pm.id, input.amountCents, input.currency, manual ? 'manual' : 'automatic', true, now);
      // PSD2: a merchant-initiated charge must reference the customer-initiated transaction that
      // stored this card; without it (or with another card's) the issuer asks for authentication,
      // which an absent shopper cannot give: declined, as the real PSPs do.
      // (A card that declines off session declines this anyway, with its own reason.)
      const cit = initial && TRANSACTION_ID.test(initial) ? await findTransaction(tx, initial) : undefined;
      const authenticated = cit !== undefined && cit.payment_method_id === pm.id && !cit.off_session && cit.status !== 'failed' && cit.status !== 'pending_authentication';
      if (!authenticated && pm.behaviour !== 'do_not_honor' && pm.behaviour !== 'insufficient_funds' && pm.behaviour !== 'decline_off_session') {
        refuse(row, 'authentication_failed');
        await insertTransaction(tx, row);
        return this.#result(row);
      }
      switch (pm.behaviour) {
        // The shopper authenticated when the card was first used: merchant-initiated charges
        // are exempt from 3-D Secure, so the challenge card succeeds off session.
        case 'approve':
        case 'challenge':
        case 'dispute_fraudulent':
        case 'dispute_inquiry':
        case 'fraud_warning':
          approve(row, now);
          break;
        case 'do_not_honor':
        case 'decline_off_session':
          refuse(row, 'do_not_honor');
          break;
        case 'insufficient_funds':
          refuse(row, 'insufficient_funds');
          break;
      }
      await insertTransaction(tx, row);
      await this.#disputeOnCapture(tx, row, pm.behaviour, now);
      return this.#result(row);
    });
  }

  /**
   * A dispute card's captured transaction gets its dispute (docs/money-operations.md#disputes):
   * recorded, notified to Chipin by a durable job, and (a chargeback or retrieval request) lapsing
   * at its deadline unless decided before.
   */
  async #disputeOnCapture(tx: Sql, row: TransactionRow, behaviour: CardBehaviour, now: Date): Promise<void> {
    if (row.status !== 'settled' || row.captured_cents <= 0) return;
    const opened = DISPUTE_OPENED[behaviour as keyof typeof DISPUTE_OPENED] as (typeof DISPUTE_OPENED)[keyof typeof DISPUTE_OPENED] | undefined;
    if (!opened) return;
    const dispute: SandboxDisputeRow = {
      id: `sbx_dp_${randomUUID()}`,
      transaction_id: row.id,
      kind: opened.kind,
      status: 'needs_response',
      reason: opened.reason,
      amount_cents: row.captured_cents,
      currency: row.currency,
      evidence_due_at: opened.kind === 'fraud_warning' ? null : new Date(now.getTime() + SANDBOX_DISPUTE_RESPONSE_DAYS * DAY_MS),
      created_at: now,
      updated_at: now,
    };
    await insertSandboxDispute(tx, dispute);
    await this.#notifyDispute(tx, dispute.id, 'needs_response', now);
    if (dispute.evidence_due_at) {
      await scheduleJob(tx, { kind: SANDBOX_DISPUTE_LAPSE_JOB, key: `sandbox-dispute-lapse:${dispute.id}`, runAt: dispute.evidence_due_at, payload: { disputeId: dispute.id } });
    }
  }

  /** Schedules the notice of a dispute's new status, due at once (one per status: a repeat adds nothing). */
  async #notifyDispute(tx: Sql, id: string, status: string, now: Date): Promise<void> {
    await scheduleJob(tx, { kind: SANDBOX_DISPUTE_NOTICE_JOB, key: `sandbox-dispute-notice:${id}:${status}`, runAt: now, payload: { disputeId: id } });
  }

  /**
   * The bank decides a dispute still awaiting it: a chargeback is won or lost (lost: its amount is
   * charged back), a retrieval request or fraud warning is closed. False when it was already decided.
   */
  async decideDispute(id: string, outcome: 'won' | 'lost'): Promise<boolean> {
    if (!DISPUTE_ID.test(id)) return false;
    return this.#db.transaction(async (tx) => {
      const row = await findSandboxDispute(tx, id, true);
      if (!row || row.status !== 'needs_response') return false;
      const now = this.#clock.now();
      const status = row.kind === 'chargeback' ? outcome : 'closed';
      await setSandboxDisputeStatus(tx, id, status, now);
      if (status === 'lost') await addChargedBack(tx, row.transaction_id, row.amount_cents, now);
      await this.#notifyDispute(tx, id, status, now);
      return true;
    });
  }

  /** The deadline passed without a decision: lost, as an unanswered chargeback is (the job of {@link SANDBOX_DISPUTE_LAPSE_JOB}). */
  async lapseDispute(id: string): Promise<boolean> {
    return this.decideDispute(id, 'lost');
  }

  /** When the dispute took its current status, which its pending notice tells; undefined for an unknown id. */
  async disputeStatusSince(id: string): Promise<Date | undefined> {
    const row = DISPUTE_ID.test(id) ? await findSandboxDispute(this.#db, id) : undefined;
    return row && new Date(row.updated_at);
  }

  /** A signed `dispute.updated` notification for the dispute's current state; undefined for an unknown id. */
  async disputeNotificationFor(id: string): Promise<{ headers: Record<string, string>; rawBody: string } | undefined> {
    const row = DISPUTE_ID.test(id) ? await findSandboxDispute(this.#db, id) : undefined;
    if (!row) return undefined;
    const now = this.#clock.now();
    const rawBody = JSON.stringify(disputeNotificationBody(row, `sbx_evt_${randomUUID()}`, now));
    return { headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signNotification(this.#secret, rawBody, now) }, rawBody };
  }

  /** The built-in sandbox has no credentials: always accepted. */
  async verifyCredentials(): Promise<{ ok: true }> {
    return { ok: true };
  }

  /**
   * The sandbox's records of the transactions that moved in `[from, to)`, in pages of
   * {@link SANDBOX_LIST_PAGE} (docs/money-operations.md#reconciliation). The cursor is opaque
   * (base64url JSON of the last row's `updated_at` and id).
   */
  async listTransactions(input: contract.ListTransactionsInput): Promise<contract.PspRecordPage> {
    const after = input.cursor === null ? null : readListCursor(input.cursor);
    const rows = await listTransactionsMoved(this.#db, input.from, input.to, after, this.listPageSize + 1);
    const page = rows.slice(0, this.listPageSize);
    const now = this.#clock.now();
    const records: contract.PspRecord[] = page.map((stored) => {
      const row = isLapsed(stored, now) ? { ...stored, status: 'lapsed' as const } : stored;
      return {
        transactionId: row.id,
        status: toStatus(row.status, row.refunded_cents),
        currency: row.currency,
        amountCents: row.amount_cents,
        capturedCents: row.captured_cents,
        refundedCents: row.refunded_cents,
        // What its lost chargebacks took back (migration 038, docs/money-operations.md#disputes).
        chargedBackCents: Number(row.charged_back_cents),
      };
    });
    const last = page[page.length - 1];
    const nextCursor = rows.length > this.listPageSize && last ? Buffer.from(JSON.stringify({ u: last.updated_at.toISOString(), i: last.id })).toString('base64url') : null;
    return { records, nextCursor };
  }

  async retrieve(transaction: contract.TransactionRef): Promise<contract.TransactionResult> {
    const transactionId = transaction.transactionId;
    const row = TRANSACTION_ID.test(transactionId) ? await findTransaction(this.#db, transactionId) : undefined;
    if (!row) throw new PspIntegrationError(this.name, 'unknown_transaction', `no transaction ${transactionId}`);
    // A read does not write: a lapsed hold is shown as such and recorded by the next operation.
    return this.#result(isLapsed(row, this.#clock.now()) ? { ...row, status: 'lapsed' } : row);
  }

  async verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }): Promise<contract.NotificationResult> {
    const check = checkSignature(this.#secret, headerValue(input.headers, SIGNATURE_HEADER), input.rawBody, this.#clock.now());
    if (check !== 'ok') return { ok: false, reason: check };
    return readNotification(input.rawBody);
  }

  /** A signed `transaction.updated` notification for the transaction's current state, as the sandbox would send it. */
  async notificationFor(transactionId: string): Promise<{ headers: Record<string, string>; rawBody: string }> {
    const row = TRANSACTION_ID.test(transactionId) ? await findTransaction(this.#db, transactionId) : undefined;
    if (!row) throw new PspIntegrationError(this.name, 'unknown_transaction', `no transaction ${transactionId}`);
    const now = this.#clock.now();
    const rawBody = JSON.stringify(notificationBody(row, `sbx_evt_${randomUUID()}`, now));
    return { headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signNotification(this.#secret, rawBody, now) }, rawBody };
  }

  /** The 3-D Secure challenge of a transaction, for its page; `undefined` for an unknown id. */
  async challengeView(transactionId: string): Promise<ChallengeView | undefined> {
    const row = TRANSACTION_ID.test(transactionId) ? await findTransaction(this.#db, transactionId) : undefined;
    if (!row || row.challenge_token === null || row.return_url === null) return undefined;
    const pm = await this.#paymentMethod(this.#db, row.payment_method_id);
    return {
      transactionId: row.id,
      pending: row.status === 'pending_authentication',
      amountCents: row.amount_cents,
      currency: row.currency,
      brand: pm.brand,
      last4: pm.last4,
      token: row.challenge_token,
      returnUrl: row.return_url,
    };
  }

  /**
   * Completes or fails a pending challenge, when `token` is the one its page carried. A second
   * submission (double click, back button) changes nothing and sends the shopper back again.
   */
  async resolveChallenge(transactionId: string, token: string, outcome: 'complete' | 'fail'): Promise<ChallengeOutcome> {
    if (!TRANSACTION_ID.test(transactionId)) return { ok: false, reason: 'unknown_transaction' };
    return this.#db.transaction(async (tx): Promise<ChallengeOutcome> => {
      const row = await findTransaction(tx, transactionId, true);
      if (!row || row.return_url === null || row.challenge_token === null) return { ok: false, reason: 'unknown_transaction' };
      if (!sameToken(token, row.challenge_token)) return { ok: false, reason: 'bad_token' };
      if (row.status !== 'pending_authentication') return { ok: true, changed: false, returnUrl: row.return_url };
      const now = this.#clock.now();
      if (outcome === 'fail') {
        await updateTransaction(tx, row, { status: 'failed', decline_code: 'authentication_failed' }, now);
      } else {
        const next = { ...row };
        approve(next, now);
        await updateTransaction(tx, row, { status: next.status, captured_cents: next.captured_cents, expires_at: next.expires_at }, now);
      }
      return { ok: true, changed: true, returnUrl: row.return_url };
    });
  }
}

/** The transaction waits for the shopper on the 3-D Secure page, whose form carries this token. */
function challenge(row: TransactionRow): void {
  row.status = 'pending_authentication';
  row.challenge_token = randomBytes(24).toString('base64url');
}

function newTransaction(paymentMethodId: string, amountCents: number, currency: string, capture: 'automatic' | 'manual', offSession: boolean, now: Date): TransactionRow {
  return {
    id: `sbx_txn_${randomUUID()}`,
    payment_method_id: paymentMethodId,
    off_session: offSession,
    capture_mode: capture,
    status: 'failed',
    decline_code: null,
    amount_cents: amountCents,
    currency,
    captured_cents: 0,
    refunded_cents: 0,
    return_url: null,
    challenge_token: null,
    expires_at: null,
    created_at: now,
    updated_at: now,
  };
}

/** What each dispute card opens once captured (reasons as Stripe's test cards of the same numbers give them). */
const DISPUTE_OPENED = {
  dispute_fraudulent: { kind: 'chargeback', reason: 'fraudulent' },
  dispute_inquiry: { kind: 'retrieval', reason: 'inquiry' },
  fraud_warning: { kind: 'fraud_warning', reason: 'fraud_warning' },
} as const satisfies Partial<Record<CardBehaviour, { kind: SandboxDisputeRow['kind']; reason: string }>>;

/** The sandbox refuses the charge with its own decline code (mapped to ours in mapping.ts). */
function refuse(row: TransactionRow, code: 'do_not_honor' | 'insufficient_funds' | 'authentication_failed'): void {
  row.status = 'failed';
  row.decline_code = code;
}

/** An approved authorisation: captured at once, or held for {@link SANDBOX_HOLD_DAYS}. */
function approve(row: TransactionRow, now: Date): void {
  row.decline_code = null;
  if (row.capture_mode === 'automatic') {
    row.status = 'settled';
    row.captured_cents = row.amount_cents;
  } else {
    row.status = 'held';
    row.expires_at = new Date(now.getTime() + SANDBOX_HOLD_DAYS * DAY_MS);
  }
}

function isLapsed(row: TransactionRow, now: Date): boolean {
  return row.status === 'held' && row.expires_at !== null && now.getTime() >= row.expires_at.getTime();
}
