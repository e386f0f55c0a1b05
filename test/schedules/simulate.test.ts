import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OFFERS } from '../../src/accounts/default-offers.ts';
import { computeSchedule, simulationAnswer, type OfferTerms } from '../../src/domain/schedule.ts';
import { caller, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const back = (uid: string) => `/api/merchants/${uid}/simulate_payment_schedule`;
const front = (uid: string) => `/api/users/me/merchants/${uid}/simulate_payment_schedule`;

/** The engine's terms of a default offer, as every new account gets it. */
function defaultTerms(type: 'INSTALLMENTS' | 'DEFERRED', installments: number): OfferTerms {
  const o = DEFAULT_OFFERS.find((d) => d.type === type && d.installments === installments)!;
  return { ...o, type, fixedFeeCents: 0, fundingCapCents: null, debitRateBps: 0, usuryCeilingBps: null };
}

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  // Throttling has its own app below; here many front-end calls come from one test address.
  app = await startTestApp({ simulationRateLimit: 100_000 });
  [a, b] = await twoMerchants(app);
});
afterAll(() => app.close());

/** The front-end route, as a browser on another site calls it: no credentials. */
function anonymous(url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.server.inject({
    method: 'POST',
    url,
    headers: { origin: 'https://shop.example', ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    payload: payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

/** A merchant whose offers carry the given terms (set before anything caches them). */
async function merchantWith(terms: Record<string, number | null | string>): Promise<Caller> {
  const c = await caller(app);
  const sets = Object.keys(terms).map((col, i) => `${col} = $${i + 2}`);
  await app.services.db.query(`UPDATE offers SET ${sets.join(', ')} WHERE account_id = $1 AND type <> 'SHARED'`, [c.merchant.account_id.slice(4), ...Object.values(terms)]);
  return c;
}

describe('schedule simulation: happy paths', () => {
  it('3x: 300.00 EUR on 2026-01-31, fees on the first line, dates clamped to month ends, TAEG 20 %', async () => {
    const res = await a.post(back(a.offer('INSTALLMENTS', 3)), { amount_cents: 30_000, created: '2026-01-31' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      INSTALLMENT: [
        { amount_cents: 10_000, fees: 450, payment_date: '2026-01-31' },
        { amount_cents: 10_000, fees: 0, payment_date: '2026-02-28' },
        { amount_cents: 10_000, fees: 0, payment_date: '2026-03-31' },
      ],
      debit_rate: 0,
      taeg: 20,
    });
  });

  it('3x: the first line takes the rounding remainder', async () => {
    const res = await a.post(back(a.offer('INSTALLMENTS', 3)), { amount_cents: 10_000, created: '2026-01-31' });
    expect(res.json().INSTALLMENT.map((l: { amount_cents: number }) => l.amount_cents)).toEqual([3_334, 3_333, 3_333]);
    expect(res.json()).toEqual(computeSchedule(defaultTerms('INSTALLMENTS', 3), 10_000, '2026-01-31'));
  });

  it('4x: 300.00 EUR gives four lines of 75.00, 6.60 EUR of fees, TAEG 19.61 %', async () => {
    const res = await a.post(back(a.offer('INSTALLMENTS', 4)), { amount_cents: 30_000, created: '2026-01-31' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      INSTALLMENT: [
        { amount_cents: 7_500, fees: 660, payment_date: '2026-01-31' },
        { amount_cents: 7_500, fees: 0, payment_date: '2026-02-28' },
        { amount_cents: 7_500, fees: 0, payment_date: '2026-03-31' },
        { amount_cents: 7_500, fees: 0, payment_date: '2026-04-30' },
      ],
      debit_rate: 0,
      taeg: 19.61,
    });
  });

  it('deferred 30 days: its one payment on created + 30 days as DEFERRED alone, no INSTALLMENT (read first by plugins, it would be due now); with the default zero fee the TAEG is 0', async () => {
    const res = await a.post(back(a.offer('DEFERRED')), { amount_cents: 30_000, created: '2026-01-31' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ DEFERRED: { amount_cents: 30_000, fees: 0, payment_date: '2026-03-02' }, debit_rate: 0, taeg: 0 });
    expect(res.json()).not.toHaveProperty('INSTALLMENT');
  });

  it('uses every term of the offer: fee rate, fixed fee, debit rate', async () => {
    const c = await merchantWith({ fee_rate_bps: 150, fixed_fee_cents: 99, debit_rate_bps: 450 });
    const res = await c.post(back(c.offer('DEFERRED')), { amount_cents: 30_000, created: '2026-01-31' });
    const terms = { ...defaultTerms('DEFERRED', 1), feeRateBps: 150, fixedFeeCents: 99, debitRateBps: 450 };
    expect(res.json()).toEqual(simulationAnswer(computeSchedule(terms, 30_000, '2026-01-31')));
    expect(res.json()).toMatchObject({ DEFERRED: { fees: 549 }, debit_rate: 4.5 });
  });

  it('the front-end route answers the same as the back-end route, without credentials', async () => {
    for (const [type, n] of [
      ['INSTALLMENTS', 3],
      ['INSTALLMENTS', 4],
      ['DEFERRED', 1],
    ] as const) {
      const uid = a.offer(type, n);
      const body = { amount_cents: 45_000, created: '2026-03-15' };
      const [viaBack, viaFront] = [await a.post(back(uid), body), await anonymous(front(uid), body)];
      expect(viaFront.statusCode).toBe(200);
      expect(viaFront.json()).toEqual(viaBack.json());
      expect(viaFront.json()).toEqual(simulationAnswer(computeSchedule(defaultTerms(type, n), 45_000, '2026-03-15')));
    }
  });

  it('any amount within the limits and any date: both routes equal computeSchedule', async () => {
    const offers = [
      ['INSTALLMENTS', 3],
      ['INSTALLMENTS', 4],
      ['DEFERRED', 1],
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...offers),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }),
        async ([type, n], seed, day) => {
          const terms = defaultTerms(type, n);
          const amount = terms.minAmountCents + (seed % (terms.maxAmountCents - terms.minAmountCents + 1));
          const created = day.toISOString().slice(0, 10);
          const expected = simulationAnswer(computeSchedule(terms, amount, created));
          const viaBack = await a.post(back(a.offer(type, n)), { amount_cents: amount, created });
          const viaFront = await anonymous(front(a.offer(type, n)), { amount_cents: amount, created });
          expect(viaBack.json()).toEqual(expected);
          expect(viaFront.json()).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('schedule simulation: refusals', () => {
  const created = '2026-01-31';
  const expectError = (res: LightMyRequestResponse, status: number, code: string, debug?: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toEqual({ error: { app_error: code, debug: expect.any(String), info: expect.any(String) } });
    if (debug) expect(res.json().error.debug).toContain(debug);
  };

  it.each([
    ['missing', { created }],
    ['a fraction', { amount_cents: 100.5, created }],
    ['a string', { amount_cents: '30000', created }],
    ['zero', { amount_cents: 0, created }],
    ['negative', { amount_cents: -1, created }],
    ['null', { amount_cents: null, created }],
    ['beyond exact integers', { amount_cents: 2 ** 60, created }],
  ])('400 invalid_amount naming amount_cents when it is %s, on both routes', async (_name, body) => {
    const uid = a.offer('INSTALLMENTS', 3);
    for (const res of [await a.post(back(uid), body), await anonymous(front(uid), body)]) {
      expectError(res, 400, 'invalid_amount', 'amount_cents');
    }
  });

  it.each([
    ['missing', { amount_cents: 30_000 }],
    ['30 February', { amount_cents: 30_000, created: '2026-02-30' }],
    ['29 February of a common year', { amount_cents: 30_000, created: '2027-02-29' }],
    ['month 13', { amount_cents: 30_000, created: '2026-13-01' }],
    ['another format', { amount_cents: 30_000, created: '31/01/2026' }],
    ['a timestamp', { amount_cents: 30_000, created: '2026-01-31T10:00:00Z' }],
    ['a number', { amount_cents: 30_000, created: 20260131 }],
    ['empty', { amount_cents: 30_000, created: '' }],
  ])('400 invalid_date naming created when it is %s, on both routes', async (_name, body) => {
    const uid = a.offer('INSTALLMENTS', 3);
    for (const res of [await a.post(back(uid), body), await anonymous(front(uid), body)]) expectError(res, 400, 'invalid_date', 'created');
  });

  it('accepts 29 February of a leap year', async () => {
    const res = await a.post(back(a.offer('INSTALLMENTS', 3)), { amount_cents: 30_000, created: '2028-02-29' });
    expect(res.statusCode).toBe(200);
    expect(res.json().INSTALLMENT.map((l: { payment_date: string }) => l.payment_date)).toEqual(['2028-02-29', '2028-03-29', '2028-04-29']);
  });

  it('400 invalid_request naming an unknown field, and for a body that is not a JSON object', async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    expectError(await a.post(back(uid), { amount_cents: 30_000, created, currency: 'EUR' }), 400, 'invalid_request', 'currency');
    expectError(await anonymous(front(uid), { amount_cents: 30_000, created, installments: 10 }), 400, 'invalid_request', 'installments');
    expectError(await anonymous(front(uid), '{"amount_cents": 30000,'), 400, 'invalid_request');
    expectError(await anonymous(front(uid), [30_000, created]), 400, 'invalid_request');
    expectError(await a.post(back(uid)), 400, 'invalid_request');
  });

  it("400 amount_below_minimum / amount_above_maximum outside the offer's limits (inclusive bounds)", async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    expectError(await a.post(back(uid), { amount_cents: 4_999, created }), 400, 'amount_below_minimum', 'amount_cents');
    expect((await a.post(back(uid), { amount_cents: 5_000, created })).statusCode).toBe(200);
    expect((await a.post(back(uid), { amount_cents: 300_000, created })).statusCode).toBe(200);
    expectError(await anonymous(front(uid), { amount_cents: 300_001, created }), 400, 'amount_above_maximum', 'amount_cents');
  });

  it("400 amount_above_funding_cap when the credit is above the offer's cap", async () => {
    const c = await merchantWith({ funding_cap_cents: 15_000 });
    // 3x 300.00: 200.00 of credit (what is not paid at checkout) > 150.00.
    expectError(await c.post(back(c.offer('INSTALLMENTS', 3)), { amount_cents: 30_000, created }), 400, 'amount_above_funding_cap', 'amount_cents');
    expect((await c.post(back(c.offer('INSTALLMENTS', 3)), { amount_cents: 22_500, created })).statusCode).toBe(200);
  });

  it("400 usury_ceiling_exceeded when the TAEG is above the offer's ceiling; equal is allowed", async () => {
    const c = await merchantWith({ usury_ceiling_bps: 1_999 });
    const res = await c.post(back(c.offer('INSTALLMENTS', 3)), { amount_cents: 30_000, created }, { 'accept-language': 'fr-FR' });
    expectError(res, 400, 'usury_ceiling_exceeded', '20');
    expect(res.json().error.info).toMatch(/taux d'usure/);
    const atCeiling = await merchantWith({ usury_ceiling_bps: 2_000 });
    expect((await atCeiling.post(back(atCeiling.offer('INSTALLMENTS', 3)), { amount_cents: 30_000, created })).json().taeg).toBe(20);
  });

  it('400 schedule_not_available for a SHARED offer (a pot has no schedule), on both routes', async () => {
    const uid = a.offer('SHARED');
    expectError(await a.post(back(uid), { amount_cents: 30_000, created }), 400, 'schedule_not_available', 'SHARED');
    expectError(await anonymous(front(uid), { amount_cents: 30_000, created }), 400, 'schedule_not_available');
  });

  it('an offer whose stored terms cannot make a schedule answers 400 schedule_not_available, never a 500', async () => {
    const c = await merchantWith({ deferred_days: 0 });
    const res = await anonymous(front(c.offer('DEFERRED')), { amount_cents: 30_000, created });
    expectError(res, 400, 'schedule_not_available');
    expect(app.logs.some((l) => l.includes('offer terms cannot produce a schedule'))).toBe(true);
  });

  it('a fixed fee that swallows the credit answers amount_below_minimum, not a 500', async () => {
    const c = await merchantWith({ fixed_fee_cents: 5_000, min_amount_cents: 100 });
    expectError(await c.post(back(c.offer('INSTALLMENTS', 3)), { amount_cents: 150, created }), 400, 'amount_below_minimum');
  });

  it("localises info in the six languages (the browser's, in any spelling) and keeps debug English for the developer", async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    const fr = await anonymous(front(uid), { amount_cents: 1, created }, { 'accept-language': 'fr' });
    expect(fr.json().error.info).toBe('Le montant est trop faible pour ce mode de paiement.');
    const en = await anonymous(front(uid), { amount_cents: 30_000, created: '2026-02-30' }, { 'accept-language': 'en-GB' });
    expect(en.json().error.info).toBe('The date is not valid.');
    const low: [string, string][] = [
      ['de-DE,de;q=0.9', 'Der Betrag ist für diese Zahlungsart zu niedrig.'],
      ['es-ES', 'El importe es demasiado bajo para esta forma de pago.'],
      ['it_IT', 'L’importo è troppo basso per questo metodo di pagamento.'],
      ['pt-BR,nl;q=0.8', 'Het bedrag is te laag voor deze betaalwijze.'],
    ];
    for (const [acceptLanguage, info] of low) {
      const res = await anonymous(front(uid), { amount_cents: 1, created }, { 'accept-language': acceptLanguage });
      expect(res.json().error.info, acceptLanguage).toBe(info);
      expect(res.json().error.debug, acceptLanguage).toBe(fr.json().error.debug);
    }
  });
});

describe('schedule simulation: access', () => {
  const body = { amount_cents: 30_000, created: '2026-01-31' };

  it('back end: 401 without a valid access token', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }]) {
      const res = await app.server.inject({
        method: 'POST',
        url: back(a.offer('INSTALLMENTS', 3)),
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(body),
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.app_error).toBe('invalid_token');
    }
  });

  it("back end: another merchant's offer is 404, exactly like an unknown or malformed one", async () => {
    const bodies = [];
    for (const uid of [b.offer('INSTALLMENTS', 3), 'mer_00000000-0000-4000-8000-000000000000', 'mer_nope', b.offer('INSTALLMENTS', 3).slice(4)]) {
      const res = await a.post(back(uid), body);
      expect(res.statusCode, uid).toBe(404);
      bodies.push(res.json());
    }
    expect(new Set(bodies.map((x) => JSON.stringify(x))).size).toBe(1);
    expect(bodies[0].error.app_error).toBe('not_found');
  });

  it('front end: any offer by its merchant_uid, answering only the schedule; unknown or malformed → the same 404', async () => {
    const res = await anonymous(front(b.offer('INSTALLMENTS', 4)), body);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(['INSTALLMENT', 'debit_rate', 'taeg']);
    expect(res.body).not.toContain(b.merchant.account_id.slice(4));
    expect(res.body).not.toContain('Test Shop');
    const [unknown, malformed] = [await anonymous(front('mer_00000000-0000-4000-8000-000000000000'), body), await anonymous(front('x'), body)];
    expect(unknown.statusCode).toBe(404);
    expect(malformed.statusCode).toBe(404);
    expect(unknown.json()).toEqual(malformed.json());
  });

  it('front end: ignores credentials (an invalid token does not matter)', async () => {
    const res = await anonymous(front(a.offer('INSTALLMENTS', 3)), body, { authorization: 'Bearer nope' });
    expect(res.statusCode).toBe(200);
  });
});

describe('CORS', () => {
  const body = { amount_cents: 30_000, created: '2026-01-31' };

  it('front end: a preflight is answered 204 with the open policy', async () => {
    const res = await app.server.inject({
      method: 'OPTIONS',
      url: front(a.offer('INSTALLMENTS', 3)),
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('POST, OPTIONS');
    expect(res.headers['access-control-allow-headers']).toBe('Content-Type');
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.body).toBe('');
  });

  it('front end: every answer carries Access-Control-Allow-Origin: *, errors included', async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    const answers = [
      await anonymous(front(uid), body),
      await anonymous(front(uid), { amount_cents: 1, created: '2026-01-31' }),
      await anonymous(front(uid), { amount_cents: 30_000, created: 'nope' }),
      await anonymous(front(uid), '{not json'),
      await anonymous(front('mer_00000000-0000-4000-8000-000000000000'), body),
      await anonymous(front(a.offer('SHARED')), body),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 400, 400, 400, 404, 400]);
    for (const res of answers) expect(res.headers['access-control-allow-origin'], res.body).toBe('*');
  });

  it('no CORS headers anywhere else: the back-end route, its preflight, /api/token, Merchant API v1', async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    const answers = [
      await a.post(back(uid), body, { origin: 'https://shop.example' }),
      await app.server.inject({ method: 'POST', url: back(uid), headers: { origin: 'https://shop.example', 'content-type': 'application/json' }, payload: JSON.stringify(body) }),
      await app.server.inject({ method: 'OPTIONS', url: back(uid), headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } }),
      await app.server.inject({
        method: 'POST',
        url: '/api/token',
        headers: { origin: 'https://shop.example', 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      }),
      await app.server.inject({ method: 'OPTIONS', url: '/api/token', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } }),
      await a.get('/api/merchants/v1/purchases', { origin: 'https://shop.example' }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 404, 401, 404, 200]);
    answers.forEach((res, i) =>
      expect(
        Object.keys(res.headers).filter((h) => h.startsWith('access-control-')),
        `answer ${i}`,
      ).toEqual([]),
    );
  });
});

