import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pendingCount } from '../../src/http/lazy-compile.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('operations endpoints', () => {
  it("every route's schemas compile: they wait for their route's first request in production (http/lazy-compile.ts), and startTestApp compiles them all at once", () => {
    expect(pendingCount()).toBe(0);
  });

  it('GET /healthz answers ok', async () => {
    const res = await app.server.inject('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers ready once migrations are applied, 503 when one is missing', async () => {
    expect((await app.server.inject('/readyz')).json()).toEqual({ status: 'ready' });
    const { rows } = await app.services.db.query<{ version: number }>('SELECT max(version) AS version FROM schema_migrations');
    const latest = rows[0]!.version;
    // Simulate a database one migration behind the code, then put it back.
    await app.services.db.query('UPDATE schema_migrations SET version = -version WHERE version = $1', [latest]);
    try {
      const res = await app.server.inject('/readyz');
      expect(res.statusCode).toBe(503);
      expect(res.json().reason).toContain(String(latest));
    } finally {
      await app.services.db.query('UPDATE schema_migrations SET version = -version WHERE version = $1', [-latest]);
    }
  });

  it('GET /readyz stays ready (200, saying why) when the database does not answer: the process answers its requests 503 with Retry-After itself rather than leave the balancer', async () => {
    const lost = await startTestApp();
    try {
      await lost.services.db.close();
      const ready = await lost.server.inject('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', reason: 'database unreachable: requests answer 503 with Retry-After until it is back' });
      // What the requests answer then (503 with Retry-After): test/http/database-unavailable.test.ts.
    } finally {
      await lost.close().catch(() => undefined);
    }
  });

  it('while draining before a shutdown, GET /readyz answers 503 "draining" and every other request is still served', async () => {
    const draining = await startTestApp({ shutdownDrainMs: 200 });
    try {
      const drained = draining.drain();
      const ready = await draining.server.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(ready.json().status).toBe('draining');
      expect((await draining.server.inject('/healthz')).statusCode).toBe(200);
      expect((await draining.server.inject('/api/openapi.json')).statusCode).toBe(200);
      await drained;
    } finally {
      await draining.close();
    }
  });

  it('GET /metrics exposes request counts and latency histograms by route and status', async () => {
    await app.server.inject('/healthz');
    await app.server.inject('/api/whoami');
    const res = await app.server.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(/chipin_http_requests_total\{method="GET",route="\/healthz",status_code="200"\} \d+/);
    expect(res.body).toMatch(/chipin_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/whoami",status_code="401"\}/);
  });

  it('unknown /api routes answer 404 in the family error format, never HTML', async () => {
    const token = await app.server.inject('/api/nothing-here');
    expect(token.statusCode).toBe(404);
    expect(token.json().error).toMatchObject({ app_error: 'not_found' });
    const v1 = await app.server.inject('/api/merchants/v1/nothing');
    expect(v1.statusCode).toBe(404);
    expect(v1.json().error).toMatchObject({ code: 'not_found' });
  });

  it('Token API error info is localised from Accept-Language, among the six languages', async () => {
    const fr = await app.server.inject({ url: '/api/whoami', headers: { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.8' } });
    expect(fr.json().error.info).toBe('Identifiants invalides ou expirés.');
    const de = await app.server.inject({ url: '/api/whoami', headers: { 'accept-language': 'de-DE' } });
    expect(de.json().error.info).toBe('Ungültige oder abgelaufene Zugangsdaten.');
    const en = await app.server.inject({ url: '/api/whoami', headers: { 'accept-language': 'pt-BR' } });
    expect(en.json().error.info).toBe('Invalid or expired credentials.');
  });
});

describe('API documentation', () => {
  it('serves an OpenAPI 3.1 document generated from the route schemas', async () => {
    const res = await app.server.inject('/api/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const token = doc.paths['/api/token'].post;
    expect(token.requestBody.content['application/x-www-form-urlencoded'].schema.required).toContain('grant_type');
    expect(Object.keys(token.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
    expect(doc.paths['/api/whoami'].get.security).toEqual([{ bearerToken: [] }]);
  });

  it('renders the docs page at /docs', async () => {
    const res = await app.server.inject('/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('swagger');
  });
});
