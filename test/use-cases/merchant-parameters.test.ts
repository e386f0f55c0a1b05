import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { dueAt } from '../../src/domain/installment-rules.ts';
import { PLEDGER_REQUIRED } from '../../src/domain/leader-plan.ts';
import { planLines } from '../../src/payments/installment-repository.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { payPledge } from '../../src/use-cases/pot/pay-pledge.ts';
import { REAUTH_JOB } from '../../src/use-cases/installments/reauthorize-hold.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { smtpListener } from '../helpers/smtp.ts';
import { card, CARDS, newShop, type Shop } from './support.ts';

/**
 * The merchant parameters that change what happens (docs/back-office.md's table; their meaning in
 * docs/hosted-payment.md, docs/messaging.md, docs/money-operations.md, docs/psp-connectors.md),
 * each observed both ways through what a shopper or the PSP sees: the sandbox PSP's 3-D Secure
 * challenge, the leader refused alone, e-mails received at a real SMTP listener, the renewal
 * job's due time. A database of its own: the pre-charge notice moves the sandbox clock.
 */

const DAY = 86_400_000;

let smtp: Awaited<ReturnType<typeof smtpListener>>;
let iso: IsolatedDatabase;
let db: Database;
let app: TestApp;
beforeAll(async () => {
  smtp = await smtpListener();
  iso = await isolatedDatabase();
  db = await iso.open();
  app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, jobPollIntervalMs: 0, logLevel: 'silent' }, { db, shareDatabase: true });
});
afterAll(async () => {
  await app?.close();
  await iso?.dispose();
  await smtp?.close();
});

const ret = () => 'http://127.0.0.1:3000/return';
const deps = () => app.services.payments;

/** A shop whose offers of `type` set these merchant parameters (columns of migration 053). */
async function shopWith(type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED', set: Record<string, unknown>): Promise<Shop> {
  const shop = await newShop(app);
  for (const [column, value] of Object.entries(set)) await db.query(`UPDATE offers SET ${column} = $2 WHERE account_id = $1 AND type = $3`, [shop.accountId, value, type]);
  app.services.payments.offers.forget(shop.accountId);
  return shop;
}

const mailsTo = (to: string) => smtp.received.filter((r) => r.to.includes(to));
const keysOf = async (purchaseId: string) =>
  (
    await db.query<{ message_key: string | null }>('SELECT message_key FROM outbound_messages WHERE purchase_id = $1 AND message_key IS NOT NULL ORDER BY message_key', [
      purchaseId,
    ])
  ).rows.map((r) => r.message_key!.split(':')[0]);

describe('use3ds: the 3-D Secure challenge the sandbox PSP asks for', () => {
  it('always: a card that never asks is challenged, the leader’s and a pledger’s; auto: not', async () => {
    const always = await shopWith('SHARED', { use_3ds: 'always' });
    const id = await always.purchase();
    const leader = await payAsLeader(deps(), { id, accountId: always.accountId }, card(CARDS.ok), [], ret);
    expect(leader.kind).toBe('challenge');

    const auto = await shopWith('SHARED', { use_3ds: 'auto' });
    const plain = await auto.purchase();
    expect(await payAsLeader(deps(), { id: plain, accountId: auto.accountId }, card(CARDS.ok), [], ret)).toEqual({ kind: 'processed', state: 'SUCCESSFUL' });

    // A pledger of a pot whose offer says `always`: the pot opened with a leader who completed
    // nothing yet would not do, so the pot is opened under `auto`, then the offer turns to `always`.
    const pot = await auto.purchase();
    expect(await payAsLeader(deps(), { id: pot, accountId: auto.accountId }, card(CARDS.ok), [{ email: 'ann@example.com', amountCents: 3_000 }], ret)).toEqual({
      kind: 'processed',
      state: 'LEADER_PROCESSED',
    });
    await db.query("UPDATE offers SET use_3ds = 'always' WHERE account_id = $1 AND type = 'SHARED'", [auto.accountId]);
    app.services.payments.offers.forget(auto.accountId);
    const [pledge] = await listPledges(db, auto.accountId, pot);
    const paid = await payPledge(deps(), pledge!, card(CARDS.ok), ret);
    expect(paid.kind).toBe('challenge');
  });

  it('never: a card that requires 3-D Secure is still challenged (the issuer decides), any other goes through as under auto', async () => {
    const never = await shopWith('SHARED', { use_3ds: 'never' });
    const required = await never.purchase();
    expect((await payAsLeader(deps(), { id: required, accountId: never.accountId }, card(CARDS.challenge), [], ret)).kind).toBe('challenge');
    const plain = await never.purchase();
    expect(await payAsLeader(deps(), { id: plain, accountId: never.accountId }, card(CARDS.ok), [], ret)).toEqual({ kind: 'processed', state: 'SUCCESSFUL' });
  });
});

