/**
 * The back office of payouts (docs/back-office.md#payouts) and the `payout.paid` webhook
 * (docs/webhooks.md): the balance and why no payout is made, the bank details set by an admin only
 * (checked, naming the field; stored encrypted; shown masked; audited), the payouts with their
 * lines as JSON, CSV and pages, another merchant's payout a 404, and the webhook of a payout marked
 * sent, on a real HTTP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportPayouts } from '../../src/use-cases/payout-export.ts';
import { markPayout, payoutOfDay, type PayoutDeps } from '../../src/use-cases/payouts.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { NO_JOB_POLL, Receiver, setWebhook, TEST_DELIVERY } from '../delivery/helpers.ts';
import { book, OPERATOR, SILENT } from './helpers.ts';

let isolated: IsolatedDatabase;
let app: TestApp;
let a: Caller;
let b: Caller;
let receiver: Receiver;
let support: { email: string; password: string };
let purchaseId: string;
/** A's payout of 2030-05-10, with two lines (a purchase validated, a refund). */
let payoutId: string;
const clock = new ManualClock(new Date('2030-05-10T09:00:00Z'));
const IBAN = 'FR7630006000011234567890189';

beforeAll(async () => {
  isolated = await isolatedDatabase();
  app = await startTestApp(NO_JOB_POLL, { db: isolated.open(), delivery: TEST_DELIVERY });
  a = await caller(app);
  b = await caller(app);
  support = await addDashboardUser(app, a.accountId, 'support');
  receiver = await Receiver.start();
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 12_000 }));
  purchaseId = res.json().id as string;
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await isolated?.dispose();
});

