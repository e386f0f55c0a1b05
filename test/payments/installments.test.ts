import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHs256 } from '../../src/delivery/jwt.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const OK = '4242424242424242';
const OFF_SESSION_FAILS = '4000000000000341';
const DAY = 86_400;

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = await twoMerchants(app);
});
afterAll(() => app.close());

async function paidPurchase(c: Caller, offer: string, amount: number, card = OK, ref?: string): Promise<string> {
  const p = (await c.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: offer, amount, ...(ref ? { ref } : {}) }))).json();
  const res = await c.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: card });
  expect(res.json().state).toBe('LEADER_PROCESSED');
  return p.id;
}
const v1 = async (c: Caller, id: string) => (await c.get(`/api/merchants/v1/purchases/${id}`)).json();
const advance = async (days: number) => expect((await a.post('/api/sandbox/clock', { advance_seconds: days * DAY })).statusCode).toBe(200);
const installments = async (id: string) =>
  (await app.services.db.query<{ index: number; state: string; attempts: number }>('SELECT index, state, attempts FROM installments WHERE purchase_id = $1 ORDER BY index', [id]))
    .rows;
const captured = async (id: string) =>
  (await app.services.db.query<{ total: number }>('SELECT COALESCE(sum(captured_cents), 0)::bigint AS total FROM payments WHERE purchase_id = $1', [id])).rows[0]!.total;

describe('installment collection through the sandbox clock', () => {
  it('a 3-installment purchase is collected to SUCCESSFUL, each installment once', async () => {
    const id = await paidPurchase(a, a.offer('INSTALLMENTS', 3), 30_000);
    expect((await v1(a, id)).state).toBe('LEADER_PROCESSED');
    await advance(32);
    expect((await v1(a, id)).comment).toBe('2 of 3 installments paid.');
    await advance(31);
    const after = await v1(a, id);
    expect(after).toMatchObject({ state: 'SUCCESSFUL', comment: 'All 3 installments are paid.' });
    expect((await installments(id)).map((i) => i.state)).toEqual(['paid', 'paid', 'paid']);
    expect(await captured(id)).toBe(30_000 + 450);
    await advance(40); // nothing left to collect: nothing more captured
    expect(await captured(id)).toBe(30_450);
  });

  it('a refused installment is retried at +1, +3 and +7 days, then the purchase is FAILED', async () => {
    const id = await paidPurchase(a, a.offer('INSTALLMENTS', 3), 30_000, OFF_SESSION_FAILS);
    const { rows } = await app.services.db.query<{ due: string }>("SELECT to_char(due_date, 'YYYY-MM-DD') AS due FROM installments WHERE purchase_id = $1 AND index = 1", [id]);
    const due = Date.parse(`${rows[0]!.due}T00:00:00Z`);
    const advanceTo = async (ms: number) => {
      const now = Date.parse((await a.get('/api/sandbox/clock')).json().now);
      expect((await a.post('/api/sandbox/clock', { advance_seconds: Math.ceil((ms - now) / 1000) })).statusCode).toBe(200);
    };
    const HALF_DAY = 12 * 3_600_000;
    await advanceTo(due + HALF_DAY);
    expect((await installments(id))[1]).toMatchObject({ state: 'scheduled', attempts: 1 });
    expect((await v1(a, id)).state).toBe('LEADER_PROCESSED');
    await advanceTo(due + 1 * DAY * 1000 + HALF_DAY);
    expect((await installments(id))[1]!.attempts).toBe(2);
    await advanceTo(due + 3 * DAY * 1000 + HALF_DAY);
    expect((await installments(id))[1]!.attempts).toBe(3);
    expect((await v1(a, id)).state).toBe('LEADER_PROCESSED');
    await advanceTo(due + 7 * DAY * 1000 + HALF_DAY);
    const after = await v1(a, id);
    expect(after.state).toBe('FAILED');
    expect(after.comment).toMatch(/Installment 2 of 3 could not be collected after 4 attempts/);
    const failures = await app.services.db.query<{ n: number }>("SELECT count(*) AS n FROM purchase_events WHERE purchase_id = $1 AND type = 'installment.failed'", [id]);
    expect(failures.rows[0]!.n).toBe(4);
  });

  it('a deferred purchase is captured at its due date', async () => {
    const id = await paidPurchase(a, a.offer('DEFERRED'), 20_000);
    await advance(29);
    expect((await v1(a, id)).state).toBe('LEADER_PROCESSED');
    await advance(2);
    expect((await v1(a, id)).state).toBe('SUCCESSFUL');
    expect(await captured(id)).toBe(20_000);
  });
});

