import type { Sql } from '../db/database.ts';
import { EVENT } from '../domain/events.ts';
import { scheduleJob } from '../jobs/scheduler.ts';
import type { TransactionResult } from '../psp/connector.ts';
import { applyMove } from '../purchases/transitions.ts';
import type { PaymentDeps } from './deps.ts';
import { loadPayState, savedPspMethodId } from './pot-store.ts';
import { findPayment, insertPayment, recordResult, writeEvent } from './store.ts';

export const COLLECT_JOB = 'installment.collect';

/**
 * Dunning (DESIGN §3, issue "schedules"): a refused installment is tried again 1, 3 and 7 days
 * after its due date; after the fourth refusal the purchase is FAILED.
 */
export const RETRY_DAYS = [1, 3, 7] as const;

interface InstallmentRow {
  id: string;
  account_id: string;
  purchase_id: string;
  index: number;
  due_date: string | Date;
  amount_cents: number;
  fees_cents: number;
  state: 'scheduled' | 'paid' | 'failed';
  attempts: number;
  payment_id: string | null;
}

function dueAt(dueDate: string | Date, plusDays = 0): Date {
  const day = typeof dueDate === 'string' ? dueDate : dueDate.toISOString().slice(0, 10);
  return new Date(Date.parse(`${day}T00:00:00Z`) + plusDays * 86_400_000);
}

/** One collection job per installment still to collect, in the leader's transaction. */
export async function scheduleCollections(tx: Sql, accountId: string, purchaseId: string): Promise<void> {
  const { rows } = await tx.query<InstallmentRow>(
    "SELECT * FROM installments WHERE account_id = $1 AND purchase_id = $2 AND state = 'scheduled' ORDER BY index",
    [accountId, purchaseId],
  );
  for (const i of rows) {
    await scheduleJob(tx, { kind: COLLECT_JOB, key: `${COLLECT_JOB}:${i.id}:0`, runAt: dueAt(i.due_date), payload: { installmentId: i.id }, accountId });
  }
}

export type CollectOutcome = 'paid' | 'already_paid' | 'retry_scheduled' | 'failed' | 'not_collectable';

/**
 * Collects one installment: captures the deferred authorisation when there is one (falling back
 * to an off-session charge when the hold lapsed), else charges the saved card off-session. Each
 * attempt has its own idempotency key, so a retried job never charges twice. The last
 * installment collected makes the purchase SUCCESSFUL; a refusal past the dunning schedule FAILED.
 */
