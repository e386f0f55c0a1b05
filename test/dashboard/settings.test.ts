import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '../../src/i18n/format.ts';
import { findPurchase } from '../../src/purchases/purchase-repository.ts';
import { loadPayState } from '../../src/payments/pay-state-repository.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';

/** The account's time zone, set in the back office's settings (docs/back-office.md#time-zone). */
let smtp: Awaited<ReturnType<typeof smtpListener>>;
let app: TestApp;
beforeAll(async () => {
  smtp = await smtpListener();
  app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

type Session = { cookie: string; csrf: string };
const get = (url: string, s: Session) => app.server.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
const save = (s: Session, fields: Record<string, string>) =>
  app.server.inject({ method: 'POST', url: '/dashboard/settings', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
/** Spaces of every kind as plain spaces (French uses no-break ones). */
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

async function paidPurchase(a: Caller, pledgers: { email: string; amount_cents: number }[] = []): Promise<string> {
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }));
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as string;
  const paid = await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242', pledgers });
  expect(paid.statusCode, paid.body).toBe(200);
  return id;
}

describe('the account time zone', () => {
  it('is Europe/Paris until an admin saves another; then it is audited and the back office shows times in it, stated', async () => {
    const a = await caller(app);
    const s = await signIn(app, a.merchant);
    const id = await paidPurchase(a);
    const createdAt = (await findPurchase(app.services.db, a.accountId, id))!.createdAt;

    const page = await get('/dashboard/settings', s);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<input id="time_zone" name="time_zone"[^>]* value="Europe\/Paris"/);
    expect((await get('/dashboard/purchases', s)).body).toContain(formatDateTime(createdAt, 'en', 'Europe/Paris'));

    const saved = await save(s, { csrf: s.csrf, time_zone: 'America/New_York' });
    expect(saved.statusCode).toBe(200);
    expect(saved.body).toContain('Settings saved.');
    expect(saved.body).toMatch(/value="America\/New_York"/);
    expect(await app.services.accounts.profileOf(a.accountId)).toMatchObject({ timeZone: 'America/New_York' });

    const list = (await get('/dashboard/purchases', s)).body;
    const shown = formatDateTime(createdAt, 'en', 'America/New_York');
    expect(shown).toMatch(/ \(UTC-[45]\)$/);
    expect(list).toContain(shown);
    expect(list).not.toContain(formatDateTime(createdAt, 'en', 'Europe/Paris'));
    expect(plain((await get(`/dashboard/purchases/pur_${id}?lang=fr`, s)).body)).toContain(plain(formatDateTime(createdAt, 'fr', 'America/New_York')));

    const { rows } = await app.services.db.query<{ action: string; actor: string; subject: string; details: unknown }>(
      "SELECT action, actor, subject, details FROM audit_log WHERE account_id = $1 AND action = 'time_zone_set'",
      [a.accountId],
    );
    expect(rows).toEqual([{ action: 'time_zone_set', actor: a.merchant.email, subject: 'America/New_York', details: { from: 'Europe/Paris' } }]);
  });

  it('refuses a zone Intl does not know with 400 naming the field, and changes nothing', async () => {
    const a = await caller(app);
    const s = await signIn(app, a.merchant);
    for (const typed of ['Mars/Olympus_Mons', '+01:00', '']) {
      const res = await save(s, { csrf: s.csrf, time_zone: typed });
      expect(res.statusCode, typed).toBe(400);
      expect(res.body).toContain(`Time zone: &quot;${typed}&quot; is not a time zone name such as Europe/Paris.`);
      expect(res.body).toMatch(/<input id="time_zone"[^>]* aria-invalid="true"/);
    }
    expect(await app.services.accounts.profileOf(a.accountId)).toMatchObject({ timeZone: 'Europe/Paris' });
    const { rows } = await app.services.db.query("SELECT 1 FROM audit_log WHERE account_id = $1 AND action = 'time_zone_set'", [a.accountId]);
    expect(rows).toEqual([]);
  });

  it('is for admins: a support user gets 403 on the page and the form; a post without the CSRF token changes nothing', async () => {
    const a = await caller(app);
    const support = await signIn(app, await addDashboardUser(app, a.accountId, 'support'));
    expect((await get('/dashboard/settings', support)).statusCode).toBe(403);
    expect((await save(support, { csrf: support.csrf, time_zone: 'UTC' })).statusCode).toBe(403);
    const admin = await signIn(app, a.merchant);
    expect((await save(admin, { time_zone: 'UTC' })).statusCode).toBe(403);
    expect(await app.services.accounts.profileOf(a.accountId)).toMatchObject({ timeZone: 'Europe/Paris' });
  });

  it("is the zone of the account's e-mails and sandbox inbox: the pledge invitation states the deadline in it", async () => {
    const a = await caller(app);
    const s = await signIn(app, a.merchant);
    expect((await save(s, { csrf: s.csrf, time_zone: 'Asia/Kolkata' })).statusCode).toBe(200);
    const friend = `friend-${a.accountId}@example.test`;
    const id = await paidPurchase(a, [{ email: friend, amount_cents: 4_000 }]);
    const deadline = (await loadPayState(app.services.db, a.accountId, id))!.potDeadlineAt!;
    const expected = formatDateTime(deadline, 'en', 'Asia/Kolkata');
    expect(expected).toMatch(/ \(UTC\+5:30\)$/);

    await expect.poll(() => smtp.received.filter((m) => m.to.includes(friend)).length).toBe(1);
    const mail = decoded(smtp.received.find((m) => m.to.includes(friend))!.raw);
    expect(mail).toContain(`Pay your share before ${expected}:`);

    const inbox = await app.server.inject({ method: 'GET', url: '/sandbox/inbox', headers: { authorization: a.dashboard } });
    expect(inbox.statusCode).toBe(200);
    expect(inbox.body).toContain(`Pay your share before ${expected}:`);
    // The inbox's own times (when each message was sent) are in the account's zone too.
    expect(inbox.body).toMatch(/<time datetime="[^"]+">\d{1,2} [A-Z][a-z]+ \d{4}, \d{2}:\d{2} \(UTC\+5:30\)<\/time>/);
  });
});