describe('a down payment through the sandbox clock (docs/schedules.md#down-payment)', () => {
  const sandboxDay = async (plusDays = 0) => {
    const now = Date.parse((await a.get('/api/sandbox/clock')).json().now);
    return new Date(now + plusDays * DAY * 1000).toISOString().slice(0, 10);
  };
  const messages = async (id: string) =>
    (
      await app.services.db.query<{ message_key: string; subject: string | null; body: string }>(
        'SELECT message_key, subject, body FROM outbound_messages WHERE purchase_id = $1 AND message_key IS NOT NULL ORDER BY created_at, id',
        [id],
      )
    ).rows;
  const refund = (id: string, body: unknown) => a.post(`/api/merchants/v1/purchases/${id}/refunds`, body);

  it('the deposit is captured at checkout; the leader is reminded before the balance, collected on the date asked; refunds after it are given back', async () => {
    const balanceDate = await sandboxDay(20);
    const created = await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: a.offer('DOWN_PAYMENT'), amount: 30_000, balance_payment_date: balanceDate }));
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const paid = await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK });
    expect(paid.json().state).toBe('LEADER_PROCESSED');
    expect(await captured(id)).toBe(9_000); // 30 % at checkout
    const { rows } = await app.services.db.query<{ due: string; amount_cents: number }>(
      "SELECT to_char(due_date, 'YYYY-MM-DD') AS due, amount_cents FROM installments WHERE purchase_id = $1 ORDER BY index",
      [id],
    );
    expect(rows.map((r) => [r.amount_cents, r.due])).toEqual([
      [9_000, await sandboxDay()],
      [21_000, balanceDate],
    ]);

    // Three days before the balance (docs/messaging.md): the reminder; nothing charged yet.
    await advance(17);
    await advance(2);
    expect((await v1(a, id)).state).toBe('LEADER_PROCESSED');
    expect(await captured(id)).toBe(9_000);
    const reminder = (await messages(id)).find((m) => m.message_key.startsWith('precharge:'));
    expect(reminder?.subject).toContain('€210.00 will be charged on');
    expect(reminder?.body).toContain('the balance of "Weekend in Lisbon"');

    await advance(1);
    expect(await v1(a, id)).toMatchObject({ state: 'SUCCESSFUL', comment: 'The balance is paid.' });
    expect((await installments(id)).map((i) => i.state)).toEqual(['paid', 'paid']);
    expect(await captured(id)).toBe(30_000);
    expect((await messages(id)).map((m) => m.message_key.split(':')[0])).toEqual(['receipt', 'precharge', 'installment-paid']);

    const partial = await refund(id, { amount: 25_000 });
    expect(partial.statusCode, partial.body).toBe(201);
    expect(partial.json()).toMatchObject({ amount: 25_000, state: 'succeeded' });
    expect(await v1(a, id)).toMatchObject({ state: 'SUCCESSFUL', refunded_amount: 25_000 });
    const rest = await refund(id, {});
    expect(rest.json()).toMatchObject({ amount: 5_000, state: 'succeeded' });
    expect(await v1(a, id)).toMatchObject({ state: 'REFUNDED', refunded_amount: 30_000 });
    const left = await app.services.db.query<{ n: number }>('SELECT COALESCE(sum(captured_cents - refunded_cents), 0)::bigint AS n FROM payments WHERE purchase_id = $1', [id]);
    expect(Number(left.rows[0]!.n)).toBe(0);
  });

  it('a refused balance is dunned as an installment: +1, +3, +7 days, then FAILED naming the balance', async () => {
    const id = await paidPurchase(a, a.offer('DOWN_PAYMENT'), 20_000, OFF_SESSION_FAILS);
    expect(await captured(id)).toBe(6_000);
    const { rows } = await app.services.db.query<{ due: string }>("SELECT to_char(due_date, 'YYYY-MM-DD') AS due FROM installments WHERE purchase_id = $1 AND index = 1", [id]);
    const due = Date.parse(`${rows[0]!.due}T00:00:00Z`);
    const advanceTo = async (ms: number) => {
      const now = Date.parse((await a.get('/api/sandbox/clock')).json().now);
      expect((await a.post('/api/sandbox/clock', { advance_seconds: Math.ceil((ms - now) / 1000) })).statusCode).toBe(200);
    };
    const HALF_DAY = 12 * 3_600_000;
    await advanceTo(due + HALF_DAY);
    expect((await installments(id))[1]).toMatchObject({ state: 'scheduled', attempts: 1 });
    for (const days of [1, 3, 7]) await advanceTo(due + days * DAY * 1000 + HALF_DAY);
    const after = await v1(a, id);
    expect(after.state).toBe('FAILED');
    expect(after.comment).toMatch(/^The balance could not be collected after 4 attempts/);
    expect(await captured(id)).toBe(6_000);
  });

  it('a refund before the balance is due lowers the balance first, and only the rest is collected', async () => {
    const id = await paidPurchase(a, a.offer('DOWN_PAYMENT'), 20_000);
    const r = await refund(id, { amount: 5_000 });
    expect(r.statusCode, r.body).toBe(201);
    expect((await app.services.db.query<{ amount_cents: number }>('SELECT amount_cents FROM installments WHERE purchase_id = $1 ORDER BY index', [id])).rows).toEqual([
      { amount_cents: 6_000 },
      { amount_cents: 9_000 },
    ]);
    await advance(61);
    expect((await v1(a, id)).state).toBe('SUCCESSFUL');
    expect(await captured(id)).toBe(15_000);
  });
});

