import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSchedule } from '../../src/domain/schedule.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixture, retarget, type FixtureRequest, type Plugin } from '../compat/fixtures.ts';

// The schedule simulation as the published shop plugins call it (test/compat/fixtures/*/simulation.json):
// a text/plain or untyped JSON body, a float amount, and the DEFERRED object they read back.

let app: TestApp;
let m: Caller;
beforeAll(async () => {
  app = await startTestApp({ simulationRateLimit: 100_000 });
  m = await caller(app);
  // Carts of 19.99 (WooCommerce's fixture) fit every offer; set before anything caches the offers.
  await app.services.db.query(`UPDATE offers SET min_amount_cents = 1000 WHERE account_id = $1`, [m.merchant.account_id.slice(4)]);
});
afterAll(() => app.close());

const front = (uid: string) => `/api/users/me/merchants/${uid}/simulate_payment_schedule`;

/** The fixture's request, byte for byte, against this merchant's offer. */
function replay(plugin: Plugin, merchantUid: string): Promise<LightMyRequestResponse> {
  const req = fixture(plugin, 'simulation').request as FixtureRequest;
  const t = { merchantUid, shopOrigin: 'https://shop.example' };
  return app.server.inject({ method: req.method, url: req.path.replace('{{merchantUid}}', merchantUid), headers: req.headers, payload: retarget(req.body!, t) });
}

/** A text/plain post, as XMLHttpRequest.send(JSON.stringify(payload)) makes it. */
const plain = (uid: string, body: string) => app.server.inject({ method: 'POST', url: front(uid), headers: { 'content-type': 'text/plain;charset=UTF-8' }, payload: body });

