/** bench:scale's credentials on the server: the v1 API's access token and the back office's session cookie. */
import type { Merchant } from './merchant.ts';

export async function accessToken(base: string, m: Merchant): Promise<string> {
  const basic = 'Basic ' + Buffer.from(`${encodeURIComponent(m.apiKey)}:${encodeURIComponent(m.apiSecret)}`).toString('base64');
  const res = await fetch(`${base}/api/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`POST /api/token answered ${res.status}`);
  return body.access_token;
}

/** The `name=value` pairs of a response's Set-Cookie headers, merged into `jar`. */
function keepCookies(res: Response, jar: Map<string, string>): void {
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
}

const cookieHeader = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/** Signs in to the back office as a browser does (tests: postSignIn): the form's CSRF cookie and field, then the POST. */
export async function signIn(base: string, m: Merchant): Promise<string> {
  const jar = new Map<string, string>();
  const page = await fetch(`${base}/dashboard/sign-in`, { signal: AbortSignal.timeout(10_000) });
  keepCookies(page, jar);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf) throw new Error('the sign-in page has no csrf field');
  const res = await fetch(`${base}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
    body: new URLSearchParams({ csrf, email: m.email, password: m.password }).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  if (res.status !== 303) throw new Error(`back-office sign-in answered ${res.status}`);
  keepCookies(res, jar);
  return cookieHeader(jar);
}
