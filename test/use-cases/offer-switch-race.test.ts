/**
 * The fallback's switch of offer racing the leader's payment: a purchase
 * whose leader was refused by the risk rules offers a fallback; the leader pays again on the
 * refused offer while the switch to the fallback runs. Every interleaving of the two is forced
 * with pause points on the real database, and the money is read at the sandbox PSP: what it
 * keeps (and holds) is what the purchase's final offer says, and the purchase's offer is the
 * one its payment was charged under (docs/risk.md#the-fallback: the offer is fixed once the
 * leader's attempt starts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { toPublicId } from '../../src/domain/ids.ts';
import { planLeaderPayment } from '../../src/domain/leader-plan.ts';
import type { PaymentDeps } from '../../src/use-cases/deps.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { resumeLeaderAfterChallenge } from '../../src/use-cases/checkout/resolve-leader-attempt.ts';
import { switchOffer } from '../../src/use-cases/checkout/switch-offer.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { forEachInterleaving, runInterleaved } from './interleavings.ts';
import { keptAtPsp } from './psp-ledger.ts';
import { answerChallenge, card, CARDS, newShop, type Shop } from './support.ts';

let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  // No background job runs: nothing but the two flows moves the purchase.
  app = await startTestApp({ jobPollIntervalMs: 0 });
  shop = await newShop(app);
});
afterAll(() => app.close());

const ret = () => 'http://127.0.0.1:3000/return';
const deps = (): PaymentDeps => app.services.payments;
const AMOUNT = 30_000;
/** A prepaid card: the built-in rules refuse it on every credit offer (docs/risk.md). */
const PREPAID = '5105105105105100';

type OfferName = readonly ['SHARED' | 'INSTALLMENTS' | 'DEFERRED', number?];
const uidOf = ([type, installments]: OfferName) => shop.offer(type, installments).merchant_uid;

