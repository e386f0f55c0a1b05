import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import { EVENT } from '../../domain/events.ts';
import { newUuid } from '../../domain/ids.ts';
import type { PurchaseState } from '../../domain/purchase-states.ts';
import { dedupePspRecords, isUnsettled, mismatchKey, reconcile, type ChipinView, type PspView, type ReconStatus } from '../../domain/reconciliation.ts';
import {
  addRunItems,
  advanceRun,
  claimRun,
  findRun,
  interruptRun,
  paymentsByTransactions,
  paymentsTouched,
  pspsInUse,
  recentPspUse,
  runCompleted,
  resolveMatched,
  setMismatchState,
  upsertMismatches,
  type ChipinPaymentRow,
  type MismatchRow,
  type NewMismatch,
  type RunRow,
} from '../../payments/reconciliation-repository.ts';
import { addDays } from '../../domain/dates.ts';
import { zonedDay, zonedMidnight } from '../../i18n/format.ts';
import { insertPurchaseEvent } from '../../purchases/purchase-repository.ts';
import { PspIntegrationError, type PspConnector, type PspRecord, type PspState } from '../../psp/connector.ts';
import { DEFAULT_PSP, type AccountConnector } from '../../psp/registry.ts';
import type { PaymentDeps } from '../deps.ts';

/**
 * Reconciliation with a PSP (docs/money-operations.md#reconciliation): one run per account, PSP
 * account and period, page by page, each page's mismatches and the run's cursor in one
 * transaction. A PSP fault stops the run `interrupted` at its cursor; running the period again
 * resumes it.
 *
 * Two passes. With the connector's `listTransactions`: first the PSP's own records of the period
 * (cursor `psp:<the PSP's cursor>`), each compared with the account's payment of that transaction;
 * then (cursor `chipin:<last payment id>`) the account's payments touched in the period that the
 * list did not show, each asked of the PSP with `retrieve`. Without a list API only the second pass
 * runs: what only the PSP knows cannot be seen.
 */

/** The longest period of an on-demand run, in days: it answers when it ends (docs/money-operations.md#reconciliation). */
export const MAX_RECON_DAYS = 31;

/** Payments compared per page of the payments' pass. */
const RECON_PAGE = 100;

export type ReconDeps = Pick<PaymentDeps, 'db' | 'clock' | 'psps' | 'logger'>;

export interface RunRequest {
  accountId: string;
  /** The merchant's own PSP account; null: the platform's PSP named `psp`. */
  pspAccountId: string | null;
  /** The platform PSP's name when `pspAccountId` is null (default: the built-in sandbox). */
  psp?: string;
  from: Date;
  to: Date;
  /** Payments per page of the payments' pass (tests lower it). */
  pageSize?: number;
}

export type RunOutcome = { kind: 'completed'; run: RunRow } | { kind: 'interrupted'; run: RunRow; error: string } | { kind: 'unknown_psp_account' };

const CURSOR_PSP = 'psp:';
const CURSOR_CHIPIN = 'chipin:';

function chipinView(p: ChipinPaymentRow): ChipinView {
  return {
    transactionId: p.transaction_id,
    status: p.status,
    currency: p.currency,
    capturedCents: p.captured_cents,
    refundedCents: p.refunded_cents,
    chargedBackCents: p.charged_back_cents,
  };
}

function pspView(r: PspRecord): PspView {
  return {
    transactionId: r.transactionId,
    status: r.status as ReconStatus,
    currency: r.currency,
    capturedCents: r.capturedCents,
    refundedCents: r.refundedCents,
    chargedBackCents: r.chargedBackCents,
  };
}

