import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPasswordProblem } from '../../src/domain/password-rules.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, form, postSignIn, signIn } from '../helpers/dashboard.ts';

/** A dashboard user's own password change (docs/back-office.md). */
let app: TestApp;
let a: Caller;

beforeAll(async () => {
  app = await startTestApp({ logLevel: 'debug' });
  a = await caller(app);
});
afterAll(async () => {
  await app?.close();
});

const get = (url: string, cookie: string) => app.server.inject({ method: 'GET', url, headers: { cookie } });
const change = (s: { cookie: string; csrf: string }, fields: Record<string, string>) =>
  app.server.inject({
    method: 'POST',
    url: '/dashboard/account/password',
    headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ csrf: s.csrf, ...fields }),
  });

describe('the new-password rule', () => {
  it('takes 12 to 1,024 characters (code points) other than the e-mail', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 0, maxLength: 40 }), (p) => {
        const n = [...p].length;
        const problem = newPasswordProblem(p, 'ana@shop.example');
        if (n < 12) expect(problem).toBe('too_short');
        else if (p.trim().toLowerCase() !== 'ana@shop.example') expect(problem).toBeUndefined();
      }),
    );
    expect(newPasswordProblem('x'.repeat(1025), 'a@b.c')).toBe('too_long');
    expect(newPasswordProblem(' Ana@Shop.Example ', 'ana@shop.example')).toBe('is_email');
  });
});

describe('changing my password', () => {
  it('checks the current password, signs the other sessions out, keeps this one, and records it', async () => {
    const user = await addDashboardUser(app, a.accountId, 'support');
    const here = await signIn(app, user);
    const elsewhere = await signIn(app, user);
    const next = 'correct horse battery staple';
    const res = await change(here, { current_password: user.password, new_password: next, new_password_again: next });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Password changed.');
    expect((await get('/dashboard/purchases', here.cookie)).statusCode).toBe(200); // this session goes on
    expect((await get('/dashboard/purchases', elsewhere.cookie)).headers.location).toBe('/dashboard/sign-in'); // the other ended
    expect((await postSignIn(app, user.email, user.password)).statusCode).not.toBe(303);
    expect((await postSignIn(app, user.email, next)).statusCode).toBe(303);
    const { rows } = await app.services.db.query<{ action: string; actor: string }>("SELECT action, actor FROM audit_log WHERE account_id = $1 AND action = 'password_change'", [
      a.accountId,
    ]);
    expect(rows).toEqual([{ action: 'password_change', actor: user.email }]);
    for (const line of app.logs) expect(line).not.toContain(next);
  });

  it('refuses a wrong current password, two different new ones, a short one or the e-mail, naming the field, and changes nothing', async () => {
    const user = await addDashboardUser(app, a.accountId, 'admin');
    const s = await signIn(app, user);
    const cases: [Record<string, string>, string][] = [
      [{ current_password: 'not-my-password-at-all', new_password: 'a brand new passphrase', new_password_again: 'a brand new passphrase' }, 'current_password'],
      [{ current_password: user.password, new_password: 'a brand new passphrase', new_password_again: 'another passphrase!!' }, 'new_password_again'],
      [{ current_password: user.password, new_password: 'short', new_password_again: 'short' }, 'new_password'],
      [{ current_password: user.password, new_password: user.email, new_password_again: user.email }, 'new_password'],
    ];
    for (const [fields, field] of cases) {
      const res = await change(s, fields);
      expect(res.statusCode, field).toBe(400);
      expect(res.body, field).toContain(`id="${field}" name="${field}" type="password"`);
      expect(res.body).toMatch(new RegExp(`name="${field}"[^>]*aria-invalid="true"`));
      expect(res.body).not.toContain('a brand new passphrase');
    }
    // A NUL is refused before any page, as in every form (docs/api-conventions.md).
    const nul = await change(s, { current_password: user.password, new_password: 'nul\u0000inside the password', new_password_again: 'nul\u0000inside the password' });
    expect(nul.statusCode).toBe(400);
    expect((await postSignIn(app, user.email, user.password)).statusCode).toBe(303); // unchanged
  });

  it('refuses a change without the CSRF token', async () => {
    const user = await addDashboardUser(app, a.accountId, 'admin');
    const s = await signIn(app, user);
    const res = await change({ ...s, csrf: 'wrong' }, { current_password: user.password, new_password: 'a brand new passphrase', new_password_again: 'a brand new passphrase' });
    expect(res.statusCode).toBe(403);
    expect((await postSignIn(app, user.email, user.password)).statusCode).toBe(303);
  });
});
