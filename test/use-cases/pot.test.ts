import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPayState, setPaymentMethod } from '../../src/payments/pay-state-repository.ts';
import { insertPaymentMethod } from '../../src/payments/payment-method-repository.ts';
import { findPayment, pspRef } from '../../src/payments/payment-repository.ts';
import { listPledges, type Pledge } from '../../src/payments/pledge-repository.ts';
import { findPurchase } from '../../src/purchases/purchase-repository.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { payPledge } from '../../src/use-cases/pot/pay-pledge.ts';
import { remindPot } from '../../src/use-cases/pot/remind-pot.ts';
import { settlePotDeadline } from '../../src/use-cases/pot/settle-pot-deadline.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { card, CARDS, newShop, paymentsOf, type Shop } from './support.ts';

let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  app = await startTestApp();
  shop = await newShop(app);
});
afterAll(() => app.close());

const ret = () => 'http://127.0.0.1:3000/return';
const deps = () => app.services.payments;

/** A SHARED purchase of 100.00 whose leader paid 50.00 and invited two friends of 25.00. */
async function openPot(): Promise<{ id: string; pledges: Pledge[] }> {
  const id = await shop.purchase();
  const led = await payAsLeader(
    deps(),
    { id, accountId: shop.accountId },
    card(CARDS.ok),
    [
      { email: 'ann@example.com', amountCents: 2_500 },
      { email: 'bob@example.com', amountCents: 2_500 },
    ],
    ret,
  );
  expect(led).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
  return { id, pledges: await listPledges(app.services.db, shop.accountId, id) };
}
const purchaseOf = async (id: string) => (await findPurchase(app.services.db, shop.accountId, id))!;

