import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHs256, verifyHs256 } from '../../src/delivery/jwt.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;

beforeAll(async () => {
  app = await startTestApp({ simulationRateLimit: 100_000 });
  a = await caller(app);
});
afterAll(async () => {
  await app.close();
});

type OfferType = 'SHARED' | 'INSTALLMENTS' | 'DEFERRED' | 'DOWN_PAYMENT';
const offerOf = (type: OfferType = 'INSTALLMENTS') => a.merchant.offers.find((o) => o.type === type)!;
let refs = 0;
const settings = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  merchantUid: offerOf().merchant_uid,
  amountCents: 30_550,
  email: 'leader@example.com',
  firstName: 'Ana',
  lastName: 'Lima',
  reference: `ORDER-${++refs}`,
  title: 'Trip to Lisbon',
  currency: 'EUR',
  lang: 'fr_FR',
  redirectUrl: 'https://shop.example/ok?order=1',
  cancelUrl: 'https://shop.example/cancel?order=1',
  ...over,
});

/** A query as PHP's http_build_query writes it: nested arrays with brackets, `true` as 1. */
function phpQuery(value: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}[${k}]` : k;
    if (v !== null && typeof v === 'object') return phpQuery(v as Record<string, unknown>, key);
    const text = v === true ? '1' : v === false ? '0' : String(v);
    return [`${encodeURIComponent(key)}=${encodeURIComponent(text)}`];
  });
}
const get = (path: string, headers: Record<string, string> = {}) => app.server.inject({ method: 'GET', url: path, headers });
const call = (s: Record<string, unknown>, extra = '') => get(`/purchase?${phpQuery(s).join('&')}${extra}`);
const signed = (
  data: Record<string, unknown>,
  claims: Record<string, unknown> = {},
  secret = offerOf(data.merchantUid === offerOf('DEFERRED').merchant_uid ? 'DEFERRED' : 'INSTALLMENTS').secret,
) => signHs256({ data, ...claims }, secret);
const uidOf = (location: string) => /\/pay\/pur_([0-9a-f-]{36})/.exec(location)![1]!;
const row = async (id: string) =>
  (
    await app.services.db.query<Record<string, unknown>>(
      `SELECT p.*, to_char(p.deferred_payment_date, 'YYYY-MM-DD') AS deferred, to_char(p.second_installment_date, 'YYYY-MM-DD') AS second,
         to_char(p.balance_payment_date, 'YYYY-MM-DD') AS balance, c.email, c.first_name, c.last_name
       FROM purchases p JOIN clients c ON c.id = p.client_id WHERE p.id = $1`,
      [id],
    )
  ).rows[0]!;
const count = async (ref: string) => (await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM purchases WHERE ref = $1', [ref])).rows[0]!.n;

/** Pays the checkout the direct call led to, with a card (`times` POSTs of the same form); answers the last POST. */
async function pay(location: string, card = '4242424242424242', times = 1) {
  const page = await get(location);
  const cookie = String(page.headers['set-cookie']).split(';')[0]!;
  const token = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
  for (let i = 1; i < times; i++) {
    const refused = await app.server.inject({
      method: 'POST',
      url: location,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${encodeURIComponent(token)}&holder_name=Ana&card_number=${card}&card_expiry=12%2F30&card_cvc=123`,
    });
    // A refused card with attempts left: the shopper stays on the page, nothing goes back to the shop.
    expect(refused.statusCode).toBe(402);
  }
  return app.server.inject({
    method: 'POST',
    url: location,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `csrf=${encodeURIComponent(token)}&holder_name=Ana&card_number=${card}&card_expiry=12%2F30&card_cvc=123`,
  });
}