describe('front-end throttling', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await startTestApp({ simulationRateLimit: 5 });
  });
  afterAll(() => small?.close());

  it('answers 429 with Retry-After (and CORS) past the limit per client address; other addresses are unaffected', async () => {
    const c = await caller(small);
    const url = front(c.offer('INSTALLMENTS', 3));
    const send = (remoteAddress: string, payload: unknown = { amount_cents: 30_000, created: '2026-01-31' }) =>
      small.server.inject({ method: 'POST', url, remoteAddress, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    // Refused requests count too: a scraper cannot probe for free with bad input.
    const first = [await send('203.0.113.7', {}), ...(await Promise.all(Array.from({ length: 4 }, () => send('203.0.113.7'))))];
    expect(first.map((r) => r.statusCode)).toEqual([400, 200, 200, 200, 200]);
    const refused = await send('203.0.113.7');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.app_error).toBe('too_many_requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect((await send('203.0.113.8')).statusCode).toBe(200);
    // The back-end route is not throttled this way.
    for (let i = 0; i < 7; i++) expect((await c.post(back(c.offer('INSTALLMENTS', 3)), { amount_cents: 30_000, created: '2026-01-31' })).statusCode).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('documents both routes with their bodies, answers and an example', async () => {
    const doc = (await app.server.inject('/api/openapi.json')).json();
    const backOp = doc.paths['/api/merchants/{merchant_uid}/simulate_payment_schedule'].post;
    const frontOp = doc.paths['/api/users/me/merchants/{merchant_uid}/simulate_payment_schedule'].post;
    expect(Object.keys(backOp.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
    expect(Object.keys(frontOp.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '429']));
    expect(backOp.security).toEqual([{ bearerToken: [] }]);
    expect(frontOp.security).toEqual([]);
    const text = JSON.stringify(backOp);
    expect(text).toContain('2026-01-31');
    expect(text).toContain('"taeg":20');
    expect(doc.paths['/api/users/me/merchants/{merchant_uid}/simulate_payment_schedule'].options).toBeUndefined();
  });
});
