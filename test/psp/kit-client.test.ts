import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PspIntegrationError } from '../../src/psp/connector.ts';
import { PspClient, parseJson } from '../../src/psp/kit/json-call.ts';
import { LOCAL_PSP_HTTP } from './fixtures/local-http.ts';

/**
 * The connector kit's HTTP client (src/psp/kit/json-call.ts) against a local server standing in
 * for any PSP: what it retries, what it sends and what it logs.
 */
describe('PspClient', () => {
  let server: Server;
  let base: string;
  const seen: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];
  /** How the server answers the next requests, in turn (then 200 `{}`). */
  let script: ((res: ServerResponse) => void)[] = [];
  const lines: Record<string, unknown>[] = [];
  const client = (requestIdHeader?: string) =>
    new PspClient({
      psp: 'acme',
      http: LOCAL_PSP_HTTP,
      timeoutMs: 1_000,
      logger: { debug: (fields, message) => lines.push({ ...fields, message }) },
      ...(requestIdHeader ? { requestIdHeader } : {}),
    });

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      req.resume();
      req.on('end', () => {
        const next = script.shift();
        if (next) return next(res);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
    lines.length = 0;
    script = [];
  });

  const unavailable = (res: ServerResponse) => res.writeHead(503).end('busy');
  const hangUp = (res: ServerResponse) => res.socket?.destroy();

  it('asks a read again once when the PSP was briefly away (503), and answers the second answer', async () => {
    script = [unavailable];
    const a = await client().json('read', `${base}/payments/1`, { method: 'GET', headers: {} });
    expect(a.status).toBe(200);
    expect(seen).toHaveLength(2);
  });

  it('never sends a POST twice: its replay belongs to the operation log', async () => {
    script = [unavailable];
    const a = await client().json('capture', `${base}/payments/1/captures`, { method: 'POST', headers: {}, body: { amount: 100 } });
    expect(a.status).toBe(503);
    expect(seen).toHaveLength(1);
    script = [hangUp];
    await expect(client().json('capture', `${base}/payments/1/captures`, { method: 'POST', headers: {}, body: { amount: 100 } })).rejects.toMatchObject({ code: 'unreachable' });
    expect(seen).toHaveLength(2);
  });

  it('a read with no answer twice is the unreachable fault', async () => {
    script = [hangUp, hangUp];
    const err = await client()
      .json('read', `${base}/payments/1`, { method: 'GET', headers: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect(err).toMatchObject({ connector: 'acme', code: 'unreachable' });
    expect(seen).toHaveLength(2);
  });

  it('a call with its own time limit (a report download) is told by that limit when it passes', async () => {
    const silent = () => {}; // never answers
    script = [silent, silent];
    const err = await client()
      .request('download', `${base}/reports/1`, { method: 'GET', headers: {}, timeoutMs: 150 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unreachable', message: expect.stringContaining('no answer within 150 ms') });
  });

  it('sends a request id where the PSP documents a header for it, and logs it with no header value, body or query', async () => {
    const secret = 'sk_test_secretvalue123';
    await client('Acme-Request-Id').json('charge', `${base}/payments?token=tok_hidden`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}` },
      body: { number: '4242424242424242' },
    });
    const sent = seen[0]!.headers['acme-request-id'];
    expect(sent).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines).toEqual([expect.objectContaining({ psp: 'acme', what: 'charge', method: 'POST', path: '/payments', status: 200, request_id: sent })]);
    const logged = JSON.stringify(lines);
    for (const hidden of [secret, '4242424242424242', 'tok_hidden']) expect(logged).not.toContain(hidden);
  });

  it('sends no request id header unless the PSP documents one (the id is still logged)', async () => {
    await client().json('read', `${base}/payments/1`, { method: 'GET', headers: {} });
    expect(Object.keys(seen[0]!.headers).filter((h) => h.includes('request-id'))).toEqual([]);
    expect(lines[0]!.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('parseJson: an answer that is not JSON is bad_response; an empty one is undefined', () => {
    expect(() => parseJson('acme', 'read', { status: 200, text: '<html>' })).toThrow(expect.objectContaining({ code: 'bad_response' }));
    expect(parseJson('acme', 'read', { status: 204, text: '' })).toBeUndefined();
    expect(parseJson('acme', 'read', { status: 200, text: '{"a":1}' })).toEqual({ a: 1 });
  });
});