const db = () => app.services.db;
const deps = (): PayoutDeps => ({ db: db(), clock, logger: SILENT });
const api = (m: Caller, method: 'GET' | 'PUT', url: string, payload?: unknown, auth = m.dashboard) =>
  app.server.inject({
    method,
    url,
    headers: { authorization: auth, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
const supportAuth = () => 'Basic ' + Buffer.from(`${support.email}:${support.password}`).toString('base64');

describe('before any bank details', () => {
  it('the balance says what is owed and that no payout is made until the bank details are set', async () => {
    await book(db(), { accountId: a.accountId, currency: 'EUR', kind: 'validated', cents: 12_000, at: clock.now(), purchaseId });
    const res = await api(a, 'GET', '/api/backoffice/balance');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      bank_details_set: false,
      currencies: [{ currency: 'EUR', owed_cents: 12_000, in_payouts_cents: 0, paid_out_cents: 0, returned_cents: 0, last_payout_day: null, next_payout: 'no_bank_details' }],
    });
    clock.advance(24 * 3_600_000);
    expect(await payoutOfDay(deps(), { accountId: a.accountId, currency: 'EUR', day: '2030-05-10', timeZone: 'Europe/Paris' })).toEqual({
      kind: 'no_bank_details',
      owedCents: 12_000,
      lineCount: 1,
    });
    expect((await api(a, 'GET', '/api/backoffice/payout_bank_details')).statusCode).toBe(404);
    const s = await signIn(app, a.merchant);
    const page = await app.server.inject({ method: 'GET', url: '/dashboard/payouts', headers: { cookie: s.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No bank details: no payout is made, and what is owed stays owed until they are set.');
    expect(page.body).toContain('none: set your bank details below');
  });
});

describe('bank details', () => {
  it('are refused with the field named, and nothing is stored', async () => {
    for (const [body, field] of [
      [{ holder_name: 'Shop', iban: 'FR7630006000011234567890188', bic: 'AGRIFRPP' }, 'iban'],
      [{ holder_name: 'Shop', iban: IBAN, bic: 'COBADEFFXXX' }, 'bic'],
      [{ holder_name: '', iban: IBAN, bic: 'AGRIFRPP' }, 'holder_name'],
    ] as const) {
      const res = await api(a, 'PUT', '/api/backoffice/payout_bank_details', body);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().error.debug, field).toMatch(new RegExp(`^field ${field} `));
    }
    expect((await api(a, 'PUT', '/api/backoffice/payout_bank_details', { holder_name: 'x', iban: IBAN, bic: 'AGRIFRPP', extra: 1 })).statusCode).toBe(400);
    expect((await api(a, 'GET', '/api/backoffice/payout_bank_details')).statusCode).toBe(404);
  });

  it('are for admins only: a support user is refused reading and setting them, and the balance and payouts', async () => {
    for (const [method, url] of [
      ['GET', '/api/backoffice/payout_bank_details'],
      ['PUT', '/api/backoffice/payout_bank_details'],
      ['GET', '/api/backoffice/balance'],
      ['GET', '/api/backoffice/payouts'],
    ] as const) {
      const res = await api(a, method, url, method === 'PUT' ? { holder_name: 'Evil', iban: IBAN, bic: 'AGRIFRPP' } : undefined, supportAuth());
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    const s = await signIn(app, support);
    expect((await app.server.inject({ method: 'GET', url: '/dashboard/payouts', headers: { cookie: s.cookie } })).statusCode).toBe(403);
    const post = await app.server.inject({
      method: 'POST',
      url: '/dashboard/payouts/bank-details',
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ csrf: s.csrf, holder_name: 'Evil', iban: IBAN, bic: 'AGRIFRPP' }),
    });
    expect(post.statusCode).toBe(403);
    expect((await api(a, 'GET', '/api/backoffice/payout_bank_details')).statusCode).toBe(404);
  });

  it('are set by an admin, stored encrypted, shown masked, and audited with the IBAN masked', async () => {
    const res = await api(a, 'PUT', '/api/backoffice/payout_bank_details', { holder_name: 'Boutique Éa', iban: 'fr76 3000 6000 0112 3456 7890 189', bic: 'agrifrpp' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ holder_name: 'Boutique Éa', iban_masked: 'FR76 •••• •••• 0189', bic: 'AGRIFRPP' });
    expect((await api(a, 'GET', '/api/backoffice/payout_bank_details')).json()).toMatchObject({ iban_masked: 'FR76 •••• •••• 0189' });
    const stored = await db().query<{ details_enc: string }>('SELECT details_enc FROM payout_bank_details WHERE account_id = $1', [a.accountId]);
    expect(stored.rows[0]!.details_enc).not.toContain(IBAN);
    expect(stored.rows[0]!.details_enc).not.toContain('Boutique');
    const audit = await db().query<{ action: string; details: unknown; actor: string }>(
      "SELECT action, details, actor FROM audit_log WHERE account_id = $1 AND action = 'payout_bank_details_set'",
      [a.accountId],
    );
    expect(audit.rows).toHaveLength(1);
    expect(JSON.stringify(audit.rows[0]!.details)).not.toContain(IBAN);
    expect(audit.rows[0]!.details).toMatchObject({ iban: { from: null, to: 'FR76 •••• •••• 0189' }, bic: { from: null, to: 'AGRIFRPP' } });
    expect(audit.rows[0]!.actor).toBe(a.merchant.email);
    // The same details again write nothing.
    expect((await api(a, 'PUT', '/api/backoffice/payout_bank_details', { holder_name: 'Boutique Éa', iban: IBAN, bic: 'AGRIFRPP' })).statusCode).toBe(200);
    expect((await db().query("SELECT 1 FROM audit_log WHERE account_id = $1 AND action = 'payout_bank_details_set'", [a.accountId])).rows).toHaveLength(1);
    // B's are B's: none.
    expect((await api(b, 'GET', '/api/backoffice/payout_bank_details')).statusCode).toBe(404);
  });

  it('the page refuses a wrong IBAN naming it, keeps what was typed, and saves good ones', async () => {
    const s = await signIn(app, a.merchant);
    const post = (fields: Record<string, string>) =>
      app.server.inject({
        method: 'POST',
        url: '/dashboard/payouts/bank-details',
        headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ csrf: s.csrf, ...fields }),
      });
    const bad = await post({ holder_name: 'Boutique Éa', iban: 'FR76 0000', bic: 'AGRIFRPP' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('field iban is not a valid IBAN');
    expect(bad.body).toMatch(/id="iban"[^>]*value="FR76 0000"[^>]*aria-invalid="true"/);
    const good = await post({ holder_name: 'Boutique Éa SARL', iban: IBAN, bic: 'AGRIFRPP' });
    expect(good.statusCode).toBe(200);
    expect(good.body).toContain('Bank details saved.');
    expect(good.body).toContain('FR76 •••• •••• 0189');
    expect(good.body).not.toContain(IBAN);
  });
});

describe('payouts', () => {
  beforeAll(async () => {
    await book(db(), { accountId: a.accountId, currency: 'EUR', kind: 'refund', cents: 2_000, at: new Date('2030-05-10T15:00:00Z'), purchaseId });
    const made = await payoutOfDay(deps(), { accountId: a.accountId, currency: 'EUR', day: '2030-05-10', timeZone: 'Europe/Paris' });
    if (made.kind !== 'created') throw new Error(`expected a payout, got ${made.kind}`);
    payoutId = made.payout.id;
  });

  it('are listed with their status, and one answers with its lines', async () => {
    const list = await api(a, 'GET', '/api/backoffice/payouts');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({
      data: [{ id: `po_${payoutId}`, currency: 'EUR', business_day: '2030-05-10', amount_cents: 10_000, line_count: 2, status: 'created' }],
      has_more: false,
    });
    const one = await api(a, 'GET', `/api/backoffice/payouts/po_${payoutId}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({
      id: `po_${payoutId}`,
      amount_cents: 10_000,
      lines: [
        { purchase_uid: `pur_${purchaseId}`, event: 'validated', amount_cents: 12_000 },
        { purchase_uid: `pur_${purchaseId}`, event: 'refund', amount_cents: -2_000 },
      ],
      lines_has_more: false,
    });
    const paged = await api(a, 'GET', `/api/backoffice/payouts/po_${payoutId}?lines_limit=1`);
    expect(paged.json()).toMatchObject({ lines: [{ event: 'validated' }], lines_has_more: true });
    const next = await api(a, 'GET', `/api/backoffice/payouts/po_${payoutId}?lines_limit=1&lines_cursor=${paged.json().lines_next_cursor}`);
    expect(next.json()).toMatchObject({ lines: [{ event: 'refund' }], lines_has_more: false });
    const balance = (await api(a, 'GET', '/api/backoffice/balance')).json();
    expect(balance.currencies[0]).toMatchObject({ owed_cents: 0, in_payouts_cents: 10_000, last_payout_day: '2030-05-10', next_payout: 'nothing_owed' });
  });

  it('give their lines as CSV', async () => {
    const res = await api(a, 'GET', `/api/backoffice/payouts/po_${payoutId}/lines.csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe('payout_id,business_day,currency,posting_id,purchase_uid,event,journal,amount_cents,occurred_at');
    expect(
      lines
        .slice(1)
        .map((l) => l.split(','))
        .map((c) => [c[0], c[4], c[5], c[7]]),
    ).toEqual([
      [`po_${payoutId}`, `pur_${purchaseId}`, 'validated', '12000'],
      [`po_${payoutId}`, `pur_${purchaseId}`, 'refund', '-2000'],
    ]);
  });

  it('of another merchant are a 404, in the API, the CSV and the page, as an id that does not exist', async () => {
    for (const url of [
      `/api/backoffice/payouts/po_${payoutId}`,
      `/api/backoffice/payouts/po_${payoutId}/lines.csv`,
      '/api/backoffice/payouts/po_nope',
      `/api/backoffice/payouts/${payoutId}`,
    ]) {
      const res = await api(b, 'GET', url);
      expect(res.statusCode, url).toBe(404);
    }
    expect((await api(b, 'GET', '/api/backoffice/payouts')).json()).toEqual({ data: [], has_more: false });
    expect((await api(b, 'GET', '/api/backoffice/balance')).json()).toEqual({ bank_details_set: false, currencies: [] });
    const s = await signIn(app, b.merchant);
    expect((await app.server.inject({ method: 'GET', url: `/dashboard/payouts/po_${payoutId}`, headers: { cookie: s.cookie } })).statusCode).toBe(404);
  });

  it('show on the pages: the list, and a payout with its lines and CSV link', async () => {
    const s = await signIn(app, a.merchant);
    const list = await app.server.inject({ method: 'GET', url: '/dashboard/payouts', headers: { cookie: s.cookie } });
    expect(list.body).toContain(`href="/dashboard/payouts/po_${payoutId}"`);
    const one = await app.server.inject({ method: 'GET', url: `/dashboard/payouts/po_${payoutId}`, headers: { cookie: s.cookie } });
    expect(one.statusCode).toBe(200);
    expect(one.body).toContain(`/api/backoffice/payouts/po_${payoutId}/lines.csv`);
    expect(one.body).toContain(`href="/dashboard/purchases/pur_${purchaseId}"`);
    expect(one.body).toContain('refund');
  });
});

describe('the payout.paid webhook', () => {
  it('is sent when the payout is marked sent, with the payout’s id, amount, currency, day and line count', async () => {
    const hook = await setWebhook(app, a, receiver.url('/payouts'), ['payoutPaid']);
    const exported = await exportPayouts({ db: db(), box: app.services.box, clock }, { debtor: OPERATOR, format: 'pain.001.001.09' });
    expect(exported.kind).toBe('exported');
    // Marked on the service's clock, as the CLI does: its delivery is due now.
    expect(await markPayout({ ...deps(), clock: app.services.clock }, payoutId, 'sent', { label: 'cli' })).toMatchObject({ kind: 'marked' });
    await app.services.deliveries.worker.runDue();
    await receiver.waitFor((r) => r.some((x) => x.path === '/payouts'), 'the payout webhook');
    const body = JSON.parse(receiver.received.find((x) => x.path === '/payouts')!.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      triggerName: 'payoutPaid',
      token: hook.token,
      objects: { payoutId: `po_${payoutId}`, amountCents: 10_000, currency: 'EUR', businessDay: '2030-05-10', lineCount: 2 },
    });
    expect(body.objects).not.toHaveProperty('purchaseId');
    // The delivery log shows it, without a purchase.
    const list = await api(a, 'GET', '/api/backoffice/deliveries');
    const delivery = (list.json().data as Record<string, unknown>[]).find((d) => d.trigger_name === 'payoutPaid');
    expect(delivery).toMatchObject({ event: 'payout.paid', status: 'succeeded' });
    expect(delivery).not.toHaveProperty('purchase_uid');
    const s = await signIn(app, a.merchant);
    const page = await app.server.inject({ method: 'GET', url: `/dashboard/developers/deliveries/${String(delivery!.id)}`, headers: { cookie: s.cookie } });
    expect(page.statusCode).toBe(200);
    // Marked by the operator: in the merchant's audit log.
    const audit = await db().query("SELECT details FROM audit_log WHERE account_id = $1 AND action = 'payout_mark'", [a.accountId]);
    expect(audit.rows).toEqual([{ details: { from: 'exported', to: 'sent', amount_cents: 10_000, currency: 'EUR' } }]);
  });

  it('is not sent to an endpoint that did not ask for it, nor to another merchant', async () => {
    await setWebhook(app, b, receiver.url('/b'), ['paymentProcessed']);
    const received = receiver.received.length;
    await book(db(), { accountId: b.accountId, currency: 'GBP', kind: 'validated', cents: 500, at: new Date('2030-05-10T10:00:00Z') });
    await api(b, 'PUT', '/api/backoffice/payout_bank_details', { holder_name: 'B Ltd', iban: 'GB29NWBK60161331926819', bic: 'NWBKGB2L' });
    const made = await payoutOfDay(deps(), { accountId: b.accountId, currency: 'GBP', day: '2030-05-10', timeZone: 'Europe/Paris' });
    if (made.kind !== 'created') throw new Error(made.kind);
    expect(await markPayout({ ...deps(), clock: app.services.clock }, made.payout.id, 'sent', { label: 'cli' })).toMatchObject({ kind: 'marked' });
    await app.services.deliveries.worker.runDue();
    expect(receiver.received.length).toBe(received);
    expect((await db().query("SELECT 1 FROM deliveries WHERE account_id = $1 AND trigger_name = 'payoutPaid'", [b.accountId])).rows).toHaveLength(0);
    const event = await db().query<{ purchase_id: string | null; dispatched_at: Date | null }>(
      "SELECT purchase_id, dispatched_at FROM purchase_events WHERE account_id = $1 AND type = 'payout.paid'",
      [b.accountId],
    );
    expect(event.rows).toHaveLength(1);
    expect(event.rows[0]!.purchase_id).toBeNull();
    expect(event.rows[0]!.dispatched_at).not.toBeNull();
  });
});
