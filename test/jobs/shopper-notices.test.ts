import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { dueAt } from '../../src/domain/installment-rules.ts';
import { PLEDGE_RESERVATION_MS } from '../../src/domain/pot.ts';
import { planLines } from '../../src/payments/installment-repository.ts';
import { loadPayState, setPaymentMethod } from '../../src/payments/pay-state-repository.ts';
import { insertPaymentMethod } from '../../src/payments/payment-method-repository.ts';
import { findPayment, pspRef } from '../../src/payments/payment-repository.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { payPledge } from '../../src/use-cases/pot/pay-pledge.ts';
import { RECONCILE_AFTER_MS } from '../../src/use-cases/reconciliation/reconcile-payments.ts';
import { refundPurchase } from '../../src/use-cases/refunds/refund-purchase.ts';
import { sendPledgeReceipt, sendPotCompleteNotice, sendPreChargeNotice, sendRefundNotices } from '../../src/use-cases/notices/shopper-notices.ts';
import { settlePotDeadline } from '../../src/use-cases/pot/settle-pot-deadline.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';
import { answerChallenge, card, CARDS, newShop, type Shop } from '../use-cases/support.ts';

/**
 * The e-mails a shopper receives over a purchase's life (docs/messaging.md), delivered to a real
 * SMTP listener, at the right time on the sandbox clock (which these tests move: a database of
 * their own). Scenarios: a 3x plan paid to the end, a 3x plan whose card is refused through
 * dunning, a pot whose rest is refused at the deadline.
 */

let smtp: Awaited<ReturnType<typeof smtpListener>>;
let iso: IsolatedDatabase;
let db: Database;
let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  smtp = await smtpListener();
  iso = await isolatedDatabase();
  db = await iso.open();
  // No background polling: jobs run when the clock moves, as the sandbox clock route runs them.
  app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, jobPollIntervalMs: 0, logLevel: 'silent' }, { db, shareDatabase: true });
  shop = await newShop(app);
});
afterAll(async () => {
  await app?.close();
  await iso?.dispose();
  await smtp?.close();
});

const ret = () => 'http://127.0.0.1:3000/return';
const deps = () => app.services.payments;
const HOUR = 3_600_000;

/** The decoded messages received for `to`, oldest first; each starts with its decoded subject line. */
const mailsTo = (to: string) => smtp.received.filter((r) => r.to.includes(to)).map((r) => `Subject: ${subjectOfRaw(r.raw)}\n${decoded(r.raw)}`);
const subjectOf = (mail: string) => /^Subject: (.*)$/m.exec(mail)?.[1] ?? '';

