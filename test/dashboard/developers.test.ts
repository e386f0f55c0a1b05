import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { form, signIn } from '../helpers/dashboard.ts';
import { deliveries, leaderProcessed, newPurchase, NO_JOB_POLL, Receiver, setWebhook, TEST_DELIVERY } from '../delivery/helpers.ts';

/** The back office's Developers page: webhook settings and the delivery log with replay. */
let app: TestApp;
let receiver: Receiver;
let a: Caller;
let s: { cookie: string; csrf: string };

beforeAll(async () => {
  app = await startTestApp(NO_JOB_POLL, { delivery: TEST_DELIVERY });
  receiver = await Receiver.start();
  a = await caller(app);
  s = await signIn(app, a.merchant);
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const get = (url: string, cookie = s.cookie) => app.server.inject({ method: 'GET', url, headers: { cookie } });
const post = (url: string, body: string, cookie = s.cookie) =>
  app.server.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
const webhookOf = async (c: Caller) => (await app.server.inject({ method: 'GET', url: '/api/backoffice/webhook', headers: { authorization: c.dashboard } })).json();

describe('webhook settings', () => {
  it('saves the URL and the ticked events, shows the new secret in that answer only, never on the page afterwards', async () => {
    const body = `${form({ csrf: s.csrf, url: receiver.url() })}&events=paymentProcessed&events=purchaseRefunded`;
    const saved = await post('/dashboard/developers/webhook', body);
    expect(saved.statusCode).toBe(200);
    const api = await webhookOf(a);
    expect(api.url).toBe(receiver.url());
    expect(api.events).toEqual(['paymentProcessed', 'purchaseRefunded']);
    expect(saved.body).toContain(api.secret);
    const later = await get('/dashboard/developers');
    expect(later.statusCode).toBe(200);
    expect(later.body).toContain(receiver.url());
    expect(later.body).not.toContain(api.secret);
    expect(later.body).not.toContain(api.token);
  });

  it('saving again keeps the signing secret and token and says so; the rotate box makes new ones, the previous secret signing until a day later', async () => {
    const first = await webhookOf(a);
    const again = await post('/dashboard/developers/webhook', `${form({ csrf: s.csrf, url: receiver.url('/moved') })}&events=paymentFailed`);
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('Webhook saved. Its signing secret and token are unchanged.');
    expect(again.body).not.toContain(first.secret);
    expect(await webhookOf(a)).toMatchObject({ url: receiver.url('/moved'), events: ['paymentFailed'], secret: first.secret, token: first.token });

    const rotated = await post('/dashboard/developers/webhook?lang=fr', `${form({ csrf: s.csrf, url: receiver.url('/moved'), rotate: '1' })}&events=paymentFailed`);
    expect(rotated.statusCode).toBe(200);
    const now = await webhookOf(a);
    expect(now.secret).not.toBe(first.secret);
    expect(now.token).not.toBe(first.token);
    expect(rotated.body).toContain(now.secret);
    expect(rotated.body).toContain(now.token);
    expect(now.previous_secret_until).toEqual(expect.any(String));
    expect(rotated.body).toContain('L’ancien secret de signature signe aussi chaque webhook jusqu’au');
    // The box is offered once an endpoint exists, with what a rotation does.
    expect((await get('/dashboard/developers')).body).toMatch(/<input type="checkbox" id="rotate" name="rotate" value="1"[^>]*aria-describedby="rotate-hint"/);
  });

  it('refuses a URL that is not one and no event ticked, naming the field, and changes nothing', async () => {
    const before = await webhookOf(a);
    const badUrl = await post('/dashboard/developers/webhook', `${form({ csrf: s.csrf, url: 'not a url' })}&events=paymentProcessed`);
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.body).toMatch(/role="alert"[^>]*>Webhook URL: must be a full address/);
    const noEvent = await post('/dashboard/developers/webhook', form({ csrf: s.csrf, url: receiver.url() }));
    expect(noEvent.statusCode).toBe(400);
    expect(noEvent.body).toMatch(/role="alert"[^>]*>Events sent: tick at least one event/);
    expect(await webhookOf(a)).toEqual(before);
  });

  it('says the refusal in French on a French page, naming the field as the form does', async () => {
    const before = await webhookOf(a);
    const badUrl = await post('/dashboard/developers/webhook?lang=fr', `${form({ csrf: s.csrf, url: 'ftp://files.example/hook' })}&events=paymentProcessed`);
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.body).toMatch(/role="alert"[^>]*>URL du webhook : doit être une adresse http\(s\)/);
    const noEvent = await post('/dashboard/developers/webhook?lang=fr', form({ csrf: s.csrf, url: receiver.url() }));
    expect(noEvent.body).toMatch(/role="alert"[^>]*>Événements envoyés : cochez au moins un événement/);
    expect(badUrl.body + noEvent.body).not.toMatch(/field url|field events/);
    expect(await webhookOf(a)).toEqual(before);
  });

  it('refuses a save without the CSRF token', async () => {
    const before = await webhookOf(a);
    expect((await post('/dashboard/developers/webhook', `${form({ url: 'https://evil.example/hook' })}&events=paymentProcessed`)).statusCode).toBe(403);
    expect(await webhookOf(a)).toEqual(before);
  });
});

