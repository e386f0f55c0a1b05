import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AddressPolicy } from '../../src/outbound/addresses.ts';
import { sendRequest, type OutboundRequest } from '../../src/outbound/http-request.ts';
import { PspEndpoints } from '../../src/psp/endpoints.ts';
import { PspCallError } from '../../src/psp/psp-http.ts';
import { stripeDefinition } from '../../src/psp/stripe/definition.ts';
import { internalTargets, redirector, Trap } from './trap.ts';

/**
 * The one outbound client (src/outbound/http-request.ts) under a production policy: every
 * spelling of an internal address is refused before any connection, a name resolving to one is
 * refused before the TCP connect, and a redirect is never followed.
 */
const CARD = 'number=4242424242424242&exp=12/30&cvc=123';
const production = new AddressPolicy('production', [], 'PSP_ENDPOINT_ALLOWLIST');
const post = (policy: AddressPolicy, read: OutboundRequest['read'] = { whole: 65_536 }): OutboundRequest => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: CARD,
  policy,
  timeoutMs: 2_000,
  read,
});

let trap: Trap;
beforeAll(async () => {
  trap = await new Trap().start();
});
afterAll(async () => {
  await trap?.close();
});

describe('the outbound client in production', () => {
  it('refuses every spelling of an internal address literal without opening a socket', async () => {
    const literals = internalTargets(trap.port, 'http').filter((u) => !u.includes('localhost'));
    // Were a connection attempted, it would fail here instead of reaching the network.
    const connect = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('a connection was attempted');
    });
    try {
      for (const url of literals) {
        const a = await sendRequest(`${url}/collect`, post(production));
        expect(a, url).toMatchObject({ refused: true, error: expect.stringMatching(/^refused: .* is an internal address \(allow it with PSP_ENDPOINT_ALLOWLIST\)$/) });
        expect(a.statusCode, url).toBeUndefined();
      }
      expect(connect).not.toHaveBeenCalled();
    } finally {
      connect.mockRestore();
    }
    expect(trap.untouched).toBe(true);
  });

  it('refuses a name that resolves to loopback after the lookup, before the connection: the trap sees nothing', async () => {
    const a = await sendRequest(`http://localhost:${trap.port}/collect`, post(production));
    expect(a.refused).toBe(true);
    expect(a.error).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), an internal address/);
    expect(trap.untouched).toBe(true);
  });

  it('reaches the same trap when the operator allows the host, and in a sandbox deployment (the control)', async () => {
    const allowed = await sendRequest(`http://localhost:${trap.port}/allowed`, post(new AddressPolicy('production', ['localhost'], 'PSP_ENDPOINT_ALLOWLIST')));
    expect(allowed.statusCode).toBe(200);
    const sandbox = await sendRequest(`http://2130706433:${trap.port}/sandbox`, post(new AddressPolicy('sandbox')));
    expect(sandbox.statusCode).toBe(200);
    expect(trap.requests.map((r) => r.url)).toEqual(['/allowed', '/sandbox']);
    trap.requests.length = 0;
    trap.connections = 0;
  });

  it('never follows a redirect, whatever the status, from a host the operator allowed to the trap', async () => {
    const policy = new AddressPolicy('production', ['localhost'], 'PSP_ENDPOINT_ALLOWLIST');
    for (const status of [301, 302, 303, 307, 308]) {
      const rogue = await redirector(() => `http://127.0.0.1:${trap.port}/stolen`, status);
      try {
        const a = await sendRequest(`http://localhost:${rogue.port}/v1/payment_methods`, post(policy));
        expect(a.statusCode).toBe(status);
        expect(rogue.hits).toEqual(['/v1/payment_methods']);
      } finally {
        await rogue.close();
      }
    }
    expect(trap.untouched).toBe(true);
  });

  it('gives up at the time limit: the whole answer must come within it', async () => {
    const slow = http.createServer((_req, res) => {
      res.writeHead(200);
      res.write('{"partial":');
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const a = await sendRequest(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/`, { ...post(new AddressPolicy('sandbox')), timeoutMs: 200 });
      expect(a).toMatchObject({ timedOut: true, error: 'timed out after 200 ms' });
      expect(a.statusCode).toBeUndefined();
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });
});

describe("a PSP connector's client in production", () => {
  const endpoints = new PspEndpoints('production', ['localhost']);
  const stripeHttp = endpoints.httpFor(stripeDefinition, 'test');
  const call = (url: string) => stripeHttp.request(url, { method: 'POST', headers: {}, body: CARD, timeoutMs: 2_000 }).catch((e: unknown) => e);

  it("calls only the PSP's published hosts and the operator's: a merchant's host is refused before any lookup", async () => {
    for (const url of ['https://collector.example/v1/payment_methods', 'https://api.stripe.com.collector.example/v1', 'https://checkout-test.adyen.com/v71/payments']) {
      const err = await call(url);
      expect(err, url).toBeInstanceOf(PspCallError);
      expect(err).toMatchObject({ kind: 'refused', message: expect.stringMatching(/is not one of stripe's hosts for test \(allow it with PSP_ENDPOINT_ALLOWLIST\)$/) });
    }
  });

  it('refuses every internal address form, and a redirect from an allowed host, with nothing reaching the trap', async () => {
    const internal = new PspEndpoints('production', []).httpFor(stripeDefinition, 'test');
    for (const url of internalTargets(trap.port)) {
      const err = await internal.request(`${url}/v1/payment_methods`, { method: 'POST', headers: {}, body: CARD, timeoutMs: 2_000 }).catch((e: unknown) => e);
      expect(err, url).toMatchObject({ kind: 'refused' });
    }
    const rogue = await redirector(() => `http://127.0.0.1:${trap.port}/stolen`);
    try {
      const err = await call(`http://localhost:${rogue.port}/v1/payment_methods`);
      expect(err).toMatchObject({ kind: 'redirect', message: 'answered HTTP 307 (a redirect, not followed)' });
    } finally {
      await rogue.close();
    }
    expect(trap.untouched).toBe(true);
  });
});
