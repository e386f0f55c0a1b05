/**
 * The shopper pays from their space (docs/schedules.md#the-shopper-pays-now): a refused installment
 * paid now, the rest repaid early, the card changed — each checked at the sandbox PSP (amounts,
 * once, customer- or merchant-initiated).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledInstallments } from '../../src/payments/installment-repository.ts';
import { findPurchase } from '../../src/purchases/purchase-repository.ts';
import { PspIntegrationError, type PspConnector } from '../../src/psp/connector.ts';
import { changeCard, resumeCardChange } from '../../src/use-cases/installments/change-card.ts';
import { collectInstallment } from '../../src/use-cases/installments/collect-installment.ts';
import type { PaymentDeps } from '../../src/use-cases/deps.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { resumeLeaderAfterChallenge } from '../../src/use-cases/checkout/resolve-leader-attempt.ts';
import { reconcilePayments } from '../../src/use-cases/reconciliation/reconcile-payments.ts';
import { payInstallmentNow, repayEarly, resumeShopperPayment } from '../../src/use-cases/shopper-space/shopper-pay.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { answerChallenge, card, CARDS, jumpingClock, newShop, type Shop } from './support.ts';

let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  app = await startTestApp();
  shop = await newShop(app);
});
afterAll(() => app.close());

const deps = () => app.services.payments;
const ret = () => 'http://127.0.0.1:3000/space/return';
const q = async <T>(sql: string, params: unknown[]) => (await app.services.db.query<T>(sql, params)).rows;
const purchaseOf = async (id: string) => (await findPurchase(app.services.db, shop.accountId, id))!;
const ref = (id: string) => ({ id, accountId: shop.accountId });

/** An INSTALLMENTS 3x purchase of 300.00 the leader paid with `number` (challenge answered): its installments still to collect. */
async function paid(number: string): Promise<{ id: string; toCollect: { id: string; amountCents: number; feesCents: number }[] }> {
  const id = await shop.purchase({ merchant_uid: shop.offer('INSTALLMENTS', 3).merchant_uid, amount: 30_000 });
  const outcome = await payAsLeader(deps(), ref(id), card(number), [], ret);
  if (outcome.kind === 'challenge') {
    await answerChallenge(app, outcome.url, 'complete');
    const paymentId = (await q<{ id: string }>('SELECT id FROM payments WHERE purchase_id = $1', [id]))[0]!.id;
    expect(await resumeLeaderAfterChallenge(deps(), ref(id), paymentId)).toMatchObject({ kind: 'processed' });
  } else expect(outcome).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
  return { id, toCollect: await scheduledInstallments(app.services.db, shop.accountId, id) };
}

/** The sandbox PSP's transactions of the purchase's payments (by the payment method the rows name), oldest first. */
async function atPsp(purchaseId: string) {
  return q<{ off_session: boolean; capture_mode: string; status: string; amount_cents: number; captured_cents: number; payment_method_id: string }>(
    `SELECT t.off_session, t.capture_mode, t.status, t.amount_cents::int, t.captured_cents::int, t.payment_method_id FROM sandbox_psp_transactions t
     WHERE t.id IN (SELECT psp_transaction_id FROM payments WHERE purchase_id = $1) ORDER BY t.created_at, t.id`,
    [purchaseId],
  );
}
const capturedAtPsp = async (purchaseId: string) => (await atPsp(purchaseId)).reduce((s, t) => s + t.captured_cents, 0);

