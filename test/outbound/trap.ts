import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local "collector": what an attacker would point a merchant URL at. It listens on 127.0.0.1
 * and on ::1 at the same port, answers 200 to anything and counts every connection opened to it
 * and every request it read, so a test can assert that nothing reached it.
 */
export class Trap {
  connections = 0;
  readonly requests: { url: string; body: string }[] = [];
  readonly #servers: http.Server[] = [];
  port = 0;

  async start(): Promise<this> {
    // A free port on 127.0.0.1 that is also free on ::1: a few tries at most.
    for (let attempt = 0; attempt < 10 && this.#servers.length < 2; attempt++) {
      await this.close();
      const v4 = this.#server();
      await new Promise<void>((resolve) => v4.listen(0, '127.0.0.1', resolve));
      this.port = (v4.address() as AddressInfo).port;
      const v6 = this.#server();
      const ok = await new Promise<boolean>((resolve) => {
        v6.once('error', () => resolve(false));
        v6.listen(this.port, '::1', () => resolve(true));
      });
      this.#servers.push(v4, ...(ok ? [v6] : []));
    }
    if (this.#servers.length < 2) throw new Error('no port free on both 127.0.0.1 and ::1');
    return this;
  }

  /** Nothing reached it: no connection, no request. */
  get untouched(): boolean {
    return this.connections === 0 && this.requests.length === 0;
  }

  #server(): http.Server {
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        this.requests.push({ url: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    server.on('connection', () => this.connections++);
    return server;
  }

  async close(): Promise<void> {
    const servers = this.#servers.splice(0);
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())))));
  }
}

/** A server that answers every request with a redirect to `location()` (an allowed host turning rogue). */
export async function redirector(location: () => string, status = 307): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.writeHead(status, { location: location() }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * Every spelling of an internal address the service must refuse in production (docs/security.md#outbound-calls), on the
 * trap's port where it could be reached from this machine. The non-loopback ones are never
 * connected to, whatever happens: the refusal comes before any socket.
 */
export function internalTargets(port: number, scheme: 'http' | 'https' = 'https'): string[] {
  return [
    `${scheme}://127.0.0.1:${port}`,
    `${scheme}://localhost:${port}`,
    `${scheme}://[::1]:${port}`,
    `${scheme}://2130706433:${port}`,
    `${scheme}://0x7f.1:${port}`,
    `${scheme}://127.1:${port}`,
    `${scheme}://[::ffff:127.0.0.1]:${port}`,
    `${scheme}://169.254.169.254`,
    `${scheme}://10.0.0.1`,
    `${scheme}://[fd00::1]`,
    `${scheme}://[fe80::1]`,
    `${scheme}://100.64.0.1`,
  ];
}
