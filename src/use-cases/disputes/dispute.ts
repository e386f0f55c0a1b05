import { createHash } from 'node:crypto';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { Actor } from '../../audit/audit-log.ts';
import type { Sql } from '../../db/database.ts';
import { isEnded, nextDisputeKind, nextDisputeState, type DisputeState } from '../../domain/disputes.ts';
import { EVENT } from '../../domain/events.ts';
import { toPublicId } from '../../domain/ids.ts';
import { chargebackTakes } from '../../domain/refund-allocation.ts';
import { scheduleJob, type JobScheduler } from '../../jobs/scheduler.ts';
import {
  disputesOfPayment,
  disputesOfPurchase,
  findDisputedPayment,
  findDispute,
  findParkedNotice,
  lockWaitingNotices,
  markNoticeMatched,
  parkNotice,
  sandboxTransactionOwner,
  setEvidenceSent,
  updateDispute,
  upsertDisputeLocked,
  type DisputeRow,
} from '../../payments/dispute-repository.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import { findPayment, writeEvent } from '../../payments/payment-repository.ts';
import { findPurchase } from '../../purchases/purchase-repository.ts';
import { bookDisputeLedger } from '../../payments/ledger-repository.ts';
import { PspIntegrationError, type NotifiedDispute, type PspConnector } from '../../psp/connector.ts';
import { SANDBOX_DISPUTE_LAPSE_JOB, SANDBOX_DISPUTE_NOTICE_JOB, type SandboxPsp } from '../../psp/sandbox/connector.ts';
import type { PaymentDeps } from '../deps.ts';

/**
 * Disputes (docs/money-operations.md#disputes): what a PSP's dispute notice does to the dispute
 * record of the payment it names, and what staff do with it (evidence sent).
 */

/**
 * `parked`: no payment of the account has recorded the transaction yet; the notice is kept and
 * applied once one does (docs/money-operations.md#refunds-and-disputes). `unknown_payment`: the
 * PSP dispute is another account's.
 */
export type DisputeNoticeOutcome = 'unknown_payment' | 'parked' | 'unchanged' | 'changed';

/** The retry of a kept notice (docs/money-operations.md#refunds-and-disputes). */
const PARKED_NOTICE_JOB = 'dispute.parked_notice';
/**
 * A notice that came before its transaction was recorded (kept, or the sandbox's own) is first
 * tried again this long after it came, then after as long again as it has waited, but never more
 * than {@link NOTICE_RETRY_MAX_MS} apart during its first day: a payment recorded late (its answer
 * lost and resolved by reconciliation, a request queued behind another operation) has its dispute
 * recorded, and its merchant told, within minutes, not when a doubled wait next falls due (up to an
 * hour, or a day, later). After the first day, at most a day apart.
 */
const NOTICE_FIRST_RETRY_MS = 5_000;
const NOTICE_RETRY_MAX_MS = 120_000;
const NOTICE_FRESH_MS = 86_400_000;
const NOTICE_STALE_RETRY_MAX_MS = 86_400_000;
/** Past this age a notice is no longer tried on its own: a kept one stays kept, and a later notice of its transaction applies it first. */
const NOTICE_RETRY_FOR_MS = 7 * 86_400_000;

/** When a notice that has waited `waitedMs` for its transaction is tried again. */
function nextNoticeTry(now: Date, waitedMs: number): Date {
  const cap = waitedMs < NOTICE_FRESH_MS ? NOTICE_RETRY_MAX_MS : NOTICE_STALE_RETRY_MAX_MS;
  return new Date(now.getTime() + Math.min(cap, Math.max(NOTICE_FIRST_RETRY_MS, waitedMs)));
}

type Where = { accountId: string; pspAccountId: string | null };
type Deps = Pick<PaymentDeps, 'db' | 'clock' | 'logger'>;
type DisputedPayment = { id: string; purchase_id: string; psp: string };

/**
 * Applies a verified dispute notice: the dispute row is created or moved (domain/disputes.ts) in
 * one transaction with its events (`purchase.disputed` when it is first seen, `dispute.closed` at
 * each outcome). A redelivered notice finds the row as it left it and changes nothing. A notice
 * about a transaction no payment of the account has recorded yet is kept, never dropped, and
 * applied once the transaction is recorded (`parked`).
 */