describe('pay a refused installment now', () => {
  it('charges the installment once, customer-initiated, stops its dunning and keeps the plan going', async () => {
    const { id, toCollect } = await paid(CARDS.offSessionFails);
    const [first] = toCollect;
    expect(await collectInstallment(deps(), shop.accountId, first!.id, 0)).toBe('retry_scheduled');
    const before = await capturedAtPsp(id);

    const outcome = await payInstallmentNow(deps(), ref(id), first!.id, ret);
    const due = first!.amountCents + first!.feesCents;
    expect(outcome).toEqual({ kind: 'paid', amountCents: due, state: 'LEADER_PROCESSED' });
    expect(await capturedAtPsp(id)).toBe(before + due);
    const last = (await atPsp(id)).at(-1)!;
    expect(last).toMatchObject({ off_session: false, status: 'settled', captured_cents: due });
    expect((await purchaseOf(id)).comment).toBe('2 of 3 installments paid.');

    // The dunning try announced for the next day finds it paid; clicking again pays nothing.
    const pending = await q<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE dedupe_key = $1 AND done_at IS NULL AND failed_at IS NULL', [
      `installment.collect:${first!.id}:1`,
    ]);
    expect(pending[0]!.n).toBe(0);
    expect(await collectInstallment(deps(), shop.accountId, first!.id, 1)).toBe('already_paid');
    expect(await payInstallmentNow(deps(), ref(id), first!.id, ret)).toEqual({ kind: 'nothing_to_pay' });
    expect(await capturedAtPsp(id)).toBe(before + due);
    const events = await q<{ data: { by?: string } }>("SELECT data FROM purchase_events WHERE purchase_id = $1 AND type = 'installment.paid'", [id]);
    expect(events.map((e) => e.data.by)).toEqual(['shopper']);
  });

  it('an installment never refused is not "paid now": it is collected at its date', async () => {
    const { id, toCollect } = await paid(CARDS.ok);
    expect(await payInstallmentNow(deps(), ref(id), toCollect[0]!.id, ret)).toEqual({ kind: 'nothing_to_pay' });
    expect(await payInstallmentNow(deps(), { id, accountId: (await newShop(app)).accountId }, toCollect[0]!.id, ret)).toEqual({ kind: 'not_found' });
  });

  it('a "pay now" racing the dunning job charges the installment once', async () => {
    const { id, toCollect } = await paid(CARDS.offSessionFails);
    const [first] = toCollect;
    expect(await collectInstallment(deps(), shop.accountId, first!.id, 0)).toBe('retry_scheduled');
    const before = await capturedAtPsp(id);
    const [now, job] = await Promise.all([payInstallmentNow(deps(), ref(id), first!.id, ret), collectInstallment(deps(), shop.accountId, first!.id, 1)]);
    // The card refuses off-session charges: whichever went first, only the shopper's can succeed,
    // and at most once.
    const due = first!.amountCents + first!.feesCents;
    const charged = (await capturedAtPsp(id)) - before;
    if (now.kind === 'paid') expect(charged).toBe(due);
    else expect(charged).toBe(0);
    expect(['already_paid', 'busy', 'retry_scheduled', 'not_collectable']).toContain(job);
    const rows = await q<{ n: number }>("SELECT count(*)::int AS n FROM installments WHERE id = $1 AND state = 'paid'", [first!.id]);
    expect(rows[0]!.n).toBe(now.kind === 'paid' ? 1 : 0);
  });

  it('a crash between the PSP answer and its recording is resolved by replaying the key: charged once', async () => {
    const { id, toCollect } = await paid(CARDS.offSessionFails);
    const [first] = toCollect;
    expect(await collectInstallment(deps(), shop.accountId, first!.id, 0)).toBe('retry_scheduled');
    const before = await capturedAtPsp(id);
    const crashing: PaymentDeps = {
      ...deps(),
      psps: {
        forOffer: (o) => deps().psps.forOffer(o),
        definition: (name) => deps().psps.definition(name),
        forPayment: async (p) => {
          // The answer reaches nobody: the PSP did it, the process died before recording it.
          const c = await deps().psps.forPayment(p);
          const dying = Object.create(c) as typeof c;
          dying.authorize = async (input: Parameters<PspConnector['authorize']>[0]) => {
            await c.authorize(input);
            throw new PspIntegrationError(c.name, 'unreachable', 'the process died');
          };
          return dying;
        },
      },
    };
    await expect(payInstallmentNow(crashing, ref(id), first!.id, ret)).rejects.toThrow('the process died');
    // Unresolved, it holds back both another click and the collection.
    expect(await payInstallmentNow(deps(), ref(id), first!.id, ret)).toEqual({ kind: 'in_progress' });
    expect(await collectInstallment(deps(), shop.accountId, first!.id, 1)).toBe('busy');

    const clock = jumpingClock(deps().clock);
    clock.jump(21 * 60_000);
    await reconcilePayments({ ...deps(), clock });
    const due = first!.amountCents + first!.feesCents;
    expect((await capturedAtPsp(id)) - before).toBe(due);
    expect(await collectInstallment(deps(), shop.accountId, first!.id, 1)).toBe('already_paid');
    expect((await capturedAtPsp(id)) - before).toBe(due);
  });
});

