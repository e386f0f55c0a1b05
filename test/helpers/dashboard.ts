import type { LightMyRequestResponse } from 'fastify';
import type { ChipinApp } from '../../src/app.ts';
import { generatePassword, hashPassword } from '../../src/crypto/passwords.ts';
import { newUuid } from '../../src/domain/ids.ts';
import type { Role } from '../../src/domain/roles.ts';
import { uniqueEmail } from './app.ts';

/** The `name=value` pairs of a response's Set-Cookie headers. */
export function cookiesOf(res: LightMyRequestResponse): Record<string, string> {
  const raw = res.headers['set-cookie'];
  const out: Record<string, string> = {};
  for (const line of ([] as string[]).concat(raw ?? [])) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** The value of the hidden `csrf` field of a page (the first form's). */
export function csrfField(body: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(body);
  if (!m) throw new Error('no csrf field in the page');
  return m[1]!;
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** The sign-in form as a browser fills it: GET for the CSRF cookie and token, then POST. */
export async function postSignIn(app: ChipinApp, email: string, password: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const page = await app.server.inject({ method: 'GET', url: '/dashboard/sign-in', headers });
  const csrfCookie = cookiesOf(page).chipin_csrf;
  return app.server.inject({
    method: 'POST',
    url: '/dashboard/sign-in',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', cookie: `chipin_csrf=${csrfCookie}` },
    payload: form({ csrf: csrfField(page.body), email, password }),
  });
}

/** A signed-in back-office session: its cookie header and its CSRF token. */
export async function signIn(app: ChipinApp, m: { email: string; password: string }): Promise<{ cookie: string; csrf: string }> {
  const res = await postSignIn(app, m.email, m.password);
  if (res.statusCode !== 303) throw new Error(`sign-in failed: ${res.statusCode}`);
  const cookie = `chipin_dashboard=${cookiesOf(res).chipin_dashboard}`;
  const list = await app.server.inject({ method: 'GET', url: '/dashboard/purchases', headers: { cookie } });
  return { cookie, csrf: csrfField(list.body) };
}

/**
 * A second dashboard user of the account with this role, written straight into the table as
 * `chipin merchant create` writes the first one (same password hash).
 */
export async function addDashboardUser(app: ChipinApp, accountId: string, role: Role): Promise<{ id: string; email: string; password: string }> {
  const user = { id: newUuid(), email: uniqueEmail(role), password: generatePassword() };
  await app.services.db.query('INSERT INTO dashboard_users (id, account_id, email, password_hash, role) VALUES ($1, $2, $3, $4, $5)', [
    user.id,
    accountId,
    user.email,
    await hashPassword(user.password),
    role,
  ]);
  return user;
}