export async function applyDisputeNotice(deps: Deps, where: Where, notice: NotifiedDispute): Promise<DisputeNoticeOutcome> {
  const payment = await findDisputedPayment(deps.db, where.accountId, where.pspAccountId, notice.transactionId);
  if (!payment) return parkDisputeNotice(deps, where, notice);
  return deps.db.transaction(async (tx) => {
    // Notices kept for this transaction came first: they are applied before this one.
    await applyWaitingNotices(tx, deps, where, payment, notice.transactionId);
    return recordDisputeNotice(tx, deps, where.accountId, payment, notice);
  });
}

/** The dispute of one notice on its payment, in the caller's transaction. */
async function recordDisputeNotice(tx: Sql, deps: Deps, accountId: string, payment: DisputedPayment, notice: NotifiedDispute): Promise<DisputeNoticeOutcome> {
  const now = deps.clock.now();
  // Under the purchase's row lock, as refunds are reserved and recorded under it: what the
  // payment captured and refunded is read as it stands, for the amount and the ledger.
  const purchase = await loadPayState(tx, accountId, payment.purchase_id, true);
  if (!purchase) throw new Error(`dispute notice: purchase ${payment.purchase_id} not found`);
  const current = (await findPayment(tx, accountId, payment.id))!;
  const money = { capturedCents: Number(current.captured_cents), refundedCents: Number(current.refunded_cents) };
  // No amount told: what the payment still holds. A part already refunded is not taken twice
  // (Midtrans' chargeback after a refund, HiPay's chargebackedAmount of 0).
  const amountCents = notice.amountCents ?? Math.max(0, money.capturedCents - money.refundedCents);
  const firstState = nextDisputeState(undefined, notice.kind, notice.status);
  const upserted = await upsertDisputeLocked(
    tx,
    {
      accountId,
      purchaseId: payment.purchase_id,
      paymentId: payment.id,
      psp: payment.psp,
      pspDisputeId: notice.pspDisputeId,
      kind: notice.kind,
      state: firstState,
      reason: notice.reason,
      amountCents,
      currency: notice.currency ?? purchase.currency,
      evidenceDueAt: notice.evidenceDueAt ?? null,
    },
    now,
  );
  if (!upserted) {
    // The PSP's dispute id is already another account's: never touched from this one.
    deps.logger.warn({ account_id: accountId }, 'PSP dispute notice naming a dispute of another account: ignored');
    return 'unknown_payment';
  }
  const { row, created } = upserted;
  if (created) {
    await writeEvent(tx, accountId, row.purchase_id, EVENT.purchaseDisputed, purchase.state, disputedData(row), now);
    if (isEnded(row.state)) await closed(tx, row, purchase.state, now);
    await bookChargebacks(tx, accountId, payment.id, money, now);
    return 'changed';
  }
  const kind = nextDisputeKind(row.kind, notice.kind);
  const state = nextDisputeState(row.state, kind, notice.status);
  const evidenceDueAt = notice.evidenceDueAt ?? row.evidence_due_at;
  const same =
    kind === row.kind &&
    state === row.state &&
    (notice.reason ?? row.reason) === row.reason &&
    amountCents === row.amount_cents &&
    evidenceDueAt?.getTime() === row.evidence_due_at?.getTime();
  if (same) return 'unchanged';
  const next = await updateDispute(
    tx,
    row,
    { kind, state, reason: notice.reason ?? row.reason, amountCents, evidenceDueAt, closedAt: isEnded(state) ? (state === row.state ? row.closed_at : now) : null },
    now,
  );
  if (state !== row.state && isEnded(state)) await closed(tx, next, purchase.state, now);
  // On every change, not only the outcome's: a lost chargeback's amount told again moves the ledger too.
  await bookChargebacks(tx, accountId, payment.id, money, now);
  return 'changed';
}

/** What a kept notice holds: the notice as read, its date as an ISO string. */
function storedNotice(n: NotifiedDispute): Record<string, unknown> {
  return {
    pspDisputeId: n.pspDisputeId,
    transactionId: n.transactionId,
    kind: n.kind,
    status: n.status,
    reason: n.reason,
    ...(n.amountCents !== undefined ? { amountCents: n.amountCents } : {}),
    ...(n.currency !== undefined ? { currency: n.currency } : {}),
    ...(n.evidenceDueAt !== undefined ? { evidenceDueAt: n.evidenceDueAt.toISOString() } : {}),
  };
}