/** The Subject header, unfolded, its RFC 2047 encoded words decoded. */
function subjectOfRaw(raw: string): string {
  const header = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  const unfolded = header.replace(/\r?\n[ \t]/g, ' ').replace(/\?=\s+=\?/g, '?==?');
  return unfolded.replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_m, enc: string, data: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(
          data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
/** Spaces of every kind as plain spaces (French amounts use narrow no-break spaces). */
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

/** Moves the sandbox clock to `at` through the route, which runs what fell due before answering. */
async function advanceTo(at: Date): Promise<void> {
  const seconds = Math.ceil((at.getTime() - app.services.clock.now().getTime()) / 1000);
  if (seconds <= 0) return;
  const res = await app.server.inject({
    method: 'POST',
    url: '/api/sandbox/clock',
    headers: { authorization: `Bearer ${shop.token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ advance_seconds: seconds }),
  });
  expect(res.statusCode).toBe(200);
}

async function planPurchase(email: string, language: string, number: string): Promise<{ id: string; lines: Awaited<ReturnType<typeof planLines>> }> {
  const id = await shop.purchase({ merchant_uid: shop.offer('INSTALLMENTS', 3).merchant_uid, amount: 30_000, language, client: { email, first_name: 'Alice' } });
  expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(number), [], ret)).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
  return { id, lines: await planLines(db, shop.accountId, id) };
}

/** The SMS recorded for `phone` (the sandbox gateway keeps them in `outbound_messages`), oldest first. */
async function smsTo(phone: string): Promise<{ body: string; message_key: string | null; accepted: boolean }[]> {
  const { rows } = await db.query<{ body: string; message_key: string | null; accepted: boolean }>(
    "SELECT body, message_key, accepted FROM outbound_messages WHERE channel = 'sms' AND recipient = $1 ORDER BY created_at, id",
    [phone],
  );
  return rows;
}
const phoneNumber = () => `+3361${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

/** A purchase whose leader gave only a phone number, as the notices see it. */
async function phoneOnly(id: string, phone: string): Promise<void> {
  await db.query('UPDATE purchases SET phone_number = $2 WHERE id = $1', [id, phone]);
  // A client with a ref of its own, so that several such clients of one account may have no address.
  await db.query("UPDATE clients SET email = '', ref = $2 WHERE id = (SELECT client_id FROM purchases WHERE id = $1)", [id, `phone-only-${id}`]);
}

describe("a 3x plan's e-mails", () => {
  it('receipt with the schedule and credit figures at checkout, a pre-charge notice 3 days before each charge (once), a receipt after it', async () => {
    const email = `plan-${randomUUID()}@example.com`;
    const { id, lines } = await planPurchase(email, 'fr_FR', CARDS.ok);

    // At checkout: the receipt, in French, with the schedule and the credit disclosure.
    const [receipt, ...others] = mailsTo(email);
    expect(others).toEqual([]);
    expect(plain(subjectOf(receipt!))).toContain('confirmation de paiement');
    const text = plain(receipt!);
    for (const s of [
      'Débité : 104,50 €',
      'Échéancier',
      'Aujourd’hui : 104,50 €',
      'Montant du crédit : 200,00 €',
      'Frais (coût total du crédit) : 4,50 €',
      'Montant total dû : 304,50 €',
      'TAEG fixe',
      'se terminant par 4242',
    ]) {
      expect(text).toContain(s);
    }
    expect(receipt).toContain('<caption'); // the HTML part's tables

    // Three days before the second installment: the pre-charge notice, with the card's last 4.
    const second = lines[1]!;
    await advanceTo(new Date(dueAt(second.dueDate).getTime() - 3 * 24 * HOUR - HOUR));
    expect(mailsTo(email)).toHaveLength(1); // not yet
    await advanceTo(new Date(dueAt(second.dueDate).getTime() - 3 * 24 * HOUR + HOUR));
    const notices = mailsTo(email).slice(1);
    expect(notices).toHaveLength(1);
    expect(plain(notices[0]!)).toContain('100,00 € seront débités sur votre carte Visa se terminant par 4242');
    // Sent once, whatever runs it again: a job retry, two processes at once.
    const again = await Promise.all([sendPreChargeNotice(deps(), shop.accountId, second.id), sendPreChargeNotice(deps(), shop.accountId, second.id)]);
    expect(again).toEqual(['not_sent', 'not_sent']);
    expect(mailsTo(email)).toHaveLength(2);

    // The due date: the charge, then its receipt naming the next installment.
    await advanceTo(new Date(dueAt(second.dueDate).getTime() + HOUR));
    const afterCharge = mailsTo(email).slice(2);
    expect(afterCharge).toHaveLength(1);
    expect(plain(subjectOf(afterCharge[0]!))).toContain('échéance 2 sur 3 réglée');
    expect(plain(afterCharge[0]!)).toContain('Prochaine échéance : 100,00 €');

    // The last installment: notice, charge, receipt "paid in full".
    await advanceTo(new Date(dueAt(lines[2]!.dueDate).getTime() - 3 * 24 * HOUR + HOUR));
    await advanceTo(new Date(dueAt(lines[2]!.dueDate).getTime() + HOUR));
    const rest = mailsTo(email).slice(3);
    expect(rest.map((m) => plain(subjectOf(m)))).toEqual([expect.stringContaining('seront débités le'), expect.stringContaining('échéance 3 sur 3 réglée')]);
    expect(plain(rest[1]!)).toContain('entièrement payé');
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbound_messages WHERE purchase_id = $1 AND message_key IS NOT NULL AND accepted', [id]);
    expect(rows[0]!.n).toBe(5);
  });

  it('a refused installment: a notice after each refusal saying when the next try is, then that the purchase failed', async () => {
    const email = `dunning-${randomUUID()}@example.com`;
    const { lines } = await planPurchase(email, 'en_GB', CARDS.offSessionFails);
    const second = lines[1]!;
    await advanceTo(new Date(dueAt(second.dueDate).getTime() + HOUR));
    // The clock jumped past the pre-charge time and the due date at once: no notice so late, only the refusal.
    const first = mailsTo(email).slice(1);
    expect(first.map(subjectOf)).toEqual([expect.stringContaining('was refused')]);
    const retryDay = new Date(dueAt(second.dueDate).getTime() + 24 * HOUR).toISOString().slice(0, 10);
    expect(first[0]).toContain(
      `We will try again on ${new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${retryDay}T00:00:00Z`))}`,
    );
    for (const days of [1, 3, 7]) await advanceTo(new Date(dueAt(second.dueDate, days).getTime() + HOUR));
    const all = mailsTo(email).slice(1);
    expect(all).toHaveLength(4);
    expect(all[3]).toContain('That was the last attempt: the payment plan is stopped and the purchase has failed.');
  });

  it('a leader known only by a phone number gets the pre-charge notice, the receipt and a refusal by SMS, once each', async () => {
    const paying = phoneNumber();
    const refusing = phoneNumber();
    const plan = async (phone: string, number: string) => {
      const id = await shop.purchase({
        merchant_uid: shop.offer('INSTALLMENTS', 3).merchant_uid,
        amount: 30_000,
        title: 'Sofa',
        language: 'en_GB',
        client: { email: `p-${randomUUID()}@example.com` },
      });
      await phoneOnly(id, phone);
      expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(number), [], ret)).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
      return { id, lines: await planLines(db, shop.accountId, id) };
    };
    const ok = await plan(paying, CARDS.ok);
    const ko = await plan(refusing, CARDS.offSessionFails);
    const second = ok.lines[1]!;
    const day = (iso: string) => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${iso}T00:00:00Z`));
    await advanceTo(new Date(dueAt(second.dueDate).getTime() - 3 * 24 * HOUR + HOUR));
    await advanceTo(new Date(dueAt(second.dueDate).getTime() + HOUR));
    const sent = (await smsTo(paying)).filter((m) => m.message_key !== null);
    expect(sent.map((m) => m.message_key)).toEqual([`precharge:${second.id}`, `installment-paid:${second.id}`]);
    expect(sent[0]!.body).toBe(`Chipin, for Test Shop: €100.00 will be charged to your card ending 4242 on ${day(second.dueDate)} for installment 2/3 of "Sofa".`);
    expect(sent[1]!.body).toBe(`Chipin, for Test Shop: €100.00 charged to your card ending 4242 for installment 2/3 of "Sofa". Next: €100.00 on ${day(ok.lines[2]!.dueDate)}.`);
    const refused = (await smsTo(refusing)).filter((m) => m.message_key?.startsWith('charge-failed:'));
    expect(refused).toHaveLength(1);
    expect(refused[0]!.body).toContain(
      `refused €100.00 for installment 2/3 of "Sofa". We will try again on ${day(new Date(dueAt(ko.lines[1]!.dueDate).getTime() + 24 * HOUR).toISOString().slice(0, 10))}.`,
    );
    for (const m of [...sent, ...refused]) expect(m.body.length).toBeLessThanOrEqual(160);
  });

  it('a refund that only lowers the installments not collected yet is told, with what is left; the one that ends the plan too', async () => {
    const email = `lowered-${randomUUID()}@example.com`;
    const { id, lines } = await planPurchase(email, 'en_GB', CARDS.ok);
    const date = (iso: string) => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${iso}T00:00:00Z`));
    // €120 off a 3x plan of €300 with €104.50 collected: the last installment cancelled, the second lowered to €80. Nothing goes back to the card.
    const first = await refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, amountCents: 12_000, actor: { label: 'test' } });
    expect(first.kind).toBe('created');
    const [lowered, ...none] = mailsTo(email).slice(1);
    expect(none).toEqual([]);
    expect(subjectOf(lowered!)).toBe('Test Shop: €120.00 less to pay for Weekend in Lisbon');
    expect(lowered).toContain('nothing goes back to your Visa card ending 4242, as that money had not been charged yet.');
    expect(lowered).toContain(`- ${date(lines[1]!.dueDate)}: €80.00`);
    expect(lowered).not.toContain(date(lines[2]!.dueDate));

    // €90 more: the €80 left to collect, then €10 back to the card. The plan is over.
    expect((await refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, amountCents: 9_000, actor: { label: 'test' } })).kind).toBe('created');
    const [ended] = mailsTo(email).slice(2);
    expect(subjectOf(ended!)).toBe('Test Shop: €10.00 refunded for Weekend in Lisbon');
    expect(ended).toContain('This refund also takes €80.00 off what you still have to pay.');
    expect(ended).toContain('Nothing more will be charged for this purchase.');
    expect(mailsTo(email)).toHaveLength(3);
  });
});

describe("a pot's e-mails", () => {
  it("the leader's receipt says what is charged and what is held; each pledger's receipt what is left; a refused rest at the deadline, what happens", async () => {
    const leader = `pot-${randomUUID()}@example.com`;
    const ann = `ann-${randomUUID()}@example.com`;
    const bob = `bob-${randomUUID()}@example.com`;
    const id = await shop.purchase({ amount: 10_000, language: 'en_GB', client: { email: leader, first_name: 'Lea' } });
    const led = await payAsLeader(
      deps(),
      { id, accountId: shop.accountId },
      card(CARDS.ok),
      [
        { email: ann, amountCents: 2_500, name: 'Ann' },
        { email: bob, amountCents: 2_500 },
      ],
      ret,
    );
    expect(led).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });

    const [receipt] = mailsTo(leader);
    const { rows: money } = await db.query<{ status: string; amount_cents: number; captured_cents: number }>(
      "SELECT status, amount_cents, captured_cents FROM payments WHERE purchase_id = $1 AND status IN ('authorized', 'captured')",
      [id],
    );
    const charged = money.reduce((s, p) => s + p.captured_cents, 0);
    const held = money.filter((p) => p.status === 'authorized').reduce((s, p) => s + p.amount_cents - p.captured_cents, 0);
    expect(receipt).toContain(`Charged: €${(charged / 100).toFixed(2)}`);
    expect(receipt).toContain(`Held, not charged: €${(held / 100).toFixed(2)}`);
    expect(receipt).toContain('You invited 2 friends to chip in €50.00 in total before');
    expect(mailsTo(ann)).toHaveLength(1); // the invitation

    const pledges = await listPledges(db, shop.accountId, id);
    expect(await payPledge(deps(), pledges[0]!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    const annReceipt = mailsTo(ann)[1]!;
    expect(subjectOf(annReceipt)).toContain('your share of €25.00');
    expect(annReceipt).toContain('Hello Ann,');
    expect(annReceipt).toContain('€25.00 is still to be collected');

    // The hold vanishes and the saved card refuses off-session: the rest is refused at the deadline.
    const psp = app.services.psps.get('sandbox');
    const state = (await loadPayState(db, shop.accountId, id))!;
    const guarantee = (await findPayment(db, shop.accountId, state.guaranteePaymentId!))!;
    await psp.void({ idempotencyKey: `test:${id}:void`, transaction: pspRef(guarantee) });
    const attached = await psp.attachPaymentMethod({ idempotencyKey: `test:${id}:attach`, card: card(CARDS.offSessionFails) });
    if (!attached.ok) throw new Error(attached.reason);
    const methodId = await insertPaymentMethod(
      db,
      shop.accountId,
      id,
      { psp: 'sandbox', pspMethodId: attached.paymentMethodId, brand: attached.brand, last4: attached.last4, expMonth: attached.expMonth, expYear: attached.expYear },
      new Date(),
    );
    await setPaymentMethod(db, shop.accountId, id, methodId);
    await advanceTo(new Date(state.potDeadlineAt!.getTime() + 60_000));

    const last = mailsTo(leader).at(-1)!;
    expect(subjectOf(last)).toContain('could not be completed');
    expect(last).toContain('closed with €25.00 not covered by your friends, and we could not charge €25.00 to your Visa card ending 0341');
    expect(last).toContain('The purchase has therefore failed');
  });
});

describe('money moving on any card: its cardholder is told, once (docs/messaging.md#money-movements-and-their-messages)', () => {
  it("the deadline charges the rest to the leader, a friend's late payment is given back, a refund reaches the leader's and a friend's cards: each told once", async () => {
    const leader = `rest-${randomUUID()}@example.com`;
    const ann = `ann-${randomUUID()}@example.com`;
    const bob = `bob-${randomUUID()}@example.com`;
    const id = await shop.purchase({ amount: 10_000, language: 'en_GB', client: { email: leader, first_name: 'Lea' } });
    const led = await payAsLeader(
      deps(),
      { id, accountId: shop.accountId },
      card(CARDS.ok),
      [
        { email: ann, amountCents: 2_500, name: 'Ann' },
        { email: bob, amountCents: 2_500, name: 'Bob' },
      ],
      ret,
    );
    expect(led).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    const [annPledge, bobPledge] = await listPledges(db, shop.accountId, id);
    expect(await payPledge(deps(), annPledge!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    // Bob completes 3-D Secure 5 minutes before the deadline and never comes back: his share is
    // taken after the pot closed. The deadline is passed once his reservation has ended but before
    // the reconciliation would resolve his payment: had both been due in one move, the two jobs
    // would race for his pledge, and the reconciliation, winning, would count his share in the pot
    // (docs/jobs-and-clock.md#what-one-move-runs).
    const state = (await loadPayState(db, shop.accountId, id))!;
    const bobPaysAt = state.potDeadlineAt!.getTime() - 5 * 60_000;
    await advanceTo(new Date(bobPaysAt));
    const started = await payPledge(deps(), bobPledge!, card(CARDS.challenge), ret);
    if (started.kind !== 'challenge') throw new Error(`expected a challenge, got ${started.kind}`);
    await answerChallenge(app, started.url, 'complete');

    const afterReservation = bobPaysAt + PLEDGE_RESERVATION_MS + 60_000;
    expect(afterReservation, 'before the reconciliation takes up his payment').toBeLessThan(bobPaysAt + RECONCILE_AFTER_MS);
    await advanceTo(new Date(afterReservation));
    // The deadline job again: nothing more charged, nobody told twice.
    expect(await settlePotDeadline(deps(), shop.accountId, id)).toEqual({ kind: 'not_open' });

    // The SMTP listener may still be reading the message when the clock's answer comes back.
    await vi.waitFor(() => expect(mailsTo(leader).filter((m) => subjectOf(m).includes('charged for'))).toHaveLength(1), { timeout: 10_000 });
    const restMails = mailsTo(leader).filter((m) => subjectOf(m).includes('charged for'));
    expect(restMails).toHaveLength(1);
    expect(subjectOf(restMails[0]!)).toBe('Test Shop: €25.00 charged for Weekend in Lisbon');
    expect(restMails[0]).toContain('closed with €25.00 not covered by your friends: €25.00 was charged to your Visa card ending 4242, from the amount held');
    expect(restMails[0]).toContain('- Charged in all for this purchase: €75.00');

    const bobBack = mailsTo(bob).filter((m) => subjectOf(m).includes('refunded'));
    expect(bobBack).toHaveLength(1);
    expect(bobBack[0]).toContain('Hello Bob,');
    expect(bobBack[0]).toContain('the €25.00 charged is on its way back to your card');
    expect(bobBack[0]).toContain('- Net charged: €0.00');

    // The merchant refunds €60: in proportion to what each paid (leader €75, Ann €25), €45 and €15.
    const refunded = await refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, amountCents: 6_000, actor: { label: 'test' } });
    if (refunded.kind !== 'created') throw new Error(`expected a refund, got ${refunded.kind}`);
    await sendRefundNotices(deps(), shop.accountId, id, refunded.refund.id, { leaderCents: 4_500, pledges: new Map([[annPledge!.id, 1_500]]), leaderLoweredCents: 0 });

    const leaderBack = mailsTo(leader).filter((m) => subjectOf(m).includes('refunded'));
    expect(leaderBack).toHaveLength(1);
    expect(subjectOf(leaderBack[0]!)).toBe('Test Shop: €45.00 refunded for Weekend in Lisbon');
    expect(leaderBack[0]).toContain('Test Shop refunded €45.00 of your payment for "Weekend in Lisbon": it is on its way back to your Visa card ending 4242.');
    for (const row of ['- Charged: €75.00', '- Refunded: €45.00', '- Net charged: €30.00']) expect(leaderBack[0]).toContain(row);

    const annBack = mailsTo(ann).filter((m) => subjectOf(m).includes('refunded'));
    expect(annBack).toHaveLength(1);
    for (const row of ['- Charged: €25.00', '- Refunded: €15.00', '- Net charged: €10.00']) expect(annBack[0]).toContain(row);
  });
});

describe('a pot completed by friends', () => {
  it('a phone-only friend gets their receipt by SMS, once; the leader is told the pot is complete and the guarantee released, once; a later refund reaches the friend by SMS', async () => {
    const leader = `full-${randomUUID()}@example.com`;
    const ann = `ann-${randomUUID()}@example.com`;
    const bobPhone = phoneNumber();
    const id = await shop.purchase({ amount: 10_000, title: 'Trip to Lisbon', language: 'fr_FR', client: { email: leader, first_name: 'Lea' } });
    expect(
      await payAsLeader(
        deps(),
        { id, accountId: shop.accountId },
        card(CARDS.ok),
        [
          { email: ann, amountCents: 2_500, name: 'Ann' },
          { phoneNumber: bobPhone, amountCents: 2_500, name: 'Bob' },
        ],
        ret,
      ),
    ).toEqual({ kind: 'processed', state: 'LEADER_PROCESSED' });
    const [annPledge, bobPledge] = await listPledges(db, shop.accountId, id);

    expect(await payPledge(deps(), annPledge!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    expect(
      mailsTo(leader)
        .map(subjectOf)
        .filter((s) => s.includes('complète')),
    ).toEqual([]); // not yet: Bob's share is missing

    const invitation = (await smsTo(bobPhone)).length;
    expect(await payPledge(deps(), bobPledge!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    const receipts = (await smsTo(bobPhone)).slice(invitation);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ message_key: expect.stringMatching(/^receipt:/), accepted: true });
    const text = receipts[0]!.body;
    expect(text).toContain('merci, votre part de 25,00 € pour "Trip to Lisbon" est payée');
    expect(text).toContain('La cagnotte est complète');
    expect(text.length).toBeLessThanOrEqual(160);

    const complete = mailsTo(leader).filter((m) => plain(subjectOf(m)).includes('est complète'));
    expect(complete).toHaveLength(1);
    expect(plain(complete[0]!)).toContain('Les 50,00 € réservés en garantie sur votre carte Visa se terminant par 4242 sont libérés');
    // Sent once, whatever sends them again (a retried return, two processes at once).
    const paidBob = (await listPledges(db, shop.accountId, id)).find((p) => p.id === bobPledge!.id)!;
    await Promise.all([
      sendPledgeReceipt(deps(), shop.accountId, paidBob.id, paidBob.paymentId!),
      sendPotCompleteNotice(deps(), shop.accountId, id),
      sendPotCompleteNotice(deps(), shop.accountId, id),
    ]);
    expect((await smsTo(bobPhone)).slice(invitation)).toHaveLength(1);
    expect(mailsTo(leader).filter((m) => plain(subjectOf(m)).includes('est complète'))).toHaveLength(1);
    const state = (await loadPayState(db, shop.accountId, id))!;
    expect(state.state).toBe('SUCCESSFUL');
    expect((await findPayment(db, shop.accountId, state.guaranteePaymentId!))!.status).toBe('voided');

    // The deadline finds the pot settled: nothing more is sent, to anyone.
    const before = smtp.received.length;
    await advanceTo(new Date(state.potDeadlineAt!.getTime() + 60_000));
    expect(smtp.received.length).toBe(before);
    expect((await smsTo(bobPhone)).length).toBe(invitation + 1);

    // A €10 refund, split €5 / €2.50 / €2.50: the phone-only friend is told by SMS, once, in French.
    const refunded = await refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, amountCents: 1_000, actor: { label: 'test' } });
    if (refunded.kind !== 'created') throw new Error(`expected a refund, got ${refunded.kind}`);
    await sendRefundNotices(deps(), shop.accountId, id, refunded.refund.id, { leaderCents: 500, pledges: new Map([[bobPledge!.id, 250]]), leaderLoweredCents: 0 });
    const refundSms = (await smsTo(bobPhone)).slice(invitation + 1);
    expect(refundSms).toEqual([expect.objectContaining({ message_key: `refund:${refunded.refund.id}:${bobPledge!.id}`, accepted: true })]);
    expect(plain(refundSms[0]!.body)).toContain('2,50 € remboursés sur votre carte pour "Trip to Lisbon". Net débité : 22,50 €.');
    expect(mailsTo(leader).filter((m) => plain(subjectOf(m)).includes('5,00 € remboursés'))).toHaveLength(1);
  });

  it('a leader known only by a phone number is told by SMS that the pot is complete', async () => {
    const leaderPhone = phoneNumber();
    const id = await shop.purchase({ amount: 10_000, title: 'Trip to Lisbon', language: 'en_GB', client: { email: `sms-${randomUUID()}@example.com` } });
    await phoneOnly(id, leaderPhone);
    expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [{ phoneNumber: phoneNumber(), amountCents: 4_000 }], ret)).toEqual({
      kind: 'processed',
      state: 'LEADER_PROCESSED',
    });
    const [pledge] = await listPledges(db, shop.accountId, id);
    expect(await payPledge(deps(), pledge!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    const sms = (await smsTo(leaderPhone)).filter((m) => m.message_key === `pot-complete:${id}`);
    expect(sms).toHaveLength(1);
    expect(sms[0]!.body).toContain('your friends completed the pot for "Trip to Lisbon", it is paid. The €40.00 held on your card is released');
    expect(sms[0]!.body.length).toBeLessThanOrEqual(160);
  });
});

describe('the language of the messages (docs/hosted-payment.md#language)', () => {
  it("a purchase created without a language, paid on a French page, sends its receipt and the friends' invitations in French", async () => {
    const leader = `lang-${randomUUID()}@example.com`;
    const ann = `ann-${randomUUID()}@example.com`;
    // Merchant API v1 without `language`: its request's Accept-Language is the merchant's server's, not the shopper's.
    const id = await shop.purchase({ amount: 10_000, client: { email: leader, first_name: 'Léa' } });
    const path = `/pay/pur_${id}`;
    const french = { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' };
    const page = await app.server.inject({ url: path, headers: french });
    expect(page.body).toContain('lang="fr-FR"');
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    const token = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const form = new URLSearchParams({
      csrf: token,
      holder_name: 'Léa Martin',
      card_number: '4242 4242 4242 4242',
      card_expiry: '12/30',
      card_cvc: '123',
      pledger_name: 'Ann',
      pledger_email: ann,
      pledger_phone: '',
      pledger_amount: '25,00',
    });
    const paid = await app.server.inject({
      method: 'POST',
      url: path,
      headers: { ...french, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    expect(paid.statusCode, paid.body.slice(0, 500)).toBe(303);
    const { rows } = await db.query<{ language_set: boolean; page_language: string }>('SELECT language_set, page_language FROM purchases WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ language_set: false, page_language: 'fr' });

    const [receipt, ...others] = mailsTo(leader);
    expect(others).toEqual([]);
    expect(plain(subjectOf(receipt!))).toContain('confirmation de paiement');
    expect(plain(receipt!)).toContain('Bonjour Léa,');
    expect(plain(receipt!)).toContain('Vous avez invité 1 proche à verser 25,00 € au total');
    const [invitation] = mailsTo(ann);
    expect(plain(subjectOf(invitation!))).toBe(`Léa vous invite à verser 25,00 € pour Weekend in Lisbon`);
    expect(plain(invitation!)).toContain('Bonjour Ann,');
    expect(invitation).not.toMatch(/Hello|invites you/);
  });
});