/** Runs (or resumes) the reconciliation of one PSP (account) of an account over `[from, to)`. */
export async function runReconciliation(deps: ReconDeps, req: RunRequest): Promise<RunOutcome> {
  let connector: AccountConnector;
  try {
    connector = await deps.psps.forPayment({ account_id: req.accountId, psp_account_id: req.pspAccountId, psp: req.psp ?? DEFAULT_PSP });
  } catch (err) {
    if (err instanceof PspIntegrationError && err.code === 'not_supported') return { kind: 'unknown_psp_account' };
    throw err;
  }
  // The registry wraps the connector (AccountConnector): the list API is the wrapped one's.
  const inner = connector.inner;
  // The platform's PSP and an operator's collecting account (transfer mode) hold several
  // merchants' transactions; a merchant's own PSP account holds only its own.
  const shared = req.pspAccountId === null || connector.operatorAccount;
  const list = inner.listTransactions?.bind(inner);
  const psp = connector.name;
  const scope = { accountId: req.accountId, psp, pspAccountId: req.pspAccountId };
  const pageSize = req.pageSize ?? RECON_PAGE;

  const run = await deps.db.transaction((tx) =>
    claimRun(tx, { id: newUuid(), accountId: req.accountId, pspAccountId: req.pspAccountId, psp, from: req.from, to: req.to, now: deps.clock.now() }),
  );
  let cursor = run.cursor;
  try {
    for (;;) {
      if (list && (cursor === null || cursor.startsWith(CURSOR_PSP))) {
        const page = await list({ from: req.from, to: req.to, cursor: cursor === null ? null : cursor.slice(CURSOR_PSP.length) || null });
        const records = dedupePspRecords(page.records);
        const payments = await paymentsByTransactions(
          deps.db,
          req.accountId,
          psp,
          req.pspAccountId,
          records.map((r) => r.transactionId),
        );
        const mine = new Set(payments.map((p) => p.transaction_id));
        // On the platform's PSP, or an operator's collecting account, every merchant's transactions
        // are listed: only this account's are judged (one no payment knows may be another
        // account's). On the merchant's own PSP account, a transaction no payment knows is unknown
        // to Chipin.
        const judged = shared ? records.filter((r) => mine.has(r.transactionId)) : records;
        const next = page.nextCursor ? CURSOR_PSP + page.nextCursor : CURSOR_CHIPIN;
        await recordPage(deps, run, scope, payments, judged.map(pspView), { nextCursor: next, completed: false, fromList: true });
        cursor = next;
        continue;
      }
      const after = cursor?.startsWith(CURSOR_CHIPIN) ? cursor.slice(CURSOR_CHIPIN.length) || null : null;
      const payments = await paymentsTouched(deps.db, { ...scope, from: req.from, to: req.to, runId: run.id, after, limit: pageSize });
      const seen: PspView[] = [];
      for (const p of payments) {
        if (isUnsettled(p.status)) continue;
        const answer = await retrieveOrAbsent(connector, p);
        if (answer) seen.push(answer);
      }
      const last = payments[payments.length - 1];
      const done = payments.length < pageSize || !last;
      const next = done ? null : CURSOR_CHIPIN + last.payment_id;
      await recordPage(deps, run, scope, payments, seen, { nextCursor: next, completed: done, fromList: false });
      cursor = next;
      if (done) break;
    }
  } catch (err) {
    if (!(err instanceof PspIntegrationError)) throw err;
    await interruptRun(deps.db, req.accountId, run.id, err.message, deps.clock.now());
    deps.logger.warn({ runId: run.id, psp, err: err.message }, 'reconciliation run interrupted by a PSP fault');
    return { kind: 'interrupted', run: (await reload(deps, run))!, error: err.message };
  }
  return { kind: 'completed', run: (await reload(deps, run))! };
}

async function reload(deps: ReconDeps, run: RunRow): Promise<RunRow | undefined> {
  return findRun(deps.db, run.account_id, run.id);
}

/** The PSP's view of one payment's transaction through `retrieve`; null when the PSP does not know it. */
async function retrieveOrAbsent(connector: PspConnector, p: ChipinPaymentRow): Promise<PspView | null> {
  try {
    const r = await connector.retrieve({ transactionId: p.transaction_id, pspState: (p.psp_state as PspState | null) ?? null });
    return {
      transactionId: p.transaction_id,
      status: r.status,
      currency: p.currency,
      capturedCents: r.capturedCents,
      refundedCents: r.refundedCents,
      // A single transaction's read tells no chargeback: Chipin's own figure stands (not compared).
      chargedBackCents: p.charged_back_cents,
    };
  } catch (err) {
    if (err instanceof PspIntegrationError && err.code === 'unknown_transaction') return null;
    throw err;
  }
}