function noticeOf(stored: Record<string, unknown>): NotifiedDispute {
  const n = stored as Omit<NotifiedDispute, 'evidenceDueAt'> & { evidenceDueAt?: string };
  const { evidenceDueAt, ...rest } = n;
  return { ...rest, ...(typeof evidenceDueAt === 'string' ? { evidenceDueAt: new Date(evidenceDueAt) } : {}) };
}

/**
 * Keeps a notice whose transaction no payment of the account has recorded yet, once (a
 * redelivery finds it kept: `unchanged`), with the job that tries it again.
 */
async function parkDisputeNotice(deps: Deps, where: Where, notice: NotifiedDispute): Promise<DisputeNoticeOutcome> {
  const stored = storedNotice(notice);
  const noticeKey = createHash('sha256')
    .update(JSON.stringify([where.pspAccountId, stored]))
    .digest('hex');
  const now = deps.clock.now();
  return deps.db.transaction(async (tx): Promise<DisputeNoticeOutcome> => {
    const id = await parkNotice(tx, { ...where, transactionId: notice.transactionId, pspDisputeId: notice.pspDisputeId, notice: stored, noticeKey, receivedAt: now });
    if (id === undefined) return 'unchanged';
    await scheduleJob(tx, {
      kind: PARKED_NOTICE_JOB,
      key: `${PARKED_NOTICE_JOB}:${id}`,
      runAt: new Date(now.getTime() + NOTICE_FIRST_RETRY_MS),
      payload: { noticeId: id },
      accountId: where.accountId,
    });
    deps.logger.info({ account_id: where.accountId, parked_notice_id: id }, 'PSP dispute notice about a transaction not recorded yet: kept until it is');
    return 'parked';
  });
}

/** The notices kept for the payment's transaction, applied in the order they came, in the caller's transaction. */
async function applyWaitingNotices(tx: Sql, deps: Deps, where: Where, payment: DisputedPayment, transactionId: string): Promise<number> {
  const waiting = await lockWaitingNotices(tx, where.accountId, where.pspAccountId, transactionId);
  for (const kept of waiting) {
    await recordDisputeNotice(tx, deps, where.accountId, payment, noticeOf(kept.notice));
    await markNoticeMatched(tx, where.accountId, kept.id, payment.id, deps.clock.now());
  }
  return waiting.length;
}

/**
 * The retry of a kept notice (its job): once a payment of the account has recorded its
 * transaction, every notice kept for that transaction is applied, in the order they came.
 * Answers when to try again while none has, nothing once applied (or too old to be tried again:
 * it stays kept).
 */
async function retryParkedNotice(deps: Deps, accountId: string, noticeId: number): Promise<{ retryAt: Date } | undefined> {
  const kept = await findParkedNotice(deps.db, accountId, noticeId);
  if (!kept || kept.matchedAt) return undefined;
  const where = { accountId, pspAccountId: kept.pspAccountId };
  const payment = await findDisputedPayment(deps.db, accountId, kept.pspAccountId, kept.transactionId);
  if (payment) {
    await deps.db.transaction((tx) => applyWaitingNotices(tx, deps, where, payment, kept.transactionId));
    return undefined;
  }
  const now = deps.clock.now();
  const waited = now.getTime() - kept.receivedAt.getTime();
  if (waited >= NOTICE_RETRY_FOR_MS) {
    deps.logger.warn({ account_id: accountId, parked_notice_id: noticeId }, 'PSP dispute notice kept for a week without its transaction: no longer tried on its own');
    return undefined;
  }
  return { retryAt: nextNoticeTry(now, waited) };
}

function disputedData(row: DisputeRow) {
  return {
    dispute_id: toPublicId('dsp', row.id),
    payment_id: row.payment_id,
    kind: row.kind,
    reason: row.reason,
    amount_cents: row.amount_cents,
    currency: row.currency,
    evidence_due_at: row.evidence_due_at?.toISOString() ?? null,
  };
}

async function closed(tx: Sql, row: DisputeRow, purchaseState: Parameters<typeof writeEvent>[4], now: Date): Promise<void> {
  await writeEvent(
    tx,
    row.account_id,
    row.purchase_id,
    EVENT.disputeClosed,
    purchaseState,
    { dispute_id: toPublicId('dsp', row.id), payment_id: row.payment_id, kind: row.kind, outcome: row.state, amount_cents: row.amount_cents, currency: row.currency },
    now,
  );
}

