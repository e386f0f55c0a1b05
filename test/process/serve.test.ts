import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basic,
  cleanUp,
  createMerchant,
  getToken,
  jsonLines,
  killAll,
  onPostgres,
  startServe,
  stopServe,
  tempDataDir,
  tokenRequest,
  whoami,
  type CreatedMerchant,
  type Served,
  PROCESS_TEST_MS,
} from './harness.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHUTDOWN_BOUND_MS = 10_000;

/** A served instance as a process: health, metrics, logs, secrets kept out of them, and shutdown. The sandbox's first run is in serve-first-run.test.ts. */
afterAll(cleanUp);

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Resolves once a new TCP connection to `port` is refused: the server stopped listening. */
async function untilRefused(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const probe = connect(port, '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        resolve(false);
      });
      probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    });
    if (refused) return;
    if (Date.now() > deadline) throw new Error(`port ${port} still accepts connections ${timeoutMs} ms after SIGTERM`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * POST /api/token on a raw socket, with SIGTERM delivered while the request is in flight, which
 * is made deterministic with `Expect: 100-continue`: the server answers "100 Continue" only once it
 * has parsed the headers and handed the request to the router. Then SIGTERM, wait until the
 * server logged that it is shutting down and stopped listening, and only then send the body.
 */
async function tokenRequestAcrossSigterm(served: Served, m: CreatedMerchant, socket: Socket, opts: { keepAlive: boolean }): Promise<RawResponse> {
  const body = 'grant_type=client_credentials';
  let buf = '';
  const until = (done: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (done()) finish(resolve);
      };
      const fail = (why: string) => () => finish(() => reject(new Error(`${why} while waiting for ${what}; received ${JSON.stringify(buf)}\n${served.proc.output}`)));
      const onClose = fail('socket closed');
      const timer = setTimeout(fail('timed out'), 10_000);
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        socket.off('data', check).off('close', onClose);
        fn();
      };
      socket.on('data', check).on('close', onClose);
      check();
    });
  socket.setEncoding('utf8').on('data', (d: string) => (buf += d));
  socket.on('error', () => {}); // reported through 'close'
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));

  socket.write(
    [
      'POST /api/token HTTP/1.1',
      `Host: 127.0.0.1:${served.port}`,
      `Authorization: ${basic(m.api_key, m.api_secret)}`,
      'Content-Type: application/x-www-form-urlencoded',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Expect: 100-continue',
      ...(opts.keepAlive ? [] : ['Connection: close']),
      '',
      '',
    ].join('\r\n'),
  );
  const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
  await until(() => buf.startsWith(CONTINUE), '100 Continue');

  served.proc.signal('SIGTERM');
  await served.proc.waitFor((p) => p.stdout.includes('shutting down'), 'the "shutting down" log line');
  // Shutdown may do other work first; hold the body until the HTTP server itself is closing
  // (it refuses new connections), so the request is in flight while the server drains.
  await untilRefused(served.port);
  socket.write(body);

  let parsed: RawResponse | undefined;
  await until(() => {
    const rest = buf.slice(CONTINUE.length);
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return false;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length']);
    const payload = rest.slice(end + 4);
    if (Buffer.byteLength(payload) < length) return false;
    parsed = { status: Number(statusLine!.split(' ')[1]), headers, body: payload };
    return true;
  }, 'the complete token response');
  return parsed!;
}

