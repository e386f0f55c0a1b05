import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit/audit-repository.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, cookiesOf, csrfField, form, signIn } from '../helpers/dashboard.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';

/** Team invitations by e-mail (docs/back-office.md#invitations): the e-mail, the link, its single use, expiry and revocation. */
let app: TestApp;
let smtp: Awaited<ReturnType<typeof smtpListener>>;
let a: Caller;
let admin: { cookie: string; csrf: string };

beforeAll(async () => {
  smtp = await smtpListener();
  app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, publicUrl: 'https://chipin.example' });
  a = await caller(app, 'Atlântico Travel');
  admin = await signIn(app, a.merchant);
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const post = (url: string, s: { cookie: string }, fields: Record<string, string>) =>
  app.server.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
const members = async (accountId: string) =>
  (await app.services.db.query<{ email: string; role: string }>('SELECT email, role FROM dashboard_users WHERE account_id = $1 ORDER BY email', [accountId])).rows;
let n = 0;
const newEmail = () => `invitee-${Date.now()}-${++n}@shop.example`;

/** Invites `email` from the admin's Team page and answers the link of the e-mail that arrived. */
async function invite(email: string, role = 'support', s = admin): Promise<string> {
  const before = smtp.received.length;
  const res = await post('/dashboard/team/invitations', s, { csrf: s.csrf, email, role });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.body).toContain(`Invitation sent to ${email}.`);
  await expect.poll(() => smtp.received.length).toBe(before + 1);
  const mail = smtp.received.at(-1)!;
  expect(mail.to).toEqual([email]);
  const link = /https:\/\/chipin\.example\/dashboard\/invitation\?token=([A-Za-z0-9_-]{43})/.exec(decoded(mail.raw));
  expect(link, decoded(mail.raw)).not.toBeNull();
  return link![1]!;
}

/** Opens the link as a browser would (CSRF cookie and token), then posts the passwords. */
async function accept(token: string, password: string, again = password) {
  const page = await app.server.inject({ method: 'GET', url: `/dashboard/invitation?token=${token}` });
  if (page.statusCode !== 200) return page;
  return app.server.inject({
    method: 'POST',
    url: '/dashboard/invitation',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `chipin_csrf=${cookiesOf(page).chipin_csrf}` },
    payload: form({ csrf: csrfField(page.body), token, new_password: password, new_password_again: again }),
  });
}

