/** Chipin's side of bench:delivery: the database it runs on, its access token, the purchases the events are about. */
import { execFileSync } from 'node:child_process';
import { held } from './lifecycle.ts';
import { PG_ADMIN, settings } from './settings.ts';

export interface Credentials {
  account_id: string;
  email: string;
  password: string;
  api_key: string;
  api_secret: string;
}

export async function prepareDatabase(): Promise<string | undefined> {
  if (settings.embedded) return undefined;
  if (settings.givenDatabaseUrl) return settings.givenDatabaseUrl;
  const name = `chipin_bench_${Date.now()}`;
  execFileSync('createdb', ['-h', PG_ADMIN.host, '-p', PG_ADMIN.port, '-U', PG_ADMIN.user, name], { stdio: 'pipe', timeout: 30_000 });
  held.createdDb = name;
  return `postgres://${PG_ADMIN.user}@${PG_ADMIN.host}:${PG_ADMIN.port}/${name}`;
}

export async function accessToken(url: string, c: Credentials): Promise<string> {
  const res = await fetch(`${url}/api/token`, {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(`${c.api_key}:${c.api_secret}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`POST /api/token answered ${res.status}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Runs `fn` on every item, `concurrency` at once. */
export async function pool<T, R>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

export async function createPurchases(url: string, token: string, n: number): Promise<string[]> {
  return pool(
    Array.from({ length: n }, (_, i) => i),
    8,
    async (i) => {
      const res = await fetch(`${url}/api/merchants/v1/purchases`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Bench purchase ${i}`, amount: 30_000, client: { email: 'leader@example.com' } }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`create purchase: ${res.status} ${text.slice(0, 300)}`);
      return (JSON.parse(text) as { id: string }).id;
    },
  );
}