describe('repay the rest early', () => {
  it('charges the remaining principal once, without the remaining fees, and the purchase is SUCCESSFUL', async () => {
    const { id, toCollect } = await paid(CARDS.ok);
    const principal = toCollect.reduce((s, i) => s + i.amountCents, 0);
    // The offer's fees are all on the first line, paid at checkout: nothing more is charged.
    expect(toCollect.reduce((s, i) => s + i.feesCents, 0)).toBe(0);
    const before = await capturedAtPsp(id);
    expect(await repayEarly(deps(), ref(id), ret)).toEqual({ kind: 'paid', amountCents: principal, state: 'SUCCESSFUL' });
    expect(await capturedAtPsp(id)).toBe(before + principal);
    expect((await atPsp(id)).at(-1)).toMatchObject({ off_session: false, captured_cents: principal });
    expect(await purchaseOf(id)).toMatchObject({ state: 'SUCCESSFUL', comment: 'All 3 installments are paid (the rest repaid early).' });
    const lines = await q<{ state: string; fees_cents: number }>('SELECT state, fees_cents::int FROM installments WHERE purchase_id = $1 AND index > 0', [id]);
    expect(lines).toEqual(toCollect.map(() => ({ state: 'paid', fees_cents: 0 })));
    for (const i of toCollect) expect(await collectInstallment(deps(), shop.accountId, i.id, 0)).toBe('already_paid');
    expect(await repayEarly(deps(), ref(id), ret)).toEqual({ kind: 'not_payable', state: 'SUCCESSFUL' });
    const events = await q<{ type: string }>("SELECT type FROM purchase_events WHERE purchase_id = $1 AND type IN ('installment.paid', 'purchase.succeeded')", [id]);
    expect(events.map((e) => e.type).sort()).toEqual(['installment.paid', 'installment.paid', 'purchase.succeeded']);
  });

  it('a deferred payment is not repaid early', async () => {
    const id = await shop.purchase({ merchant_uid: shop.offer('DEFERRED').merchant_uid, amount: 30_000 });
    expect(await payAsLeader(deps(), ref(id), card(CARDS.ok), [], ret)).toMatchObject({ kind: 'processed' });
    expect(await repayEarly(deps(), ref(id), ret)).toEqual({ kind: 'nothing_to_pay' });
  });

  it('a down payment’s balance is paid before its date, once; refused, it is paid now from the space', async () => {
    const early = await shop.purchase({ merchant_uid: shop.offer('DOWN_PAYMENT').merchant_uid, amount: 30_000 });
    expect(await payAsLeader(deps(), ref(early), card(CARDS.ok), [], ret)).toMatchObject({ kind: 'processed' });
    expect(await repayEarly(deps(), ref(early), ret)).toEqual({ kind: 'paid', amountCents: 21_000, state: 'SUCCESSFUL' });
    expect(await purchaseOf(early)).toMatchObject({ state: 'SUCCESSFUL', comment: 'The balance is paid (before its date).' });
    expect(await capturedAtPsp(early)).toBe(30_000);

    const refused = await shop.purchase({ merchant_uid: shop.offer('DOWN_PAYMENT').merchant_uid, amount: 30_000 });
    expect(await payAsLeader(deps(), ref(refused), card(CARDS.offSessionFails), [], ret)).toMatchObject({ kind: 'processed' });
    const [balance] = await scheduledInstallments(app.services.db, shop.accountId, refused);
    expect(await collectInstallment(deps(), shop.accountId, balance!.id, 0)).toBe('retry_scheduled');
    expect(await payInstallmentNow(deps(), ref(refused), balance!.id, ret)).toEqual({ kind: 'paid', amountCents: 21_000, state: 'SUCCESSFUL' });
    expect(await purchaseOf(refused)).toMatchObject({ state: 'SUCCESSFUL', comment: 'The balance is paid.' });
    expect((await atPsp(refused)).at(-1)).toMatchObject({ off_session: false, captured_cents: 21_000 });
  });

  it('asks for 3-D Secure when the issuer does, and pays after the challenge', async () => {
    const { id, toCollect } = await paid(CARDS.challenge);
    const principal = toCollect.reduce((s, i) => s + i.amountCents, 0);
    const outcome = await repayEarly(deps(), ref(id), ret);
    expect(outcome.kind).toBe('challenge');
    if (outcome.kind !== 'challenge') return;
    await answerChallenge(app, outcome.url, 'complete');
    const paymentId = (await q<{ id: string }>("SELECT id FROM payments WHERE purchase_id = $1 AND idempotency_key LIKE '%:repay:1'", [id]))[0]!.id;
    expect(await resumeShopperPayment(deps(), ref(id), paymentId)).toEqual({ kind: 'paid', amountCents: principal, state: 'SUCCESSFUL' });
    expect(await resumeShopperPayment(deps(), ref(id), paymentId)).toEqual({ kind: 'paid', amountCents: principal, state: 'SUCCESSFUL' });
    expect((await atPsp(id)).filter((t) => t.captured_cents === principal)).toHaveLength(1);
  });
});

