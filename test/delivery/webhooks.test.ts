import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toPublicId } from '../../src/domain/ids.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { advance, deliveries, insertEvent, leaderProcessed, newPurchase, NO_JOB_POLL, Receiver, setWebhook, TEST_DELIVERY } from './helpers.ts';

let db: IsolatedDatabase;
let app: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  db = await isolatedDatabase();
  app = await startTestApp(NO_JOB_POLL, { db: db.open(), delivery: TEST_DELIVERY });
  receiver = await Receiver.start();
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await db?.dispose();
});
beforeEach(async () => {
  receiver.answer = { kind: 'status', code: 204 };
  receiver.received.length = 0;
  // Retries left pending by an earlier test would fall due when this one moves the clock.
  await app.services.db.query(`UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE status = 'pending'`);
});

const runDue = () => app.services.deliveries.worker.runDue();
const bodies = () => receiver.received.map((r) => JSON.parse(r.body) as { triggerID: number; triggerName: string; objects: Record<string, string> });

function inject(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, authorization?: string, payload?: unknown) {
  return app.server.inject({
    method,
    url,
    headers: { ...(authorization ? { authorization } : {}), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
}

describe(`webhooks (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  describe('back office: PUT/GET /api/backoffice/webhook', () => {
    it('refuses missing or wrong dashboard credentials with 401, WWW-Authenticate: Basic and a Token API error body', async () => {
      const m = await caller(app);
      for (const auth of [
        undefined,
        'Basic ' + Buffer.from(`${m.merchant.email}:wrong`).toString('base64'),
        'Basic ' + Buffer.from(`${m.merchant.api_key}:${m.merchant.api_secret}`).toString('base64'),
        `Bearer ${m.token}`,
      ]) {
        const res = await inject('PUT', '/api/backoffice/webhook', auth, { url: receiver.url() });
        expect(res.statusCode).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Basic realm="Chipin back office"/);
        expect(res.json()).toEqual({ error: { app_error: 'invalid_client', debug: expect.any(String), info: expect.any(String) } });
      }
      expect((await inject('GET', '/api/backoffice/webhook', m.dashboard)).statusCode).toBe(404);
    });

    it('sets the URL with a new random token and whsec_ secret, readable back; the default events are the contract three; setting it again keeps both', async () => {
      const m = await caller(app);
      const first = await setWebhook(app, m, receiver.url());
      expect(first).toEqual({
        url: receiver.url(),
        token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        events: ['paymentProcessed', 'paymentFailed', 'pledgerContributes'],
      });
      const read = await inject('GET', '/api/backoffice/webhook', m.dashboard);
      expect(read.statusCode).toBe(200);
      expect(read.headers['cache-control']).toBe('no-store');
      expect(read.json()).toEqual({ ...first, updated_at: expect.any(String) });

      // A change of URL or events keeps the token and secret the merchant checks with.
      const second = await setWebhook(app, m, receiver.url('/other'), ['purchaseAborted', 'paymentProcessed', 'purchaseAborted']);
      expect(second).toEqual({ url: receiver.url('/other'), token: first.token, secret: first.secret, events: ['purchaseAborted', 'paymentProcessed'] });
      expect((await setWebhook(app, m, receiver.url('/other'), undefined, false)).secret).toBe(first.secret);
      // Stored sealed, never in clear.
      const { rows } = await app.services.db.query<{ token_enc: string; secret_enc: string }>('SELECT token_enc, secret_enc FROM webhook_endpoints WHERE account_id = $1', [
        m.accountId,
      ]);
      expect(JSON.stringify(rows)).not.toContain(second.token);
      expect(JSON.stringify(rows)).not.toContain(second.secret.slice(6));
    });

    it('rotates only when asked: a new token and secret, the previous secret signing beside the new one for 24 hours, then alone the new', async () => {
      const m = await caller(app);
      const first = await setWebhook(app, m, receiver.url());
      const before = Date.now();
      const rotated = await setWebhook(app, m, receiver.url(), undefined, true);
      expect(rotated.token).not.toBe(first.token);
      expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(rotated.secret).not.toBe(first.secret);
      const until = Date.parse(rotated.previous_secret_until!);
      expect(until - before).toBeGreaterThanOrEqual(24 * 3_600_000 - 1_000);
      expect(until - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
      expect((await inject('GET', '/api/backoffice/webhook', m.dashboard)).json()).toMatchObject({ secret: rotated.secret, previous_secret_until: rotated.previous_secret_until });
      // Setting it again within the day keeps the new secret and the overlap.
      expect(await setWebhook(app, m, receiver.url())).toMatchObject({ token: rotated.token, secret: rotated.secret, previous_secret_until: rotated.previous_secret_until });

      // A webhook sent in the overlap verifies with either secret (two signatures, Standard Webhooks' list), and carries the new token.
      const p = await newPurchase(m);
      await leaderProcessed(app, m, p);
      await runDue();
      const r = receiver.received.at(-1)!;
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
      expect(new Webhook(rotated.secret).verify(r.body, r.headers as Record<string, string>)).toMatchObject({ token: rotated.token });
      expect(new Webhook(first.secret).verify(r.body, r.headers as Record<string, string>)).toMatchObject({ token: rotated.token });

      // Once the overlap is over, only the new secret signs.
      await app.services.db.query("UPDATE webhook_endpoints SET previous_secret_until = now() - interval '1 second' WHERE account_id = $1", [m.accountId]);
      expect((await inject('GET', '/api/backoffice/webhook', m.dashboard)).json().previous_secret_until).toBeUndefined();
      const test = await inject('POST', '/api/backoffice/webhook/test', m.dashboard);
      expect(test.json()).toMatchObject({ delivered: true });
      const t = receiver.received.at(-1)!;
      expect(t.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(new Webhook(rotated.secret).verify(t.body, t.headers as Record<string, string>)).toBeTruthy();
      expect(() => new Webhook(first.secret).verify(t.body, t.headers as Record<string, string>)).toThrow();
    });

    it('refuses bad input with 400 naming the field, and stores nothing', async () => {
      const m = await caller(app);
      for (const [body, field] of [
        [{ url: 'ftp://x.example/hook' }, 'url'],
        [{ url: 'not a url' }, 'url'],
        [{ url: 'https://user:pw@x.example/' }, 'url'],
        [{ url: receiver.url(), events: ['paymentProcessed', 'somethingElse'] }, 'events'],
        [{ url: receiver.url(), events: [] }, 'events'],
        [{ url: receiver.url(), extra: 1 }, 'extra'],
        [{ url: receiver.url(), rotate: 'yes' }, 'rotate'],
        [{}, 'url'],
      ] as const) {
        const res = await inject('PUT', '/api/backoffice/webhook', m.dashboard, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error.app_error).toBe('invalid_request');
        expect(res.json().error.debug).toContain(field);
      }
      expect((await inject('GET', '/api/backoffice/webhook', m.dashboard)).statusCode).toBe(404);
    });
    it('DELETE removes the endpoint and cancels its webhooks still retrying, so nothing is sent to the URL again; audited; 404 when none is set; another account’s stays', async () => {
      const m = await caller(app);
      const other = await caller(app);
      await setWebhook(app, m, receiver.url());
      await setWebhook(app, other, receiver.url());
      receiver.answer = { kind: 'status', code: 500, body: 'boom' };
      const p = await newPurchase(m);
      await leaderProcessed(app, m, p);
      await runDue();
      expect((await deliveries(app, m.accountId)).map((d) => d.status)).toEqual(['pending']); // a retry scheduled

      const res = await inject('DELETE', '/api/backoffice/webhook', m.dashboard);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ removed: true, cancelled_deliveries: 1 });
      expect((await deliveries(app, m.accountId)).map((d) => d.status)).toEqual(['cancelled']);
      expect((await inject('GET', '/api/backoffice/webhook', m.dashboard)).statusCode).toBe(404);
      const [audit] = (
        await app.services.db.query<{ action: string; details: unknown }>("SELECT action, details FROM audit_log WHERE account_id = $1 AND action = 'webhook_remove'", [
          m.accountId,
        ])
      ).rows;
      expect(audit).toMatchObject({ action: 'webhook_remove', details: { host: new URL(receiver.url()).host, cancelled_deliveries: 1 } });

      // Later events make no webhook, and the cancelled retry never goes out.
      receiver.answer = { kind: 'status', code: 204 };
      receiver.received.length = 0;
      await leaderProcessed(app, m, await newPurchase(m));
      await advance(app, 36_000);
      await runDue();
      expect(receiver.received).toEqual([]);
      expect((await deliveries(app, m.accountId)).map((d) => d.status)).toEqual(['cancelled']);

      expect((await inject('DELETE', '/api/backoffice/webhook', m.dashboard)).statusCode).toBe(404);
      expect((await inject('GET', '/api/backoffice/webhook', other.dashboard)).statusCode).toBe(200);
    });
  });

  describe('delivery', () => {
    it('POSTs exactly the contract payload with Standard Webhooks headers the standardwebhooks package verifies', async () => {
      const m = await caller(app);
      const hook = await setWebhook(app, m, receiver.url());
      const purchaseId = await newPurchase(m);
      await leaderProcessed(app, m, purchaseId);
      const { rows } = await app.services.db.query<{ id: number; created_at: Date }>(
        `SELECT id, created_at FROM purchase_events WHERE purchase_id = $1 AND type = 'purchase.leader_processed'`,
        [purchaseId],
      );
      const event = rows[0]!;
      await runDue();

      expect(receiver.received).toHaveLength(1); // purchase.created is no webhook
      const r = receiver.received[0]!;
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/hook');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.body).toBe(
        JSON.stringify({
          triggerID: Number(event.id),
          triggerName: 'paymentProcessed',
          triggerDate: new Date(event.created_at).toISOString(),
          token: hook.token,
          objects: { purchaseId },
        }),
      );
      expect(r.headers['webhook-id']).toMatch(/^dlv_[0-9a-f-]{36}$/);
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      const verified = new Webhook(hook.secret).verify(r.body, r.headers as Record<string, string>);
      expect(verified).toEqual(JSON.parse(r.body));
      expect(() => new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(r.body, r.headers as Record<string, string>)).toThrow();
      const [d] = await deliveries(app, m.accountId);
      expect(d).toMatchObject({ kind: 'webhook', status: 'succeeded', attempts: 1, last_status_code: 204 });
    });

    it('sends paymentFailed and pledgerContributes (with objects.clientId); purchaseAborted only when subscribed', async () => {
      const m = await caller(app);
      await setWebhook(app, m, receiver.url());
      const p = await newPurchase(m);
      const failed = await insertEvent(app, m, p, 'payment.failed', { reason: 'do_not_honor', payment_id: 'x' });
      const pledge = await insertEvent(app, m, p, 'pledge.paid', { pledge_id: 'y', client_id: '11111111-2222-4333-8444-555555555555', amount_cents: 500 });
      await insertEvent(app, m, p, 'installment.paid', { installment_id: 'z', index: 1, amount_cents: 100 });
      const aborted = await newPurchase(m);
      expect((await m.post(`/api/purchases/${toPublicId('pur', aborted)}/abort`)).statusCode).toBe(200);
      await runDue();
      expect(bodies().map((b) => [b.triggerID, b.triggerName, b.objects])).toEqual([
        [failed, 'paymentFailed', { purchaseId: p }],
        [pledge, 'pledgerContributes', { purchaseId: p, clientId: '11111111-2222-4333-8444-555555555555' }],
      ]);

      receiver.received.length = 0;
      await setWebhook(app, m, receiver.url(), ['purchaseAborted', 'installmentPaid']);
      const again = await newPurchase(m);
      expect((await m.post(`/api/purchases/${toPublicId('pur', again)}/abort`)).statusCode).toBe(200);
      await runDue();
      expect(bodies().map((b) => [b.triggerName, b.objects.purchaseId])).toEqual([['purchaseAborted', again]]);
    });

    it('retries a failing endpoint at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h of the service clock, then gives up; every attempt recorded', async () => {
      const m = await caller(app);
      await setWebhook(app, m, receiver.url());
      receiver.answer = { kind: 'status', code: 500, body: 'boom' };
      const p = await newPurchase(m);
      await leaderProcessed(app, m, p);
      await runDue();
      expect(receiver.received).toHaveLength(1);

      const delays = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];
      for (const [i, seconds] of delays.entries()) {
        const [d] = await deliveries(app, m.accountId);
        expect(d).toMatchObject({ status: 'pending', attempts: i + 1, failures: i + 1, last_status_code: 500 });
        // Jitter is fixed at its middle in these tests: the next attempt is exactly the delay away.
        const wait = d!.next_attempt_at!.getTime() - app.services.clock.now().getTime();
        expect(wait).toBeGreaterThan(seconds * 1000 - 3_000);
        expect(wait).toBeLessThanOrEqual(seconds * 1000);
        if (seconds >= 300) {
          await advance(app, Math.floor(seconds / 2)); // halfway: nothing is due yet
          expect(receiver.received).toHaveLength(i + 1);
          await advance(app, Math.ceil(seconds / 2) + 2);
        } else {
          await advance(app, seconds + 2);
        }
        expect(receiver.received).toHaveLength(i + 2);
      }
      const [d] = await deliveries(app, m.accountId);
      expect(d).toMatchObject({ status: 'failed', attempts: 8, failures: 8 });
      await advance(app, 86_400);
      expect(receiver.received).toHaveLength(8);

      const detail = await inject('GET', `/api/backoffice/deliveries/dlv_${d!.id}`, m.dashboard);
      expect(detail.statusCode).toBe(200);
      const log = detail.json().attempt_log as { attempt: number; status_code: number; outcome: string; response_excerpt: string; duration_ms: number }[];
      expect(log.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(log.map((a) => a.outcome)).toEqual([...Array(7).fill('retry_scheduled'), 'gave_up']);
      expect(log.every((a) => a.status_code === 500 && a.response_excerpt === 'boom' && a.duration_ms >= 0)).toBe(true);
      expect(detail.json()).toMatchObject({ status: 'failed', attempts: 8, last_status_code: 500, last_error: 'HTTP 500' });
    });

    it('a receiver slower than the timeout is a failed attempt (recorded as a timeout) and is retried', async () => {
      const m = await caller(app);
      await setWebhook(app, m, receiver.url());
      receiver.answer = { kind: 'slow', ms: 2_000 };
      const p = await newPurchase(m);
      await leaderProcessed(app, m, p);
      const started = Date.now();
      await runDue();
      expect(Date.now() - started).toBeLessThan(1_500);
      const [d] = await deliveries(app, m.accountId);
      expect(d).toMatchObject({ status: 'pending', attempts: 1, failures: 1 });
      const detail = (await inject('GET', `/api/backoffice/deliveries/dlv_${d!.id}`, m.dashboard)).json();
      expect(detail.attempt_log[0]).toMatchObject({ outcome: 'retry_scheduled', error: 'timed out after 300 ms' });
      expect(detail.attempt_log[0].status_code).toBeUndefined();
      expect(detail.attempt_log[0].duration_ms).toBeGreaterThanOrEqual(290);

      receiver.answer = { kind: 'status', code: 200 };
      await advance(app, 7);
      expect((await deliveries(app, m.accountId))[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
    });

    it('honours Retry-After (seconds and HTTP date), clamped to at least 5 s', async () => {
      const m = await caller(app);
      await setWebhook(app, m, receiver.url());
      const cases: [Record<string, string>, number][] = [
        [{ 'retry-after': '120' }, 120],
        [{ 'retry-after': new Date(Date.now() + 600_000).toUTCString() }, 600],
        [{ 'retry-after': '1' }, 5],
      ];
      for (const [headers, seconds] of cases) {
        receiver.answer = { kind: 'status', code: 503, headers };
        const p = await newPurchase(m);
        await leaderProcessed(app, m, p);
        await runDue();
        const { rows } = await app.services.db.query<{ next_attempt_at: Date }>(`SELECT d.next_attempt_at FROM deliveries d WHERE d.purchase_id = $1`, [p]);
        const wait = rows[0]!.next_attempt_at.getTime() - app.services.clock.now().getTime();
        expect(wait, JSON.stringify(headers)).toBeGreaterThan(seconds * 1000 - 3_000);
        expect(wait, JSON.stringify(headers)).toBeLessThanOrEqual(seconds * 1000 + 1_000);
      }
    });

    it('keeps a purchase in order: event N+1 waits while event N to the same endpoint awaits a retry; other purchases go on', async () => {
      const m = await caller(app);
      await setWebhook(app, m, receiver.url(), ['paymentProcessed', 'paymentFailed', 'pledgerContributes', 'installmentPaid']);
      const p1 = await newPurchase(m);
      const p2 = await newPurchase(m);
      const e1 = await insertEvent(app, m, p1, 'payment.failed', { reason: 'x' });
      const e2 = await insertEvent(app, m, p1, 'pledge.paid', { client_id: 'c' });
      const e3 = await insertEvent(app, m, p1, 'installment.paid', { index: 1 });
      const other = await insertEvent(app, m, p2, 'payment.failed', { reason: 'y' });
      // The first attempt of e1 fails, whichever of the two purchases' deliveries goes out first.
      let failed = false;
      receiver.answer = (r) => {
        if (!failed && (JSON.parse(r.body) as { triggerID: number }).triggerID === e1) {
          failed = true;
          return { kind: 'status', code: 500 };
        }
        return { kind: 'status', code: 200 };
      };
      const ids = () => bodies().map((b) => b.triggerID);
      const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
      await runDue();
      expect(sorted(ids())).toEqual(sorted([e1, other]));
      await runDue();
      expect(sorted(ids())).toEqual(sorted([e1, other]));
      await advance(app, 7);
      expect(ids().slice(2)).toEqual([e1, e2, e3]);
    });

    it('410 Gone disables the endpoint and cancels its pending deliveries; setting the URL again re-enables it', async () => {
      const m = await caller(app);
      await setWebhook(app, m, receiver.url(), ['paymentFailed']);
      receiver.answer = { kind: 'status', code: 410 };
      const p = await newPurchase(m);
      const e1 = await insertEvent(app, m, p, 'payment.failed', { reason: 'a' });
      await insertEvent(app, m, p, 'payment.failed', { reason: 'b' });
      await runDue();
      expect(bodies().map((b) => b.triggerID)).toEqual([e1]);
      expect((await deliveries(app, m.accountId)).map((d) => d.status)).toEqual(['failed', 'cancelled']);
      const read = (await inject('GET', '/api/backoffice/webhook', m.dashboard)).json();
      expect(read.disabled_at).toEqual(expect.any(String));
      expect(read.disabled_reason).toMatch(/410/);

      // Nothing more is dispatched to it, and a replay is refused while it is disabled.
      await insertEvent(app, m, p, 'payment.failed', { reason: 'c' });
      await advance(app, 86_400);
      expect(receiver.received).toHaveLength(1);
      expect(await deliveries(app, m.accountId)).toHaveLength(2);
      const [gone, cancelled] = await deliveries(app, m.accountId);
      const refused = await inject('POST', `/api/backoffice/deliveries/dlv_${cancelled!.id}/replay`, m.dashboard);
      expect(refused.statusCode).toBe(409);

      receiver.answer = { kind: 'status', code: 200 };
      await setWebhook(app, m, receiver.url(), ['paymentFailed']);
      const e4 = await insertEvent(app, m, p, 'payment.failed', { reason: 'd' });
      expect((await inject('POST', `/api/backoffice/deliveries/dlv_${gone!.id}/replay`, m.dashboard)).statusCode).toBe(202);
      await runDue();
      expect(bodies().map((b) => b.triggerID)).toEqual([e1, e1, e4]);
    });
  });

  describe('back office: deliveries log and replay', () => {
    it('replays a delivered webhook with the same webhook-id and triggerID, freshly signed', async () => {
      const m = await caller(app);
      const hook = await setWebhook(app, m, receiver.url());
      const p = await newPurchase(m);
      await leaderProcessed(app, m, p);
      await runDue();
      const [d] = await deliveries(app, m.accountId);
      const res = await inject('POST', `/api/backoffice/deliveries/dlv_${d!.id}/replay`, m.dashboard);
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ id: `dlv_${d!.id}`, status: 'pending', kind: 'webhook', trigger_name: 'paymentProcessed', purchase_uid: `pur_${p}` });
      await runDue();
      expect(receiver.received).toHaveLength(2);
      const [a, b] = receiver.received;
      expect(b!.headers['webhook-id']).toBe(a!.headers['webhook-id']);
      expect(b!.body).toBe(a!.body);
      expect(new Webhook(hook.secret).verify(b!.body, b!.headers as Record<string, string>)).toBeTruthy();
      expect((await deliveries(app, m.accountId))[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
    });

    it('lists deliveries newest first with filters and a cursor, each attempt with its status, latency and a 1 KB excerpt', async () => {
      const m = await caller(app);
      await setWebhook(app, m, receiver.url(), ['paymentFailed']);
      receiver.answer = { kind: 'status', code: 200, body: 'x'.repeat(5_000) };
      const p1 = await newPurchase(m);
      const p2 = await newPurchase(m);
      for (let i = 0; i < 3; i++) await insertEvent(app, m, p1, 'payment.failed', { reason: String(i) });
      await insertEvent(app, m, p2, 'payment.failed', { reason: 'p2' });
      await runDue();

      const all = await inject('GET', '/api/backoffice/deliveries?limit=3', m.dashboard);
      expect(all.statusCode).toBe(200);
      expect(all.json()).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
      const next = await inject('GET', `/api/backoffice/deliveries?limit=3&cursor=${all.json().next_cursor}`, m.dashboard);
      expect(next.json()).toMatchObject({ has_more: false });
      const ids = [...all.json().data, ...next.json().data].map((d: { id: string }) => d.id);
      expect(new Set(ids).size).toBe(4);

      const ofP1 = (await inject('GET', `/api/backoffice/deliveries?purchase_uid=pur_${p1}&status=succeeded`, m.dashboard)).json();
      expect(ofP1.data).toHaveLength(3);
      expect(ofP1.data[0]).toEqual({
        id: expect.stringMatching(/^dlv_/),
        kind: 'webhook',
        purchase_uid: `pur_${p1}`,
        event: 'payment.failed',
        trigger_id: expect.any(Number),
        trigger_name: 'paymentFailed',
        url: receiver.url(),
        status: 'succeeded',
        attempts: 1,
        last_status_code: 200,
        created_at: expect.any(String),
        completed_at: expect.any(String),
      });
      expect(ofP1.data.map((d: { trigger_id: number }) => d.trigger_id)).toEqual([...ofP1.data.map((d: { trigger_id: number }) => d.trigger_id)].sort((a, b) => b - a));
      expect((await inject('GET', `/api/backoffice/deliveries?status=pending`, m.dashboard)).json().data).toEqual([]);

      const detail = (await inject('GET', `/api/backoffice/deliveries/${ofP1.data[0].id}`, m.dashboard)).json();
      expect(detail.attempt_log).toEqual([
        {
          attempt: 1,
          url: receiver.url(),
          started_at: expect.any(String),
          duration_ms: expect.any(Number),
          status_code: 200,
          response_excerpt: 'x'.repeat(1024),
          outcome: 'succeeded',
        },
      ]);
      expect((await inject('GET', '/api/backoffice/deliveries?cursor=nonsense', m.dashboard)).statusCode).toBe(400);
      expect((await inject('GET', '/api/backoffice/deliveries?status=lost', m.dashboard)).statusCode).toBe(400);
    });

    it("never shows or replays another account's deliveries: 404 as for unknown ids; 401 without credentials", async () => {
      const owner = await caller(app);
      const other: Caller = await caller(app);
      await setWebhook(app, owner, receiver.url());
      const p = await newPurchase(owner);
      await leaderProcessed(app, owner, p);
      await runDue();
      const [d] = await deliveries(app, owner.accountId);
      const uid = `dlv_${d!.id}`;
      expect((await inject('GET', `/api/backoffice/deliveries/${uid}`, owner.dashboard)).statusCode).toBe(200);
      for (const url of [`/api/backoffice/deliveries/${uid}`, '/api/backoffice/deliveries/dlv_00000000-0000-4000-8000-000000000000', '/api/backoffice/deliveries/nonsense']) {
        const res = await inject('GET', url, other.dashboard);
        expect(res.statusCode, url).toBe(404);
        expect(res.json().error.app_error).toBe('not_found');
      }
      expect((await inject('POST', `/api/backoffice/deliveries/${uid}/replay`, other.dashboard)).statusCode).toBe(404);
      expect((await inject('GET', `/api/backoffice/deliveries?purchase_uid=pur_${p}`, other.dashboard)).json().data).toEqual([]);
      expect((await inject('GET', '/api/backoffice/deliveries', other.dashboard)).json().data).toEqual([]);
      expect((await inject('GET', '/api/backoffice/deliveries')).statusCode).toBe(401);
      expect((await inject('POST', `/api/backoffice/deliveries/${uid}/replay`)).statusCode).toBe(401);
      expect((await inject('GET', '/api/backoffice/webhook', other.dashboard)).statusCode).toBe(404);
    });

    it('exposes delivery metrics: attempts by outcome, latency histogram, queue depth and oldest due age', async () => {
      const m = await caller(app);
      await setWebhook(app, m, receiver.url());
      receiver.answer = { kind: 'status', code: 500 };
      const p = await newPurchase(m);
      await leaderProcessed(app, m, p);
      await runDue();
      await advance(app, 3); // due again in 5 s: not yet
      const text = (await app.server.inject('/metrics')).body;
      expect(text).toMatch(/chipin_delivery_attempts_total\{kind="webhook",outcome="retry_scheduled"\} [1-9]/);
      expect(text).toMatch(/chipin_delivery_attempts_total\{kind="webhook",outcome="succeeded"\} [1-9]/);
      expect(text).toMatch(/chipin_delivery_attempt_duration_seconds_bucket\{le="0.1",kind="webhook"\} [1-9]/);
      expect(text).toMatch(/chipin_delivery_queue_depth [1-9]/);
      expect(text).toMatch(/chipin_delivery_oldest_due_age_seconds \d/);
    });
  });
});
