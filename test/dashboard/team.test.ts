import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit/audit-repository.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';

/** The Team page's member changes (docs/back-office.md#roles): role change, removal, the last admin kept. */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const get = (url: string, cookie: string) => app.server.inject({ method: 'GET', url, headers: { cookie } });
const post = (url: string, cookie: string, fields: Record<string, string>) =>
  app.server.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
const roleOf = async (id: string) => (await app.services.db.query<{ role: string }>('SELECT role FROM dashboard_users WHERE id = $1', [id])).rows[0]?.role;
const adminId = async (c: Caller) => (await app.services.db.query<{ id: string }>('SELECT id FROM dashboard_users WHERE account_id = $1', [c.accountId])).rows[0]!.id;

describe('team members', () => {
  it("changes a role, which applies to the member's open session at once, and records it", async () => {
    const a = await caller(app);
    const admin = await signIn(app, a.merchant);
    const member = await addDashboardUser(app, a.accountId, 'support');
    const theirs = await signIn(app, member);
    expect((await get('/dashboard/team', theirs.cookie)).statusCode).toBe(403);
    const res = await post(`/dashboard/team/members/${member.id}`, admin.cookie, { csrf: admin.csrf, role: 'admin' });
    expect(res.statusCode).toBe(303);
    expect(await roleOf(member.id)).toBe('admin');
    expect((await get('/dashboard/team', theirs.cookie)).statusCode).toBe(200);
    const [entry] = await listAudit(app.services.db, a.accountId, { limit: 1 });
    expect(entry).toMatchObject({ action: 'role_change', actor: a.merchant.email, subject: member.email, details: { from: 'support', to: 'admin' } });
  });

  it('refuses to demote or remove the last admin, saying why, and changes nothing', async () => {
    const a = await caller(app);
    const admin = await signIn(app, a.merchant);
    const id = await adminId(a);
    for (const fields of [{ role: 'support' }, { remove: 'yes' }] as Record<string, string>[]) {
      const res = await post(`/dashboard/team/members/${id}`, admin.cookie, { csrf: admin.csrf, ...fields });
      expect(res.statusCode).toBe(409);
      expect(res.body).toContain('last admin cannot be removed or lose the admin role');
    }
    expect(await roleOf(id)).toBe('admin');
  });

  it('removes a member: their session ends at once, and the removal is recorded', async () => {
    const a = await caller(app);
    const admin = await signIn(app, a.merchant);
    const member = await addDashboardUser(app, a.accountId, 'support');
    const theirs = await signIn(app, member);
    expect((await post(`/dashboard/team/members/${member.id}`, admin.cookie, { csrf: admin.csrf, remove: 'yes' })).statusCode).toBe(303);
    expect((await get('/dashboard/purchases', theirs.cookie)).headers.location).toBe('/dashboard/sign-in');
    expect(await roleOf(member.id)).toBeUndefined();
    expect((await listAudit(app.services.db, a.accountId, { limit: 1 }))[0]).toMatchObject({ action: 'member_remove', subject: member.email });
  });

  it("answers 404 for another account's member, and changes nothing", async () => {
    const a = await caller(app);
    const b = await caller(app, 'Other Shop');
    const admin = await signIn(app, a.merchant);
    const theirs = await addDashboardUser(app, b.accountId, 'support');
    for (const fields of [{ role: 'admin' }, { remove: 'yes' }] as Record<string, string>[]) {
      expect((await post(`/dashboard/team/members/${theirs.id}`, admin.cookie, { csrf: admin.csrf, ...fields })).statusCode).toBe(404);
    }
    expect(await roleOf(theirs.id)).toBe('support');
  });

  it('refuses a change without the CSRF token, or with an unknown role naming the field', async () => {
    const a = await caller(app);
    const admin = await signIn(app, a.merchant);
    const member = await addDashboardUser(app, a.accountId, 'support');
    expect((await post(`/dashboard/team/members/${member.id}`, admin.cookie, { role: 'admin' })).statusCode).toBe(403);
    const bad = await post(`/dashboard/team/members/${member.id}`, admin.cookie, { csrf: admin.csrf, role: 'owner' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Role: choose Admin or Support.');
    expect(await roleOf(member.id)).toBe('support');
  });
});
