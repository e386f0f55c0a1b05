import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit/audit-repository.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';
import { Receiver, setWebhook } from '../delivery/helpers.ts';

/** "Send a test event" (docs/webhooks.md#test-event): one signed webhook now, from the Developers page and the back-office API; not a delivery. */
let app: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  [app, receiver] = await Promise.all([startTestApp(), Receiver.start()]);
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const post = (url: string, s: { cookie: string }, fields: Record<string, string>) =>
  app.server.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
const deliveryCount = async (m: Caller) =>
  Number((await app.services.db.query<{ n: string }>('SELECT count(*) AS n FROM deliveries WHERE account_id = $1', [m.accountId])).rows[0]!.n);

describe('the test event', () => {
  it('sends one webhook signed with the endpoint secret, in the real shape, and shows the answer; no delivery is recorded; audited', async () => {
    const m = await caller(app);
    const hook = await setWebhook(app, m, receiver.url('/test-ok'), ['purchaseRefunded', 'paymentProcessed']);
    receiver.answer = { kind: 'status', code: 204 };
    const s = await signIn(app, m.merchant);
    const before = receiver.received.length;
    const res = await post('/dashboard/developers/webhook/test', s, { csrf: s.csrf });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/Test event purchaseRefunded sent: the endpoint answered 204 in \d+ ms\./);
    expect(receiver.received.length).toBe(before + 1);
    const r = receiver.received.at(-1)!;
    expect(r.path).toBe('/test-ok');
    const body = new Webhook(hook.secret).verify(r.body, r.headers as Record<string, string>);
    expect(body).toEqual({
      triggerID: 0,
      triggerName: 'purchaseRefunded',
      triggerDate: expect.any(String),
      token: hook.token,
      objects: { purchaseId: '00000000-0000-0000-0000-000000000000' },
    });
    expect(Object.keys(JSON.parse(r.body))).toEqual(['triggerID', 'triggerName', 'triggerDate', 'token', 'objects']);
    expect(r.headers['webhook-id']).toMatch(/^msg_test_[0-9a-f-]{36}$/);
    expect(await deliveryCount(m)).toBe(0);
    expect((await listAudit(app.services.db, m.accountId, { limit: 1 }))[0]).toMatchObject({ action: 'webhook_test', details: { event: 'purchaseRefunded', status_code: 204 } });
  });

  it('shows a refusal or an unreachable endpoint as not accepted, and the API answers the same', async () => {
    const m = await caller(app);
    await setWebhook(app, m, receiver.url('/test-500'));
    receiver.answer = { kind: 'status', code: 500 };
    const s = await signIn(app, m.merchant);
    const page = await post('/dashboard/developers/webhook/test', s, { csrf: s.csrf });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/role="alert">Test event \w+ not accepted: HTTP 500\./);

    const api = await app.server.inject({ method: 'POST', url: '/api/backoffice/webhook/test', headers: { authorization: m.dashboard } });
    expect(api.statusCode).toBe(200);
    expect(api.json()).toEqual({ trigger_name: expect.any(String), delivered: false, status_code: 500, error: null, duration_ms: expect.any(Number) });

    // A port nobody listens on: no status, the network error instead.
    const closed = await Receiver.start();
    const url = closed.url('/gone');
    await closed.close();
    await setWebhook(app, m, url);
    const unreachable = (await app.server.inject({ method: 'POST', url: '/api/backoffice/webhook/test', headers: { authorization: m.dashboard } })).json();
    expect(unreachable).toMatchObject({ delivered: false, status_code: null, error: expect.stringMatching(/ECONNREFUSED/) });
    receiver.answer = { kind: 'status', code: 204 };
  });

  it('refuses without an endpoint (409), without the CSRF token, and for a support user; nothing is sent', async () => {
    const m = await caller(app);
    const s = await signIn(app, m.merchant);
    const none = await post('/dashboard/developers/webhook/test', s, { csrf: s.csrf });
    expect(none.statusCode).toBe(409);
    expect(none.body).toContain('Save a webhook URL first');
    const api = await app.server.inject({ method: 'POST', url: '/api/backoffice/webhook/test', headers: { authorization: m.dashboard } });
    expect(api.statusCode).toBe(409);
    expect(api.json().error.debug).toContain('no webhook URL is set');

    await setWebhook(app, m, receiver.url('/never'));
    const before = receiver.received.length;
    expect((await post('/dashboard/developers/webhook/test', s, { csrf: 'wrong' })).statusCode).toBe(403);
    const support = await signIn(app, await addDashboardUser(app, m.accountId, 'support'));
    expect((await post('/dashboard/developers/webhook/test', support, { csrf: support.csrf })).statusCode).toBe(403);
    expect(receiver.received.length).toBe(before);
  });
});
