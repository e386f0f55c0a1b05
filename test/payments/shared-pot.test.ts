import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const OK = '4242 4242 4242 4242';
const DECLINED = '4000000000000002';
const CHALLENGE = '4000000000003220';
const OFF_SESSION_FAILS = '4000000000000341';

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = await twoMerchants(app);
});
afterAll(() => app.close());

async function purchase(c: Caller, over: Record<string, unknown> = {}) {
  return (await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000, ...over }))).json() as { id: string };
}
const payLeader = (c: Caller, id: string, body: unknown) => c.post(`/api/sandbox/purchases/pur_${id}/pay`, body);
const v1 = async (c: Caller, id: string) => (await c.get(`/api/merchants/v1/purchases/${id}`)).json();
const events = async (id: string) =>
  (await app.services.db.query<{ type: string }>('SELECT type FROM purchase_events WHERE purchase_id = $1 ORDER BY id', [id])).rows.map((r) => r.type);
/** The leader's guarantee as the sandbox PSP holds it. */
const guaranteeAtPsp = async (id: string) =>
  (
    await app.services.db.query<{ status: string; amount_cents: number; captured_cents: number }>(
      `SELECT t.status, t.amount_cents::int AS amount_cents, t.captured_cents::int AS captured_cents FROM payments p JOIN sandbox_psp_transactions t ON t.id = p.psp_transaction_id
        WHERE p.purchase_id = $1 AND p.purpose = 'guarantee'`,
      [id],
    )
  ).rows[0];
const payments = async (id: string) =>
  (
    await app.services.db.query<{ purpose: string; status: string; amount_cents: number; captured_cents: number }>(
      'SELECT purpose, status, amount_cents, captured_cents FROM payments WHERE purchase_id = $1 ORDER BY created_at, purpose',
      [id],
    )
  ).rows;

