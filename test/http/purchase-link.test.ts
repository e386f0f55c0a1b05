import { createServer, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';

let smtp: Awaited<ReturnType<typeof smtpListener>>;
let sms: { port: number; received: { to: string; text: string }[]; close(): void };
let app: TestApp;
let a: Caller;
let b: Caller;

/** A stand-in for the SMS operator's HTTP API on loopback, keeping what it receives. */
async function smsGateway() {
  const received: { to: string; text: string }[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    received.push(JSON.parse(body));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `sms-${received.length}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, received, close: () => server.close() };
}

beforeAll(async () => {
  smtp = await smtpListener();
  sms = await smsGateway();
  app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, smsGatewayUrl: `http://127.0.0.1:${sms.port}/send` });
  [a, b] = await twoMerchants(app);
});
afterAll(async () => {
  await app.close();
  await smtp.close();
  sms.close();
});

const link = (c: Caller, body: unknown, merchantUid = c.offer('SHARED'), headers = {}) => c.post(`/api/merchants/${merchantUid}/purchase_link`, body, headers);
const data = (over: Record<string, unknown> = {}) => ({
  title: 'Trip to Lisbon',
  reference: 'ORDER-7',
  amountCents: 12_345,
  email: 'leader@example.com',
  language: 'en_GB',
  ...over,
});

describe('POST /api/merchants/<merchant_uid>/purchase_link', () => {
  it('creates the purchase and e-mails the link through a real SMTP server', async () => {
    const res = await link(a, { data: data({ merchantUid: a.offer('SHARED'), firstName: 'Ana' }), purchase_link_settings: { send_email: true, email: 'ana@example.com' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ purchase_uid: expect.stringMatching(/^pur_[0-9a-f-]{36}$/), url: expect.any(String), email_has_been_sent: true });
    expect(body.url).toBe(`http://127.0.0.1:3000/pay/${body.purchase_uid}`);
    const mail = smtp.received.find((m) => m.to.includes('ana@example.com'));
    expect(mail).toBeDefined();
    expect(decoded(mail!.raw)).toContain(body.url);
    // The same purchase through Merchant API v1.
    const v1 = (await a.get(`/api/merchants/v1/purchases/${body.purchase_uid.slice(4)}`)).json();
    expect(v1).toMatchObject({
      ref: 'ORDER-7',
      title: 'Trip to Lisbon',
      amount: 12_345,
      currency: 'EUR',
      state: 'INITIALIZED',
      client: { email: 'leader@example.com', first_name: 'Ana' },
    });
  });

  it('a down payment: data.balancePaymentDate is its balance date; one the offer cannot take is refused naming it', async () => {
    const uid = a.offer('DOWN_PAYMENT');
    const today = (await a.get('/api/sandbox/clock')).json().now.slice(0, 10) as string;
    const day = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    const res = await link(a, { data: data({ reference: 'DP-1', balancePaymentDate: day(10) }) }, uid);
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().purchase_uid.slice(4);
    const { rows } = await app.services.db.query<{ d: string }>("SELECT to_char(balance_payment_date, 'YYYY-MM-DD') AS d FROM purchases WHERE id = $1", [id]);
    expect(rows[0]!.d).toBe(day(10));
    const late = await link(a, { data: data({ reference: 'DP-2', balancePaymentDate: day(61) }) }, uid);
    expect(late.statusCode).toBe(400);
    expect(late.json().error.debug).toMatch(/^field data\.balancePaymentDate is not possible for this offer: the balance payment date .* is after the latest this offer allows/);
  });

  it('sends the SMS through the HTTP gateway, in the purchase language', async () => {
    const res = await link(a, { data: data({ language: 'fr_FR' }), purchase_link_settings: { send_sms: true, phone_number: '+33612345678' } });
    expect(res.json()).toMatchObject({ sms_has_been_sent: true });
    expect(res.json()).not.toHaveProperty('email_has_been_sent');
    const text = sms.received.find((m) => m.to === '+33612345678')!.text;
    expect(text).toContain(res.json().url);
    expect(text).toMatch(/123,45/); // French number format
  });

  it('both channels at once; no flag means neither flag in the answer', async () => {
    const both = await link(a, { data: data(), purchase_link_settings: { send_email: true, email: 'both@example.com', send_sms: true, phone_number: '+447700900123' } });
    expect(both.json()).toMatchObject({ email_has_been_sent: true, sms_has_been_sent: true });
    const none = await link(a, { data: data() });
    expect(Object.keys(none.json()).sort()).toEqual(['purchase_uid', 'url']);
  });

  it('a refused e-mail answers email_has_been_sent false and keeps the purchase', async () => {
    const refusing = await smtpListener({
      onRcptTo(_address, _session, callback) {
        callback(new Error('550 mailbox unavailable'));
      },
    });
    const other = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${refusing.port}` });
    try {
      const c = await caller(other);
      const res = await link(c, { data: data(), purchase_link_settings: { send_email: true, email: 'gone@example.com' } });
      expect(res.statusCode).toBe(200);
      expect(res.json().email_has_been_sent).toBe(false);
      const v1 = await c.get(`/api/merchants/v1/purchases/${res.json().purchase_uid.slice(4)}`);
      expect(v1.statusCode).toBe(200);
    } finally {
      await other.close();
      await refusing.close();
    }
  });

  it.each([
    ['send_email without email', { data: data(), purchase_link_settings: { send_email: true } }, 'purchase_link_settings.email'],
    ['send_sms without phone_number', { data: data(), purchase_link_settings: { send_sms: true } }, 'purchase_link_settings.phone_number'],
    ['malformed e-mail', { data: data(), purchase_link_settings: { send_email: true, email: 'nope' } }, 'purchase_link_settings.email'],
    ['phone without +', { data: data(), purchase_link_settings: { send_sms: true, phone_number: '0612345678' } }, 'purchase_link_settings.phone_number'],
    ['phone too short for its country', { data: data(), purchase_link_settings: { send_sms: true, phone_number: '+331234567' } }, 'purchase_link_settings.phone_number'],
    ['leader phone of no possible length', { data: data({ phoneNumber: '+4412345' }) }, 'data.phoneNumber'],
    ['data.merchantUid differs from the path', { data: data({ merchantUid: 'mer_00000000-0000-4000-8000-000000000000' }) }, 'data.merchantUid'],
    ['amountCents as string', { data: data({ amountCents: '100' }) }, 'data.amountCents'],
    ['negative amountCents', { data: data({ amountCents: -5 }) }, 'data.amountCents'],
    ['amountCents over the offer maximum', { data: data({ amountCents: 5_000_000 }) }, 'data.amountCents'],
    ['language not xx_XX', { data: data({ language: 'french' }) }, 'data.language'],
    ['missing title', { data: { amountCents: 100, email: 'a@example.com' } }, 'data.title'],
    ['missing data', { purchase_link_settings: {} }, 'data'],
    ['unknown currency', { data: data({ currency: 'ABC' }) }, 'data.currency'],
    ['javascript: redirectUrl', { data: data({ redirectUrl: 'javascript:alert(1)' }) }, 'data.redirectUrl'],
  ])('%s → 400 in the Token API format naming the field; nothing stored or sent', async (_name, body, field) => {
    const before = (await app.services.db.query<{ n: number }>('SELECT count(*) AS n FROM purchases')).rows[0]!.n;
    const mails = smtp.received.length;
    const res = await link(a, body);
    expect(res.statusCode).toBe(400);
    const err = res.json().error;
    expect(Object.keys(err).sort()).toEqual(['app_error', 'debug', 'info']);
    expect(err.debug).toContain(field);
    expect((await app.services.db.query<{ n: number }>('SELECT count(*) AS n FROM purchases')).rows[0]!.n).toBe(before);
    expect(smtp.received.length).toBe(mails);
  });

  it('localises info from data.language', async () => {
    const res = await link(a, { data: data({ language: 'fr_FR', amountCents: -1 }) });
    expect(res.json().error.info).toBe("La requête n'est pas valide.");
  });

  it("answers 404 for another account's offer, an unknown or malformed merchant_uid", async () => {
    for (const uid of [b.offer('SHARED'), 'mer_00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await link(a, { data: data() }, uid);
      expect(res.statusCode, uid).toBe(404);
      expect(res.json().error.app_error).toBe('not_found');
    }
  });

  it('answers 401 without a token', async () => {
    const res = await app.server.inject({ method: 'POST', url: `/api/merchants/${a.offer('SHARED')}/purchase_link`, payload: { data: data() } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('invalid_token');
  });

  it('keeps metadata, redirect and cancel URLs, and ignores data keys the contract does not list', async () => {
    const res = await link(a, { data: data({ metadata: { cart: 'c-1' }, redirectUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/ko', showCloseButton: true }) });
    expect(res.statusCode).toBe(200);
    const { rows } = await app.services.db.query<{ metadata: unknown; callback_url: string; cancel_url: string }>(
      'SELECT metadata, callback_url, cancel_url FROM purchases WHERE id = $1',
      [res.json().purchase_uid.slice(4)],
    );
    expect(rows[0]).toEqual({ metadata: { cart: 'c-1' }, callback_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/ko' });
  });
});