describe('a served instance', { timeout: PROCESS_TEST_MS }, () => {
  let dataDir: string;
  let m: CreatedMerchant;
  let served: Served | undefined;

  beforeAll(async () => {
    dataDir = tempDataDir();
    m = await createMerchant(dataDir); // before serve: the embedded database has one writer
  }, PROCESS_TEST_MS);
  afterAll(killAll);

  /** The server on this DATA_DIR, started again when a test before stopped it. */
  async function serving(): Promise<Served> {
    if (!served || served.proc.exitInfo) served = await startServe(dataDir, { LOG_LEVEL: 'trace' });
    return served;
  }

  /** Waits for the access-log line of request `id`, then returns every JSON log line from `from` on. */
  async function logsOf(s: Served, id: string, from: number): Promise<Record<string, unknown>[]> {
    await s.proc.waitFor(
      (p) => p.stdout.slice(from).includes(`"request_id":"${id}"`) && p.stdout.slice(from).includes('request completed'),
      `the log line of request ${id}`,
      30_000,
    );
    return jsonLines(s.proc.stdout.slice(from));
  }

  it(
    'GET /healthz answers 200 and GET /readyz answers 200 {status:"ready"}',
    async () => {
      const s = await serving();
      const health = await fetch(`${s.url}/healthz`);
      expect(health.status).toBe(200);
      await health.arrayBuffer();
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
    },
    PROCESS_TEST_MS,
  );

  it(
    'GET /metrics counts requests per route template (route="/healthz") and exposes the latency histogram',
    async () => {
      const s = await serving();
      await (await fetch(`${s.url}/healthz`)).arrayBuffer();
      const res = await fetch(`${s.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await res.text();
      expect(text).toMatch(/^chipin_http_requests_total\{[^}]*route="\/healthz"[^}]*\} [1-9]\d*$/m);
      expect(text).toMatch(/^chipin_http_request_duration_seconds_bucket\{[^}]*le="[^"]+"[^}]*\} \d+$/m);
    },
    PROCESS_TEST_MS,
  );

  it(
    'every log line written while serving a request carries request_id, the value of the x-request-id response header',
    async () => {
      const s = await serving();
      const requests: [string, RequestInit][] = [
        ['/healthz', {}],
        ['/no/such/route', {}],
        [
          '/api/token',
          {
            method: 'POST',
            headers: { authorization: basic('key_00000000-0000-4000-8000-000000000000', 'sk_wrong'), 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials',
          },
        ],
      ];
      for (const [path, init] of requests) {
        const from = s.proc.stdout.lastIndexOf('\n') + 1;
        const res = await fetch(`${s.url}${path}`, init);
        await res.arrayBuffer();
        const id = res.headers.get('x-request-id');
        expect(id, path).toMatch(UUID);
        const lines = await logsOf(s, id!, from);
        // The access-log line of an earlier request may land here too: it carries its own id.
        for (const line of lines) expect(line, path).toEqual(expect.objectContaining({ request_id: expect.stringMatching(/\S/) }));
        expect(lines.filter((l) => l.request_id === id).map((l) => [l.msg, l.url])).toContainEqual(['request completed', path]);
      }
    },
    PROCESS_TEST_MS,
  );

  it(
    'a given x-request-id request header is echoed in the response and used as request_id in the log',
    async () => {
      const s = await serving();
      const given = `proc-test.${Date.now()}_A-1`;
      const from = s.proc.stdout.lastIndexOf('\n') + 1;
      const res = await fetch(`${s.url}/healthz`, { headers: { 'x-request-id': given } });
      await res.arrayBuffer();
      expect(res.headers.get('x-request-id')).toBe(given);
      const lines = await logsOf(s, given, from);
      expect(lines.some((l) => l.request_id === given && l.msg === 'request completed')).toBe(true);
    },
    PROCESS_TEST_MS,
  );

  it(
    'no log line contains the api_secret, dashboard password, access token or Basic credentials after a full token flow',
    async () => {
      const s = await serving();
      const wrongSecret = `${m.api_secret.slice(0, -4)}XXXX`;
      const token = await getToken(s.url, m.api_key, m.api_secret);
      const bad = await tokenRequest(s.url, m.api_key, wrongSecret);
      expect(bad.status).toBe(401);
      await bad.arrayBuffer();
      const post = await fetch(`${s.url}/api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: m.api_key, client_secret: m.api_secret }).toString(),
      });
      expect(post.status).toBe(200);
      const postToken = ((await post.json()) as { access_token: string }).access_token;
      const from = s.proc.stdout.lastIndexOf('\n') + 1;
      const me = await fetch(`${s.url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status).toBe(200);
      await me.arrayBuffer();
      await logsOf(s, me.headers.get('x-request-id')!, from);

      const output = s.proc.stdout + s.proc.stderr;
      expect(output).toContain('/api/whoami'); // the flow was logged at all
      const secrets: Record<string, string> = {
        api_secret: m.api_secret,
        wrong_secret: wrongSecret,
        password: m.password,
        access_token: token,
        access_token_post: postToken,
        access_token_signature: token.slice(token.lastIndexOf('.') + 1),
        basic_credentials: Buffer.from(`${m.api_key}:${m.api_secret}`).toString('base64'),
        basic_wrong_credentials: Buffer.from(`${m.api_key}:${wrongSecret}`).toString('base64'),
        ...Object.fromEntries(m.offers.map((o, i) => [`offer_secret_${i}`, o.secret])),
      };
      for (const [name, value] of Object.entries(secrets)) expect(output.includes(value), `${name} appears in the server output`).toBe(false);
    },
    PROCESS_TEST_MS,
  );

  it(
    'SIGTERM while POST /api/token is in flight: the request gets its complete 200 response, then "database closed" is logged and the exit code is 0',
    async () => {
      const s = await serving();
      const socket = connect(s.port, '127.0.0.1');
      try {
        const res = await tokenRequestAcrossSigterm(s, m, socket, { keepAlive: false });
        expect(res.status, res.body).toBe(200);
        const token = JSON.parse(res.body) as Record<string, unknown>;
        expect(token).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 600 });

        const exit = await s.proc.exitWithin(SHUTDOWN_BOUND_MS);
        expect(exit, s.proc.output).toEqual({ code: 0, signal: null });
        // Compared by timestamp: pino writes stdout asynchronously and serve() calls process.exit right
        // after its last line, so the lines written last can land out of order.
        const lines = s.proc.logLines();
        const at = (l: Record<string, unknown> | undefined) => (l ? Date.parse(String(l.time)) : NaN);
        const shutdown = lines.find((l) => String(l.msg).startsWith('shutting down'));
        const completed = lines.find((l) => l.request_id === res.headers['x-request-id'] && l.msg === 'request completed');
        const closed = lines.find((l) => String(l.msg).includes('database closed'));
        expect(shutdown, s.proc.stdout).toBeDefined();
        expect(completed, `the access-log line of the in-flight request\n${s.proc.stdout}`).toMatchObject({ url: '/api/token', status: 200 });
        expect(closed, s.proc.stdout).toBeDefined();
        expect(at(completed), 'the in-flight request completed after the shutdown began').toBeGreaterThanOrEqual(at(shutdown));
        expect(at(closed), 'the database closed after the in-flight request completed').toBeGreaterThanOrEqual(at(completed));
      } finally {
        socket.destroy();
      }
    },
    PROCESS_TEST_MS,
  );

  it(
    'after SIGTERM the embedded database reopens cleanly: the merchant created before still obtains a token',
    async () => {
      if (served && !served.proc.exitInfo) expect((await stopServe(served)).code, served.proc.output).toBe(0);
      if (!onPostgres) expect(existsSync(join(dataDir, 'chipin.pid')), 'the lock was released').toBe(false);
      const s = await serving();
      const token = await getToken(s.url, m.api_key, m.api_secret);
      const me = await whoami(s.url, token);
      expect(me).toEqual({ status: 200, body: expect.objectContaining({ account_id: m.account_id, api_key: m.api_key }) });
    },
    PROCESS_TEST_MS,
  );

  it(
    `SIGTERM exits within ${SHUTDOWN_BOUND_MS / 1000} s even when the client of the in-flight request keeps its connection open (HTTP/1.1 keep-alive)`,
    async () => {
      const s = await serving();
      const socket = connect(s.port, '127.0.0.1');
      try {
        const res = await tokenRequestAcrossSigterm(s, m, socket, { keepAlive: true });
        expect(res.status, res.body).toBe(200);
        // The client keeps its socket open, as a pooling HTTP client does.
        const exit = await s.proc.exitWithin(SHUTDOWN_BOUND_MS);
        expect(exit, s.proc.output).toEqual({ code: 0, signal: null });
        expect(s.proc.stdout).toContain('database closed');
      } finally {
        socket.destroy();
      }
    },
    PROCESS_TEST_MS,
  );

  it(
    'with SHUTDOWN_DRAIN_MS, SIGTERM first fails /readyz (503 draining) while requests are still served, then closes and exits 0; a second SIGTERM cuts the drain short',
    async () => {
      if (served && !served.proc.exitInfo) await stopServe(served);
      const s = (served = await startServe(dataDir, { SHUTDOWN_DRAIN_MS: '60000' }));
      s.proc.signal('SIGTERM');
      await s.proc.waitFor((p) => p.stdout.includes('draining'), 'the "draining" log line');
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'draining' });
      expect((await getToken(s.url, m.api_key, m.api_secret)).length).toBeGreaterThan(0);
      expect(s.proc.stdout).not.toContain('shutting down');
      // The drain would last a minute: a second signal ends it now.
      s.proc.signal('SIGTERM');
      const exit = await s.proc.exitWithin(SHUTDOWN_BOUND_MS);
      expect(exit, s.proc.output).toEqual({ code: 0, signal: null });
      expect(s.proc.stdout.indexOf('draining')).toBeLessThan(s.proc.stdout.indexOf('shutting down'));
    },
    PROCESS_TEST_MS,
  );
});
