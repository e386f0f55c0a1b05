import { createServer, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cookiesOf, csrfField, form } from '../helpers/dashboard.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';
import { requestSignIn } from '../../src/shopper-space/sign-in.ts';

/** The shopper's space: sign-in by e-mail link or SMS code, sessions, sign-out (docs/shopper-space.md), through HTTP. */
let smtp: Awaited<ReturnType<typeof smtpListener>>;
let sms: { port: number; received: { to: string; text: string }[]; close(): void };
let app: TestApp;
let a: Caller;
let b: Caller;

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
  [a, b] = await twoMerchants(app, ['Shoe Shop', 'Bike Shop']);
  // Ann bought at A (as Ann@Example.com: e-mails are compared lower-cased); Bob at B; Carla only by phone at A.
  await a.post('/api/merchants/v1/purchases', { title: 'Red shoes', amount: 12_000, client: { email: 'Ann@Example.com' } });
  await b.post('/api/merchants/v1/purchases', { title: 'Bike', amount: 45_000, client: { email: 'bob@example.com' } });
  const carla = await a.post(`/api/merchants/${a.offer('SHARED')}/purchase_link`, {
    data: { title: 'Tent', reference: 'T-1', amountCents: 20_000, email: 'carla@example.com', phoneNumber: '+33612345678', language: 'fr_FR' },
  });
  expect(carla.statusCode).toBe(200);
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
  sms?.close();
});

/** A browser: its cookie jar, kept across requests as a browser keeps it. */
function browser() {
  const jar: Record<string, string> = {};
  const cookie = () =>
    Object.entries(jar)
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  const keep = (res: Awaited<ReturnType<TestApp['server']['inject']>>) => {
    Object.assign(jar, cookiesOf(res));
    return res;
  };
  return {
    jar,
    get: async (url: string, headers: Record<string, string> = {}) => keep(await app.server.inject({ method: 'GET', url, headers: { cookie: cookie(), ...headers } })),
    post: async (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      keep(
        await app.server.inject({
          method: 'POST',
          url,
          headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
          payload: form(fields),
        }),
      ),
  };
}

/** Asks for a link in this browser and answers the link's path, from the mail the SMTP listener received. */
async function askLink(br: ReturnType<typeof browser>, identity: string, then?: string): Promise<string> {
  const before = smtp.received.length;
  const page = await br.get(`/space/sign-in${then ? `?then=${encodeURIComponent(then)}` : ''}`);
  const res = await br.post(`/space/sign-in${then ? `?then=${encodeURIComponent(then)}` : ''}`, { csrf: csrfField(page.body), identity });
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toMatch(/^\/space\/sign-in\/sent/);
  await waitFor(() => smtp.received.length > before);
  const text = decoded(smtp.received.at(-1)!.raw);
  return new URL(/https?:\/\/\S+\/space\/sign-in\/link\/[A-Za-z0-9_-]{43}/.exec(text)![0]).pathname;
}

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
}

