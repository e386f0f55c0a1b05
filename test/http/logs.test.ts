import { afterAll, beforeAll, expect, it } from 'vitest';
import { basic, getToken, newMerchant, startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ logLevel: 'trace' });
});
afterAll(() => app.close());

it('no API secret, password, access token or Basic credentials reach a log line during a full token flow', async () => {
  const m = await newMerchant(app);
  const token = await getToken(app, m);
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  await app.server.inject({
    method: 'POST',
    url: '/api/token',
    headers: { authorization: basic(m.api_key, 'sk_wrong_guess_123'), ...form },
    payload: 'grant_type=client_credentials',
  });
  await app.server.inject({ method: 'POST', url: '/api/token', headers: form, payload: `grant_type=client_credentials&client_id=${m.api_key}&client_secret=${m.api_secret}` });
  await app.server.inject({ method: 'GET', url: '/api/whoami', headers: { authorization: `Bearer ${token}` } });
  await app.server.inject({ method: 'GET', url: `/api/whoami?access_token=${token}`, headers: { authorization: `Bearer ${token}x` } });

  const text = app.logs.join('\n');
  expect(app.logs.length).toBeGreaterThan(4); // the flow was logged at all
  const forbidden = [
    m.api_secret,
    m.password,
    token,
    token.split('.')[2]!, // the MAC alone
    'sk_wrong_guess_123',
    Buffer.from(`${m.api_key}:${m.api_secret}`).toString('base64'),
    ...m.offers.map((o) => o.secret),
  ];
  for (const secret of forbidden) expect(text).not.toContain(secret);
});

it('every request log line carries the request id that the response header returns', async () => {
  const before = app.logs.length;
  const res = await app.server.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-abc.123' } });
  expect(res.headers['x-request-id']).toBe('trace-abc.123');
  const lines = app.logs.slice(before).map((l) => JSON.parse(l));
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(line.request_id).toBe('trace-abc.123');
  const generated = await app.server.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
  expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
});

it('at LOG_LEVEL=info a success writes no line and a refusal writes one with its request id (the request logger is made only then)', async () => {
  const quiet = await startTestApp({ logLevel: 'info' });
  try {
    const before = quiet.logs.length;
    const ok = await quiet.server.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'ok-1' } });
    expect(ok.statusCode).toBe(200);
    const refused = await quiet.server.inject({ method: 'GET', url: '/api/whoami', headers: { 'x-request-id': 'refused-1', authorization: 'Bearer nope' } });
    expect(refused.statusCode).toBe(401);
    const lines = quiet.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.request_id === 'ok-1')).toEqual([]);
    expect(lines.filter((l) => l.request_id === 'refused-1')).toEqual([expect.objectContaining({ status: 401, service: 'chipin', msg: 'request completed' })]);
  } finally {
    await quiet.close();
  }
});