/**
 * The ledger's entries of the payment's disputes brought to what each took: a lost chargeback its
 * `amount_cents`, at most what the payment held after its refunds and the lost chargebacks opened
 * before it (`chargebackTakes`), any other dispute nothing. In the transaction that records a
 * dispute of the payment, under its purchase's row lock, so a loss, a reversal, a loss again, or a
 * lost chargeback's amount told anew is each appended by its difference, once however often the
 * PSP tells it; a reversal lets a later chargeback take what it could not
 * (docs/money-operations.md#the-ledger, docs/money-operations.md#refunds-and-disputes).
 */
async function bookChargebacks(tx: Sql, accountId: string, paymentId: string, money: { capturedCents: number; refundedCents: number }, now: Date): Promise<void> {
  const disputes = await disputesOfPayment(tx, accountId, paymentId);
  const takes = chargebackTakes(
    money.capturedCents,
    money.refundedCents,
    disputes.map((d) => (d.kind === 'chargeback' && d.state === 'lost' ? d.amount_cents : 0)),
  );
  for (const [i, d] of disputes.entries()) {
    await bookDisputeLedger(tx, { accountId, paymentId, disputeId: d.id, chargedBackCents: takes[i]!, occurredAt: now });
  }
}

export type EvidenceOutcome =
  { kind: 'marked'; dispute: DisputeRow; submitted: boolean } | { kind: 'not_found' } | { kind: 'not_open'; state: DisputeState } | { kind: 'psp_refused'; message: string };

/**
 * Staff mark a dispute's evidence as sent (audited). Where the PSP has an evidence API
 * (`submitDisputeEvidence`: Stripe, Checkout.com), the text is submitted there first, outside any transaction;
 * elsewhere staff sent it through the PSP's own back office.
 */
export async function markEvidenceSent(
  deps: Pick<PaymentDeps, 'db' | 'clock' | 'psps'>,
  actor: Actor,
  accountId: string,
  disputeId: string,
  text: string,
): Promise<EvidenceOutcome> {
  const dispute = await findDispute(deps.db, accountId, disputeId);
  if (!dispute) return { kind: 'not_found' };
  if (dispute.state !== 'open') return { kind: 'not_open', state: dispute.state };
  let submitted = false;
  const payment = await findPayment(deps.db, accountId, dispute.payment_id);
  // The connector itself: the PSP account's wrapper forwards the payment calls only.
  const connector: PspConnector | undefined = payment && (await deps.psps.forPayment(payment)).inner;
  if (connector?.submitDisputeEvidence && text.trim() !== '') {
    let r: { ok: true } | { ok: false; message: string };
    try {
      r = await connector.submitDisputeEvidence({ idempotencyKey: `dispute-evidence:${dispute.id}`, pspDisputeId: dispute.psp_dispute_id, text });
    } catch (e) {
      // Unreachable, or an answer it could not read: nothing is marked, staff may try again.
      if (e instanceof PspIntegrationError) return { kind: 'psp_refused', message: e.message };
      throw e;
    }
    if (!r.ok) return { kind: 'psp_refused', message: r.message };
    submitted = true;
  }
  return deps.db.transaction(async (tx): Promise<EvidenceOutcome> => {
    const locked = await findDispute(tx, accountId, disputeId, true);
    if (!locked) return { kind: 'not_found' };
    if (locked.state !== 'open') return { kind: 'not_open', state: locked.state };
    const next = await setEvidenceSent(tx, locked, deps.clock.now());
    await recordAudit(tx, {
      accountId,
      actor,
      action: 'dispute_evidence_sent',
      subject: locked.purchase_id,
      details: { dispute_id: toPublicId('dsp', locked.id), submitted_to_psp: submitted },
    });
    return { kind: 'marked', dispute: next, submitted };
  });
}

/**
 * The built-in sandbox PSP notifies its disputes as it notifies transactions: a signed notice,
 * verified by the connector and applied by {@link applyDisputeNotice}. Service-wide: the sandbox
 * does not know its merchants, so the payment's account is found from the transaction.
 */