/** Compares one page and records it, with the run's cursor, in one transaction. */
async function recordPage(
  deps: ReconDeps,
  run: RunRow,
  scope: { accountId: string; psp: string; pspAccountId: string | null },
  payments: readonly ChipinPaymentRow[],
  pspSide: readonly PspView[],
  page: { nextCursor: string | null; completed: boolean; fromList: boolean },
): Promise<void> {
  const { nextCursor, completed } = page;
  const result = reconcile(payments.map(chipinView), pspSide);
  const byTx = new Map(payments.map((p) => [p.transaction_id, p]));
  const found: NewMismatch[] = result.mismatches.map((m) => {
    const p = byTx.get(m.transactionId);
    return { ...m, paymentId: p?.payment_id ?? null, purchaseId: p?.purchase_id ?? null };
  });
  const compared = [...new Set([...payments.filter((p) => !isUnsettled(p.status)).map((p) => p.transaction_id), ...pspSide.map((r) => r.transactionId)])];
  await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const created = await upsertMismatches(tx, { id: run.id, ...scope }, found, newUuid, now);
    await resolveMatched(tx, scope, compared, found.map(mismatchKey), now);
    // The PSP's list pass notes what it compared; the payments' pass skips those.
    if (page.fromList) await addRunItems(tx, run.id, compared);
    for (const { id, mismatch: m } of created) {
      const p = m.paymentId ? byTx.get(m.transactionId) : undefined;
      if (!p) continue; // no purchase to tell it on: the back office lists it (docs/webhooks.md)
      const state = p.purchase_state as PurchaseState;
      await insertPurchaseEvent(tx, {
        accountId: scope.accountId,
        purchaseId: p.purchase_id,
        type: EVENT.reconciliationMismatch,
        from: state,
        to: state,
        data: {
          reconciliation_mismatch_id: id,
          kind: m.kind,
          operation: m.operation,
          transaction_id: m.transactionId,
          payment_id: p.payment_id,
          chipin_cents: m.chipinCents,
          psp_cents: m.pspCents,
          chipin_status: m.chipinStatus,
          psp_status: m.pspStatus,
          currency: m.currency,
        },
        at: now,
      });
    }
    await advanceRun(tx, scope.accountId, run.id, { cursor: nextCursor, matched: result.matched.length, mismatches: found.length, completed, now });
  });
}

export type MismatchUpdate = { kind: 'updated'; mismatch: MismatchRow } | { kind: 'not_found' };

/** Staff mark a mismatch explained or resolved, with a note; audited. */
export async function updateMismatch(
  deps: Pick<PaymentDeps, 'db' | 'clock'>,
  accountId: string,
  actor: Actor,
  id: string,
  change: { state: 'explained' | 'resolved'; note: string | null },
): Promise<MismatchUpdate> {
  return deps.db.transaction(async (tx) => {
    const row = await setMismatchState(tx, accountId, id, change.state, change.note, deps.clock.now());
    if (!row) return { kind: 'not_found' } as const;
    await recordAudit(tx, { accountId, actor, action: 'reconciliation_mismatch_update', subject: id, details: { state: change.state, note: change.note } });
    return { kind: 'updated', mismatch: row } as const;
  });
}

/**
 * Staff run a period from the back office: every PSP (account) the account's payments used in
 * `[from, to)`, one after the other, or the built-in sandbox PSP when they used none. Answers how
 * many runs were made.
 */
export async function reconcileAccountPeriod(deps: ReconDeps, req: { accountId: string; from: Date; to: Date }): Promise<number> {
  const used = await pspsInUse(deps.db, req.accountId, req.from, req.to);
  const targets = used.length > 0 ? used : [{ psp: 'sandbox', psp_account_id: null }];
  for (const u of targets) {
    await runReconciliation(deps, { accountId: req.accountId, pspAccountId: u.psp_account_id, psp: u.psp, from: req.from, to: req.to });
  }
  return targets.length;
}

/** The daily reconciliation job (service-wide, perpetual): see {@link reconcileYesterday}. */
export const DAILY_RECON_JOB = 'reconciliation.daily';
/** How often it looks for a day to reconcile (service clock). */
export const DAILY_RECON_EVERY_MS = 60 * 60_000;
const LOOK_BACK_MS = 3 * 86_400_000;

/**
 * The daily job's pass: for each PSP (account) an account's payments used lately, yesterday in
 * the account's time zone is reconciled once completed (an interrupted run is resumed by the next
 * pass; a completed one is left alone). Answers the runs it made or resumed.
 */
export async function reconcileYesterday(deps: ReconDeps): Promise<number> {
  const now = deps.clock.now();
  let runs = 0;
  for (const use of await recentPspUse(deps.db, new Date(now.getTime() - LOOK_BACK_MS))) {
    const today = zonedDay(now, use.time_zone);
    const from = zonedMidnight(addDays(today, -1), use.time_zone);
    const to = zonedMidnight(today, use.time_zone);
    if (await runCompleted(deps.db, use.account_id, use.psp, use.psp_account_id, from, to)) continue;
    try {
      await runReconciliation(deps, { accountId: use.account_id, pspAccountId: use.psp_account_id, psp: use.psp, from, to });
      runs++;
    } catch (err) {
      // One account's failure (its PSP account deleted …) does not stop the others'.
      deps.logger.error({ err, accountId: use.account_id, psp: use.psp }, 'daily reconciliation failed');
    }
  }
  return runs;
}
