/**
 * The back office of payouts (docs/back-office.md#payouts) and the `payout.paid` webhook
 * (docs/webhooks.md): the balance and why no payout is made, the bank details set by an admin only
 * (checked, naming the field; stored encrypted; shown masked; audited), the payouts with their
 * lines as JSON, CSV and pages, another merchant's payout a 404, and the webhook of a payout marked
 * sent, on a real HTTP receiver. A change of bank details asks the password again, is e-mailed to
 * every admin (a real SMTP listener), and a new IBAN holds the payouts for the cooling-off (the
 * sandbox clock moved), unless the operator releases them. The operator's payout files page
 * (docs/back-office.md#the-operators-pages): the operator's staff only, the SEPA file made,
 * downloaded (the command line's file, valid under the pain.001 schema) and marked as sent, each
 * action in the audit log of the merchant it pays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedFile, exportPayouts } from '../../src/use-cases/payouts/payout-export.ts';
import { setRoleByEmail } from '../../src/staff/team-members.ts';
import { markPayout, payoutOfDay, runPayouts, type PayoutDeps } from '../../src/use-cases/payouts/payouts.ts';
import { releasePayoutHold } from '../../src/use-cases/payouts/payout-bank-details.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { NO_JOB_POLL, Receiver, setWebhook, TEST_DELIVERY } from '../delivery/helpers.ts';
import { book, OPERATOR, painSchemas, SILENT, validateXml } from './helpers.ts';

let isolated: IsolatedDatabase;
let app: TestApp;
let a: Caller;
let b: Caller;
let receiver: Receiver;
let support: { id: string; email: string; password: string };
let admin2: { email: string; password: string };
let smtp: Awaited<ReturnType<typeof smtpListener>>;
let purchaseId: string;
/** A's payout of 2030-05-10, with two lines (a purchase validated, a refund). */
let payoutId: string;
const clock = new ManualClock(new Date('2030-05-10T09:00:00Z'));
const IBAN = 'FR7630006000011234567890189';