export async function deliverSandboxDisputeNotice(deps: Pick<PaymentDeps, 'db' | 'clock' | 'logger'>, sandbox: SandboxPsp, pspDisputeId: string): Promise<DisputeNoticeOutcome> {
  const notice = await sandbox.disputeNotificationFor(pspDisputeId);
  if (!notice) return 'unknown_payment';
  const verified = await sandbox.verifyNotification(notice);
  if (!verified.ok || !verified.dispute) throw new Error(`sandbox dispute notice ${pspDisputeId} did not verify`);
  const accountId = await sandboxTransactionOwner(deps.db, verified.dispute.transactionId);
  if (!accountId) return 'unknown_payment';
  return applyDisputeNotice(deps, { accountId, pspAccountId: null }, verified.dispute);
}

/** The account's purchase's disputes, oldest first; undefined for an unknown purchase (bare uuid) or another account's. */
export async function purchaseDisputes(deps: Pick<PaymentDeps, 'db'>, accountId: string, purchaseId: string): Promise<DisputeRow[] | undefined> {
  const purchase = await findPurchase(deps.db, accountId, purchaseId);
  return purchase && disputesOfPurchase(deps.db, accountId, purchase.id);
}

export type SandboxDisputeOutcome = { kind: 'resolved'; dispute: DisputeRow } | { kind: 'not_found' } | { kind: 'ended'; state: DisputeState };

/** Sandbox helper: the bank decides a sandbox dispute (`won` or `lost`); Chipin is notified before this answers. */
export async function resolveSandboxDispute(
  deps: Pick<PaymentDeps, 'db' | 'clock' | 'logger'>,
  sandbox: SandboxPsp,
  accountId: string,
  disputeId: string,
  outcome: 'won' | 'lost',
): Promise<SandboxDisputeOutcome> {
  const dispute = await findDispute(deps.db, accountId, disputeId);
  if (!dispute || dispute.psp !== 'sandbox') return { kind: 'not_found' };
  const decided = await sandbox.decideDispute(dispute.psp_dispute_id, outcome);
  if (!decided) return { kind: 'ended', state: dispute.state };
  await deliverSandboxDisputeNotice(deps, sandbox, dispute.psp_dispute_id);
  return { kind: 'resolved', dispute: (await findDispute(deps.db, accountId, disputeId))! };
}

/**
 * The disputes' jobs: the sandbox PSP's notices to Chipin and the deadlines that lapse as lost, and
 * the retries of notices kept until their transaction is recorded
 * (docs/money-operations.md#refunds-and-disputes).
 */
export function registerDisputeJobs(jobs: JobScheduler, deps: Pick<PaymentDeps, 'db' | 'clock' | 'logger'>, sandbox: SandboxPsp): void {
  jobs.register(SANDBOX_DISPUTE_NOTICE_JOB, async (job) => {
    const disputeId = String(job.payload.disputeId);
    const outcome = await deliverSandboxDisputeNotice(deps, sandbox, disputeId);
    if (outcome !== 'unknown_payment') return undefined;
    // No payment has recorded the sandbox transaction yet (its notice was sent between the
    // sandbox's answer and Chipin's record), so its account is not known and it cannot be kept
    // for one: the sandbox sends the notice again, as a PSP resends a notification not
    // acknowledged, on the kept notices' schedule. Not the scheduler's failure backoff, which
    // doubles to an hour and gives up after 20 tries: a payment recorded late would have its
    // dispute recorded up to an hour after, or never.
    const sentAt = await sandbox.disputeStatusSince(disputeId);
    if (!sentAt) return undefined;
    const now = deps.clock.now();
    const waited = now.getTime() - sentAt.getTime();
    if (waited >= NOTICE_RETRY_FOR_MS) {
      deps.logger.warn({ sandbox_dispute_id: disputeId }, 'sandbox dispute notice sent for a week without a payment recording its transaction: no longer sent');
      return undefined;
    }
    return { retryAt: nextNoticeTry(now, waited) };
  });
  jobs.register(PARKED_NOTICE_JOB, async (job) => {
    if (!job.accountId) return;
    return retryParkedNotice(deps, job.accountId, Number(job.payload.noticeId));
  });
  jobs.register(SANDBOX_DISPUTE_LAPSE_JOB, async (job) => {
    await sandbox.lapseDispute(String(job.payload.disputeId));
  });
}