describe('schedule simulation as the shop plugins post it', () => {
  it.each(['woocommerce', 'prestashop1.7', 'sylius'] as const)('%s: its exact request answers the keys its code reads, for an installment and a deferred offer', async (plugin) => {
    const expectKeys = fixture(plugin, 'simulation').expect as { INSTALLMENT: string[]; DEFERRED: string[]; cors_origin?: boolean };
    const installments = await replay(plugin, m.offer('INSTALLMENTS', 3));
    expect(installments.statusCode, installments.body).toBe(200);
    expect(installments.json().DEFERRED).toBeUndefined();
    for (const line of installments.json().INSTALLMENT) expect(Object.keys(line)).toEqual(expect.arrayContaining(expectKeys.INSTALLMENT));
    if (expectKeys.cors_origin) expect(installments.headers['access-control-allow-origin']).toBe('*');

    const deferred = await replay(plugin, m.offer('DEFERRED'));
    expect(deferred.statusCode, deferred.body).toBe(200);
    const body = deferred.json();
    expect(Object.keys(body.DEFERRED)).toEqual(expect.arrayContaining(expectKeys.DEFERRED));
    // DEFERRED alone: WooCommerce and PrestaShop read INSTALLMENT first and would show the payment as due now.
    expect(body).not.toHaveProperty('INSTALLMENT');
    expect(body).toMatchObject({ debit_rate: 0, taeg: 0 });
  });

  it("WooCommerce's float amount 1998.9999999999998 is 1999 cents; a fraction of a cent is refused naming amount_cents", async () => {
    const uid = m.offer('DEFERRED');
    const res = await replay('woocommerce', uid);
    expect(res.json().DEFERRED.amount_cents).toBe(1999);
    const half = await plain(uid, '{"created":"2026-01-01","amount_cents":1998.5}');
    expect(half.statusCode).toBe(400);
    expect(half.json().error).toMatchObject({ app_error: 'invalid_amount', debug: 'field amount_cents must be a whole number of cents (a fraction of a cent is not rounded)' });
  });

  it('a text/plain body that is not JSON is a 400 invalid_request, still readable cross-origin', async () => {
    const res = await plain(m.offer('INSTALLMENTS', 3), 'amount_cents=30000');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.app_error).toBe('invalid_request');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('second_installment_date', () => {
  const created = '2026-01-01';

  it('moves an installment plan’s later dates; a DEFERRED offer ignores it', async () => {
    const res = await plain(m.offer('INSTALLMENTS', 3), JSON.stringify({ amount_cents: 30_000, created, second_installment_date: '2026-05-15' }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().INSTALLMENT.map((l: { payment_date: string }) => l.payment_date)).toEqual(['2026-01-01', '2026-05-15', '2026-06-15']);
    const terms = { type: 'INSTALLMENTS' as const, installments: 3, deferredDays: 0, feeRateBps: 150, fixedFeeCents: 0, minAmountCents: 1_000, maxAmountCents: 300_000 };
    expect(res.json()).toEqual(
      computeSchedule({ ...terms, fundingCapCents: null, debitRateBps: 0, usuryCeilingBps: null }, 30_000, created, { secondInstallmentDate: '2026-05-15' }),
    );

    const deferred = await plain(m.offer('DEFERRED'), JSON.stringify({ amount_cents: 30_000, created, second_installment_date: '2026-05-15' }));
    expect(deferred.json().DEFERRED.payment_date).toBe('2026-01-31');
  });

  it.each([
    ['not a date', '15/05/2026', 'must be a real calendar date'],
    ['more than 12 months after created', '2027-01-02', 'latest is 2027-01-01'],
  ])('400 invalid_second_installment_date naming the field when it is %s', async (_name, date, says) => {
    const res = await plain(m.offer('INSTALLMENTS', 3), JSON.stringify({ amount_cents: 30_000, created, second_installment_date: date }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.app_error).toBe('invalid_second_installment_date');
    expect(res.json().error.debug).toMatch(new RegExp(`^field second_installment_date.*${says}`));
  });
});

describe('balance_payment_date (a down payment)', () => {
  const created = '2026-01-01';
  const downPayment = { type: 'DOWN_PAYMENT' as const, installments: 2, deferredDays: 0, depositPercent: 30, maxBalanceDelayDays: 60, feeRateBps: 0, fixedFeeCents: 0 };
  const terms = { ...downPayment, minAmountCents: 1_000, maxAmountCents: 300_000, fundingCapCents: null, debitRateBps: 0, usuryCeilingBps: null };

  it('two INSTALLMENT lines, the deposit on created and the balance on the date asked (else created + 60 days); no DEFERRED object; other offers ignore it', async () => {
    const asked = await plain(m.offer('DOWN_PAYMENT'), JSON.stringify({ amount_cents: 30_000, created, balance_payment_date: '2026-02-15' }));
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json()).toEqual({
      INSTALLMENT: [
        { amount_cents: 9_000, fees: 0, payment_date: '2026-01-01' },
        { amount_cents: 21_000, fees: 0, payment_date: '2026-02-15' },
      ],
      debit_rate: 0,
      taeg: 0,
    });
    expect(asked.json()).toEqual(computeSchedule(terms, 30_000, created, { balanceDate: '2026-02-15' }));
    const latest = await plain(m.offer('DOWN_PAYMENT'), JSON.stringify({ amount_cents: 30_000, created }));
    expect(latest.json().INSTALLMENT[1].payment_date).toBe('2026-03-02');
    const threeX = await plain(m.offer('INSTALLMENTS', 3), JSON.stringify({ amount_cents: 30_000, created, balance_payment_date: '2026-02-15' }));
    expect(threeX.json()).toEqual((await plain(m.offer('INSTALLMENTS', 3), JSON.stringify({ amount_cents: 30_000, created }))).json());
  });

  it.each([
    ['not a date', '15/02/2026', 'must be a real calendar date'],
    ['not a real day', '2026-02-30', 'must be a real calendar date'],
    ['the day of the purchase', '2026-01-01', 'must be after created 2026-01-01'],
    ['after the maximum delay', '2026-03-03', 'after the latest this offer allows, 2026-03-02'],
  ])('400 invalid_balance_payment_date naming the field when it is %s', async (_name, date, says) => {
    const res = await plain(m.offer('DOWN_PAYMENT'), JSON.stringify({ amount_cents: 30_000, created, balance_payment_date: date }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.app_error).toBe('invalid_balance_payment_date');
    expect(res.json().error.debug).toMatch(new RegExp(`^field balance_payment_date.*${says}`));
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

it("the eligibility call answers the simulation's figures per offer; for a deferred offer its one line in INSTALLMENT too, beside DEFERRED", async () => {
  const uid = m.offer('DEFERRED');
  const res = await app.server.inject({ method: 'POST', url: `/api/users/me/merchants/${uid}/eligibility`, payload: { amount: 30_000, created: '2026-01-01' } });
  expect(res.statusCode, res.body).toBe(200);
  const simulated = (await plain(uid, JSON.stringify({ amount_cents: 30_000, created: '2026-01-01' }))).json();
  const { DEFERRED, debit_rate, taeg } = simulated;
  expect(res.json().offers.find((o: { merchant_uid: string }) => o.merchant_uid === uid).schedule).toEqual({ INSTALLMENT: [DEFERRED], DEFERRED, debit_rate, taeg });
});