describe('change the card', () => {
  it('stores the new card with a customer-initiated authorisation voided at once; later collections charge it', async () => {
    const { id, toCollect } = await paid(CARDS.offSessionFails);
    expect(await collectInstallment(deps(), shop.accountId, toCollect[0]!.id, 0)).toBe('retry_scheduled');
    const before = await capturedAtPsp(id);
    expect(await changeCard(deps(), ref(id), card(CARDS.ok), ret)).toEqual({ kind: 'changed', brand: 'visa', last4: '4242' });
    const check = (await atPsp(id)).at(-1)!;
    expect(check).toMatchObject({ off_session: false, capture_mode: 'manual', status: 'cancelled', captured_cents: 0 });
    expect(await capturedAtPsp(id)).toBe(before);

    // The dunning try now charges the new card, merchant-initiated, and succeeds.
    expect(await collectInstallment(deps(), shop.accountId, toCollect[0]!.id, 1)).toBe('paid');
    const mit = (await atPsp(id)).at(-1)!;
    expect(mit).toMatchObject({ off_session: true, status: 'settled', payment_method_id: check.payment_method_id });
    expect(await collectInstallment(deps(), shop.accountId, toCollect[1]!.id, 0)).toBe('paid');
    expect((await purchaseOf(id)).state).toBe('SUCCESSFUL');
  });

  it('a refused new card leaves the old one in use', async () => {
    const { id } = await paid(CARDS.ok);
    const before = await q<{ payment_method_id: string }>('SELECT payment_method_id FROM purchases WHERE id = $1', [id]);
    expect(await changeCard(deps(), ref(id), card(CARDS.declined), ret)).toMatchObject({ kind: 'declined', reason: 'card_declined' });
    expect(await q('SELECT payment_method_id FROM purchases WHERE id = $1', [id])).toEqual(before);
  });

  it('a new card that asks for 3-D Secure is changed after the challenge only', async () => {
    const { id } = await paid(CARDS.ok);
    const outcome = await changeCard(deps(), ref(id), card(CARDS.challenge), ret);
    expect(outcome.kind).toBe('challenge');
    if (outcome.kind !== 'challenge') return;
    await answerChallenge(app, outcome.url, 'complete');
    const paymentId = (await q<{ id: string }>("SELECT id FROM payments WHERE purchase_id = $1 AND purpose = 'card_check'", [id]))[0]!.id;
    expect(await resumeCardChange(deps(), ref(id), paymentId)).toEqual({ kind: 'changed', brand: 'visa', last4: '3220' });
  });
});