describe('delivery log', () => {
  it("lists the account's deliveries and replays one; another merchant's delivery is a 404", async () => {
    await setWebhook(app, a, receiver.url());
    const id = await newPurchase(a);
    await leaderProcessed(app, a, id);
    await app.services.deliveries.worker.runDue();
    const [d] = await deliveries(app, a.accountId);
    expect(d?.status).toBe('succeeded');
    const page = await get('/dashboard/developers');
    expect(page.body).toContain(`pur_${id}`);

    const replayed = await post(`/dashboard/developers/deliveries/dlv_${d!.id}/replay`, form({ csrf: s.csrf }));
    expect(replayed.statusCode).toBe(303);
    expect(replayed.headers.location).toBe('/dashboard/developers?done=replay');
    expect((await deliveries(app, a.accountId))[0]?.status).toBe('pending');

    const b = await caller(app);
    const sb = await signIn(app, b.merchant);
    expect((await post(`/dashboard/developers/deliveries/dlv_${d!.id}/replay`, form({ csrf: sb.csrf }), sb.cookie)).statusCode).toBe(404);
    expect((await get('/dashboard/developers', sb.cookie)).body).not.toContain(id);
  });

  it("pages through the delivery log with the API's cursor, and opens a delivery with every attempt; another account's is a 404", async () => {
    const c = await caller(app);
    const sc = await signIn(app, c.merchant);
    await setWebhook(app, c, receiver.url('/paging'));
    receiver.answer = (r) =>
      r.path === '/paging' && receiver.received.filter((x) => x.path === '/paging').length === 1 ? { kind: 'status', code: 503 } : { kind: 'status', code: 204 };
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) {
      const id = await newPurchase(c);
      await leaderProcessed(app, c, id);
      ids.push(id);
    }
    await app.services.deliveries.worker.runDue();
    const first = await get('/dashboard/developers', sc.cookie);
    const older = /href="(\/dashboard\/developers\?before=[A-Za-z0-9_-]+)#deliveries">Older deliveries</.exec(first.body)?.[1];
    expect(older, 'the first page links to older deliveries').toBeDefined();
    const shown = (body: string) => ids.filter((id) => body.includes(`pur_${id}`));
    const second = await get(older!, sc.cookie);
    expect(second.statusCode).toBe(200);
    expect(second.body).toContain('Newest deliveries');
    expect(second.body).not.toContain('Older deliveries');
    // 22 deliveries: 20 on the first page, the 2 oldest on the next, none twice.
    expect(shown(first.body)).toHaveLength(20);
    expect(shown(second.body).sort()).toEqual(ids.slice(0, 2).sort());
    expect((await get('/dashboard/developers?before=not-a-cursor', sc.cookie)).statusCode).toBe(400);

    // The delivery that failed once: its page lists both attempts.
    const failed = (await deliveries(app, c.accountId)).find((d) => d.attempts > 0 && d.last_status_code === 503);
    expect(failed, 'one delivery failed its first attempt').toBeDefined();
    await app.services.db.query('UPDATE deliveries SET next_attempt_at = now() WHERE id = $1', [failed!.id]);
    await app.services.deliveries.worker.runDue();
    const page = await get(`/dashboard/developers/deliveries/dlv_${failed!.id}`, sc.cookie);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<td>1<\/td><td><time[^>]*>[^<]*<\/time><\/td><td>\d+ ms<\/td><td>503<\/td><td>retry_scheduled<\/td>/);
    expect(page.body).toMatch(/<td>2<\/td><td><time[^>]*>[^<]*<\/time><\/td><td>\d+ ms<\/td><td>204<\/td><td>succeeded<\/td>/);
    expect(page.body).toContain(`aria-label="Replay dlv_${failed!.id}"`);
    expect((await get(`/dashboard/developers/deliveries/dlv_${failed!.id}`)).statusCode).toBe(404); // account a's session
    expect((await get('/dashboard/developers/deliveries/dlv_nope', sc.cookie)).statusCode).toBe(404);
    receiver.answer = { kind: 'status', code: 204 };
  });
});