describe('sign-in by e-mail link', () => {
  it('sends a link to a known address, which signs this browser in once and opens the space', async () => {
    const br = browser();
    const link = await askLink(br, '  ANN@example.com ');
    expect(smtp.received.at(-1)!.to).toEqual(['ann@example.com']);
    const opened = await br.get(link);
    expect(opened.statusCode).toBe(303);
    expect(opened.headers.location).toBe('/space');
    const line = ([] as string[]).concat(opened.headers['set-cookie'] ?? []).find((c) => c.startsWith('chipin_space='))!;
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Lax/);
    expect(line).toMatch(/Path=\/space/);
    const space = await br.get('/space');
    expect(space.statusCode).toBe(200);
    expect(space.body).toContain('Red shoes');
    expect(space.body).toContain('Shoe Shop');
    expect(space.body).not.toContain('Bike');

    const again = await browser().get(link);
    expect(again.statusCode).toBe(410);
    const sameBrowserAgain = await br.get(link);
    expect(sameBrowserAgain.statusCode).toBe(410);
  });

  it('works only in the browser that asked: another browser is told so, and the link still works where it was asked', async () => {
    const asker = browser();
    const link = await askLink(asker, 'ann@example.com');
    const other = browser();
    const refused = await other.get(link);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('browser where you asked for it');
    expect(cookiesOf(refused).chipin_space).toBeUndefined();
    expect((await asker.get(link)).statusCode).toBe(303);
  });

  it('answers an unknown address as a known one, and sends it nothing', async () => {
    const br = browser();
    const before = smtp.received.length;
    const page = await br.get('/space/sign-in');
    const res = await br.post('/space/sign-in', { csrf: csrfField(page.body), identity: 'nobody@example.com' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/space\/sign-in\/sent/);
    await new Promise((r) => setTimeout(r, 50));
    expect(smtp.received.length).toBe(before);
  });

  it('names the field when what is typed is neither an e-mail nor a phone number, in French for a French browser', async () => {
    const br = browser();
    const headers = { 'accept-language': 'fr-FR,fr;q=0.9' };
    const page = await br.get('/space/sign-in', headers);
    const res = await br.post('/space/sign-in', { csrf: csrfField(page.body), identity: 'not an address' }, headers);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<html lang="fr-FR">');
    expect(res.body).toContain('Saisissez une adresse e-mail');
    expect(res.body).toContain('aria-invalid="true"');
  });

  it('refuses the form without its CSRF token, or posted from another site', async () => {
    const br = browser();
    const page = await br.get('/space/sign-in');
    expect((await br.post('/space/sign-in', { identity: 'ann@example.com' })).statusCode).toBe(403);
    expect((await br.post('/space/sign-in', { csrf: csrfField(page.body), identity: 'ann@example.com' }, { 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
  });

  it('sends at most 5 links an address in 15 minutes, then answers 429 with Retry-After', async () => {
    const br = browser();
    const page = await br.get('/space/sign-in');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await br.post('/space/sign-in', { csrf: csrfField(page.body), identity: 'spam-target@example.com' })).statusCode);
    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
  });

  it('returns to the purchase page the shopper was sent to sign in from', async () => {
    const br = browser();
    const path = '/space/purchases/pur_00000000-0000-4000-8000-000000000001';
    const bounced = await br.get(path);
    expect(bounced.statusCode).toBe(303);
    expect(bounced.headers.location).toBe(`/space/sign-in?then=${encodeURIComponent(path)}`);
    const link = await askLink(br, 'ann@example.com', path);
    const opened = await br.get(link);
    expect(opened.headers.location).toBe(path);
  });

  it('never returns to a page outside the space', async () => {
    const br = browser();
    const link = await askLink(br, 'ann@example.com', 'https://evil.example/space');
    expect((await br.get(link)).headers.location).toBe('/space');
  });
});

describe('sessions', () => {
  it('sends a browser without a session to the sign-in form', async () => {
    const res = await browser().get('/space');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/space/sign-in');
  });

  it('ends the session at sign-out (the old cookie opens nothing), and refuses a sign-out without the CSRF token', async () => {
    const br = browser();
    await br.get(await askLink(br, 'bob@example.com'));
    const space = await br.get('/space');
    expect(space.body).toContain('Bike');
    const token = br.jar.chipin_space!;
    expect((await br.post('/space/sign-out', { csrf: 'wrong' })).statusCode).toBe(403);
    expect((await br.get('/space')).statusCode).toBe(200);
    const out = await br.post('/space/sign-out', { csrf: csrfField(space.body) });
    expect(out.statusCode).toBe(303);
    const replay = await app.server.inject({ method: 'GET', url: '/space', headers: { cookie: `chipin_space=${token}` } });
    expect(replay.statusCode).toBe(303);
  });
});

describe('sign-in by SMS code', () => {
  async function askCode(br: ReturnType<typeof browser>, phone: string): Promise<string> {
    const before = sms.received.length;
    const page = await br.get('/space/sign-in');
    const res = await br.post('/space/sign-in', { csrf: csrfField(page.body), identity: phone });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/space\/sign-in\/code/);
    await waitFor(() => sms.received.length > before);
    expect(sms.received.at(-1)!.to).toBe('+33612345678');
    return /(\d{6})/.exec(sms.received.at(-1)!.text)![1]!;
  }

  it('sends a code to a national number read in the shop country, which signs this browser in once', async () => {
    const br = browser();
    const code = await askCode(br, '06 12 34 56 78');
    const form = await br.get('/space/sign-in/code?sent=1');
    const res = await br.post('/space/sign-in/code', { csrf: csrfField(form.body), code });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/space');
    expect((await br.get('/space')).body).toContain('Tent');
    const twice = await br.post('/space/sign-in/code', { csrf: csrfField(form.body), code });
    expect(twice.statusCode).toBe(410);
  });

  it('refuses the code in another browser', async () => {
    const br = browser();
    const code = await askCode(br, '+33 6 12 34 56 78');
    const other = browser();
    const form = await other.get('/space/sign-in/code');
    const res = await other.post('/space/sign-in/code', { csrf: csrfField(form.body), code });
    expect(res.statusCode).toBe(410);
    expect(cookiesOf(res).chipin_space).toBeUndefined();
  });

  it('takes 5 tries of a code, then not even the right one', async () => {
    const br = browser();
    const code = await askCode(br, '+33612345678');
    const wrong = code === '000000' ? '111111' : '000000';
    const form = await br.get('/space/sign-in/code');
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) answers.push((await br.post('/space/sign-in/code', { csrf: csrfField(form.body), code: wrong })).statusCode);
    expect(answers).toEqual([400, 400, 400, 400, 400]);
    const right = await br.post('/space/sign-in/code', { csrf: csrfField(form.body), code });
    expect(right.statusCode).toBe(410);
    expect(cookiesOf(right).chipin_space).toBeUndefined();
  });
});