describe('GET /purchase: the direct call of the front', () => {
  it('creates the purchase from PHP-bracket query settings and answers 303 to its checkout; the shopper and the settings are kept', async () => {
    const s = settings({
      phoneNumber: '0470 12 34 56',
      countryCode: 'BE',
      address: { street: 'Rue Neuve 1', city: 'Bruxelles', zipcode: '1000', stateProvince: '', country: 'BE' },
      shippingAddress: { street: 'Rue Haute 2', city: 'Bruxelles', zipcode: '1000', country: 'BE' },
      metadata: { plugin: 'woocommerce-pledg-plugin2.2', products: [{ reference: 12, name: 'Hat' }] },
      civility: 'Ms',
      birthDate: '1980-01-02',
      showCloseButton: true,
      balancePaymentDate: '2030-01-01',
      subtitle: 'Shop',
    });
    const res = await call(s);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/pay\/pur_[0-9a-f-]{36}$/);
    const p = await row(uidOf(res.headers.location as string));
    expect(p).toMatchObject({
      amount_cents: 30_550,
      currency: 'EUR',
      title: 'Trip to Lisbon',
      subtitle: 'Shop',
      language: 'fr_FR',
      ref: s.reference,
      state: 'CREATED',
      phone_number: '+32470123456', // national, read in countryCode's country
      callback_url: s.redirectUrl,
      cancel_url: s.cancelUrl,
      merchant_origin: 'https://shop.example',
      email: 'leader@example.com',
      first_name: 'Ana',
      last_name: 'Lima',
      metadata: { plugin: 'woocommerce-pledg-plugin2.2', products: { 0: { reference: '12', name: 'Hat' } } },
    });
    expect(p.plugin_settings).toEqual({
      civility: 'Ms',
      birthDate: '1980-01-02',
      address: { street: 'Rue Neuve 1', city: 'Bruxelles', zipcode: '1000', country: 'BE' },
      shippingAddress: { street: 'Rue Haute 2', city: 'Bruxelles', zipcode: '1000', country: 'BE' },
      countryCode: 'BE',
      showCloseButton: true,
    });
    // Its own column now (a down payment's balance date): an installment offer ignores it.
    expect(p.balance).toBe('2030-01-01');
  });

  it('reads JSON-encoded nested settings (the WooCommerce unsigned call), a float amount, an E.164 number without its +; drops an unreadable phone number', async () => {
    const s = settings({
      merchantUid: offerOf('SHARED').merchant_uid,
      amountCents: 1998.9999999999998,
      address: JSON.stringify({ city: 'Paris', country: 'FR' }),
      metadata: '[]',
      phoneNumber: '33612345678',
    });
    const res = await call(s);
    expect(res.statusCode, res.body).toBe(303);
    const p = await row(uidOf(res.headers.location as string));
    expect(p).toMatchObject({ amount_cents: 1999, phone_number: '+33612345678', metadata: {} });
    expect(p.plugin_settings).toEqual({ address: { city: 'Paris', country: 'FR' } });
    const odd = await call(settings({ phoneNumber: 'call me' }));
    const q = await row(uidOf(odd.headers.location as string));
    expect(q.phone_number).toBeNull();
    expect(q.plugin_settings).toEqual({ unreadPhoneNumber: 'call me' });
  });

  it('refuses bad input with a 400 page naming the setting, and creates nothing (a fraction of a cent, a missing redirectUrl, an unknown offer)', async () => {
    for (const [over, field] of [
      [{ amountCents: '1998.5' }, 'amountCents'],
      [{ redirectUrl: '' }, 'redirectUrl'],
      [{ merchantUid: 'mer_00000000-0000-4000-8000-000000000000' }, 'merchantUid'],
      [{ email: 'nope' }, 'email'],
      [{ currency: 'JPY' }, 'currency'],
    ] as const) {
      const s = settings(over);
      const res = await call(s);
      expect(res.statusCode, field).toBe(400);
      expect(res.headers['content-type']).toContain('text/html');
      expect(/<code lang="en" id="refusal">([^<]*)</.exec(res.body)![1]).toContain(field);
      expect(res.body).toContain('pas pu démarrer'); // lang=fr_FR
      // The developer's sentence is folded away from the shopper, under its own heading.
      expect(res.body).toMatch(/<details class="muted"><summary>Pour les développeurs de la boutique<\/summary><p><code lang="en" id="refusal">/);
      expect(await count(s.reference as string)).toBe(0);
    }
  });

  it('embed=1 needs no redirectUrl, keeps embed, and lets parent_origin frame the page', async () => {
    const s = settings({ redirectUrl: '', cancelUrl: '' });
    const res = await call(s, '&embed=1&parent_origin=https%3A%2F%2Fcheckout.shop.example');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/\?embed=1$/);
    const page = await get(res.headers.location as string);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'self' https://checkout.shop.example");
    expect(page.body).toContain('"target":"https://checkout.shop.example"');
    const bad = await call(settings(), '&embed=1&parent_origin=https%3A%2F%2Fx.example%2Fpath');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('parent_origin');
  });

  it('a reload of the same call pays the same purchase; another amount makes another; a paid reference is refused and creates nothing', async () => {
    const s = settings();
    const first = await call(s);
    const again = await call(s);
    expect(again.headers.location).toBe(first.headers.location);
    const other = await call({ ...s, amountCents: 30_551 });
    expect(other.headers.location).not.toBe(first.headers.location);
    expect(await count(s.reference as string)).toBe(2);
    // Paid (the sandbox approves the test card), the reference can no longer be paid.
    expect((await pay(first.headers.location as string)).statusCode).toBe(303);
    const paid = await call(s);
    expect(paid.statusCode).toBe(409);
    expect(paid.body).toContain('Déjà payée');
    expect(await count(s.reference as string)).toBe(2);
  });

  it('two calls at once for one order make one purchase', async () => {
    const s = settings();
    const [x, y] = await Promise.all([call(s), call(s)]);
    expect(x.headers.location).toBe(y.headers.location);
    expect(await count(s.reference as string)).toBe(1);
  });
});

