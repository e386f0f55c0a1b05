import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDashboardRows, startDashboardPurge } from '../../src/staff/purge.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard.ts';

/** The purge of dead rows (docs/back-office.md#sessions): ended sessions, old invitations and expired Idempotency-Keys go, live ones stay. */
let app: TestApp;
let a: Caller;

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
});
afterAll(async () => {
  await app?.close();
});

const sessionIds = async () =>
  (await app.services.db.query<{ id: string }>('SELECT id FROM dashboard_sessions WHERE account_id = $1 ORDER BY created_at, id', [a.accountId])).rows.map((r) => r.id);
const invitationEmails = async () =>
  (await app.services.db.query<{ email: string }>('SELECT email FROM dashboard_invitations WHERE account_id = $1 ORDER BY email', [a.accountId])).rows.map((r) => r.email);

describe('the back-office purge', () => {
  it('deletes sessions ended more than a day ago and invitations ended more than 30 days ago; live ones keep working', async () => {
    const sessions = [];
    for (let i = 0; i < 4; i++) sessions.push(await signIn(app, a.merchant));
    const [expiredLong, revokedLong, revokedRecently, live] = await sessionIds();
    const db = app.services.db;
    await db.query("UPDATE dashboard_sessions SET expires_at = now() - interval '25 hours' WHERE id = $1", [expiredLong]);
    await db.query("UPDATE dashboard_sessions SET revoked_at = now() - interval '25 hours' WHERE id = $1", [revokedLong]);
    await db.query("UPDATE dashboard_sessions SET revoked_at = now() - interval '1 hour' WHERE id = $1", [revokedRecently]);
    const invitation = (n: number, email: string, columns: string) =>
      db.query(
        `INSERT INTO dashboard_invitations (id, account_id, email, role, token_hash, invited_by, created_at, expires_at, accepted_at, revoked_at)
         VALUES ($1, $2, $3, 'support', $4, 'test', now() - interval '60 days', ${columns})`,
        [`00000000-0000-4000-8000-00000000000${n}`, a.accountId, email, Buffer.from(String(n))],
      );
    await invitation(1, 'revoked-long-ago@shop.example', "now() - interval '53 days', NULL, now() - interval '59 days'");
    await invitation(2, 'accepted-long-ago@shop.example', "now() - interval '53 days', now() - interval '31 days', NULL");
    await invitation(3, 'expired-long-ago@shop.example', "now() - interval '31 days', NULL, NULL");
    await invitation(4, 'revoked-recently@shop.example', "now() + interval '1 day', NULL, now() - interval '29 days'");
    await invitation(5, 'expired-recently@shop.example', "now() - interval '29 days', NULL, NULL");
    await invitation(6, 'pending@shop.example', "now() + interval '1 day', NULL, NULL");

    expect(await purgeDashboardRows(db)).toEqual({ sessions: 2, invitations: 3 });

    expect(await sessionIds()).toEqual([revokedRecently, live]);
    expect(await invitationEmails()).toEqual(['expired-recently@shop.example', 'pending@shop.example', 'revoked-recently@shop.example']);
    const page = await app.server.inject({ method: 'GET', url: '/dashboard', headers: { cookie: sessions[3]!.cookie } });
    expect(page.statusCode).toBe(200);
    expect(await purgeDashboardRows(db)).toEqual({ sessions: 0, invitations: 0 });
  });

  it('runs on its own every interval, and stops when asked', async () => {
    await signIn(app, a.merchant);
    const [first] = await sessionIds();
    await app.services.db.query("UPDATE dashboard_sessions SET revoked_at = now() - interval '2 days' WHERE id = $1", [first]);
    // An Idempotency-Key past its 24 h goes in the same run (docs/api-conventions.md#idempotency-key).
    expect((await a.post('/api/merchants/v1/purchases', minimalPurchase(), { 'idempotency-key': 'purge-loop' })).statusCode).toBe(201);
    await app.services.db.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 minute' WHERE key = 'purge-loop'");
    const keyLeft = async () => (await app.services.db.query("SELECT 1 FROM idempotency_keys WHERE key = 'purge-loop'")).rows.length;
    const lines: unknown[] = [];
    const stop = startDashboardPurge(app.services.db, { info: (o: unknown) => void lines.push(o), warn: () => {} } as never, 20);
    try {
      await expect.poll(async () => (await sessionIds()).includes(first!)).toBe(false);
      await expect.poll(keyLeft).toBe(0);
      await expect.poll(() => lines.length).toBeGreaterThan(0);
    } finally {
      stop();
    }
  });
});
