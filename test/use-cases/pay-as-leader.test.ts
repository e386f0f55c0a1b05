import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Sql } from '../../src/db/database.ts';
import { loadPayState } from '../../src/payments/pay-state-repository.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { abortPurchase } from '../../src/use-cases/checkout/abort-purchase.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { resumeLeaderAfterChallenge } from '../../src/use-cases/checkout/resolve-leader-attempt.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { answerChallenge, card, CARDS, newShop, paymentsOf, type Shop } from './support.ts';

let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  app = await startTestApp();
  shop = await newShop(app);
});
afterAll(() => app.close());

const returnUrl = (id: string) => `http://127.0.0.1:3000/return?payment=${id}`;
const pay = (purchaseId: string, number: string, pledgers: { email: string; amountCents: number }[] = []) =>
  payAsLeader(app.services.payments, { id: purchaseId, accountId: shop.accountId }, card(number), pledgers, returnUrl);
const stateOf = async (id: string) => (await loadPayState(app.services.db, shop.accountId, id))!;

describe('payAsLeader', () => {
  it('SHARED alone: the whole amount is captured and the purchase is SUCCESSFUL at once', async () => {
    const id = await shop.purchase();
    expect(await pay(id, CARDS.ok)).toEqual({ kind: 'processed', state: 'SUCCESSFUL' });
    expect(await paymentsOf(app, id)).toEqual([{ purpose: 'leader_share', status: 'captured', amount_cents: 10_000, captured_cents: 10_000 }]);
  });

  it("SHARED with pledgers: the friends' part is held, the leader's share captured, the pot opened and the friends invited", async () => {
    const id = await shop.purchase();
    const outcome = await pay(id, CARDS.ok, [
      { email: 'ann@example.com', amountCents: 3_000 },
      { email: 'bob@example.com', amountCents: 2_000 },
    ]);
    expect(outcome).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    const rows = await paymentsOf(app, id);
    expect(rows).toEqual(
      expect.arrayContaining([
        { purpose: 'guarantee', status: 'authorized', amount_cents: 5_000, captured_cents: 0 }, // 5,000 held + 5,000 charged: never more than the amount
        { purpose: 'leader_share', status: 'captured', amount_cents: 5_000, captured_cents: 5_000 },
      ]),
    );
    // At the sandbox PSP: the hold is the on-session transaction (one 3-D Secure step), the share
    // an off-session charge; together they tie up exactly the amount on the card, never more.
    const atPsp = await app.services.db.query<{ purpose: string; off_session: boolean; capture_mode: string; status: string; amount_cents: number }>(
      `SELECT p.purpose, t.off_session, t.capture_mode, t.status, t.amount_cents FROM payments p JOIN sandbox_psp_transactions t ON t.id = p.psp_transaction_id
        WHERE p.purchase_id = $1 ORDER BY p.created_at`,
      [id],
    );
    expect(atPsp.rows).toEqual([
      { purpose: 'guarantee', off_session: false, capture_mode: 'manual', status: 'held', amount_cents: 5_000 },
      { purpose: 'leader_share', off_session: true, capture_mode: 'automatic', status: 'settled', amount_cents: 5_000 },
    ]);
    const state = await stateOf(id);
    expect(state).toMatchObject({ leaderShareCents: 5_000, attempts: 0 });
    expect(state.potDeadlineAt!.getTime() - app.services.clock.now().getTime()).toBeGreaterThan(47 * 3_600_000);
    expect((await listPledges(app.services.db, shop.accountId, id)).map((p) => p.state)).toEqual(['invited', 'invited']);
    const sent = await app.services.db.query<{ recipient: string }>('SELECT recipient FROM outbound_messages WHERE purchase_id = $1 ORDER BY recipient', [id]);
    // The two invitations, and the leader's receipt (docs/messaging.md).
    expect(sent.rows.map((r) => r.recipient)).toEqual(['ann@example.com', 'bob@example.com', 'leader@example.com']);
    const jobs = await app.services.db.query<{ kind: string }>('SELECT kind FROM jobs WHERE dedupe_key LIKE $1 ORDER BY kind', [`%${id}%`]);
    // No expiry job: the purchase left CREATED, and so the expiry sweep's index (docs/purchase-lifecycle.md#expiry).
    expect(jobs.rows.map((j) => j.kind)).toEqual(['pot.deadline', 'pot.reminder']);
  });

  it('INSTALLMENTS: the first installment with its fees is captured and the rest is planned', async () => {
    const id = await shop.purchase({ merchant_uid: shop.offer('INSTALLMENTS', 3).merchant_uid, amount: 30_000 });
    expect(await pay(id, CARDS.ok)).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    expect(await paymentsOf(app, id)).toEqual([{ purpose: 'first_installment', status: 'captured', amount_cents: 10_450, captured_cents: 10_450 }]);
    const plan = await app.services.db.query<{ state: string }>('SELECT state FROM installments WHERE purchase_id = $1 ORDER BY index', [id]);
    expect(plan.rows.map((r) => r.state)).toEqual(['paid', 'scheduled', 'scheduled']);
  });

  it('DEFERRED: the amount is authorised and held for the due date, nothing captured', async () => {
    const id = await shop.purchase({ merchant_uid: shop.offer('DEFERRED').merchant_uid, amount: 20_000 });
    expect(await pay(id, CARDS.ok)).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    expect(await paymentsOf(app, id)).toEqual([{ purpose: 'deferred', status: 'authorized', amount_cents: 20_000, captured_cents: 0 }]);
  });

  it('a refused card keeps the purchase CREATED with fewer attempts left; the last allowed refusal makes it FAILED', async () => {
    const id = await shop.purchase();
    expect(await pay(id, CARDS.declined)).toMatchObject({ kind: 'declined', reason: 'card_declined', attemptsLeft: 2, state: 'CREATED' });
    expect(await pay(id, CARDS.declined)).toMatchObject({ kind: 'declined', attemptsLeft: 1, state: 'CREATED' });
    expect(await pay(id, CARDS.declined)).toMatchObject({ kind: 'declined', attemptsLeft: 0, state: 'FAILED' });
    expect((await stateOf(id)).attempts).toBe(3);
    expect(await pay(id, CARDS.ok)).toEqual({ kind: 'not_payable', state: 'FAILED' });
  });

  it('shares leaving the leader nothing are invalid and nothing is charged', async () => {
    const id = await shop.purchase();
    expect(await pay(id, CARDS.ok, [{ email: 'x@example.com', amountCents: 10_000 }])).toMatchObject({ kind: 'invalid', field: 'pledgers' });
    expect(await paymentsOf(app, id)).toEqual([]);
  });

  it('3-D Secure: the leader is sent to the challenge, then the purchase is processed on return', async () => {
    const id = await shop.purchase();
    let paymentId = '';
    const first = await payAsLeader(app.services.payments, { id, accountId: shop.accountId }, card(CARDS.challenge), [{ email: 'cy@example.com', amountCents: 4_000 }], (p) => {
      paymentId = p;
      return returnUrl(p);
    });
    expect(first).toMatchObject({ kind: 'challenge', url: expect.stringContaining('/sandbox-psp/challenge/') });
    expect((await stateOf(id)).state).toBe('CREATED');
    await answerChallenge(app, (first as { url: string }).url, 'complete');
    expect(await resumeLeaderAfterChallenge(app.services.payments, { id, accountId: shop.accountId }, paymentId)).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    expect((await stateOf(id)).leaderShareCents).toBe(6_000); // re-planned from the drafts the leader submitted
    // Returning twice (back button) changes nothing.
    expect(await resumeLeaderAfterChallenge(app.services.payments, { id, accountId: shop.accountId }, paymentId)).toEqual({ kind: 'not_payable', state: 'LEADER_PROCESSED' });
  });

  it('3-D Secure failed: a refusal like a declined card', async () => {
    const id = await shop.purchase();
    let paymentId = '';
    const first = await payAsLeader(app.services.payments, { id, accountId: shop.accountId }, card(CARDS.challenge), [], (p) => ((paymentId = p), returnUrl(p)));
    await answerChallenge(app, (first as { url: string }).url, 'fail');
    expect(await resumeLeaderAfterChallenge(app.services.payments, { id, accountId: shop.accountId }, paymentId)).toMatchObject({
      kind: 'declined',
      reason: 'authentication_failed',
      attemptsLeft: 2,
      state: 'CREATED',
    });
  });

  it('a leader who completes 3-D Secure after the purchase was aborted gets the captured first installment refunded', async () => {
    const id = await shop.purchase({ merchant_uid: shop.offer('INSTALLMENTS', 3).merchant_uid, amount: 30_000 });
    let paymentId = '';
    const first = await payAsLeader(app.services.payments, { id, accountId: shop.accountId }, card(CARDS.challenge), [], (p) => ((paymentId = p), returnUrl(p)));
    expect(first).toMatchObject({ kind: 'challenge' });
    expect(await abortPurchase(app.services, { accountId: shop.accountId, purchaseId: id })).toMatchObject({ kind: 'aborted' });
    await answerChallenge(app, (first as { url: string }).url, 'complete');
    expect(await resumeLeaderAfterChallenge(app.services.payments, { id, accountId: shop.accountId }, paymentId)).toEqual({ kind: 'not_payable', state: 'ABORTED' });
    const rows = await app.services.db.query<{ status: string; captured_cents: number; refunded_cents: number }>(
      'SELECT status, captured_cents, refunded_cents FROM payments WHERE purchase_id = $1',
      [id],
    );
    expect(rows.rows).toEqual([{ status: 'refunded', captured_cents: 10_450, refunded_cents: 10_450 }]);
    expect((await stateOf(id)).state).toBe('ABORTED');
  });

  it('the risk decision costs the checkout one read (locks and history in one call) and writes its record in the transaction that saves the card', async () => {
    const id = await shop.purchase({ merchant_uid: shop.offer('INSTALLMENTS', 3).merchant_uid, amount: 30_000 });
    await pay(await shop.purchase(), CARDS.ok); // the rules and the hook's settings now in this process's copy
    const { db, log } = recording(app.services.db);
    const outcome = await payAsLeader({ ...app.services.payments, db }, { id, accountId: shop.accountId }, card(CARDS.ok), [], returnUrl);
    expect(outcome).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    const history = log.filter((s) => s.text.includes('chipin_shopper_history'));
    const record = log.filter((s) => s.text.includes('INSERT INTO risk_decisions'));
    const cardSaved = log.filter((s) => s.text.includes('SET psp_method_id'));
    expect([history.length, record.length, cardSaved.length]).toEqual([1, 1, 1]);
    // One transaction holds the shopper's locks from the history read to the record and the saved card.
    expect(history[0]!.tx).not.toBeNull();
    expect([record[0]!.tx, cardSaved[0]!.tx]).toEqual([history[0]!.tx, history[0]!.tx]);
    expect(log.filter((s) => /risk_rules|risk_scoring_hooks/.test(s.text))).toEqual([]);
  });
});

/** A database handle that records every statement and the transaction it ran in (null: none). */
function recording(real: Database): { db: Database; log: { text: string; tx: number | null }[] } {
  const log: { text: string; tx: number | null }[] = [];
  let transactions = 0;
  const wrap = (sql: Sql, tx: number | null): Sql => ({
    query: (text, params, options) => {
      log.push({ text, tx });
      return sql.query(text, params, options);
    },
    exec: (script) => sql.exec(script),
    notify: (channel) => sql.notify(channel),
  });
  const db: Database = {
    ...wrap(real, null),
    kind: real.kind,
    transaction: (fn) => {
      const n = ++transactions;
      return real.transaction((tx) => fn(wrap(tx, n)));
    },
    listen: (channel, onNotify) => real.listen(channel, onNotify),
    close: () => real.close(),
  } as Database;
  return { db, log };
}
