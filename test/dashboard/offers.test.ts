import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { form, signIn } from '../helpers/dashboard.ts';

/** The back office's Offers pages: the list, and an offer's form editing its terms and the PSP account it pays through. */
let app: TestApp;
let a: Caller;
let s: { cookie: string; csrf: string };

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
  s = await signIn(app, a.merchant);
});
afterAll(async () => {
  await app?.close();
});

const get = (url: string, cookie = s.cookie) => app.server.inject({ method: 'GET', url, headers: { cookie } });
const post = (url: string, body: string, cookie = s.cookie) =>
  app.server.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
const offersOf = async (c: Caller) =>
  (await app.server.inject({ method: 'GET', url: '/api/backoffice/offers', headers: { authorization: c.dashboard } })).json() as ({
    merchant_uid: string;
    psp_account_id: string | null;
  } & Record<string, unknown>)[];
const newPspAccount = async (c: Caller, label: string) =>
  (
    await app.server.inject({
      method: 'POST',
      url: '/api/backoffice/psp_accounts',
      headers: { authorization: c.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ psp: 'sandbox', environment: 'test', label, credentials: {} }),
    })
  ).json().id as string;

describe('offers in the back office', () => {
  it('lists every offer of the account with its terms, and links each to its page', async () => {
    const page = await get('/dashboard/offers');
    expect(page.statusCode).toBe(200);
    for (const o of a.merchant.offers) expect(page.body).toContain(`href="/dashboard/offers/${o.merchant_uid}"`);
    expect(page.body).toContain('Shared pot');
  });

  it('points an offer at one of the account PSP accounts, then back at the built-in sandbox, through the API use case', async () => {
    const psa = await newPspAccount(a, 'Dashboard test');
    const uid = a.offer('SHARED');
    const saved = await post(`/dashboard/offers/${uid}`, form({ csrf: s.csrf, psp_account_id: psa }));
    expect(saved.statusCode).toBe(303);
    expect((await offersOf(a)).find((o) => o.merchant_uid === uid)?.psp_account_id).toBe(psa);
    const page = await get(saved.headers.location as string);
    expect(page.body).toContain('role="status"');
    expect(page.body).toMatch(new RegExp(`value="${psa}" selected`));

    expect((await post(`/dashboard/offers/${uid}`, form({ csrf: s.csrf, psp_account_id: '' }))).statusCode).toBe(303);
    expect((await offersOf(a)).find((o) => o.merchant_uid === uid)?.psp_account_id).toBeNull();
  });

  it("refuses another merchant's PSP account naming the field, and changes nothing", async () => {
    const b = await caller(app);
    const theirs = await newPspAccount(b, 'Not yours');
    const before = await offersOf(a);
    const res = await post(`/dashboard/offers/${a.offer('SHARED')}`, form({ csrf: s.csrf, psp_account_id: theirs }));
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/role="alert"[^>]*>PSP account:/);
    expect(await offersOf(a)).toEqual(before);
  });

  it('edits fees, limits and delays typed in euros and percent, exactly, through the API use case, and says it saved', async () => {
    const uid = a.offer('INSTALLMENTS', 4);
    const saved = await post(
      `/dashboard/offers/${uid}`,
      form({ csrf: s.csrf, fee_rate: '2,35', fixed_fee: '0.10', min_amount: '60', max_amount: '2 999,99 €', expiry_hours: '36' }),
    );
    expect(saved.statusCode).toBe(303);
    expect((await offersOf(a)).find((o) => o.merchant_uid === uid)).toMatchObject({
      fee_rate_bps: 235,
      fixed_fee_cents: 10,
      min_amount_cents: 6_000,
      max_amount_cents: 299_999,
      expiry_hours: 36,
    });
    const page = await get(saved.headers.location as string);
    expect(page.body).toContain('role="status"');
    expect(page.body).toContain('value="2.35"');
    expect(page.body).toContain('value="2999.99"');
    expect(page.body).not.toContain('id="pot_deadline_hours"'); // a pot deadline is for SHARED offers only
    const list = await get('/dashboard/offers');
    expect(list.body).toContain('2.35 %');
  });

  it('shows a refusal next to the form, naming the field in the page language, the typed values kept, and changes nothing', async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    const before = await offersOf(a);
    const notNumber = await post(`/dashboard/offers/${uid}?lang=fr`, form({ csrf: s.csrf, fee_rate: '1.5.0', min_amount: '70' }));
    expect(notNumber.statusCode).toBe(400);
    expect(notNumber.body).toMatch(/role="alert" id="offer-error">Taux de frais \(%\)\u00a0?: doit être un nombre/);
    expect(notNumber.body).toMatch(/id="fee_rate" name="fee_rate"[^>]*value="1.5.0" aria-invalid="true"/);
    const minAboveMax = await post(`/dashboard/offers/${uid}`, form({ csrf: s.csrf, min_amount: '5000', max_amount: '100' }));
    expect(minAboveMax.statusCode).toBe(400);
    expect(minAboveMax.body).toMatch(/role="alert" id="offer-error">Minimum amount \(EUR\): the minimum \(€5,000.00\) must not be above the maximum \(€100.00\)/);
    expect(minAboveMax.body).toMatch(/id="min_amount"[^>]*aria-invalid="true"/);
    expect(await offersOf(a)).toEqual(before);
  });

  it('says a refusal of the rules in French on a French page, amounts and rates in the form’s units (no English from the API)', async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    const before = await offersOf(a);
    const alert = (body: string) => /role="alert" id="offer-error">([^<]*)</.exec(body)?.[1] ?? '';
    const minAboveMax = await post(`/dashboard/offers/${uid}?lang=fr`, form({ csrf: s.csrf, min_amount: '5000', max_amount: '100' }));
    expect(minAboveMax.statusCode).toBe(400);
    expect(alert(minAboveMax.body).replace(/[\u00a0\u202f]/g, ' ')).toBe('Montant minimum (EUR): le minimum (5 000,00 €) ne doit pas dépasser le maximum (100,00 €)');
    const feeTooHigh = await post(`/dashboard/offers/${uid}?lang=fr`, form({ csrf: s.csrf, fee_rate: '25' }));
    expect(feeTooHigh.statusCode).toBe(400);
    expect(alert(feeTooHigh.body).replace(/[\u00a0\u202f]/g, ' ')).toBe('Taux de frais (%): doit être entre 0,00 % et 20,00 %');
    for (const body of [minAboveMax.body, feeTooHigh.body]) expect(alert(body)).not.toMatch(/must|500000|2000\b/);
    expect(await offersOf(a)).toEqual(before);
  });

  it('edits the merchant parameters from the offer page (empty is none, yes/no choices), and names a refused one in the page language', async () => {
    const uid = a.offer('SHARED');
    const saved = await post(
      `/dashboard/offers/${uid}`,
      form({
        csrf: s.csrf,
        country_code: 'be',
        css_url: 'https://shop.example/pay.css',
        gtu_url: 'https://shop.example/terms',
        gtu_label: 'Our terms',
        use_3ds: 'always',
        leader_can_pay_alone: 'no',
        purchase_end_notification_url: '',
        send_confirmation_email: 'no',
        hold_renewal_days: '5',
      }),
    );
    expect(saved.statusCode).toBe(303);
    expect((await offersOf(a)).find((o) => o.merchant_uid === uid)).toMatchObject({
      country_code: 'BE',
      css_url: 'https://shop.example/pay.css',
      gtu_label: 'Our terms',
      use_3ds: 'always',
      leader_can_pay_alone: false,
      purchase_end_notification_url: null,
      send_confirmation_email: false,
      hold_renewal_days: 5,
    });
    const page = (await get(saved.headers.location as string)).body;
    expect(page).toMatch(/id="css_url" name="css_url" type="url"[^>]*value="https:\/\/shop.example\/pay.css"/);
    expect(page).toMatch(/<option value="always" selected>/);
    expect(page).not.toContain('id="funding_cap"'); // a pot has no credit to cap
    const before = await offersOf(a);
    const refused = await post(`/dashboard/offers/${uid}?lang=fr`, form({ csrf: s.csrf, country_code: 'ZZ' }));
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(/role="alert" id="offer-error">Pays des numéros de téléphone nationaux \(ISO 3166, comme FR\)\u00a0?: doit être un code pays/);
    expect(refused.body).toMatch(/id="country_code"[^>]*value="ZZ" aria-invalid="true"/);
    const credit = await post(`/dashboard/offers/${a.offer('INSTALLMENTS', 3)}`, form({ csrf: s.csrf, funding_cap: '12.5.0' }));
    expect(credit.body).toMatch(/role="alert" id="offer-error">Funding limit \(EUR\)[^<]*: must be a number/);
    expect(await offersOf(a)).toEqual(before);
  });

  it('refuses a save without the CSRF token', async () => {
    const psa = await newPspAccount(a, 'CSRF');
    const before = await offersOf(a);
    expect((await post(`/dashboard/offers/${a.offer('SHARED')}`, form({ psp_account_id: psa }))).statusCode).toBe(403);
    expect(await offersOf(a)).toEqual(before);
  });

  it("answers 404 for another merchant's offer, shown or saved, and leaves it as it was", async () => {
    const b = await caller(app);
    const theirs = b.offer('SHARED');
    expect((await get(`/dashboard/offers/${theirs}`)).statusCode).toBe(404);
    const before = await offersOf(b);
    expect((await post(`/dashboard/offers/${theirs}`, form({ csrf: s.csrf, psp_account_id: '' }))).statusCode).toBe(404);
    expect(await offersOf(b)).toEqual(before);
    expect((await get('/dashboard/offers')).body).not.toContain(theirs);
  });
});
