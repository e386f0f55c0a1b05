/**
 * Who reaches `/metrics`, over real HTTP on loopback (docs/deployment.md#metrics-and-alerts):
 * METRICS_TOKEN on the main listener, the METRICS_PORT listener of its own, production's default.
 * Every spelling the router takes for the path meets the rule of the route, never a bypass.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redacted } from '../../src/domain/redacted.ts';
import { METRICS_OFF_WARNING } from '../../src/observability/metrics-access.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const TOKEN = 'm3tr1cs-t0ken-'.padEnd(48, 'x');

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with the path sent byte for byte as given (no client normalisation). */
function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { connection: 'close', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function listening(app: TestApp): Promise<number> {
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.server.address() as AddressInfo).port;
}

/** Other spellings of the path: a query string, percent-encoding, a doubled slash, a trailing one, capitals. */
const SPELLINGS = ['/metrics?x', '/metrics?format=text', '/%6Detrics', '/%6d%65trics', '//metrics', '/metrics/', '/METRICS', '/./metrics'];
const METRICS_TEXT = /^# HELP chipin_/m;

describe('METRICS_TOKEN on the main listener', () => {
  let app: TestApp;
  let port: number;
  beforeAll(async () => {
    app = await startTestApp({ metricsToken: new Redacted(TOKEN) });
    port = await listening(app);
  });
  afterAll(() => app.close());

  it('answers 401 with a Bearer challenge without the token, and the metrics with it', async () => {
    const none = await get(port, '/metrics');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(none.body).not.toMatch(METRICS_TEXT);
    const ok = await get(port, '/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatch(METRICS_TEXT);
    expect((await get(port, '/metrics', { authorization: `bearer ${TOKEN}` })).status).toBe(200);
  });

  it.each([
    ['a wrong value of the same length', `Bearer ${TOKEN.slice(0, -1)}y`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 32)}`],
    ['the token and more', `Bearer ${TOKEN}x`],
    ['an empty token', 'Bearer '],
    ['another scheme', `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}`],
    ['the bare token', TOKEN],
  ])('refuses %s with 401', async (_what, authorization) => {
    const res = await get(port, '/metrics', { authorization });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(res.body).not.toMatch(METRICS_TEXT);
  });

  it.each(SPELLINGS)('%s without the token is never the metrics (401 on the route, 404 elsewhere)', async (path) => {
    const res = await get(port, path);
    expect([401, 404]).toContain(res.status);
    expect(res.body).not.toMatch(METRICS_TEXT);
  });

  it('HEAD /metrics asks for the token too', async () => {
    expect((await get(port, '/metrics', {}, 'HEAD')).status).toBe(401);
    expect((await get(port, '/metrics', { authorization: `Bearer ${TOKEN}` }, 'HEAD')).status).toBe(200);
  });

  it('never writes the token in an answer or a log line', async () => {
    const res = await get(port, '/metrics', { authorization: `Bearer ${TOKEN.slice(0, -1)}y` });
    expect(res.body).not.toContain(TOKEN.slice(0, 20));
    expect(app.logs.join('\n')).not.toContain(TOKEN.slice(0, 20));
  });
});

describe('METRICS_PORT: a listener of its own', () => {
  let app: TestApp;
  let port: number;
  let metricsPort: number;
  beforeAll(async () => {
    app = await startTestApp({ metricsListener: { port: 0, host: '127.0.0.1' } });
    port = await listening(app);
    metricsPort = (await app.metricsListener!.listen()).port;
  });
  afterAll(() => app.close());

  it('serves GET /metrics (a query string ignored) and the main listener answers 404 there', async () => {
    await get(port, '/healthz');
    const res = await get(metricsPort, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/^chipin_http_requests_total\{[^}]*route="\/healthz"/m);
    expect((await get(metricsPort, '/metrics?name[]=x')).status).toBe(200);
    const main = await get(port, '/metrics');
    expect(main.status).toBe(404);
    expect(main.body).not.toMatch(METRICS_TEXT);
  });

  it.each(SPELLINGS)('the main listener never answers the metrics to %s', async (path) => {
    const res = await get(port, path);
    expect(res.status).toBe(404);
    expect(res.body).not.toMatch(METRICS_TEXT);
  });

  it.each(['/', '/healthz', '/readyz', '/api/token', '//metrics', '/%6Detrics', '/metrics/', '/docs'])('the metrics listener answers 404 to GET %s', async (path) => {
    const res = await get(metricsPort, path);
    expect(res.status).toBe(404);
    expect(res.body).not.toMatch(METRICS_TEXT);
  });

  it('answers 404 to another method on /metrics, and HEAD like GET without a body', async () => {
    expect((await get(metricsPort, '/metrics', {}, 'POST')).status).toBe(404);
    const head = await get(metricsPort, '/metrics', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });
});

describe('METRICS_PORT and METRICS_TOKEN together', () => {
  it('the listener of its own asks for the token as well; closing the app closes it', async () => {
    const app = await startTestApp({ metricsListener: { port: 0, host: '127.0.0.1' }, metricsToken: new Redacted(TOKEN) });
    let metricsPort: number | undefined;
    try {
      metricsPort = (await app.metricsListener!.listen()).port;
      const none = await get(metricsPort, '/metrics');
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect((await get(metricsPort, '/metrics', { authorization: `Bearer ${TOKEN.slice(0, -1)}y` })).status).toBe(401);
      expect((await get(metricsPort, '/metrics', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    } finally {
      await app.close();
    }
    await expect(get(metricsPort!, '/metrics')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('production with neither METRICS_PORT nor METRICS_TOKEN', () => {
  it('answers 404 to /metrics and says once at start how to turn it on', async () => {
    const app = await startTestApp({ env: 'production', publicUrl: 'https://pay.example' });
    try {
      const port = await listening(app);
      for (const path of ['/metrics', '/%6Detrics', '/metrics?x']) {
        const res = await get(port, path);
        expect(res.status).toBe(404);
        expect(res.body).not.toMatch(METRICS_TEXT);
      }
      const warnings = app.logs.filter((l) => l.includes(METRICS_OFF_WARNING));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40 });
    } finally {
      await app.close();
    }
  });

  it('serves it with the token when METRICS_TOKEN is set, and warns of nothing', async () => {
    const app = await startTestApp({ env: 'production', publicUrl: 'https://pay.example', metricsToken: new Redacted(TOKEN) });
    try {
      const port = await listening(app);
      expect((await get(port, '/metrics')).status).toBe(401);
      expect((await get(port, '/metrics', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
      expect(app.logs.join('\n')).not.toContain('GET /metrics is not served');
    } finally {
      await app.close();
    }
  });
});
