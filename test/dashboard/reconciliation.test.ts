import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { basic, startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';
import { webhookMessage } from '../../src/delivery/webhook-payload.ts';

/**
 * The back office's reconciliation API (docs/money-operations.md#reconciliation): an admin runs a
 * period, staff read runs and mismatches of their own account only, an admin marks a mismatch
 * explained (audited); support users read but neither run nor mark; the new mismatch is an event
 * on the purchase.
 */
let app: TestApp;
let a: Caller;
let b: Caller;
let purchaseId: string;

beforeAll(async () => {
  app = await startTestApp();
  [a, b] = [await caller(app), await caller(app)];
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 12_000 }));
  purchaseId = res.json().id as string;
  const paid = await a.post(`/api/sandbox/purchases/pur_${purchaseId}/pay`, { card_number: '4242424242424242' });
  expect(paid.json().state, paid.body).toBe('SUCCESSFUL');
  await app.services.db.query(
    `UPDATE sandbox_psp_transactions SET captured_cents = captured_cents - 100
      WHERE id = (SELECT psp_transaction_id FROM payments WHERE account_id = $1 AND captured_cents > 0)`,
    [a.accountId],
  );
});
afterAll(async () => {
  await app?.close();
});

function days(): { from: string; to: string } {
  const now = app.services.clock.now().getTime();
  return { from: new Date(now - 86_400_000).toISOString().slice(0, 10), to: new Date(now + 86_400_000).toISOString().slice(0, 10) };
}