describe('the account country (docs/messaging.md#phone-numbers)', () => {
  /** The checkout form of a new pot, paid with one friend known by the phone number typed. */
  async function payWithFriendPhone(a: Caller, phone: string) {
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 9_000 }))).json();
    const path = new URL(p.payment_url).pathname;
    const page = await app.server.inject(path);
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    const token = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const fields = {
      csrf: token,
      leader_name: 'Lea',
      holder_name: 'Lea',
      card_number: '4242424242424242',
      card_expiry: '12/30',
      card_cvc: '123',
      pledger_phone: phone,
      pledger_amount: '30.00',
    };
    const res = await app.server.inject({ method: 'POST', url: path, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
    const { rows } = await app.services.db.query<{ phone_number: string }>('SELECT phone_number FROM pledges WHERE purchase_id = $1', [p.id]);
    return { status: res.statusCode, phones: rows.map((r) => r.phone_number) };
  }

  it("reads a British shop's shoppers' national numbers as British once its country is GB; before, the deployment's FR refuses them", async () => {
    const a = await caller(app);
    const s = await signIn(app, a.merchant);
    const before = await payWithFriendPhone(a, '07911 123456');
    expect(before).toEqual({ status: 422, phones: [] });

    const page = await get('/dashboard/settings', s);
    expect(page.body).toMatch(/<input id="country" name="country"[^>]* placeholder="FR"[^>]* value=""/);
    const saved = await save(s, { csrf: s.csrf, time_zone: 'Europe/London', country: 'gb' });
    expect(saved.statusCode).toBe(200);
    expect(saved.body).toMatch(/<input id="country" name="country"[^>]* value="GB"/);
    expect(await app.services.accounts.profileOf(a.accountId)).toMatchObject({ timeZone: 'Europe/London', country: 'GB' });

    expect(await payWithFriendPhone(a, '07911 123456')).toEqual({ status: 303, phones: ['+447911123456'] });
    const { rows } = await app.services.db.query("SELECT subject, details FROM audit_log WHERE account_id = $1 AND action = 'country_set'", [a.accountId]);
    expect(rows).toEqual([{ subject: 'GB', details: { from: null } }]);
  });

  it('refuses a code with no numbering plan with 400 naming the field and changes nothing; a form without the field keeps it; empty goes back to the default', async () => {
    const a = await caller(app);
    const s = await signIn(app, a.merchant);
    expect((await save(s, { csrf: s.csrf, time_zone: 'Europe/Paris', country: 'BE' })).statusCode).toBe(200);
    for (const typed of ['ZZ', 'France', '1']) {
      const res = await save(s, { csrf: s.csrf, time_zone: 'UTC', country: typed });
      expect(res.statusCode, typed).toBe(400);
      expect(res.body).toContain(`Country: &quot;${typed}&quot; is not a two-letter country code such as FR or GB.`);
      expect(res.body).toMatch(/<input id="country"[^>]* aria-invalid="true"/);
    }
    expect(await app.services.accounts.profileOf(a.accountId)).toMatchObject({ timeZone: 'Europe/Paris', country: 'BE' });
    expect((await save(s, { csrf: s.csrf, time_zone: 'UTC' })).statusCode).toBe(200);
    expect(await app.services.accounts.profileOf(a.accountId)).toMatchObject({ timeZone: 'UTC', country: 'BE' });
    expect((await save(s, { csrf: s.csrf, time_zone: 'UTC', country: '' })).statusCode).toBe(200);
    expect(await app.services.accounts.profileOf(a.accountId)).toMatchObject({ country: null });
  });
});

describe('merchant create --language', () => {
  it("stores the account's language, read in any spelling, and refuses one of none of the six, creating nothing", async () => {
    const made = await app.services.accounts.createMerchant({ name: 'Wurst Shop', email: 'owner@wurst-language.example', language: 'de_DE' });
    const { rows } = await app.services.db.query<{ language: string }>('SELECT language FROM accounts WHERE id = $1', [made.account_id.slice('acc_'.length)]);
    expect(rows[0]?.language).toBe('de');
    await expect(app.services.accounts.createMerchant({ name: 'Loja', email: 'owner@loja-language.example', language: 'pt_BR' })).rejects.toMatchObject({
      code: 'invalid_language',
    });
    const { rows: none } = await app.services.db.query('SELECT 1 FROM dashboard_users WHERE email = $1', ['owner@loja-language.example']);
    expect(none).toEqual([]);
  });
});

describe('merchant create --country', () => {
  it("stores the operator's country in capitals and refuses a code with no numbering plan, creating nothing", async () => {
    const made = await app.services.accounts.createMerchant({ name: 'Tea Shop', email: 'owner@tea-country.example', country: 'gb' });
    const id = made.account_id.slice('acc_'.length);
    expect(await app.services.accounts.profileOf(id)).toMatchObject({ country: 'GB' });
    await expect(app.services.accounts.createMerchant({ name: 'Nowhere', email: 'owner@nowhere-country.example', country: 'ZZ' })).rejects.toMatchObject({
      code: 'invalid_country',
    });
    const { rows } = await app.services.db.query('SELECT 1 FROM dashboard_users WHERE email = $1', ['owner@nowhere-country.example']);
    expect(rows).toEqual([]);
  });
});