describe('signed settings', () => {
  it('a JWT HS256 of {data} signed with the offer secret, exp in the future, creates the purchase; unsigned settings beside it are ignored', async () => {
    const s = settings();
    const token = signed(s, { exp: Math.floor(Date.now() / 1000) + 600 });
    const res = await get(`/purchases?signature=${token}&amountCents=1&title=Forged&embed=1`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/\?embed=1$/);
    expect(await row(uidOf(res.headers.location as string))).toMatchObject({ amount_cents: 30_550, title: 'Trip to Lisbon' });
  });

  it('expired, not yet valid, tampered, signed with another secret or another algorithm: the 400 page naming signature, nothing created', async () => {
    const s = settings();
    const now = Math.floor(Date.now() / 1000);
    const good = signed(s);
    const [h, , sig] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ data: { ...s, amountCents: 1 } })).toString('base64url')}.${sig}`;
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${good.split('.')[1]}.`;
    for (const [token, why] of [
      [signed(s, { exp: now - 3600 }), 'expired'],
      [signed(s, { nbf: now + 3600 }), 'not valid yet'],
      [tampered, 'secret'],
      [signed(s, {}, offerOf('SHARED').secret), 'secret'],
      [none, 'secret'],
      ['not-a-jwt', 'payload'],
    ] as const) {
      const res = await get(`/purchase?signature=${token}`);
      expect(res.statusCode, why).toBe(400);
      expect(res.body).toContain('signature');
      expect(res.body).toContain(why);
    }
    expect(await count(s.reference as string)).toBe(0);
  });

  it('a parent_origin other than the signed redirectUrl origin is refused', async () => {
    const token = signed(settings());
    expect((await get(`/purchase?signature=${token}&embed=1&parent_origin=https%3A%2F%2Fevil.example`)).statusCode).toBe(400);
    expect((await get(`/purchase?signature=${token}&embed=1&parent_origin=https%3A%2F%2Fshop.example`)).statusCode).toBe(303);
  });
});

describe('requested dates change the real schedule', () => {
  it('deferredPaymentDate is the date the deferred payment is due, after paying', async () => {
    const due = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const res = await call(settings({ merchantUid: offerOf('DEFERRED').merchant_uid, deferredPaymentDate: due }));
    expect(res.statusCode).toBe(303);
    const id = uidOf(res.headers.location as string);
    expect((await row(id)).deferred).toBe(due);
    expect((await get(res.headers.location as string)).statusCode).toBe(200);
    expect((await pay(res.headers.location as string)).statusCode).toBe(303);
    const { rows } = await app.services.db.query<{ due: string }>(`SELECT to_char(due_date, 'YYYY-MM-DD') AS due FROM installments WHERE purchase_id = $1 ORDER BY index`, [id]);
    expect(rows.map((r) => r.due)).toEqual([due]);
  });

  it('secondInstallmentPaymentDate moves the later installments; a date the offer cannot take is refused naming it', async () => {
    const second = new Date(Date.now() + 50 * 86_400_000).toISOString().slice(0, 10);
    const res = await call(settings({ secondInstallmentPaymentDate: second }));
    const id = uidOf(res.headers.location as string);
    expect((await pay(res.headers.location as string)).statusCode).toBe(303);
    const { rows } = await app.services.db.query<{ due: string }>(`SELECT to_char(due_date, 'YYYY-MM-DD') AS due FROM installments WHERE purchase_id = $1 ORDER BY index`, [id]);
    expect(rows[1]!.due).toBe(second);
    const late = await call(settings({ merchantUid: offerOf('DEFERRED').merchant_uid, deferredPaymentDate: '2099-01-01' }));
    expect(late.statusCode).toBe(400);
    expect(late.body).toContain('deferredPaymentDate');
  });

  it('balancePaymentDate is the date a down payment’s balance is due: the deposit (30 %) is captured at checkout, the balance scheduled on that date', async () => {
    const balance = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const res = await call(settings({ merchantUid: offerOf('DOWN_PAYMENT').merchant_uid, balancePaymentDate: balance }));
    expect(res.statusCode, res.body).toBe(303);
    const id = uidOf(res.headers.location as string);
    expect((await row(id)).balance).toBe(balance);
    const page = await get(res.headers.location as string);
    expect(page.body).toContain('91,65'); // the deposit, 30 % of 305.50 rounded half up, in French
    expect((await pay(res.headers.location as string)).statusCode).toBe(303);
    const { rows } = await app.services.db.query<{ due: string; amount_cents: number; state: string }>(
      `SELECT to_char(due_date, 'YYYY-MM-DD') AS due, amount_cents, state FROM installments WHERE purchase_id = $1 ORDER BY index`,
      [id],
    );
    expect(rows.map((r) => [r.amount_cents, r.state])).toEqual([
      [9_165, 'paid'],
      [21_385, 'scheduled'],
    ]);
    expect(rows[1]!.due).toBe(balance);
    const captured = await app.services.db.query<{ purpose: string; amount_cents: number; status: string }>(
      'SELECT purpose, amount_cents, status FROM payments WHERE purchase_id = $1',
      [id],
    );
    expect(captured.rows).toEqual([{ purpose: 'first_installment', amount_cents: 9_165, status: 'captured' }]);
  });

  it('a balancePaymentDate after the maximum delay (60 days), or on the day of the purchase, is refused naming it, and creates nothing', async () => {
    const today = new Date().toISOString().slice(0, 10);
    for (const date of ['2099-01-01', today]) {
      const s = settings({ merchantUid: offerOf('DOWN_PAYMENT').merchant_uid, balancePaymentDate: date });
      const res = await call(s);
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('balancePaymentDate');
      expect(await count(s.reference as string)).toBe(0);
    }
  });
});