describe('leaderCanPayAlone', () => {
  it('false: the leader alone is refused, nothing attached nor charged; with one friend the pot opens', async () => {
    const shop = await shopWith('SHARED', { leader_can_pay_alone: false });
    const id = await shop.purchase();
    expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [], ret)).toEqual({
      kind: 'invalid',
      field: 'pledgers',
      problem: { code: 'pledger_required', message: PLEDGER_REQUIRED },
    });
    expect((await db.query('SELECT 1 FROM payments WHERE purchase_id = $1', [id])).rows).toEqual([]);
    expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [{ email: 'bob@example.com', amountCents: 2_500 }], ret)).toEqual({
      kind: 'processed',
      state: 'LEADER_PROCESSED',
    });
  });

  it('false: the hosted checkout says a friend is needed, refuses a form without one (422, the first friend’s field named) and charges nothing; true: paid alone', async () => {
    const shop = await shopWith('SHARED', { leader_can_pay_alone: false });
    const id = await shop.purchase();
    const path = `/pay/pur_${id}`;
    const page = await app.server.inject(path);
    expect(page.body).toContain('Invite at least one friend');
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    const token = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const form = `csrf=${encodeURIComponent(token)}&holder_name=Lea&card_number=4242424242424242&card_expiry=12%2F30&card_cvc=123`;
    const alone = await app.server.inject({ method: 'POST', url: path, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
    expect(alone.statusCode).toBe(422);
    expect(alone.body).toContain('Invite at least one friend: this shop does not let you pay for this purchase alone.');
    expect(alone.body).toMatch(/id="pledger_email_0"[^>]*aria-invalid="true"/);
    expect((await db.query('SELECT 1 FROM payments WHERE purchase_id = $1', [id])).rows).toEqual([]);

    const open = await shopWith('SHARED', {});
    const other = await open.purchase();
    const otherPage = await app.server.inject(`/pay/pur_${other}`);
    expect(otherPage.body).not.toContain('Invite at least one friend');
    const res = await app.server.inject({
      method: 'POST',
      url: `/pay/pur_${other}`,
      headers: { cookie: String(otherPage.headers['set-cookie']).split(';')[0]!, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${encodeURIComponent(/name="csrf" value="([^"]+)"/.exec(otherPage.body)![1]!)}&holder_name=Lea&card_number=4242424242424242&card_expiry=12%2F30&card_cvc=123`,
    });
    expect(res.statusCode).toBe(303);
  });
});

describe('sendConfirmationEmail', () => {
  it('false: no payment confirmation to the leader of a pot paid alone; true: one', async () => {
    const off = await shopWith('SHARED', { send_confirmation_email: false });
    const quiet = `quiet-${randomUUID()}@example.com`;
    const id = await off.purchase({ client: { email: quiet, first_name: 'Alice' } });
    expect((await payAsLeader(deps(), { id, accountId: off.accountId }, card(CARDS.ok), [], ret)).kind).toBe('processed');
    expect(mailsTo(quiet)).toEqual([]);
    expect(await keysOf(id)).toEqual([]);

    const on = await shopWith('SHARED', {});
    const told = `told-${randomUUID()}@example.com`;
    const other = await on.purchase({ client: { email: told, first_name: 'Alice' } });
    expect((await payAsLeader(deps(), { id: other, accountId: on.accountId }, card(CARDS.ok), [], ret)).kind).toBe('processed');
    expect(mailsTo(told)).toHaveLength(1);
    expect(await keysOf(other)).toEqual(['receipt']);
  });

  it('false: a credit’s confirmation (3x: its figures and mentions) is still sent, as the lender owes it', async () => {
    const off = await shopWith('INSTALLMENTS', { send_confirmation_email: false });
    const email = `credit-${randomUUID()}@example.com`;
    const id = await off.purchase({ merchant_uid: off.offer('INSTALLMENTS', 3).merchant_uid, amount: 30_000, client: { email, first_name: 'Alice' } });
    expect((await payAsLeader(deps(), { id, accountId: off.accountId }, card(CARDS.ok), [], ret)).kind).toBe('processed');
    expect(mailsTo(email)).toHaveLength(1);
  });
});

describe('sendOwedShareReminder: the pre-charge notice 3 days before an installment', () => {
  it('false: none when it falls due; true: one', async () => {
    const off = await shopWith('INSTALLMENTS', { send_owed_share_reminder: false });
    const on = await shopWith('INSTALLMENTS', {});
    const plan = async (shop: Shop, email: string) => {
      const id = await shop.purchase({ merchant_uid: shop.offer('INSTALLMENTS', 3).merchant_uid, amount: 30_000, client: { email, first_name: 'Alice' } });
      expect((await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [], ret)).kind).toBe('processed');
      return id;
    };
    const quiet = `quiet-plan-${randomUUID()}@example.com`;
    const told = `told-plan-${randomUUID()}@example.com`;
    const quietId = await plan(off, quiet);
    const toldId = await plan(on, told);
    const second = (await planLines(db, on.accountId, toldId))[1]!;
    // Both plans were stored today: their second installments fall due the same day. The clock is
    // moved to that notice's time through the sandbox route, which runs the jobs due.
    const seconds = Math.ceil((dueAt(second.dueDate, -3).getTime() + 60_000 - app.services.clock.now().getTime()) / 1000);
    const res = await app.server.inject({
      method: 'POST',
      url: '/api/sandbox/clock',
      headers: { authorization: `Bearer ${on.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ advance_seconds: seconds }),
    });
    expect(res.statusCode).toBe(200);
    expect(await keysOf(toldId)).toEqual(['precharge', 'receipt']);
    expect(mailsTo(told)).toHaveLength(2);
    expect(await keysOf(quietId)).toEqual(['receipt']);
    expect(mailsTo(quiet)).toHaveLength(1);
  });
});

describe('holdRenewalDays: when the renewal job of a 30-day pot’s hold falls due', () => {
  it('3 days: 3 days after the hold; 7 (the default): a day before the 7-day hold lapses; 20: no later than that', async () => {
    const dueAfter = async (days: number | undefined): Promise<number> => {
      const shop = await shopWith('SHARED', { pot_deadline_hours: 30 * 24, ...(days === undefined ? {} : { hold_renewal_days: days }) });
      const id = await shop.purchase();
      expect(await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CARDS.ok), [{ email: 'ann@example.com', amountCents: 3_000 }], ret)).toEqual({
        kind: 'processed',
        state: 'LEADER_PROCESSED',
      });
      const { rows } = await db.query<{ run_at: Date; created_at: Date }>(
        "SELECT j.run_at, p.created_at FROM payments p JOIN jobs j ON j.dedupe_key = $2 || ':' || p.id WHERE p.purchase_id = $1 AND p.purpose = 'guarantee'",
        [id, REAUTH_JOB],
      );
      expect(rows).toHaveLength(1);
      return (new Date(rows[0]!.run_at).getTime() - new Date(rows[0]!.created_at).getTime()) / DAY;
    };
    expect(await dueAfter(3)).toBe(3);
    expect(await dueAfter(undefined)).toBe(6);
    expect(await dueAfter(20)).toBe(6);
  });
});
