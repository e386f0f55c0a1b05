import { ClientCredentials } from 'simple-oauth2';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newMerchant, startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let base: string;
beforeAll(async () => {
  app = await startTestApp();
  base = await app.server.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

it('a stock OAuth 2 client library (simple-oauth2) obtains a token unchanged and it works', async () => {
  const m = await newMerchant(app);
  const client = new ClientCredentials({
    client: { id: m.api_key, secret: m.api_secret },
    auth: { tokenHost: base, tokenPath: '/api/token' },
  });
  const token = await client.getToken({});
  expect(token.token.token_type).toBe('Bearer');
  expect(token.token.expires_in).toBe(600);
  const res = await fetch(`${base}/api/whoami`, { headers: { authorization: `Bearer ${token.token.access_token}` } });
  expect(res.status).toBe(200);
});

it('the stock client surfaces our refusal of a wrong secret as an OAuth error', async () => {
  const m = await newMerchant(app);
  const client = new ClientCredentials({
    client: { id: m.api_key, secret: 'sk_wrong' },
    auth: { tokenHost: base, tokenPath: '/api/token' },
  });
  await expect(client.getToken({})).rejects.toMatchObject({ output: { statusCode: 401 }, data: { payload: { error: 'invalid_client' } } });
});