describe('the return to the shop in a new page', () => {
  it('after paying: 303 to redirectUrl with result and pledg_result (the result JSON and its signature)', async () => {
    const s = settings();
    const res = await pay((await call(s)).headers.location as string);
    expect(res.statusCode).toBe(303);
    const url = new URL(res.headers.location as string);
    expect(url.origin + url.pathname).toBe('https://shop.example/ok');
    const pledg = JSON.parse(url.searchParams.get('pledg_result')!) as { transaction: { status: string }; purchase: { reference: string }; signature: string };
    expect(pledg.purchase.reference).toBe(s.reference);
    expect(verifyHs256(pledg.signature, offerOf().secret)).toMatchObject({ purchase: { reference: s.reference } });
    expect(url.searchParams.get('result')).toBe(pledg.signature);
  });

  it('a refused card with attempts left stays on the page; the last refusal goes to cancelUrl with pledg_error {type: payment_refused, message, signature}', async () => {
    const location = (await call(settings())).headers.location as string;
    const attempts = (await app.services.offers.findPublic(offerOf().merchant_uid))!.maxAttempts;
    const res = await pay(location, '4000000000000002', attempts);
    expect(res.statusCode).toBe(303);
    const url = new URL(res.headers.location as string);
    expect(url.origin + url.pathname).toBe('https://shop.example/cancel');
    const pledg = JSON.parse(url.searchParams.get('pledg_error')!) as { type: string; message: string; signature: string };
    expect(pledg.type).toBe('payment_refused');
    const claims = verifyHs256(pledg.signature, offerOf().secret) as { error: { type: string; message: string } };
    expect(claims.error).toMatchObject({ type: 'payment_refused', message: pledg.message });
  });

  it("the checkout's cancel link goes to cancelUrl with pledg_error of type abandonment; none inside a frame", async () => {
    const s = settings();
    const location = (await call(s)).headers.location as string;
    const page = await get(location);
    const href = /<a href="([^"]+)" id="cancel">/.exec(page.body)![1]!.replace(/&amp;/g, '&');
    const url = new URL(href);
    expect(url.origin + url.pathname).toBe('https://shop.example/cancel');
    expect(JSON.parse(url.searchParams.get('pledg_error')!)).toEqual({ type: 'abandonment', message: 'The shopper cancelled the payment.' });
    expect((await get(`${location}?embed=1`)).body).not.toContain('id="cancel"');
  });
});

describe('throttle', () => {
  it('each client address gets SIMULATION_RATE_LIMIT calls a minute, whatever their outcome; then a 429 page with Retry-After', async () => {
    const small = await startTestApp({ simulationRateLimit: 2 });
    try {
      const hit = () => small.server.inject({ method: 'GET', url: '/purchase?merchantUid=nope' });
      expect((await hit()).statusCode).toBe(400);
      expect((await hit()).statusCode).toBe(400);
      const over = await hit();
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(over.headers['content-type']).toContain('text/html');
    } finally {
      await small.close();
    }
  });
});