describe('team invitations', () => {
  it('e-mails a link that makes a support member, signed in at once, who is refused the admin pages; both steps audited', async () => {
    const email = newEmail();
    const token = await invite(email);
    const mail = decoded(smtp.received.at(-1)!.raw);
    expect(mail).toContain('Atlântico Travel');
    expect(mail).toContain(a.merchant.email);

    const page = await app.server.inject({ method: 'GET', url: `/dashboard/invitation?token=${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Join Atlântico Travel on Chipin');
    expect(page.body).toContain(`value="${email}" readonly`);

    const joined = await accept(token, 'a long enough passphrase');
    expect(joined.statusCode, joined.body).toBe(303);
    expect(joined.headers.location).toBe('/dashboard');
    const cookie = `chipin_dashboard=${cookiesOf(joined).chipin_dashboard}`;
    expect((await app.server.inject({ method: 'GET', url: '/dashboard', headers: { cookie } })).statusCode).toBe(200);
    expect((await app.server.inject({ method: 'GET', url: '/dashboard/developers', headers: { cookie } })).statusCode).toBe(403);
    expect(await members(a.accountId)).toContainEqual({ email, role: 'support' });
    // The new member signs in later with the password they chose.
    await signIn(app, { email, password: 'a long enough passphrase' });

    const actions = (await listAudit(app.services.db, a.accountId, { limit: 10 })).filter((e) => e.subject === email).map((e) => [e.action, e.actor]);
    expect(actions).toContainEqual(['member_invite', a.merchant.email]);
    expect(actions).toContainEqual(['member_join', email]);
  });

  it('works once: the same link again opens nothing and makes no second member', async () => {
    const email = newEmail();
    const token = await invite(email, 'admin');
    expect((await accept(token, 'first passphrase here')).statusCode).toBe(303);
    const again = await accept(token, 'second passphrase here');
    expect(again.statusCode).toBe(404);
    expect(again.body).toContain('not valid any more');
    expect((await members(a.accountId)).filter((m) => m.email === email)).toEqual([{ email, role: 'admin' }]);
  });

  it('opens nothing once expired, revoked, or replaced by a newer invitation of the same e-mail', async () => {
    const expired = await invite(newEmail());
    await app.services.db.query("UPDATE dashboard_invitations SET expires_at = now() - interval '1 second' WHERE account_id = $1 AND accepted_at IS NULL", [a.accountId]);
    expect((await accept(expired, 'a long enough passphrase')).statusCode).toBe(404);

    const email = newEmail();
    const first = await invite(email);
    const second = await invite(email);
    expect((await accept(first, 'a long enough passphrase')).statusCode).toBe(404);

    const team = await app.server.inject({ method: 'GET', url: '/dashboard/team', headers: { cookie: admin.cookie } });
    const id = new RegExp(`/dashboard/team/invitations/([0-9a-f-]{36})/revoke"[^]*?Revoke the invitation of ${email.replace(/[.]/g, '\\.')}`).exec(team.body)?.[1];
    expect(id, 'the pending invitation is listed with its revoke button').toBeDefined();
    const revoked = await post(`/dashboard/team/invitations/${id}/revoke`, admin, { csrf: admin.csrf });
    expect(revoked.statusCode).toBe(303);
    expect((await accept(second, 'a long enough passphrase')).statusCode).toBe(404);
    expect((await members(a.accountId)).map((m) => m.email)).not.toContain(email);
    expect((await listAudit(app.services.db, a.accountId, { limit: 1 }))[0]).toMatchObject({ action: 'member_invite_revoke', subject: email });
  });

  it('refuses a password against the rules or not typed twice alike, naming the field, and keeps the link working', async () => {
    const email = newEmail();
    const token = await invite(email);
    const short = await accept(token, 'too short');
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('New password: at least 12 characters.');
    const differ = await accept(token, 'a long enough passphrase', 'another long passphrase');
    expect(differ.statusCode).toBe(400);
    expect(differ.body).toContain('New password, again: the two new passwords differ.');
    expect((await members(a.accountId)).map((m) => m.email)).not.toContain(email);
    expect((await accept(token, 'a long enough passphrase')).statusCode).toBe(303);
  });

  it('refuses a bad e-mail, a member, and an e-mail that signs in elsewhere, naming the field; nothing stored or sent', async () => {
    const b = await caller(app);
    const sent = smtp.received.length;
    const count = async () =>
      Number((await app.services.db.query<{ n: string }>('SELECT count(*) AS n FROM dashboard_invitations WHERE account_id = $1', [a.accountId])).rows[0]!.n);
    const stored = await count();
    for (const [email, message] of [
      ['not an address', 'E-mail: enter one e-mail address'],
      ['two@shop.example, three@shop.example', 'E-mail: enter one e-mail address'],
      ['nul\u0000@shop.example', 'field email contains a NUL character'],
      [a.merchant.email.toUpperCase(), 'E-mail: already a member of this account.'],
      [b.merchant.email, 'E-mail: this address already signs in to a Chipin back office'],
    ] as const) {
      const res = await post('/dashboard/team/invitations', admin, { csrf: admin.csrf, email, role: 'support' });
      expect(res.statusCode, email).toBe(400);
      expect(res.body).toContain(message);
    }
    const badRole = await post('/dashboard/team/invitations', admin, { csrf: admin.csrf, email: newEmail(), role: 'owner' });
    expect(badRole.statusCode).toBe(400);
    expect(await count()).toBe(stored);
    expect(smtp.received.length).toBe(sent);
  });

  it('refuses a form without its CSRF token, a support member, and another account revoking this one’s invitation', async () => {
    const sent = smtp.received.length;
    expect((await post('/dashboard/team/invitations', admin, { email: newEmail(), role: 'support' })).statusCode).toBe(403);
    const support = await signIn(app, await addDashboardUser(app, a.accountId, 'support'));
    expect((await post('/dashboard/team/invitations', support, { csrf: support.csrf, email: newEmail(), role: 'admin' })).statusCode).toBe(403);
    expect(smtp.received.length).toBe(sent);

    const email = newEmail();
    const token = await invite(email);
    const { rows } = await app.services.db.query<{ id: string }>('SELECT id FROM dashboard_invitations WHERE lower(email) = lower($1)', [email]);
    const b = await caller(app);
    const other = await signIn(app, b.merchant);
    expect((await post(`/dashboard/team/invitations/${rows[0]!.id}/revoke`, other, { csrf: other.csrf })).statusCode).toBe(404);
    expect((await accept(token, 'a long enough passphrase')).statusCode).toBe(303);
  });

  it('counts links that open nothing against the address, as wrong passwords are', async () => {
    const from = { 'x-forwarded-for': '203.0.113.9' };
    let last = 0;
    for (let i = 0; i < 25 && last !== 429; i++) {
      last = (await app.server.inject({ method: 'GET', url: `/dashboard/invitation?token=guess${i}`, remoteAddress: '203.0.113.9', headers: from })).statusCode;
    }
    expect(last).toBe(429);
  });
});

describe('team invitations without a mail server', () => {
  it('shows the link to the admin, once, when no e-mail could be sent', async () => {
    const plain = await startTestApp();
    try {
      const c = await caller(plain);
      const s = await signIn(plain, c.merchant);
      const res = await plain.server.inject({
        method: 'POST',
        url: '/dashboard/team/invitations',
        headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ csrf: s.csrf, email: 'colleague@shop.example', role: 'support' }),
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('no e-mail could be sent');
      expect(res.body).toMatch(/<code>http:\/\/127\.0\.0\.1:3000\/dashboard\/invitation\?token=[A-Za-z0-9_-]{43}<\/code>/);
      const later = await plain.server.inject({ method: 'GET', url: '/dashboard/team', headers: { cookie: s.cookie } });
      expect(later.body).toContain('colleague@shop.example');
      expect(later.body).not.toContain('invitation?token=');
    } finally {
      await plain.close();
    }
  });
});

describe('an invitation whose e-mail got a login elsewhere meanwhile', () => {
  it('refuses to accept (409), makes no member, and leaves the other login as it was', async () => {
    const email = newEmail();
    const token = await invite(email);
    const b = await caller(app);
    await app.services.db.query("INSERT INTO dashboard_users (id, account_id, email, password_hash, role) VALUES (gen_random_uuid(), $1, $2, 'x', 'admin')", [
      b.accountId,
      email.toUpperCase(),
    ]);
    const res = await accept(token, 'a long enough passphrase');
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('already signs in to a Chipin back office');
    expect((await members(a.accountId)).map((m) => m.email)).not.toContain(email);
    expect((await members(b.accountId)).map((m) => m.email)).toContain(email.toUpperCase());
  });
});
