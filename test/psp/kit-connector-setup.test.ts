import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PspIntegrationError } from '../../src/psp/connector.ts';
import type { ConnectorDefinition } from '../../src/psp/definition.ts';
import { adyenDefinition } from '../../src/psp/adyen/definition.ts';
import { hipayDefinition } from '../../src/psp/hipay/definition.ts';
import { centralpayDefinition } from '../../src/psp/centralpay/definition.ts';
import { lyraDefinition } from '../../src/psp/lyra/definition.ts';
import { ogoneDefinition } from '../../src/psp/ogone/definition.ts';
import { dalenysDefinition } from '../../src/psp/dalenys/definition.ts';
import { stripeDefinition } from '../../src/psp/stripe/definition.ts';
import { connectorSetup, KitConnector } from '../../src/psp/kit/connector-setup.ts';
import { statusFault } from '../../src/psp/kit/status-fault.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { unusedOperations } from './fixtures/operations.ts';
import { LOCAL_PSP_HTTP } from './fixtures/local-http.ts';

/** The connector kit's constructor preamble, identity and status mapping (src/psp/kit/). */
describe('statusFault', () => {
  it('401 and 403 are bad_credentials; 429 and 5xx are unreachable (outcome unknown: replayed with the same key)', () => {
    for (const s of [401, 403]) expect(statusFault('acme', 'capture', s)?.code).toBe('bad_credentials');
    for (const s of [429, 500, 502, 503, 504]) expect(statusFault('acme', 'capture', s)?.code).toBe('unreachable');
  });

  it('leaves every other status to the connector', () => {
    for (const s of [200, 201, 400, 402, 404, 409, 422]) expect(statusFault('acme', 'capture', s)).toBeUndefined();
  });

  it('names the connector and the call', () => {
    expect(statusFault('acme', 'capture', 503, ', errorCode 905')?.message).toBe('acme: capture: HTTP 503, errorCode 905, outcome unknown');
  });
});

describe('connectorSetup', () => {
  const base = { psp: 'acme', timeoutMs: 1_000, http: LOCAL_PSP_HTTP, credentials: { apiKey: 'sk-very-secret' } };

  it('refuses, naming the connector, a base URL that is not absolute http(s) and a time limit that is not positive', () => {
    expect(() => connectorSetup({ ...base, baseUrl: '/v1' })).toThrow('acme: baseUrl must be an absolute http(s) URL');
    expect(() => connectorSetup({ ...base, baseUrl: 'ftp://psp.example' })).toThrow('acme: baseUrl must be an http(s) URL');
    for (const timeoutMs of [0, -1, Number.NaN]) expect(() => connectorSetup({ ...base, baseUrl: 'https://psp.example', timeoutMs })).toThrow('acme: timeoutMs must be positive');
  });

  it('strips trailing slashes and holds the credentials only redacted', () => {
    const s = connectorSetup({ ...base, baseUrl: 'https://psp.example/api//' });
    expect(s.baseUrl).toBe('https://psp.example/api');
    expect(s.credentials.reveal()).toEqual({ apiKey: 'sk-very-secret' });
    expect(`${JSON.stringify(s.credentials)} ${String(s.credentials)} ${inspect(s.credentials)}`).not.toContain('sk-very-secret');
  });
});

describe('KitConnector', () => {
  class Acme extends KitConnector {
    readonly name = 'acme';
    readonly sandbox = true;
    readonly #secret = 'sk-very-secret';
    readonly visibleSecret = 'sk-very-secret';
    protected get shownAs(): string {
      return 'AcmeConnector(psa-1)';
    }
    protected override get shownFields(): Record<string, unknown> {
      return { account: 'psa-1' };
    }
    secretLength(): number {
      return this.#secret.length;
    }
  }

  it('shows its name, environment and account through JSON, String and inspect, never a field it holds', () => {
    const c = new Acme();
    expect(JSON.parse(JSON.stringify(c))).toEqual({ name: 'acme', sandbox: true, account: 'psa-1' });
    expect(String(c)).toBe('AcmeConnector(psa-1)');
    expect(inspect(c, { showHidden: true, depth: 5 })).toBe('AcmeConnector(psa-1)');
  });
});

/** Every HTTP connector against a PSP that answers one status to every call: the same fault for the same status. */
describe('the five connectors map HTTP statuses alike', () => {
  let server: Server;
  let url: string;
  let status = 200;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{"type":"api_error","message":"x"}}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    status = 200;
  });

  const clock = new ManualClock();
  const accounts: [ConnectorDefinition, Record<string, string>][] = [
    [stripeDefinition, { secret_key: 'sk_test_0123456789abcdef', webhook_secret: 'whsec_0123456789' }],
    [adyenDefinition, { merchant_account: 'ChipinTestECOM', api_key: 'AQE-api-key', hmac_key: '00112233445566778899AABBCCDDEEFF' }],
    [lyraDefinition, { shop_id: '12345678', password: 'testpassword_abc', hmac_key: 'hmac-key-abc' }],
    [
      ogoneDefinition,
      { pspid: 'chipin', user_id: 'chipin_api', password: 'api-password', sha_in: 'sha-in-passphrase-1', sha_out: 'sha-out-passphrase-1', hash_algorithm: 'sha512' },
    ],
    [hipayDefinition, { username: 'api-login', password: 'api-password', secret_passphrase: 'passphrase' }],
    [centralpayDefinition, { login: 'api-login', api_key: 'apikey123', point_of_sale_id: '0b6c0b8e-3c5e-4b6e-9a39-5b1f0e3f7a21' }],
    [dalenysDefinition, { identifier: 'CHIPIN TEST', password: 'dalenys-password' }],
  ];
  const build = (definition: ConnectorDefinition, credentials: Record<string, string>) =>
    definition.create(
      { id: 'psa-1', environment: 'test', credentials, baseUrl: url },
      { clock, publicUrl: 'https://chipin.example', timeoutMs: 2_000, http: LOCAL_PSP_HTTP, operations: unusedOperations(clock) },
    );

  for (const [definition, credentials] of accounts) {
    it(`${definition.name}: a 429 or a 503 is unreachable, a 401 or a 403 refuses the credentials`, async () => {
      const connector = build(definition, credentials);
      for (const s of [429, 503]) {
        status = s;
        const err = await connector.verifyCredentials().catch((e: unknown) => e);
        expect(err, `HTTP ${s}`).toBeInstanceOf(PspIntegrationError);
        expect((err as PspIntegrationError).code, `HTTP ${s}`).toBe('unreachable');
      }
      for (const s of [401, 403]) {
        status = s;
        const answer = await connector.verifyCredentials();
        expect(answer.ok, `HTTP ${s}`).toBe(false);
      }
    });
  }
});