describe('POST /api/trigger_capture/?signature=<jwt>', () => {
  const secretOf = (c: Caller) => c.merchant.offers.find((o) => o.type === 'DEFERRED')!.secret;
  const trigger = (token: string) => app.server.inject({ method: 'POST', url: `/api/trigger_capture/?signature=${encodeURIComponent(token)}` });

  it('captures a deferred purchase now, by purchaseUid; a second call never captures twice', async () => {
    const id = await paidPurchase(a, a.offer('DEFERRED'), 15_000);
    const token = signHs256({ merchantUid: a.offer('DEFERRED'), purchaseUid: `pur_${id}` }, secretOf(a));
    const first = await trigger(token);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ purchase_uid: `pur_${id}`, state: 'SUCCESSFUL' });
    const second = await trigger(token);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(await captured(id)).toBe(15_000);
  });

  it('captures by reference too', async () => {
    const id = await paidPurchase(a, a.offer('DEFERRED'), 12_000, OK, 'ORDER-DEF-1');
    const res = await trigger(signHs256({ merchantUid: a.offer('DEFERRED'), reference: 'ORDER-DEF-1' }, secretOf(a)));
    expect(res.json()).toEqual({ purchase_uid: `pur_${id}`, state: 'SUCCESSFUL' });
  });

  it('answers every error status of the contract', async () => {
    const id = await paidPurchase(a, a.offer('DEFERRED'), 15_000);
    const mer = a.offer('DEFERRED');
    const cases: [string, number, string][] = [
      [signHs256({ merchantUid: mer, purchaseUid: `pur_${id}` }, 'not-the-secret'), 400, 'invalid_signature'],
      [signHs256({ merchantUid: mer, purchaseUid: `pur_${id}` }, secretOf(b)), 400, 'invalid_signature'],
      ['not.a.jwt', 400, 'invalid_signature'],
      [signHs256({ purchaseUid: `pur_${id}` }, secretOf(a)), 400, 'missing_identifier'],
      [signHs256({ merchantUid: mer }, secretOf(a)), 400, 'missing_identifier'],
      [signHs256({ merchantUid: 'mer_00000000-0000-4000-8000-000000000000', purchaseUid: `pur_${id}` }, secretOf(a)), 404, 'not_found'],
      [signHs256({ merchantUid: mer, purchaseUid: 'pur_00000000-0000-4000-8000-000000000000' }, secretOf(a)), 404, 'not_found'],
      [signHs256({ merchantUid: mer, reference: 'NO-SUCH-REF' }, secretOf(a)), 404, 'not_found'],
    ];
    for (const [token, status, code] of cases) {
      const res = await trigger(token);
      expect(res.statusCode, code).toBe(status);
      expect(res.json().error.app_error).toBe(code);
    }
    expect((await app.server.inject({ method: 'POST', url: '/api/trigger_capture/' })).statusCode).toBe(400);
    // Not in a capturable state: created but never paid.
    const unpaid = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: mer, amount: 15_000 }))).json();
    const res = await trigger(signHs256({ merchantUid: mer, purchaseUid: `pur_${unpaid.id}` }, secretOf(a)));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.app_error).toBe('invalid_purchase_state');
    // Nothing above captured anything.
    expect(await captured(id)).toBe(0);
  });

  it("another merchant's purchase is not found through one's own offer", async () => {
    const theirs = await paidPurchase(b, b.offer('DEFERRED'), 15_000);
    const res = await trigger(signHs256({ merchantUid: a.offer('DEFERRED'), purchaseUid: `pur_${theirs}` }, secretOf(a)));
    expect(res.statusCode).toBe(404);
  });
});