beforeAll(async () => {
  isolated = await isolatedDatabase();
  smtp = await smtpListener();
  app = await startTestApp(
    { ...NO_JOB_POLL, smtpUrl: `smtp://127.0.0.1:${smtp.port}`, operatorDebtor: OPERATOR, payoutPainFormat: 'pain.001.001.09' },
    { db: isolated.open(), delivery: TEST_DELIVERY },
  );
  a = await caller(app);
  b = await caller(app);
  support = await addDashboardUser(app, a.accountId, 'support');
  admin2 = await addDashboardUser(app, a.accountId, 'admin');
  receiver = await Receiver.start();
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 12_000, ref: 'LIS-2041' }));
  purchaseId = res.json().id as string;
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await smtp?.close();
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
/** PUT of the bank details with the merchant's password asked again (its own unless given; null: none). */
const putBank = (m: Caller, body: Record<string, unknown>, password: string | null = m.merchant.password) =>
  api(m, 'PUT', '/api/backoffice/payout_bank_details', password === null ? body : { ...body, current_password: password });
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
      const res = await putBank(a, body);
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
    const mailed = smtp.received.length;
    const res = await putBank(a, { holder_name: 'Boutique Éa', iban: 'fr76 3000 6000 0112 3456 7890 189', bic: 'agrifrpp' });
    expect(res.statusCode).toBe(200);
    // The first bank details divert nothing: no hold.
    expect(res.json()).toMatchObject({ holder_name: 'Boutique Éa', iban_masked: 'FR76 •••• •••• 0189', bic: 'AGRIFRPP', payouts_held_until: null });
    // Every admin (not the support user) is told, the IBAN masked.
    await expect.poll(() => smtp.received.length).toBe(mailed + 2);
    const mails = smtp.received.slice(mailed);
    expect(mails.flatMap((m) => m.to).sort()).toEqual([a.merchant.email, admin2.email].sort());
    expect(decoded(mails[0]!.raw)).toContain('IBAN before: none\nIBAN now: FR76 •••• •••• 0189');
    expect(mails[0]!.raw).not.toContain('0112');
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
    expect((await putBank(a, { holder_name: 'Boutique Éa', iban: IBAN, bic: 'AGRIFRPP' })).statusCode).toBe(200);
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
    const bad = await post({ holder_name: 'Boutique Éa', iban: 'FR76 0000', bic: 'AGRIFRPP', current_password: a.merchant.password });
    expect(bad.statusCode).toBe(400);
    // Worded for the page, by the field's label: not the API's English.
    expect(bad.body).toContain('IBAN: this is not a valid IBAN, it has the wrong length for its country. Nothing changed.');
    expect(bad.body).not.toContain('field iban');
    expect(bad.body).toMatch(/id="iban"[^>]*value="FR76 0000"[^>]*aria-invalid="true"/);
    const good = await post({ holder_name: 'Boutique Éa SARL', iban: IBAN, bic: 'AGRIFRPP', current_password: a.merchant.password });
    expect(good.statusCode).toBe(200);
    expect(good.body).toContain('Bank details saved.');
    expect(good.body).toContain('FR76 •••• •••• 0189');
    expect(good.body).not.toContain(IBAN);
    expect(good.body).toMatch(/<input id="current_password" name="current_password" type="password"/);
  });

  it('are not changed without the current password, or with a wrong one: 400, in the API and on the page (English and French)', async () => {
    const s = await signIn(app, a.merchant);
    const audits = async () => (await db().query("SELECT 1 FROM audit_log WHERE account_id = $1 AND action = 'payout_bank_details_set'", [a.accountId])).rows.length;
    const [auditsBefore, mailed] = [await audits(), smtp.received.length];
    const diverted = { holder_name: 'Thief', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' };
    const missing = await putBank(a, diverted, null);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.debug).toContain('current_password');
    // Another user's password (admin2's) is not the signed-in user's.
    for (const wrong of ['wrong-password', admin2.password]) {
      const res = await putBank(a, diverted, wrong);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.debug).toBe('field current_password is not your current password');
    }
    for (const [url, text] of [
      ['/dashboard/payouts/bank-details', 'Your current password is needed to change the bank details, and this is not it: nothing changed.'],
      ['/dashboard/payouts/bank-details?lang=fr', 'Votre mot de passe actuel est demandé pour modifier les coordonnées bancaires, et ce n’est pas lui : rien n’a changé.'],
    ] as const) {
      for (const password of [undefined, 'wrong-password']) {
        const page = await app.server.inject({
          method: 'POST',
          url,
          headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload: form({ csrf: s.csrf, ...diverted, ...(password === undefined ? {} : { current_password: password }) }),
        });
        expect(page.statusCode, url).toBe(400);
        expect(page.body, url).toContain(text);
        expect(page.body, url).toMatch(/id="current_password"[^>]*aria-invalid="true"/);
      }
    }
    expect((await api(a, 'GET', '/api/backoffice/payout_bank_details')).json()).toMatchObject({ holder_name: 'Boutique Éa SARL', iban_masked: 'FR76 •••• •••• 0189' });
    expect(await audits()).toBe(auditsBefore);
    expect(smtp.received.length).toBe(mailed);
  });
});