describe('payPledge', () => {
  it('a pledger who pays moves the pot on; the last one makes the purchase SUCCESSFUL and releases the guarantee', async () => {
    const { id, pledges } = await openPot();
    expect(await payPledge(deps(), pledges[0]!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    expect((await purchaseOf(id)).comment).toBe('1 of 2 friends paid, 25.00 EUR left.');
    expect(await payPledge(deps(), pledges[1]!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    expect(await purchaseOf(id)).toMatchObject({ state: 'SUCCESSFUL', comment: 'The pot is complete: 2 of 2 friends paid.' });
    expect((await paymentsOf(app, id)).find((p) => p.purpose === 'guarantee')).toMatchObject({ status: 'voided', captured_cents: 0 });
    // Paying again from a stale page: the stored pledge decides, nothing is charged twice.
    expect(await payPledge(deps(), pledges[1]!, card(CARDS.ok), ret)).toEqual({ kind: 'already_paid' });
    expect((await paymentsOf(app, id)).filter((p) => p.purpose === 'pledge')).toHaveLength(2);
  });

  it('a declined pledger card changes nothing in the pot: the pledge is open again', async () => {
    const { id, pledges } = await openPot();
    expect(await payPledge(deps(), pledges[0]!, card(CARDS.declined), ret)).toMatchObject({ kind: 'declined', reason: 'card_declined' });
    expect((await listPledges(app.services.db, shop.accountId, id))[0]!.state).toBe('invited');
    expect((await purchaseOf(id)).state).toBe('LEADER_PROCESSED');
  });

  it('once the pot is closed a pledger is told so and never charged', async () => {
    const { id, pledges } = await openPot();
    await settlePotDeadline(deps(), shop.accountId, id);
    const before = (await paymentsOf(app, id)).length;
    expect(await payPledge(deps(), pledges[0]!, card(CARDS.ok), ret)).toEqual({ kind: 'closed', reason: 'deadline' });
    expect((await paymentsOf(app, id)).length).toBe(before);
  });
});

describe('settlePotDeadline', () => {
  it("the uncovered rest is captured from the leader's guarantee: SUCCESSFUL, unpaid pledges closed", async () => {
    const { id, pledges } = await openPot();
    await payPledge(deps(), pledges[0]!, card(CARDS.ok), ret);
    expect(await settlePotDeadline(deps(), shop.accountId, id)).toEqual({ kind: 'rest_charged', restCents: 2_500 });
    expect(await purchaseOf(id)).toMatchObject({ state: 'SUCCESSFUL', comment: '1 of 2 friends paid; the leader paid the remaining 25.00 EUR at the deadline.' });
    expect((await listPledges(app.services.db, shop.accountId, id)).map((p) => [p.state, p.closedReason])).toEqual([
      ['paid', null],
      ['closed', 'deadline'],
    ]);
    expect((await paymentsOf(app, id)).find((p) => p.purpose === 'guarantee')!.captured_cents).toBe(2_500);
    // The job run again (a retry) finds nothing to do.
    expect(await settlePotDeadline(deps(), shop.accountId, id)).toEqual({ kind: 'not_open' });
  });

  it('when the hold is gone and the saved card refuses, the rest is refused: FAILED', async () => {
    const { id } = await openPot();
    const psp = app.services.psps.get('sandbox');
    // The hold vanished at the PSP (lapsed, voided elsewhere) ...
    const state = (await loadPayState(app.services.db, shop.accountId, id))!;
    const guarantee = (await findPayment(app.services.db, shop.accountId, state.guaranteePaymentId!))!;
    await psp.void({ idempotencyKey: `test:${id}:void`, transaction: pspRef(guarantee) });
    // ... and the leader's saved card now refuses off-session charges.
    const attached = await psp.attachPaymentMethod({ idempotencyKey: `test:${id}:attach`, card: card(CARDS.offSessionFails) });
    if (!attached.ok) throw new Error(attached.reason);
    const methodId = await insertPaymentMethod(
      app.services.db,
      shop.accountId,
      id,
      { psp: 'sandbox', pspMethodId: attached.paymentMethodId, brand: attached.brand, last4: attached.last4, expMonth: attached.expMonth, expYear: attached.expYear },
      new Date(),
    );
    await setPaymentMethod(app.services.db, shop.accountId, id, methodId);

    expect(await settlePotDeadline(deps(), shop.accountId, id)).toEqual({ kind: 'rest_refused', restCents: 5_000, reason: 'card_declined' });
    expect(await purchaseOf(id)).toMatchObject({ state: 'FAILED', comment: '0 of 2 friends paid; charging the remaining 50.00 EUR to the leader was refused.' });
    expect((await paymentsOf(app, id)).find((p) => p.purpose === 'rest')).toMatchObject({ status: 'declined', captured_cents: 0 });
  });
});

describe('remindPot', () => {
  it('reminds the pledgers who have not paid, once', async () => {
    const { id, pledges } = await openPot();
    await payPledge(deps(), pledges[0]!, card(CARDS.ok), ret);
    expect(await remindPot(deps(), shop.accountId, id)).toEqual({ kind: 'reminded', count: 1 });
    const sent = await app.services.db.query<{ recipient: string; n: number }>(
      // Invitations and reminders only: receipts (keyed, docs/messaging.md) are counted elsewhere.
      'SELECT recipient, count(*) AS n FROM outbound_messages WHERE purchase_id = $1 AND message_key IS NULL GROUP BY recipient ORDER BY recipient',
      [id],
    );
    expect(sent.rows).toEqual([
      { recipient: 'ann@example.com', n: 1 }, // the invitation only
      { recipient: 'bob@example.com', n: 2 }, // the invitation and the reminder
    ]);
    expect(await remindPot(deps(), shop.accountId, id)).toEqual({ kind: 'reminded', count: 0 });
  });

  it('sends nothing once the pot is settled', async () => {
    const { id } = await openPot();
    await settlePotDeadline(deps(), shop.accountId, id);
    expect(await remindPot(deps(), shop.accountId, id)).toEqual({ kind: 'pot_not_open' });
  });
});