describe('sign-in messages in the sandbox inbox', () => {
  type InboxMessage = { channel: string; recipient: string; subject: string | null; body: string; purchase_uid: string | null };
  const inbox = async (c: Caller) =>
    ((await app.server.inject({ method: 'GET', url: '/api/sandbox/messages', headers: { authorization: `Bearer ${c.token}` } })).json() as { messages: InboxMessage[] }).messages;
  /** The newest message `pick` matches once there are more than `before` of them (the inbox is newest first). */
  function newMessage(c: Caller, pick: (m: InboxMessage) => boolean, before: number): Promise<InboxMessage> {
    return vi.waitFor(
      async () => {
        const found = (await inbox(c)).filter(pick);
        if (found.length <= before) throw new Error('the message never reached the inbox');
        return found[0]!;
      },
      { timeout: 2_000, interval: 10 },
    );
  }

  it("writes the sign-in link in the inbox of the shopper's merchant only, and that link signs in", async () => {
    const br = browser();
    const page = await br.get('/space/sign-in');
    const isLink = (m: InboxMessage) => m.recipient === 'ann@example.com' && m.subject === 'Your sign-in link to your Chipin space';
    const before = (await inbox(a)).filter(isLink).length;
    expect((await br.post('/space/sign-in', { csrf: csrfField(page.body), identity: 'ann@example.com' })).statusCode).toBe(303);
    const mail = await newMessage(a, isLink, before);
    expect(mail).toMatchObject({ channel: 'email', purchase_uid: null });
    // Ann bought nothing at B: B's inbox never shows her link.
    expect((await inbox(b)).some((m) => m.recipient === 'ann@example.com')).toBe(false);
    const link = new URL(/https?:\/\/\S+\/space\/sign-in\/link\/[A-Za-z0-9_-]{43}/.exec(mail.body)![0]).pathname;
    const opened = await br.get(link);
    expect(opened.statusCode).toBe(303);
    expect((await br.get('/space')).body).toContain('Red shoes');
  });

  it('writes the SMS code there too, and it signs in', async () => {
    const br = browser();
    const page = await br.get('/space/sign-in');
    const isCode = (m: InboxMessage) => m.recipient === '+33612345678' && m.channel === 'sms';
    const before = (await inbox(a)).filter(isCode).length;
    expect((await br.post('/space/sign-in', { csrf: csrfField(page.body), identity: '+33612345678' })).statusCode).toBe(303);
    const sms = await newMessage(a, isCode, before);
    expect(sms.body).toMatch(/code de connexion est \d{6}|sign-in code is \d{6}/);
    const code = /(\d{6})/.exec(sms.body)![1]!;
    const form = await br.get('/space/sign-in/code?sent=1');
    const res = await br.post('/space/sign-in/code', { csrf: csrfField(form.body), code });
    expect(res.statusCode).toBe(303);
    expect((await br.get('/space')).body).toContain('Tent');
  });

  it('writes no copy for a shopper with purchases at two merchants: the link would show either the other’s purchases', async () => {
    await a.post('/api/merchants/v1/purchases', { title: 'Socks', amount: 1_000, client: { email: 'both@example.com' } });
    await b.post('/api/merchants/v1/purchases', { title: 'Bell', amount: 2_000, client: { email: 'both@example.com' } });
    const br = browser();
    const page = await br.get('/space/sign-in');
    const before = smtp.received.length;
    expect((await br.post('/space/sign-in', { csrf: csrfField(page.body), identity: 'both@example.com' })).statusCode).toBe(303);
    await vi.waitFor(() => expect(smtp.received.length).toBeGreaterThan(before), { timeout: 2_000, interval: 10 });
    // The same path writes a single merchant's copy within a few ticks (the tests above); here, none.
    await new Promise((r) => setTimeout(r, 200));
    for (const c of [a, b]) expect((await inbox(c)).some((m) => m.recipient === 'both@example.com' && m.subject !== null && m.subject.includes('sign-in'))).toBe(false);
  });

  it('writes nothing outside the sandbox: the link or code is the shopper’s secret', async () => {
    const sent: string[] = [];
    const { services } = app;
    const deps = {
      db: services.db,
      clock: services.clock,
      mailer: { send: async (m: { to: string }) => (sent.push(m.to), { accepted: true }) },
      sms: { send: async (to: string) => (sent.push(to), { accepted: true }) },
      budgets: services.authBudgets,
      masterKey: services.config.masterKey,
      publicUrl: services.config.publicUrl,
      sandboxInbox: false,
    };
    const before = (await inbox(b)).length;
    const asked = await requestSignIn(deps, { identity: { kind: 'email', value: 'bob@example.com' }, browser: 'b'.repeat(32), ip: '192.0.2.7', lang: 'en' });
    expect(asked).toEqual({ kind: 'sent', channel: 'email' });
    for (let i = 0; i < 100 && sent.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(sent).toEqual(['bob@example.com']);
    // The same path with sandboxInbox writes within a few ticks (the tests above); here, nothing.
    await new Promise((r) => setTimeout(r, 200));
    expect((await inbox(b)).length).toBe(before);
  });
});