export async function collectInstallment(deps: PaymentDeps, accountId: string, installmentId: string): Promise<CollectOutcome> {
  const { db, clock, offers, psps } = deps;
  const { rows } = await db.query<InstallmentRow>('SELECT * FROM installments WHERE account_id = $1 AND id = $2', [accountId, installmentId]);
  const inst = rows[0];
  if (!inst) return 'not_collectable';
  if (inst.state === 'paid') return 'already_paid';
  const purchase = await loadPayState(db, accountId, inst.purchase_id);
  if (!purchase || purchase.state !== 'LEADER_PROCESSED' || inst.state !== 'scheduled') return 'not_collectable';
  const offer = (await offers.byId(accountId, purchase.offerId))!;
  const psp = psps.get(offer.psp);
  const amount = inst.amount_cents + inst.fees_cents;
  const attempt = inst.attempts + 1;
  const key = `${inst.id}:attempt:${attempt}`;

  const hold = inst.payment_id ? await findPayment(db, accountId, inst.payment_id) : undefined;
  let payment = hold;
  let result: TransactionResult | undefined;
  if (hold?.status === 'authorized' && hold.psp_transaction_id) {
    result = await psp.capture({ idempotencyKey: `${key}:capture`, transactionId: hold.psp_transaction_id, amountCents: amount });
    if (result.status !== 'captured') await db.transaction((tx) => recordResult(tx, hold, result!, purchase.state, clock.now()));
  }
  if (!result || result.status !== 'captured') {
    const methodId = await savedPspMethodId(db, accountId, inst.purchase_id);
    payment = await insertPayment(db, { accountId, purchaseId: inst.purchase_id, purpose: 'installment', psp: psp.name, idempotencyKey: key, amountCents: amount }, clock.now());
    result = await psp.chargeOffSession({ idempotencyKey: key, paymentMethodId: methodId!, amountCents: amount, currency: purchase.currency });
  }
  const final = result;

  return db.transaction(async (tx) => {
    const now = clock.now();
    const locked = (await loadPayState(tx, accountId, inst.purchase_id, true))!;
    await recordResult(tx, payment!, final, locked.state, now);
    const { rows: current } = await tx.query<InstallmentRow>('SELECT * FROM installments WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, inst.id]);
    if (current[0]!.state !== 'scheduled') return current[0]!.state === 'paid' ? 'already_paid' : 'not_collectable';
    const { rows: all } = await tx.query<{ n: number; paid: number }>(
      "SELECT count(*) AS n, count(*) FILTER (WHERE state = 'paid') AS paid FROM installments WHERE account_id = $1 AND purchase_id = $2",
      [accountId, inst.purchase_id],
    );
    const total = all[0]!.n;
    if (final.status === 'captured') {
      await tx.query("UPDATE installments SET state = 'paid', attempts = $3, payment_id = $4, paid_at = $5 WHERE account_id = $1 AND id = $2", [accountId, inst.id, attempt, payment!.id, now]);
      await writeEvent(tx, accountId, inst.purchase_id, EVENT.installmentPaid, locked.state, { installment_id: inst.id, index: inst.index, amount_cents: amount, attempt }, now);
      const paid = all[0]!.paid + 1;
      if (paid === total) {
        await applyMove(tx, clock, accountId, inst.purchase_id, 'succeed', {
          comment: total === 1 ? 'The deferred payment is collected.' : `All ${total} installments are paid.`,
        });
      } else {
        await tx.query('UPDATE purchases SET comment = $3 WHERE account_id = $1 AND id = $2', [accountId, inst.purchase_id, `${paid} of ${total} installments paid.`]);
      }
      return 'paid';
    }
    const reason = final.decline?.reason ?? 'processing_error';
    await writeEvent(tx, accountId, inst.purchase_id, EVENT.installmentFailed, locked.state, { installment_id: inst.id, index: inst.index, amount_cents: amount, attempt, reason }, now);
    const retryIn = RETRY_DAYS[attempt - 1];
    if (retryIn !== undefined) {
      await tx.query('UPDATE installments SET attempts = $3 WHERE account_id = $1 AND id = $2', [accountId, inst.id, attempt]);
      await scheduleJob(tx, { kind: COLLECT_JOB, key: `${COLLECT_JOB}:${inst.id}:${attempt}`, runAt: dueAt(inst.due_date, retryIn), payload: { installmentId: inst.id }, accountId });
      return 'retry_scheduled';
    }
    await tx.query("UPDATE installments SET state = 'failed', attempts = $3 WHERE account_id = $1 AND id = $2", [accountId, inst.id, attempt]);
    const what = total === 1 ? 'The deferred payment' : `Installment ${inst.index + 1} of ${total}`;
    await applyMove(tx, clock, accountId, inst.purchase_id, 'fail', {
      comment: `${what} could not be collected after ${attempt} attempts (${reason}).`,
      data: { installment_id: inst.id, reason },
    });
    return 'failed';
  });
}

/** The deferred purchase's single installment, for `trigger_capture`. */
export async function deferredInstallmentId(sql: Sql, accountId: string, purchaseId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>('SELECT id FROM installments WHERE account_id = $1 AND purchase_id = $2 AND index = 0', [accountId, purchaseId]);
  return rows[0]?.id;
}