const call = (auth: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
  app.server.inject({
    method,
    url,
    headers: { authorization: auth, ...(payload ? { 'content-type': 'application/json' } : {}) },
    payload: payload ? JSON.stringify(payload) : undefined,
  });

describe('the reconciliation API', () => {
  it('runs a period for an admin, lists the run and its mismatch for the account only, and lets an admin explain it (audited)', async () => {
    const run = await call(a.dashboard, 'POST', '/api/backoffice/reconciliation_runs', days());
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ state: 'completed', psp: 'sandbox', psp_account_id: null, mismatch_count: 1 });
    const again = await call(a.dashboard, 'POST', '/api/backoffice/reconciliation_runs', days());
    expect(again.json().id).toBe(run.json().id);

    const runs = await call(a.dashboard, 'GET', '/api/backoffice/reconciliation_runs');
    expect(runs.json().data.map((r: { id: string }) => r.id)).toEqual([run.json().id]);
    const open = await call(a.dashboard, 'GET', '/api/backoffice/reconciliation_mismatches?state=open');
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json().data).toHaveLength(1);
    const m = open.json().data[0];
    expect(m).toMatchObject({ kind: 'amount_differs', operation: 'capture', chipin_cents: 12_000, psp_cents: 11_900, purchase_uid: `pur_${purchaseId}`, state: 'open' });
    expect((await call(b.dashboard, 'GET', '/api/backoffice/reconciliation_mismatches')).json().data).toEqual([]);
    expect((await call(b.dashboard, 'GET', '/api/backoffice/reconciliation_runs')).json().data).toEqual([]);

    const { rows: events } = await app.services.db.query<{ id: number; type: string; data: { reconciliation_mismatch_id: string }; created_at: Date }>(
      `SELECT id, type, data, created_at FROM purchase_events WHERE account_id = $1 AND purchase_id = $2 AND type = 'reconciliation.mismatch'`,
      [a.accountId, purchaseId],
    );
    expect(events.map((e) => e.data.reconciliation_mismatch_id)).toEqual([m.id]);
    // Sent as the opt-in webhook reconciliationMismatch, naming the purchase and the mismatch.
    const e = events[0]!;
    expect(webhookMessage({ id: e.id, type: e.type, purchaseId, data: e.data, createdAt: e.created_at })?.objects).toEqual({
      purchaseId,
      reconciliationMismatchId: m.id,
    });

    expect((await call(b.dashboard, 'PATCH', `/api/backoffice/reconciliation_mismatches/${m.id}`, { state: 'explained' })).statusCode).toBe(404);
    const support = await addDashboardUser(app, a.accountId, 'support');
    const supportAuth = basic(support.email, support.password);
    expect((await call(supportAuth, 'GET', '/api/backoffice/reconciliation_mismatches')).statusCode).toBe(200);
    expect((await call(supportAuth, 'PATCH', `/api/backoffice/reconciliation_mismatches/${m.id}`, { state: 'explained' })).statusCode).toBe(403);
    expect((await call(supportAuth, 'POST', '/api/backoffice/reconciliation_runs', days())).statusCode).toBe(403);

    const marked = await call(a.dashboard, 'PATCH', `/api/backoffice/reconciliation_mismatches/${m.id}`, { state: 'explained', note: 'PSP fee taken at capture' });
    expect(marked.statusCode, marked.body).toBe(200);
    expect(marked.json()).toMatchObject({ state: 'explained', note: 'PSP fee taken at capture' });
    const { rows: audit } = await app.services.db.query<{ action: string; subject: string }>(
      `SELECT action, subject FROM audit_log WHERE account_id = $1 AND action = 'reconciliation_mismatch_update'`,
      [a.accountId],
    );
    expect(audit).toEqual([{ action: 'reconciliation_mismatch_update', subject: m.id }]);
    // Run again: an explained mismatch stays explained, and is not recorded twice.
    await call(a.dashboard, 'POST', '/api/backoffice/reconciliation_runs', days());
    const all = (await call(a.dashboard, 'GET', '/api/backoffice/reconciliation_mismatches')).json().data;
    expect(all.map((x: { id: string; state: string }) => [x.id, x.state])).toEqual([[m.id, 'explained']]);
  });

  it.each([
    [{ from: '2026-11-02', to: '2026-11-01' }, 'field to must be on or after from'],
    [{ from: '2026-13-45', to: '2026-11-01' }, 'field from must be a calendar day'],
    [{ from: '2026-11-01', to: '0000-00-00' }, 'field to must be a calendar day'],
    [{ from: '0001-01-01', to: '9999-12-31' }, 'field from must be a calendar day'],
    [{ from: '2026-10-01', to: '2026-11-01' }, 'field to must be at most 31 days'],
  ])('refuses the period %o with a 400 naming the field, and runs nothing', async (body, message) => {
    const res = await call(a.dashboard, 'POST', '/api/backoffice/reconciliation_runs', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body).toContain(message);
  });

  it('runs a period of 31 days, both included', async () => {
    const res = await call(a.dashboard, 'POST', '/api/backoffice/reconciliation_runs', { from: '2026-10-01', to: '2026-10-31' });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('the Reconciliation page: listed in the menu, shows the open mismatch in English and French; an admin runs a day and resolves it, a support user reads only', async () => {
    const c = await caller(app);
    const res = await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000 }));
    const id = res.json().id as string;
    await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' });
    await app.services.db.query(`DELETE FROM sandbox_psp_transactions WHERE id = (SELECT psp_transaction_id FROM payments WHERE account_id = $1 AND captured_cents > 0)`, [
      c.accountId,
    ]);
    const admin = await signIn(app, c.merchant);
    const page = (cookie: string, lang = 'en') => app.server.inject({ method: 'GET', url: `/dashboard/reconciliation?lang=${lang}`, headers: { cookie } });
    const post = (s: { cookie: string; csrf: string }, url: string, fields: Record<string, string>) =>
      app.server.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ csrf: s.csrf, ...fields }) });
    const before = await page(admin.cookie);
    expect(before.statusCode).toBe(200);
    expect(before.body).toContain('href="/dashboard/reconciliation"');
    expect(before.body).toContain('No open mismatch.');
    const { from, to } = days();
    expect((await post(admin, '/dashboard/reconciliation/runs', { from: '2026-01-02', to: '2026-01-01' })).statusCode).toBe(400);
    const ran = await post(admin, '/dashboard/reconciliation/runs', { from, to });
    expect(ran.statusCode, ran.body).toBe(200);
    expect(ran.body).toContain('missing at the PSP');
    expect(ran.body).toContain(`pur_${id}`);
    expect((await page(admin.cookie, 'fr')).body).toContain('absent chez le PSP');

    const support = await signIn(app, await addDashboardUser(app, c.accountId, 'support'));
    const seen = await page(support.cookie);
    expect(seen.body).toContain('missing at the PSP');
    expect(seen.body).not.toContain('Mark resolved');
    const [mismatch] = await listMismatchesOf(c.accountId);
    expect((await post(support, `/dashboard/reconciliation/mismatches/${mismatch}`, { state: 'resolved' })).statusCode).toBe(403);
    const marked = await post(admin, `/dashboard/reconciliation/mismatches/${mismatch}`, { state: 'resolved', note: 'refunded by hand at the PSP' });
    expect(marked.statusCode).toBe(200);
    expect(marked.body).toContain('No open mismatch.');
  });
});

async function listMismatchesOf(accountId: string): Promise<string[]> {
  const { rows } = await app.services.db.query<{ id: string }>('SELECT id FROM reconciliation_mismatches WHERE account_id = $1', [accountId]);
  return rows.map((r) => r.id);
}