/** `from` lists `to` as its fallback (the back-office API, as an admin sets it). */
async function fallbackTo(from: OfferName, to: OfferName): Promise<void> {
  const res = await app.server.inject({
    method: 'PUT',
    url: `/api/backoffice/risk_rules/offers/${uidOf(from)}`,
    headers: { authorization: shop.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ fallback_offers: [uidOf(to)] }),
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** A purchase on `from` whose leader's first attempt (a prepaid card) the risk rules refused, proposing `to`. */
async function refusedOn(from: OfferName, to: OfferName): Promise<string> {
  const id = await shop.purchase({ merchant_uid: uidOf(from), amount: AMOUNT });
  const refused = await payAsLeader(deps(), { id, accountId: shop.accountId }, card(PREPAID), [], ret);
  expect(refused).toMatchObject({ kind: 'risk_refused', state: 'CREATED' });
  expect((refused as { fallbacks: { id: string }[] }).fallbacks.map((o) => toPublicId('mer', o.id))).toEqual([uidOf(to)]);
  return id;
}

const purchaseRow = async (id: string) =>
  (
    await app.services.db.query<{ offer_id: string; state: string; amount_cents: number; created_at: Date }>(
      'SELECT offer_id, state, amount_cents, created_at FROM purchases WHERE id = $1',
      [id],
    )
  ).rows[0]!;

/**
 * The leader's money at the sandbox PSP against the purchase's offer as it is now: a purchase
 * still CREATED took and holds nothing; a paid one has exactly one live checkout transaction,
 * of the purpose and amount the offer's plan says (captured when the plan captures at once,
 * held otherwise), and the installment plan that offer makes.
 */
async function expectChargedUnderItsOffer(id: string): Promise<void> {
  const purchase = await purchaseRow(id);
  const offer = (await app.services.offers.byId(shop.accountId, purchase.offer_id))!;
  const live = (
    await app.services.db.query<{ purpose: string; amount: number; captured: number; kept: number }>(
      `SELECT p.purpose, t.amount_cents::int AS amount, t.captured_cents::int AS captured, (t.captured_cents - t.refunded_cents)::int AS kept
       FROM payments p JOIN sandbox_psp_idempotency i ON i.idempotency_key = p.idempotency_key AND i.operation IN ('authorize', 'charge_off_session')
       JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
       WHERE p.purchase_id = $1 AND t.status IN ('held', 'settled', 'pending_authentication')`,
      [id],
    )
  ).rows;
  const kept = await keptAtPsp(app.services.db, id);
  const schedule = await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM installments WHERE purchase_id = $1', [id]);
  const on = `purchase ${purchase.state} on ${offer.type} ${offer.installments}x`;
  if (purchase.state === 'CREATED') {
    expect(live, `${on}: nothing held`).toEqual([]);
    expect(kept, `${on}: nothing kept`).toBe(0);
    return;
  }
  expect(['LEADER_PROCESSED', 'SUCCESSFUL']).toContain(purchase.state);
  const plan = planLeaderPayment(offer, purchase.amount_cents, [], new Date(purchase.created_at));
  if ('problem' in plan) throw new Error(plan.problem.code);
  const captured = plan.capture === 'automatic' ? plan.authorizeCents : 0;
  expect(live, `${on}: charged under that offer`).toEqual([{ purpose: plan.purpose, amount: plan.authorizeCents, captured, kept: captured }]);
  expect(kept, `${on}: kept at the PSP`).toBe(captured);
  expect(schedule.rows[0]!.n, `${on}: its installment plan`).toBe(plan.schedule?.length ?? 0);
}

describe(`the fallback's switch racing the leader's payment (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it.each([
    [['INSTALLMENTS', 3], ['SHARED']],
    [['DEFERRED'], ['SHARED']],
  ] as [OfferName, OfferName][])(
    'from %j to %j: in every interleaving the PSP keeps what the final offer says, charged under that offer',
    async (from, to) => {
      await fallbackTo(from, to);
      const payAnswers = new Set<string>();
      const switchAnswers = new Set<string>();
      const interleavings = await forEachInterleaving(async (schedule) => {
        const id = await refusedOn(from, to);
        const run = await runInterleaved(
          app.services.db,
          [
            // The leader pays again, with a credit card, on the page of the refused offer…
            (db: Database) => payAsLeader({ ...deps(), db }, { id, accountId: shop.accountId }, card(CARDS.ok), [], ret),
            // …while the fallback's button switches the purchase.
            (db: Database) => switchOffer({ ...app.services, db }, shop.accountId, id, uidOf(to)),
          ],
          schedule,
        );
        for (const r of run.results) if (r.status === 'rejected') throw r.reason;
        const [paid, switched] = run.results.map((r) => (r as PromiseFulfilledResult<{ kind: string }>).value);
        payAnswers.add(paid!.kind);
        switchAnswers.add(switched!.kind);
        try {
          await expectChargedUnderItsOffer(id);
          // The rest of the story: a purchase left CREATED is paid on the offer its page now shows.
          if ((await purchaseRow(id)).state === 'CREATED') {
            expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [], ret)).toMatchObject({ kind: 'processed' });
            await expectChargedUnderItsOffer(id);
          }
        } catch (err) {
          throw Object.assign(err as Error, {
            message: `steps ${run.taken.join('')} (0: the payment, 1: the switch), answers ${JSON.stringify([paid, switched])}: ${(err as Error).message}`,
          });
        }
        return run;
      });
      expect(interleavings).toBeGreaterThan(10);
      // Every outcome was forced: the switch first (the payment then pays on the fallback), the
      // payment's attempt first (the switch then finds the offer fixed), and the switch between
      // the payment's read of the offer and its attempt (the payment then starts nothing).
      expect(payAnswers).toEqual(new Set(['processed', 'offer_changed']));
      expect(switchAnswers).toEqual(new Set(['switched', 'offer_fixed']));
    },
    120_000,
  );

  it('an attempt awaiting 3-D Secure fixes the offer: the switch answers offer_fixed (retryable), then switches once the challenge failed', async () => {
    const from: OfferName = ['INSTALLMENTS', 3];
    const to: OfferName = ['SHARED'];
    await fallbackTo(from, to);
    const id = await refusedOn(from, to);
    const started = await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.challenge), [], ret);
    if (started.kind !== 'challenge') throw new Error(`expected a challenge, got ${started.kind}`);
    expect(await switchOffer(app.services, shop.accountId, id, uidOf(to))).toEqual({ kind: 'offer_fixed', retryable: true, state: 'CREATED' });
    expect((await purchaseRow(id)).offer_id).toBe(uidOf(from).slice(4));
    await answerChallenge(app, started.url, 'fail');
    const paymentId = (await app.services.db.query<{ id: string }>("SELECT id FROM payments WHERE purchase_id = $1 AND status = 'requires_action'", [id])).rows[0]!.id;
    expect(await resumeLeaderAfterChallenge(deps(), { id, accountId: shop.accountId }, paymentId)).toMatchObject({ kind: 'declined', state: 'CREATED' });
    // The attempt was refused: the fallback is what it is for.
    expect(await switchOffer(app.services, shop.accountId, id, uidOf(to))).toMatchObject({ kind: 'switched', to: uidOf(to) });
    expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [], ret)).toMatchObject({ kind: 'processed' });
    await expectChargedUnderItsOffer(id);
  });

  it('a purchase past CREATED keeps its offer: the switch answers offer_fixed, not retryable', async () => {
    const from: OfferName = ['INSTALLMENTS', 3];
    const to: OfferName = ['SHARED'];
    await fallbackTo(from, to);
    const id = await refusedOn(from, to);
    expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [], ret)).toMatchObject({ kind: 'processed', state: 'LEADER_PROCESSED' });
    expect(await switchOffer(app.services, shop.accountId, id, uidOf(to))).toEqual({ kind: 'offer_fixed', retryable: false, state: 'LEADER_PROCESSED' });
    await expectChargedUnderItsOffer(id);
  });
});