describe('payouts', () => {
  beforeAll(async () => {
    await book(db(), { accountId: a.accountId, currency: 'EUR', kind: 'refund', cents: 2_000, at: new Date('2030-05-10T15:00:00Z'), purchaseId });
    const made = await payoutOfDay(deps(), { accountId: a.accountId, currency: 'EUR', day: '2030-05-10', timeZone: 'Europe/Paris' });
    if (made.kind !== 'created') throw new Error(`expected a payout, got ${made.kind}`);
    payoutId = made.payout.id;
  });

  it('are listed with their status, and one answers with its lines, each with its gross, commission and payout (gross − commission), and its totals', async () => {
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
      gross_cents: 10_000,
      commission_cents: 0,
      payout_cents: 10_000,
      lines: [
        { purchase_uid: `pur_${purchaseId}`, event: 'validated', amount_cents: 12_000, gross_cents: 12_000, commission_cents: 0, payout_cents: 12_000 },
        { purchase_uid: `pur_${purchaseId}`, event: 'refund', amount_cents: -2_000, gross_cents: -2_000, commission_cents: 0, payout_cents: -2_000 },
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

  it('give their lines as CSV, with each line’s gross, commission and payout after the first columns', async () => {
    const res = await api(a, 'GET', `/api/backoffice/payouts/po_${payoutId}/lines.csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe('payout_id,business_day,currency,posting_id,purchase_uid,event,journal,amount_cents,occurred_at,gross_cents,commission_cents,payout_cents');
    expect(
      lines
        .slice(1)
        .map((l) => l.split(','))
        .map((c) => [c[0], c[4], c[5], c[7], c[9], c[10], c[11]]),
    ).toEqual([
      [`po_${payoutId}`, `pur_${purchaseId}`, 'validated', '12000', '12000', '0', '12000'],
      [`po_${payoutId}`, `pur_${purchaseId}`, 'refund', '-2000', '-2000', '0', '-2000'],
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

  it('show on the pages: the list, and a payout with its lines named by the purchase’s reference (gross, commission, payout, in English and French) and CSV link', async () => {
    const s = await signIn(app, a.merchant);
    const list = await app.server.inject({ method: 'GET', url: '/dashboard/payouts', headers: { cookie: s.cookie } });
    expect(list.body).toContain(`href="/dashboard/payouts/po_${payoutId}"`);
    const one = await app.server.inject({ method: 'GET', url: `/dashboard/payouts/po_${payoutId}`, headers: { cookie: s.cookie } });
    expect(one.statusCode).toBe(200);
    expect(one.body).toContain(`/api/backoffice/payouts/po_${payoutId}/lines.csv`);
    // Each line names its purchase by the merchant's reference, linked to it, never by its pur_ id.
    expect(one.body).toContain(`<a href="/dashboard/purchases/pur_${purchaseId}">LIS-2041</a>`);
    expect(one.body).not.toContain(`>pur_${purchaseId}<`);
    expect(one.body).toContain('refund');
    expect(one.body).toContain('<th scope="col" class="num">Gross</th><th scope="col" class="num">Commission</th><th scope="col" class="num">Payout</th>');
    const fr = await app.server.inject({ method: 'GET', url: `/dashboard/payouts/po_${payoutId}?lang=fr`, headers: { cookie: s.cookie } });
    expect(fr.body).toContain('<th scope="col" class="num">Brut</th><th scope="col" class="num">Commission</th><th scope="col" class="num">Versement</th>');
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
    await putBank(b, { holder_name: 'B Ltd', iban: 'GB29NWBK60161331926819', bic: 'NWBKGB2L' });
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

describe('a new IBAN', () => {
  const NEW_IBAN = 'DE89370400440532013000';
  const HOLD_MS = 72 * 3_600_000; // PAYOUT_BANK_DETAILS_HOLD_HOURS' default: 3 days
  const now = () => app.services.clock.now();
  /** A run of every merchant on the service (sandbox) clock, A's euro outcome. */
  const runA = async () => (await runPayouts({ db: db(), clock: app.services.clock, logger: SILENT })).find((r) => r.accountId === a.accountId && r.currency === 'EUR')?.outcome;
  const change = async (iban: string) => {
    const mailed = smtp.received.length;
    const res = await putBank(a, { holder_name: 'Boutique Éa SARL', iban, bic: iban.startsWith('DE') ? 'COBADEFFXXX' : 'AGRIFRPP' });
    expect(res.statusCode, res.body).toBe(200);
    await expect.poll(() => smtp.received.length).toBe(mailed + 2);
    return { body: res.json() as { updated_at: string; payouts_held_until: string | null }, mails: smtp.received.slice(mailed) };
  };

  it('is e-mailed to every admin with both IBANs masked, and holds the payouts until the cooling-off ends, on the service clock', async () => {
    const { body, mails } = await change(NEW_IBAN);
    expect(body.payouts_held_until).toBe(new Date(Date.parse(body.updated_at) + HOLD_MS).toISOString());
    expect(mails.flatMap((m) => m.to).sort()).toEqual([a.merchant.email, admin2.email].sort());
    for (const m of mails) {
      const text = decoded(m.raw);
      expect(text).toContain('IBAN before: FR76 •••• •••• 0189\nIBAN now: DE89 •••• •••• 3000');
      expect(text).toContain('IBAN précédent : FR76 •••• •••• 0189');
      expect(text).toContain(`Payouts are held until ${body.payouts_held_until!.slice(0, 16).replace('T', ' ')} UTC`);
      expect(m.raw).not.toContain('0532');
      expect(m.raw).not.toContain('0112');
    }
    const s = await signIn(app, a.merchant);
    const page = await app.server.inject({ method: 'GET', url: '/dashboard/payouts', headers: { cookie: s.cookie } });
    expect(page.body).toContain('Payouts are held until');
    // Owed now; the balance says it is held, the first run after the change holds it, and the runs until the end of the cooling-off.
    await book(db(), { accountId: a.accountId, currency: 'EUR', kind: 'validated', cents: 3_000, at: now() });
    expect((await api(a, 'GET', '/api/backoffice/balance')).json().currencies[0]).toMatchObject({ owed_cents: 3_000, next_payout: 'held' });
    await app.services.sandboxClock!.advance(26 * 3_600);
    expect(await runA()).toEqual({ kind: 'held', until: new Date(body.payouts_held_until!), owedCents: 3_000, lineCount: 1 });
    await app.services.sandboxClock!.advance(45 * 3_600);
    expect(await runA()).toMatchObject({ kind: 'held', owedCents: 3_000 });
    // The first run after it pays, to the new details.
    await app.services.sandboxClock!.advance(2 * 3_600);
    expect(await runA()).toMatchObject({ kind: 'created', payout: { amount_cents: 3_000 } });
    expect((await api(a, 'GET', '/api/backoffice/payout_bank_details')).json()).toMatchObject({ iban_masked: 'DE89 •••• •••• 3000', payouts_held_until: null });
  });

  it('held is paid at the next run once the operator releases it early, audited', async () => {
    const { body } = await change(IBAN);
    expect(body.payouts_held_until).not.toBeNull();
    await book(db(), { accountId: a.accountId, currency: 'EUR', kind: 'validated', cents: 4_000, at: now() });
    await app.services.sandboxClock!.advance(25 * 3_600);
    expect(await runA()).toMatchObject({ kind: 'held', owedCents: 4_000 });
    expect(await releasePayoutHold({ db: db(), clock: app.services.clock }, a.accountId, { label: 'cli' })).toEqual({
      kind: 'released',
      heldUntil: new Date(body.payouts_held_until!),
    });
    expect(await releasePayoutHold({ db: db(), clock: app.services.clock }, a.accountId, { label: 'cli' })).toEqual({ kind: 'not_held' });
    expect(await runA()).toMatchObject({ kind: 'created', payout: { amount_cents: 4_000 } });
    const audit = await db().query("SELECT actor, details FROM audit_log WHERE account_id = $1 AND action = 'payout_hold_release'", [a.accountId]);
    expect(audit.rows).toEqual([{ actor: 'cli', details: { hold_until: body.payouts_held_until } }]);
  });
});

describe('the operator’s payout files page', () => {
  const C_IBAN = 'DE89370400440532013000';
  let c: Caller;
  let cPayout: string;
  let operator: { email: string; password: string };
  let staff: { cookie: string; csrf: string };
  let exportId: string;
  let messageId: string;
  const inject = (s: { cookie: string }, method: 'GET' | 'POST', url: string, fields?: Record<string, string>) =>
    app.server.inject({
      method,
      url,
      headers: { cookie: s.cookie, ...(fields ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(fields ? { payload: form(fields) } : {}),
    });
  const statusOf = async (id: string) => (await db().query<{ status: string; export_id: string | null }>('SELECT status, export_id FROM payouts WHERE id = $1', [id])).rows[0]!;
  const auditOf = async (accountId: string, action: string) =>
    (
      await db().query<{ actor: string; subject: string; details: Record<string, unknown> }>(
        'SELECT actor, subject, details FROM audit_log WHERE account_id = $1 AND action = $2 ORDER BY created_at, id',
        [accountId, action],
      )
    ).rows;

  beforeAll(async () => {
    c = await caller(app);
    expect((await putBank(c, { holder_name: 'Atelier Cé', iban: C_IBAN, bic: 'COBADEFFXXX' })).statusCode).toBe(200);
    await book(db(), { accountId: c.accountId, currency: 'EUR', kind: 'validated', cents: 7_450, at: new Date('2030-05-09T10:00:00Z') });
    const made = await payoutOfDay(deps(), { accountId: c.accountId, currency: 'EUR', day: '2030-05-09', timeZone: 'Europe/Paris' });
    if (made.kind !== 'created') throw new Error(`expected a payout, got ${made.kind}`);
    cPayout = made.payout.id;
    // The operator's staff: a member of the operator's own account, made operator by `chipin dashboard set-role`'s use case.
    const house = await caller(app);
    operator = await addDashboardUser(app, house.accountId, 'support');
    expect(await setRoleByEmail(db(), operator.email.toUpperCase(), 'operator', { label: 'cli' })).toMatchObject({ ok: true, from: 'support' });
    expect(await auditOf(house.accountId, 'role_change')).toEqual([{ actor: 'cli', subject: operator.email, details: { from: 'support', to: 'operator' } }]);
    staff = await signIn(app, operator);
  });

  it('is refused by role to a merchant’s admin and support user (403, English and French), who change nothing, and is not in their menu', async () => {
    const nothing = 'pex_00000000-0000-4000-8000-00000000000d';
    for (const who of [a.merchant, support]) {
      const s = await signIn(app, who);
      const en = await inject(s, 'GET', '/dashboard/operator/payouts');
      expect(en.statusCode).toBe(403);
      expect(en.body).toContain('does not give access to this page: it is for the operator’s staff.');
      const fr = await inject(s, 'GET', '/dashboard/operator/payouts?lang=fr');
      expect(fr.statusCode).toBe(403);
      expect(fr.body).toContain('elle est réservée au personnel de l’opérateur.');
      expect((await inject(s, 'POST', '/dashboard/operator/payouts/exports', { csrf: s.csrf })).statusCode).toBe(403);
      expect((await inject(s, 'GET', `/dashboard/operator/payouts/exports/${nothing}/file`)).statusCode).toBe(403);
      expect((await inject(s, 'POST', `/dashboard/operator/payouts/exports/${nothing}/sent`, { csrf: s.csrf })).statusCode).toBe(403);
      expect((await inject(s, 'GET', '/dashboard')).body).not.toContain('/dashboard/operator');
    }
    expect(await statusOf(cPayout)).toEqual({ status: 'created', export_id: null });
    expect(await auditOf(c.accountId, 'payout_export')).toEqual([]);
    // Nor can a merchant's admin give the role: the Team page knows a merchant's two roles only.
    const admin = await signIn(app, a.merchant);
    for (const [url, fields] of [
      [`/dashboard/team/members/${support.id}`, { role: 'operator' }],
      ['/dashboard/team/invitations', { email: 'ops@elsewhere.example', role: 'operator' }],
    ] as const) {
      expect((await inject(admin, 'POST', url, { csrf: admin.csrf, ...fields })).statusCode, url).toBe(400);
    }
    expect((await db().query('SELECT role FROM dashboard_users WHERE id = $1', [support.id])).rows).toEqual([{ role: 'support' }]);
    // The operator's staff, in turn, are refused a merchant's admin pages by role.
    const admins = await inject(staff, 'GET', '/dashboard/payouts');
    expect(admins.statusCode).toBe(403);
    expect(admins.body).toContain('Your role (Operator) does not give access to this page: it is for the account’s admins.');
  });

  it('lists every merchant’s payouts not yet in a file and makes the SEPA file of the euro ones, audited on each merchant it pays', async () => {
    const list = await inject(staff, 'GET', '/dashboard/operator/payouts');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('<a href="/dashboard/operator/payouts">Payout files</a>');
    expect(list.body).toContain(`acc_${c.accountId}`);
    expect(list.body).toContain('€74.50');
    const made = await inject(staff, 'POST', '/dashboard/operator/payouts/exports', { csrf: staff.csrf });
    expect(made.statusCode).toBe(200);
    const done = /File (CHIPIN\w+) made: (\d+) transfers?\./.exec(made.body);
    expect(done, made.body).not.toBeNull();
    messageId = done![1]!;
    const payout = await statusOf(cPayout);
    expect(payout.status).toBe('exported');
    exportId = payout.export_id!;
    expect(await auditOf(c.accountId, 'payout_export')).toEqual([
      { actor: operator.email, subject: `po_${cPayout}`, details: { export_id: `pex_${exportId}`, message_id: messageId, amount_cents: 7_450, currency: 'EUR' } },
    ]);
    // The file is listed with its download and its "mark as sent" form.
    expect(made.body).toContain(`href="/dashboard/operator/payouts/exports/pex_${exportId}/file"`);
    expect(made.body).toContain(`action="/dashboard/operator/payouts/exports/pex_${exportId}/sent"`);
  });

  it('downloads the file the command line writes, valid under the pain.001 schema, audited on each merchant it pays', async () => {
    // A HEAD answers the headers and records no download.
    const head = await app.server.inject({ method: 'HEAD', url: `/dashboard/operator/payouts/exports/pex_${exportId}/file`, headers: { cookie: staff.cookie } });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-disposition']).toBe(`attachment; filename="${messageId}.xml"`);
    expect(await auditOf(c.accountId, 'payout_file_download')).toEqual([]);
    const res = await inject(staff, 'GET', `/dashboard/operator/payouts/exports/pex_${exportId}/file`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${messageId}.xml"`);
    expect(res.headers['cache-control']).toBe('no-store');
    // `chipin payout file --export pex_… --out F` writes the same use case's file and a newline.
    const cli = await exportedFile({ db: db(), box: app.services.box }, exportId);
    expect(res.body).toBe(`${cli!.xml}\n`);
    validateXml(res.body, painSchemas()['pain.001.001.09']);
    expect(res.body).toContain(`<IBAN>${C_IBAN}</IBAN>`);
    expect(res.body).toContain('>74.50</InstdAmt>');
    // Both downloads are in the merchant's log: the staff member's, then the command line's.
    expect(await auditOf(c.accountId, 'payout_file_download')).toEqual([
      { actor: operator.email, subject: `po_${cPayout}`, details: { export_id: `pex_${exportId}`, message_id: messageId } },
      { actor: 'cli', subject: `po_${cPayout}`, details: { export_id: `pex_${exportId}`, message_id: messageId } },
    ]);
    expect((await inject(staff, 'GET', '/dashboard/operator/payouts/exports/pex_00000000-0000-4000-8000-00000000000d/file')).statusCode).toBe(404);
  });

  it('marks the file as sent with the command line’s use case: each payout sent, its merchant told, the change audited; once', async () => {
    const res = await inject(staff, 'POST', `/dashboard/operator/payouts/exports/pex_${exportId}/sent`, { csrf: staff.csrf });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(new RegExp(`File ${messageId}: \\d+ payouts? marked as sent; their merchants are told.`));
    expect((await statusOf(cPayout)).status).toBe('sent');
    const marks = [{ actor: operator.email, subject: `po_${cPayout}`, details: { from: 'exported', to: 'sent', amount_cents: 7_450, currency: 'EUR' } }];
    expect(await auditOf(c.accountId, 'payout_mark')).toEqual(marks);
    expect((await db().query("SELECT 1 FROM purchase_events WHERE account_id = $1 AND type = 'payout.paid'", [c.accountId])).rows).toHaveLength(1);
    expect(res.body).not.toContain(`action="/dashboard/operator/payouts/exports/pex_${exportId}/sent"`);
    // Again: nothing left to mark, nothing audited twice.
    const again = await inject(staff, 'POST', `/dashboard/operator/payouts/exports/pex_${exportId}/sent`, { csrf: staff.csrf });
    expect(again.body).toContain(`File ${messageId}: 0 payouts marked as sent`);
    expect(await auditOf(c.accountId, 'payout_mark')).toEqual(marks);
    // A form without the session's token does nothing.
    expect((await inject(staff, 'POST', `/dashboard/operator/payouts/exports/pex_${exportId}/sent`, { csrf: 'wrong' })).statusCode).toBe(403);
    const fr = await inject(staff, 'GET', '/dashboard/operator/payouts?lang=fr');
    expect(fr.body).toContain('<h2 id="files">Fichiers SEPA</h2>');
    expect(fr.body).toContain('Télécharger');
    expect(fr.body).toMatch(/>\d+ envoyés?</);
  });
});
