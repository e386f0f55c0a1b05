/**
 * Editing an offer's terms with `PATCH /api/backoffice/offers/{merchant_uid}` (editOffer): what
 * may change, the checks that refuse and change nothing, the audit entry, and the rule that no
 * edit alters a purchase's money.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
});
afterAll(() => app?.close());

type OfferJson = Record<string, unknown> & { merchant_uid: string };
const patch = (c: Caller, uid: string, body: unknown) =>
  app.server.inject({
    method: 'PATCH',
    url: `/api/backoffice/offers/${uid}`,
    headers: { authorization: c.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
const offersOf = async (c: Caller) => (await app.server.inject({ method: 'GET', url: '/api/backoffice/offers', headers: { authorization: c.dashboard } })).json() as OfferJson[];
const offerOf = async (c: Caller, uid: string) => (await offersOf(c)).find((o) => o.merchant_uid === uid)!;
const simulate = async (c: Caller, uid: string, amount: number) =>
  (await c.post(`/api/merchants/${uid}/simulate_payment_schedule`, { amount_cents: amount, created: '2026-11-23' })).json();
const audits = async (c: Caller) =>
  (
    await app.services.db.query<{ actor: string; subject: string; details: unknown }>(
      "SELECT actor, subject, details FROM audit_log WHERE account_id = $1 AND action = 'offer_update' ORDER BY created_at",
      [c.accountId],
    )
  ).rows.map((r) => ({
    ...r,
    details: typeof r.details === 'string' ? JSON.parse(r.details) : r.details,
  }));

describe(`editing an offer's terms through the back-office API (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('changes fees, limits and delays, answers the new terms, and audits each changed field from → to', async () => {
    const uid = a.offer('SHARED');
    const res = await patch(a, uid, { fee_rate_bps: 120, fixed_fee_cents: 50, min_amount_cents: 500, max_amount_cents: 200_000, expiry_hours: 12, pot_deadline_hours: 72 });
    expect(res.statusCode).toBe(200);
    const terms = { fee_rate_bps: 120, fixed_fee_cents: 50, min_amount_cents: 500, max_amount_cents: 200_000, expiry_hours: 12, pot_deadline_hours: 72 };
    expect(res.json()).toMatchObject({ merchant_uid: uid, type: 'SHARED', currency: 'EUR', ...terms });
    expect(await offerOf(a, uid)).toMatchObject(terms);
    const [entry] = await audits(a);
    expect(entry).toMatchObject({ actor: a.merchant.email, subject: uid });
    expect(entry!.details).toEqual({
      fee_rate_bps: { from: 0, to: 120 },
      fixed_fee_cents: { from: 0, to: 50 },
      min_amount_cents: { from: 100, to: 500 },
      max_amount_cents: { from: 1_000_000, to: 200_000 },
      expiry_hours: { from: 24, to: 12 },
      pot_deadline_hours: { from: 48, to: 72 },
    });
  });

  it('edits the merchant parameters of the original interface: a new offer holds the defaults, the edit is answered and read back, and audited (the end-of-pot URL by its host)', async () => {
    const m = await caller(app); // its own account: the tests below count this one's audit entries
    const uid = m.offer('SHARED');
    expect(await offerOf(m, uid)).toMatchObject({
      country_code: null,
      css_url: null,
      gtu_url: null,
      gtu_label: null,
      use_3ds: 'auto',
      leader_can_pay_alone: true,
      purchase_end_notification_url: null,
      send_confirmation_email: true,
      send_owed_share_reminder: true,
      hold_renewal_days: 7,
      funding_cap_cents: null,
    });
    const parameters = {
      country_code: 'BE',
      css_url: 'https://shop.example/pay.css',
      gtu_url: 'https://shop.example/terms',
      gtu_label: 'Our terms',
      use_3ds: 'never',
      leader_can_pay_alone: false,
      purchase_end_notification_url: 'https://shop.example/pot-end?key=s3cret',
      send_confirmation_email: false,
      hold_renewal_days: 4,
    };
    const res = await patch(m, uid, parameters);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject(parameters);
    expect(await offerOf(m, uid)).toMatchObject(parameters);
    const entry = (await audits(m))[0]!;
    expect(entry.details).toMatchObject({
      purchase_end_notification_url: { from: null, to: 'shop.example' },
      use_3ds: { from: 'auto', to: 'never' },
      hold_renewal_days: { from: 7, to: 4 },
    });
    expect(JSON.stringify(entry.details)).not.toContain('s3cret');
    // A funding limit must still let the offer sell its maximum (the simulation's rule).
    expect((await patch(m, m.offer('DEFERRED'), { funding_cap_cents: 150_000 })).json()).toMatchObject({ funding_cap_cents: 150_000 });
  });

  it.each([
    [{ country_code: 'ZZ' }, 'country_code'],
    [{ css_url: 'javascript:alert(1)' }, 'css_url'],
    [{ gtu_url: 'https://shop.example/terms' }, 'gtu_url'], // a credit offer has no GTU link (SHARED only)
    [{ use_3ds: 'sometimes' }, 'use_3ds'],
    [{ send_confirmation_email: 'no' }, 'send_confirmation_email'],
    [{ hold_renewal_days: 31 }, 'hold_renewal_days'],
    [{ funding_cap_cents: 50 }, 'funding_cap_cents'], // below what the offer's minimum would finance: unsellable
  ])('refuses the parameter %j with a 400 naming %s, and changes nothing', async (body, field) => {
    const before = await offersOf(a);
    const res = await patch(a, a.offer('INSTALLMENTS', 3), body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.debug).toContain(field);
    expect(await offersOf(a)).toEqual(before);
  });

  it('new purchases are checked against the new limits', async () => {
    const uid = a.offer('SHARED');
    expect((await patch(a, uid, { min_amount_cents: 2_000 })).statusCode).toBe(200);
    const small = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 1_500, merchant_uid: uid }));
    expect(small.statusCode).toBe(406); // the v1 refusal of an amount outside the offer's limits
    expect(JSON.stringify(small.json())).toContain('amount');
  });

  it.each([
    [{ fee_rate_bps: 2_001 }, 'fee_rate_bps'],
    [{ fee_rate_bps: -1 }, 'fee_rate_bps'],
    [{ fee_rate_bps: 1.5 }, 'fee_rate_bps'],
    [{ fixed_fee_cents: '10' }, 'fixed_fee_cents'],
    [{ min_amount_cents: 0 }, 'min_amount_cents'],
    [{ expiry_hours: 0 }, 'expiry_hours'],
    [{ pot_deadline_hours: 721 }, 'pot_deadline_hours'],
    [{ type: 'DEFERRED' }, 'type'],
    [{ installments: 4 }, 'installments'],
  ])('refuses %j with a 400 naming %s, and changes nothing', async (body, field) => {
    const before = await offersOf(a);
    const res = await patch(a, a.offer('INSTALLMENTS', 3), body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.debug).toContain(field);
    expect(await offersOf(a)).toEqual(before);
  });

  it('refuses a minimum above the maximum, and a pot deadline on a credit offer, naming the field', async () => {
    const before = await offersOf(a);
    const uid = a.offer('INSTALLMENTS', 3);
    const minAbove = await patch(a, uid, { min_amount_cents: 400_000 });
    expect(minAbove.statusCode).toBe(400);
    expect(minAbove.json().error.debug).toMatch(/^field min_amount_cents: /);
    const maxBelow = await patch(a, uid, { max_amount_cents: 1_000 });
    expect(maxBelow.json().error.debug).toMatch(/^field max_amount_cents: /);
    const pot = await patch(a, uid, { pot_deadline_hours: 12 });
    expect(pot.statusCode).toBe(400);
    expect(pot.json().error.debug).toMatch(/^field pot_deadline_hours: only a SHARED offer/);
    expect(await offersOf(a)).toEqual(before);
    expect(await audits(a)).toHaveLength(2); // the two edits of the tests above only
  });

  it("refuses fees whose TAEG would pass the offer's usury ceiling, as the simulation would", async () => {
    const c = await caller(app);
    const uid = c.offer('INSTALLMENTS', 3);
    // 1.50 % on 3 installments is a TAEG of about 20 %, 3 % about 45 %.
    await app.services.db.query('UPDATE offers SET usury_ceiling_bps = 3000 WHERE account_id = $1', [c.accountId]);
    app.services.offers.forget(c.accountId);
    const before = await offersOf(c);
    const res = await patch(c, uid, { fee_rate_bps: 300 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.debug).toMatch(/^field fee_rate_bps: .*usury ceiling/);
    expect(await offersOf(c)).toEqual(before);
    expect((await patch(c, uid, { fee_rate_bps: 180 })).statusCode).toBe(200);
  });

  it("answers 404 for another merchant's offer, and for another merchant's PSP account, changing nothing", async () => {
    const b = await caller(app);
    const before = await offersOf(b);
    const res = await patch(a, b.offer('SHARED'), { fee_rate_bps: 10 });
    expect(res.statusCode).toBe(404);
    expect(await offersOf(b)).toEqual(before);
    const mine = await offersOf(a);
    expect((await patch(a, a.offer('SHARED'), { psp_account_id: 'psa_00000000-0000-4000-8000-000000000000', fee_rate_bps: 10 })).statusCode).toBe(404);
    expect(await offersOf(a)).toEqual(mine);
  });

  it("never alters a purchase's money: fees are locked while a purchase awaits its leader, and a paid purchase keeps its schedule", async () => {
    const c = await caller(app);
    const uid = c.offer('INSTALLMENTS', 3);
    const created = await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 30_000, merchant_uid: uid }));
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;

    // Unpaid: its schedule is computed from the offer when the leader pays, so fees and limits wait.
    const locked = await patch(c, uid, { fee_rate_bps: 400 });
    expect(locked.statusCode).toBe(400);
    expect(locked.json().error.debug).toMatch(/^field fee_rate_bps: cannot change while 1 purchase/);
    expect((await patch(c, uid, { min_amount_cents: 6_000 })).statusCode).toBe(400);
    // A delay does not touch its money (its expiry was fixed at its creation).
    expect((await patch(c, uid, { expiry_hours: 48 })).statusCode).toBe(200);

    expect((await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' })).statusCode).toBe(200);
    const plan = async () =>
      (await app.services.db.query('SELECT index, due_date::text AS due, amount_cents, fees_cents FROM installments WHERE purchase_id = $1 ORDER BY index', [id])).rows;
    const payments = async () => (await app.services.db.query('SELECT amount_cents, captured_cents FROM payments WHERE purchase_id = $1 ORDER BY created_at', [id])).rows;
    const [planBefore, paymentsBefore] = [await plan(), await payments()];
    expect(planBefore).toHaveLength(3);
    expect(planBefore[0]).toMatchObject({ fees_cents: 450 }); // 1.50 % of 300.00

    const edited = await patch(c, uid, { fee_rate_bps: 400, fixed_fee_cents: 99 });
    expect(edited.statusCode).toBe(200);
    expect(await plan()).toEqual(planBefore);
    expect(await payments()).toEqual(paymentsBefore);
    // New purchases are priced with the new fees.
    expect((await simulate(c, uid, 30_000)).INSTALLMENT[0].fees).toBe(1_200 + 99);
  });

  it('a down payment’s deposit percent and maximum balance delay are edited as its fees: audited, used by the next schedule, locked by an unpaid purchase, refused on other offers', async () => {
    const c = await caller(app);
    const uid = c.offer('DOWN_PAYMENT');
    expect(await offerOf(c, uid)).toMatchObject({ type: 'DOWN_PAYMENT', installments: 2, deposit_percent: 30, max_balance_delay_days: 60 });
    expect(await offerOf(c, c.offer('DEFERRED'))).toMatchObject({ deposit_percent: null, max_balance_delay_days: null });

    const res = await patch(c, uid, { deposit_percent: 40, max_balance_delay_days: 90 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ deposit_percent: 40, max_balance_delay_days: 90 });
    expect((await audits(c))[0]!.details).toEqual({ deposit_percent: { from: 30, to: 40 }, max_balance_delay_days: { from: 60, to: 90 } });
    expect((await simulate(c, uid, 30_000)).INSTALLMENT).toEqual([
      { amount_cents: 12_000, fees: 0, payment_date: '2026-11-23' },
      { amount_cents: 18_000, fees: 0, payment_date: '2027-02-21' },
    ]);

    for (const [body, field] of [
      [{ deposit_percent: 0 }, 'deposit_percent'],
      [{ deposit_percent: null }, 'deposit_percent'],
      [{ max_balance_delay_days: 366 }, 'max_balance_delay_days'],
    ] as const) {
      const refused = await patch(c, uid, body);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.debug).toContain(field);
    }
    const other = await patch(c, c.offer('INSTALLMENTS', 3), { deposit_percent: 30 });
    expect(other.statusCode).toBe(400);
    expect(other.json().error.debug).toBe('field deposit_percent: only a DOWN_PAYMENT offer uses it');

    expect((await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 30_000, merchant_uid: uid }))).statusCode).toBe(201);
    const locked = await patch(c, uid, { deposit_percent: 50 });
    expect(locked.statusCode).toBe(400);
    expect(locked.json().error.debug).toMatch(/^field deposit_percent: cannot change while 1 purchase/);
  });
});