describe('the shared pot through the sandbox helpers', () => {
  it('leader pays a share and invites two friends; both pay; the purchase is SUCCESSFUL and the guarantee released', async () => {
    const p = await purchase(a);
    const led = await payLeader(a, p.id, {
      card_number: OK,
      pledgers: [
        { email: 'ann@example.com', amount_cents: 3_000 },
        { email: 'bob@example.com', phone_number: '+33612345678', amount_cents: 3_000 },
      ],
    });
    expect(led.statusCode).toBe(200);
    const body = led.json();
    expect(body.state).toBe('LEADER_PROCESSED');
    expect(body.pledges).toHaveLength(2);
    expect(body.pledges[0]).toMatchObject({ email: 'ann@example.com', amount_cents: 3_000, state: 'invited', url: expect.stringContaining('/pledge/plg_') });
    expect((await v1(a, p.id)).comment).toBe('0 of 2 friends paid, 60.00 EUR left.');

    const first = await a.post(`/api/sandbox/pledges/${body.pledges[0].id}/pay`, { card_number: OK });
    expect(first.json().state).toBe('LEADER_PROCESSED');
    expect((await v1(a, p.id)).comment).toBe('1 of 2 friends paid, 30.00 EUR left.');
    const second = await a.post(`/api/sandbox/pledges/${body.pledges[1].id}/pay`, { card_number: OK });
    expect(second.json().state).toBe('SUCCESSFUL');
    expect((await v1(a, p.id)).state).toBe('SUCCESSFUL');

    const rows = await payments(p.id);
    const captured = rows.reduce((s, r) => s + r.captured_cents, 0);
    expect(captured).toBe(10_000); // leader 4,000 + 2 × 3,000; the guarantee captured nothing
    expect(rows.find((r) => r.purpose === 'guarantee')).toMatchObject({ status: 'voided', captured_cents: 0 });
    expect(await events(p.id)).toEqual(expect.arrayContaining(['purchase.leader_processed', 'pledge.paid', 'purchase.succeeded', 'payment.transaction']));
  });

  it('a leader paying alone is charged the whole amount and the purchase is SUCCESSFUL at once', async () => {
    const p = await purchase(a);
    const res = await payLeader(a, p.id, { card_number: OK });
    expect(res.json()).toMatchObject({ state: 'SUCCESSFUL', pledges: [] });
    expect(await payments(p.id)).toEqual([{ purpose: 'leader_share', status: 'captured', amount_cents: 10_000, captured_cents: 10_000 }]);
  });

  it('a declined card answers 402 with the reason, keeps the purchase INITIALIZED, and a good card then works', async () => {
    const p = await purchase(a);
    const bad = await payLeader(a, p.id, { card_number: DECLINED });
    expect(bad.statusCode).toBe(402);
    expect(bad.json().error.app_error).toBe('card_declined');
    expect((await v1(a, p.id)).state).toBe('INITIALIZED');
    expect(await events(p.id)).toContain('payment.failed');
    const good = await payLeader(a, p.id, { card_number: OK });
    expect(good.json().state).toBe('SUCCESSFUL');
  });

  it("after the offer's maximum attempts the purchase is FAILED", async () => {
    const p = await purchase(a);
    for (let i = 0; i < 3; i++) expect((await payLeader(a, p.id, { card_number: DECLINED })).statusCode).toBe(402);
    expect((await v1(a, p.id)).state).toBe('FAILED');
    const again = await payLeader(a, p.id, { card_number: OK });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.app_error).toBe('purchase_not_payable');
  });

  it('a 3-D Secure card answers 202 with a challenge URL', async () => {
    const p = await purchase(a);
    const res = await payLeader(a, p.id, { card_number: CHALLENGE });
    expect(res.statusCode).toBe(202);
    expect(res.json().challenge_url).toContain('/sandbox-psp/challenge/');
    expect(res.json().state).toBe('INITIALIZED');
  });

  it('shares that leave the leader nothing are refused with 400, nothing charged', async () => {
    const p = await purchase(a);
    const res = await payLeader(a, p.id, { card_number: OK, pledgers: [{ email: 'x@example.com', amount_cents: 10_000 }] });
    expect(res.statusCode).toBe(400);
    expect(await payments(p.id)).toEqual([]);
  });

  it('at the deadline the leader is charged the uncovered rest from the guarantee; unpaid pledges are closed', async () => {
    const p = await purchase(a);
    const led = (
      await payLeader(a, p.id, {
        card_number: OK,
        pledgers: [
          { email: 'paid@example.com', amount_cents: 2_500 },
          { email: 'late@example.com', amount_cents: 2_500 },
        ],
      })
    ).json();
    await a.post(`/api/sandbox/pledges/${led.pledges[0].id}/pay`, { card_number: OK });
    // One friend paid: the hold is not lowered (a card authorisation is not reduced; docs/hosted-payment.md), it is all still held…
    expect(await guaranteeAtPsp(p.id)).toEqual({ status: 'held', amount_cents: 5_000, captured_cents: 0 });
    const advanced = await a.post('/api/sandbox/clock', { advance_seconds: 49 * 3600 });
    expect(advanced.statusCode).toBe(200);
    const after = await v1(a, p.id);
    expect(after.state).toBe('SUCCESSFUL');
    expect(after.comment).toMatch(/1 of 2 friends paid; the leader paid the remaining 25\.00 EUR/);
    const late = await a.post(`/api/sandbox/pledges/${led.pledges[1].id}/pay`, { card_number: OK });
    expect(late.statusCode).toBe(409);
    expect(late.json().error.app_error).toBe('pledge_closed');
    const guarantee = (await payments(p.id)).find((r) => r.purpose === 'guarantee')!;
    expect(guarantee.captured_cents).toBe(2_500);
    // …and the deadline takes only the uncovered rest from it: the PSP settled €25 of the €50 hold, the rest of it released
    // by that capture; nothing else was charged to the leader (no charge of the rest on the saved card).
    expect(await guaranteeAtPsp(p.id)).toEqual({ status: 'settled', amount_cents: 5_000, captured_cents: 2_500 });
    expect((await payments(p.id)).filter((r) => r.purpose === 'rest')).toEqual([]);
  });

  it('tenancy: another merchant cannot pay or see a purchase or pledge', async () => {
    const p = await purchase(a);
    expect((await payLeader(b, p.id, { card_number: OK })).statusCode).toBe(404);
    const led = (await payLeader(a, p.id, { card_number: OK, pledgers: [{ email: 'z@example.com', amount_cents: 1_000 }] })).json();
    expect((await b.post(`/api/sandbox/pledges/${led.pledges[0].id}/pay`, { card_number: OK })).statusCode).toBe(404);
  });

  it('INSTALLMENTS: the first installment with all fees is charged and the plan stored', async () => {
    const p = await purchase(a, { merchant_uid: a.offer('INSTALLMENTS', 3), amount: 30_000 });
    const res = await payLeader(a, p.id, { card_number: OK });
    expect(res.json().state).toBe('LEADER_PROCESSED');
    const rows = await payments(p.id);
    expect(rows).toEqual([{ purpose: 'first_installment', status: 'captured', amount_cents: 10_000 + 450, captured_cents: 10_450 }]);
    const plan = await app.services.db.query<{ index: number; amount_cents: number; fees_cents: number; state: string }>(
      'SELECT index, amount_cents, fees_cents, state FROM installments WHERE purchase_id = $1 ORDER BY index',
      [p.id],
    );
    expect(plan.rows.map((r) => [r.amount_cents, r.fees_cents, r.state])).toEqual([
      [10_000, 450, 'paid'],
      [10_000, 0, 'scheduled'],
      [10_000, 0, 'scheduled'],
    ]);
  });

  it('DEFERRED: the amount is authorised, not captured', async () => {
    const p = await purchase(a, { merchant_uid: a.offer('DEFERRED'), amount: 20_000 });
    expect((await payLeader(a, p.id, { card_number: OK })).json().state).toBe('LEADER_PROCESSED');
    expect(await payments(p.id)).toEqual([{ purpose: 'deferred', status: 'authorized', amount_cents: 20_000, captured_cents: 0 }]);
  });

  it('a card whose off-session charges fail cannot pay the leader share of a pot: refused, hold voided', async () => {
    const p = await purchase(a);
    const res = await payLeader(a, p.id, { card_number: OFF_SESSION_FAILS, pledgers: [{ email: 'q@example.com', amount_cents: 1_000 }] });
    expect(res.statusCode).toBe(402);
    expect((await v1(a, p.id)).state).toBe('INITIALIZED');
    expect((await payments(p.id)).find((r) => r.purpose === 'guarantee')?.status).toBe('voided');
  });
});
